"""TinyMemory's source readers and the SSRF guard they fetch through.

Installed, the plugin offers the readers ``folder``, ``file``,
``conversations``, ``link``, ``rss`` and ``github`` to :func:`tinymemory.read`,
and :class:`GuardedFetcher` as the fetcher every reader (another plugin's too)
is handed when the caller passes none.
"""

from __future__ import annotations

from tinymemory_sources.address_rules import blocked_reason
from tinymemory_sources.conversations import ConversationsReader
from tinymemory_sources.feeds import FeedReader
from tinymemory_sources.github import GitHubReader
from tinymemory_sources.guard import GuardedFetcher, GuardPolicy, Pinned
from tinymemory_sources.link import LinkReader
from tinymemory_sources.local_files import FileReader, FolderReader

__all__ = [
    "ConversationsReader",
    "FeedReader",
    "FileReader",
    "FolderReader",
    "GitHubReader",
    "GuardPolicy",
    "GuardedFetcher",
    "LinkReader",
    "Pinned",
    "blocked_reason",
]
