"""The hooks: the six readers, and the guard as the fetcher every reader gets by default."""

from __future__ import annotations

from tinymemory.plugin import Fetcher, SourceReader, hookimpl
from tinymemory_sources.conversations import ConversationsReader
from tinymemory_sources.feeds import FeedReader
from tinymemory_sources.github import GitHubReader
from tinymemory_sources.guard import GuardedFetcher
from tinymemory_sources.link import LinkReader
from tinymemory_sources.local_files import FileReader, FolderReader


@hookimpl
def tinymemory_source_readers() -> list[SourceReader]:
    """``folder``, ``file``, ``conversations``, ``link``, ``rss`` and ``github``."""
    return [
        FolderReader(),
        FileReader(),
        ConversationsReader(),
        LinkReader(),
        FeedReader(),
        GitHubReader(),
    ]


@hookimpl
def tinymemory_http_fetcher() -> Fetcher:
    """The guard with its default policy: what ``tm.read`` hands a reader given no fetcher."""
    return GuardedFetcher()
