"""The installed plugin: its readers by name, and the guard as every reader's default fetcher."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import LoopbackServer

import tinymemory as tm
from tinymemory.plugin import ReaderContext, SourceSkip
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
    from tinymemory._plugin_manager import plugin_manager  # test-only: register a reader

    reader = ThirdParty()
    offers = _Offers(reader)
    plugin_manager().register(offers, name="third-party")
    yield reader
    plugin_manager().unregister(offers)


def test_any_reader_fetches_through_the_guard_by_default(
    third_party: ThirdParty, server: LoopbackServer
) -> None:
    server.answer("/", b"internal secret")
    for url in (server.url(), "http://169.254.169.254/latest/meta-data/", "file:///etc/passwd"):
        with pytest.raises(tm.InvalidRequest, match="refused to fetch"):
            list(tm.read("third-party", options={"url": url}))
    assert isinstance(third_party.fetcher, GuardedFetcher)
    assert server.requests == []
