"""The ``link`` and ``rss`` readers against the loopback server, through the guard."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from conftest import LoopbackServer, loopback_fetcher

import tinymemory as tm
from tinymemory.plugin import SourceSkip

RSS = b"""<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/">
<channel><title>News</title>
<item><title>Launch moved</title><link>https://example.com/launch</link>
<guid>launch-1</guid>
<description>&lt;p&gt;The launch is on &lt;b&gt;Friday&lt;/b&gt;.&lt;/p&gt;</description>
<pubDate>Sun, 01 Mar 2026 10:00:00 +0000</pubDate></item>
<item><title>Only encoded</title><link>https://example.com/enc</link>
<content:encoded><![CDATA[Plain & simple]]></content:encoded></item>
<item><title>Empty</title><link>https://example.com/empty</link></item>
</channel></rss>"""

ATOM = b"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Blog</title>
<entry><id>urn:1</id><title>Hello</title>
<link rel="self" href="https://example.com/self"/><link href="https://example.com/hello"/>
<updated>2026-03-02T08:30:00Z</updated><summary>First post.</summary></entry>
</feed>"""

BOMB = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<rss><channel><item><description>&lol2;</description></item></channel></rss>"""


def test_a_link_is_fetched_and_converted(server: LoopbackServer, without_converters: None) -> None:
    server.redirect("/go", "/notes/plan.md")
    server.answer(
        "/notes/plan.md", b"# Plan\n\nShip it.", headers={"Content-Type": "text/markdown"}
    )
    (item,) = tm.read("link", options={"url": server.url("/go")}, fetcher=loopback_fetcher(server))
    assert isinstance(item, tm.Document)
    assert (item.title, item.body.text, item.mime) == (
        "plan.md",
        "# Plan\n\nShip it.",
        "text/markdown",
    )
    assert item.meta.url == server.url("/notes/plan.md")
    assert item.meta.source == tm.SourceRef(kind=tm.SourceKind.LINK, id=server.url("/go"))


def test_a_link_without_a_file_name_is_titled_by_its_url(server: LoopbackServer) -> None:
    server.answer("/", b"hello")
    (item,) = tm.read("link", options={"url": server.url()}, fetcher=loopback_fetcher(server))
    assert item.title == server.url()


def test_a_failing_link_is_an_error(server: LoopbackServer) -> None:
    server.answer("/gone", b"", status=500)
    server.answer("/empty", b"")
    fetcher = loopback_fetcher(server)
    with pytest.raises(tm.NotFound, match="404"):
        tm.read("link", options={"url": server.url("/missing?token=abc")}, fetcher=fetcher)
    with pytest.raises(tm.EngineError, match="HTTP 500"):
        tm.read("link", options={"url": server.url("/gone")}, fetcher=fetcher)
    with pytest.raises(tm.InvalidRequest, match="empty body"):
        tm.read("link", options={"url": server.url("/empty")}, fetcher=fetcher)


def test_an_error_never_shows_a_query(server: LoopbackServer) -> None:
    with pytest.raises(tm.NotFound) as missing:
        tm.read(
            "link",
            options={"url": server.url("/missing?token=abc")},
            fetcher=loopback_fetcher(server),
        )
    assert "abc" not in str(missing.value)


def test_an_rss_feed(server: LoopbackServer, without_converters: None) -> None:
    server.answer("/feed.xml", RSS, headers={"Content-Type": "application/rss+xml"})
    found = list(
        tm.read("rss", options={"url": server.url("/feed.xml")}, fetcher=loopback_fetcher(server))
    )
    first, second, skip = found
    assert isinstance(first, tm.Document)
    assert isinstance(second, tm.Document)
    assert first.title == "Launch moved"
    assert first.body.text == "<p>The launch is on <b>Friday</b>.</p>"  # no HTML converter here
    assert first.meta.url == "https://example.com/launch"
    assert first.meta.observed_at == datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    assert first.meta.source == tm.SourceRef(kind=tm.SourceKind.RSS, id=server.url("/feed.xml"))
    assert second.body.text == "Plain & simple"
    assert isinstance(skip, SourceSkip)
    assert skip.what == "https://example.com/empty"


def test_an_atom_feed(server: LoopbackServer) -> None:
    server.answer("/atom", ATOM)
    (entry,) = tm.read(
        "rss", options={"url": server.url("/atom")}, fetcher=loopback_fetcher(server)
    )
    assert isinstance(entry, tm.Document)
    assert (entry.title, entry.body.text) == ("Hello", "First post.")
    assert entry.meta.url == "https://example.com/hello"
    assert entry.meta.observed_at == datetime(2026, 3, 2, 8, 30, tzinfo=UTC)


def test_max_items(server: LoopbackServer) -> None:
    server.answer("/feed.xml", RSS)
    found = tm.read(
        "rss",
        options={"url": server.url("/feed.xml"), "max_items": 1},
        fetcher=loopback_fetcher(server),
    )
    assert len(list(found)) == 1


def test_entities_are_never_expanded(server: LoopbackServer) -> None:
    server.answer("/bomb", BOMB)
    with pytest.raises(tm.InvalidRequest, match="unsafe XML"):
        tm.read("rss", options={"url": server.url("/bomb")}, fetcher=loopback_fetcher(server))


def test_what_is_no_feed_is_refused(server: LoopbackServer) -> None:
    server.answer("/html", b"<html><body>hi</body></html>")
    server.answer("/bad", b"<rss><channel>")
    fetcher = loopback_fetcher(server)
    with pytest.raises(tm.InvalidRequest, match="neither an RSS nor an Atom feed"):
        tm.read("rss", options={"url": server.url("/html")}, fetcher=fetcher)
    with pytest.raises(tm.InvalidRequest, match="not well-formed"):
        tm.read("rss", options={"url": server.url("/bad")}, fetcher=fetcher)
