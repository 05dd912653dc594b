"""The installed plugin: its readers by name, and the guard as every reader's default fetcher."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import LoopbackServer

import tinymemory as tm
from tinymemory.plugin import ReaderContext, SourceSkip
from tinymemory.testing import registered
from tinymemory_sources import GuardedFetcher


def test_the_readers_are_installed() -> None:
    (info,) = [info for info in tm.list_plugins() if info.name == "sources"]
    assert info.distribution == "tinymemory-sources"
    assert set(info.hooks) == {"tinymemory_http_fetcher", "tinymemory_source_readers"}
    for name in ("folder", "file", "conversations", "link", "rss", "github"):
        with pytest.raises(tm.InvalidRequest, match=f"reader `{name}`"):
            tm.read(name, options={"no_such_option": 1})


class ThirdParty:
    """Another plugin's reader, which fetches whatever it is asked to."""

    name = "third-party"

    def read(self, context: ReaderContext) -> Iterator[tm.StoreItem | SourceSkip]:
        self.fetcher = context.fetcher
        response = context.fetcher(context.options["url"])
        yield tm.Learning(text=response.body.decode())


class _Offers:
    def __init__(self, reader: ThirdParty) -> None:
        self.reader = reader

    @tm.hookimpl
    def tinymemory_source_readers(self) -> list[ThirdParty]:
        return [self.reader]


@pytest.fixture
def third_party() -> Iterator[ThirdParty]:
    reader = ThirdParty()
    with registered(_Offers(reader), "third-party"):
        yield reader


def test_any_reader_fetches_through_the_guard_by_default(
    third_party: ThirdParty, server: LoopbackServer
) -> None:
    server.answer("/", b"internal secret")
    for url in (server.url(), "http://169.254.169.254/latest/meta-data/", "file:///etc/passwd"):
        with pytest.raises(tm.InvalidRequest, match="refused to fetch"):
            list(tm.read("third-party", options={"url": url}))
    assert isinstance(third_party.fetcher, GuardedFetcher)
    assert server.requests == []


def _readers() -> dict[str, object]:
    from tinymemory_sources.plugin import tinymemory_source_readers

    return {reader.name: reader for reader in tinymemory_source_readers()}


@pytest.mark.parametrize(
    ("source", "claimed"),
    [
        ("https://github.com/acme/app", "github"),
        ("http://www.github.com/acme/app", "github"),
        ("git@github.com:acme/app.git", "github"),
        ("https://example.com/github.com/x", "link"),
        ("https://gitlab.com/acme/app", "link"),
        ("http://example.com/feed.xml", "link"),  # a feed is named with --reader rss
        ("ftp://example.com/file", None),
        ("mailto:ada@example.com", None),
    ],
)
def test_each_url_is_claimed_by_the_first_reader_by_priority(
    source: str, claimed: str | None
) -> None:
    readers = _readers()
    ordered = sorted(readers.values(), key=lambda r: (getattr(r, "priority", 0), r.name))
    found = next((r.name for r in ordered if hasattr(r, "claims") and r.claims(source)), None)
    assert found == claimed


def test_folders_and_files_are_claimed_by_what_they_are(tmp_path: Path) -> None:
    readers = _readers()
    (tmp_path / "note.md").write_text("x", encoding="utf-8")
    claims = {name: r.claims for name, r in readers.items() if hasattr(r, "claims")}
    assert set(claims) == {"folder", "file", "link", "github"}  # rss, conversations: by name
    assert [name for name, c in claims.items() if c(str(tmp_path))] == ["folder"]
    assert [name for name, c in claims.items() if c(str(tmp_path / "note.md"))] == ["file"]
    assert [name for name, c in claims.items() if c(str(tmp_path / "nope"))] == []


def test_every_declared_option_is_one_the_reader_takes() -> None:
    for reader in _readers().values():
        declared = [option.name for option in getattr(reader, "options", ())]
        assert set(declared) <= set(reader.OPTIONS), reader.name
        assert reader.source_option in reader.OPTIONS
        assert reader.source_option not in declared
    assert _readers()["github"].credential_variable == "GITHUB_TOKEN"
