"""The ``rss`` reader: RSS 2.0 and Atom feeds, parsed with defusedxml (extra ``network``).

The feed is fetched through the context's fetcher (the guard by default) and
parsed with DTDs, entities and external references all refused, so a billion
laughs or an external entity is an ``InvalidRequest``, never expanded. Each
entry becomes a document: its title, its body (HTML goes through the
converters, so an HTML converter turns it into markdown; without one the text
is kept), ``meta.url`` the entry's link and ``observed_at`` its time.
"""

from __future__ import annotations

import email.utils
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import tinymemory as tm
from tinymemory.plugin import ReaderContext, ReaderOption, SourceSkip
from tinymemory_sources.reader_options import check_names, int_option, option_names, text_option
from tinymemory_sources.responses import check_status

if TYPE_CHECKING:
    from xml.etree.ElementTree import Element

ATOM = "{http://www.w3.org/2005/Atom}"
CONTENT_ENCODED = "{http://purl.org/rss/1.0/modules/content/}encoded"
MIB = 1024 * 1024
#: The largest feed read (the contract's cap for feeds).
MAX_FEED_BYTES = 5 * MIB


def parse_feed(data: bytes) -> Element:
    """The feed's root element; ``InvalidRequest`` for XML that is bad or unsafe."""
    try:
        import defusedxml
        from defusedxml import ElementTree
    except ImportError:
        raise tm.Unsupported(
            "reading feeds needs defusedxml: pip install 'tinymemory-sources[network]'"
        ) from None
    try:
        return ElementTree.fromstring(
            data, forbid_dtd=True, forbid_entities=True, forbid_external=True
        )
    except defusedxml.DefusedXmlException as error:
        raise tm.InvalidRequest(f"the feed was refused as unsafe XML: {error}") from None
    except ElementTree.ParseError as error:
        raise tm.InvalidRequest(f"the feed is not well-formed XML: {error}") from None


def _text(element: Element | None) -> str | None:
    if element is None:
        return None
    text = "".join(element.itertext()).strip()
    return text or None


def _rss_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _atom_time(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


#: One entry as read: (id, title, link, body, time).
Entry = tuple[str, str | None, str | None, str | None, datetime | None]


def feed_entries(root: Element) -> list[Entry]:
    """The entries of an RSS or Atom feed, in the feed's order."""
    if root.tag == "rss" or root.find("channel") is not None:
        channel = root.find("channel")
        items = channel.findall("item") if channel is not None else []
        return [
            (
                _text(item.find("guid")) or _text(item.find("link")) or f"rss-{index}",
                _text(item.find("title")),
                _text(item.find("link")),
                _text(item.find("description")) or _text(item.find(CONTENT_ENCODED)),
                _rss_time(_text(item.find("pubDate"))),
            )
            for index, item in enumerate(items)
        ]
    if root.tag == f"{ATOM}feed":
        found = []
        for index, entry in enumerate(root.findall(f"{ATOM}entry")):
            links = entry.findall(f"{ATOM}link")
            chosen = next((ln for ln in links if ln.get("rel", "alternate") == "alternate"), None)
            found.append(
                (
                    _text(entry.find(f"{ATOM}id")) or f"atom-{index}",
                    _text(entry.find(f"{ATOM}title")),
                    chosen.get("href") if chosen is not None else None,
                    _text(entry.find(f"{ATOM}content")) or _text(entry.find(f"{ATOM}summary")),
                    _atom_time(_text(entry.find(f"{ATOM}updated")))
                    or _atom_time(_text(entry.find(f"{ATOM}published"))),
                )
            )
        return found
    raise tm.InvalidRequest("the document is neither an RSS nor an Atom feed")


class FeedReader:
    """``rss``: the newest entries of the RSS or Atom feed at ``url``.

    Options: ``url`` (required), ``max_items`` (default 50), ``workspace``.
    An entry with no body is a skip.
    """

    name = "rss"
    source_option = "url"
    options = (
        ReaderOption(name="max_items", kind="integer", help="Newest entries read (default 50)."),
    )
    OPTIONS = option_names(source_option, options, "workspace")

    def read(self, context: ReaderContext) -> Iterator[tm.StoreItem | SourceSkip]:
        """Fetch and parse the feed, yielding a document per entry."""
        check_names(self.name, context.options, self.OPTIONS)
        url = str(text_option(self.name, context.options, "url", required=True))
        limit = int_option(self.name, context.options, "max_items", 50, 1, 10_000)
        workspace = text_option(self.name, context.options, "workspace")
        response = check_status(context.fetcher(url))
        if len(response.body) > MAX_FEED_BYTES:
            raise tm.InvalidRequest(f"the feed is over the cap of {MAX_FEED_BYTES} bytes")
        entries = feed_entries(parse_feed(response.body))[:limit]
        listed = datetime.now(UTC)
        return iter([self._item(entry, url, workspace, listed) for entry in entries])

    def _item(
        self, entry: Entry, url: str, workspace: str | None, listed: datetime
    ) -> tm.StoreItem | SourceSkip:
        entry_id, title, link, body, moment = entry
        if body is None:
            return SourceSkip(what=link or entry_id, reason="the entry has no body")
        meta = tm.MemoryMeta(
            workspace=workspace,
            url=link or url,
            observed_at=moment or listed,
            source=tm.SourceRef(kind=tm.SourceKind.RSS, id=url),
        )
        mime = "text/html" if "<" in body else "text/plain"
        document = tm.convert(body.encode("utf-8"), mime=mime, meta=meta)
        return tm.Document(title=title, body=document.body, mime=document.mime, meta=document.meta)
