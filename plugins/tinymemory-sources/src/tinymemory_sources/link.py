"""The ``link`` reader: one URL, fetched through the context's fetcher (the guard by default)."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from datetime import UTC, datetime

import tinymemory as tm
from tinymemory.plugin import ReaderContext, SourceSkip
from tinymemory_sources.reader_options import check_names, text_option
from tinymemory_sources.responses import check_status, mime_of


def name_hint(url: str) -> str | None:
    """The URL's last path segment when it looks like a file name (it holds a dot)."""
    last = urllib.parse.unquote(urllib.parse.urlsplit(url).path.rsplit("/", 1)[-1])
    return last if "." in last.strip(".") else None


class LinkReader:
    """``link``: the page or file at ``url`` as one document (options ``url``, ``workspace``).

    The declared Content-Type and the file name the URL ends in tell the
    converters what it is; ``meta.url`` is the URL finally fetched (after
    redirects) and the source id the URL asked for.
    """

    name = "link"
    source_option = "url"
    OPTIONS = (source_option, "workspace")
    #: Asked after the readers of particular sites (GitHub), as it reads any http(s) url.
    priority = 1

    def claims(self, source: str) -> bool:
        """Any http or https url."""
        return urllib.parse.urlsplit(source).scheme in ("http", "https")

    def read(self, context: ReaderContext) -> Iterator[tm.StoreItem | SourceSkip]:
        """Fetch the URL and yield it as a document."""
        check_names(self.name, context.options, self.OPTIONS)
        url = str(text_option(self.name, context.options, "url", required=True))
        workspace = text_option(self.name, context.options, "workspace")
        response = check_status(context.fetcher(url))
        if not response.body.strip():
            raise tm.InvalidRequest(f"`{response.url}` answered with an empty body")
        hint = name_hint(response.url)
        meta = tm.MemoryMeta(
            workspace=workspace,
            url=response.url,
            observed_at=datetime.now(UTC),
            source=tm.SourceRef(kind=tm.SourceKind.LINK, id=url),
        )
        document = tm.convert(response.body, name=hint, mime=mime_of(response), meta=meta)
        if document.title is None:
            document = tm.Document(
                title=response.url, body=document.body, mime=document.mime, meta=document.meta
            )
        return iter([document])
