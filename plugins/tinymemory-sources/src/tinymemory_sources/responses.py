"""What the network readers share about a fetched response: its status and its headers."""

from __future__ import annotations

import urllib.parse

import tinymemory as tm
from tinymemory.plugin import HttpResponse


def header(response: HttpResponse, name: str) -> str | None:
    """The header ``name``, matched without regard to case (fetchers spell names differently)."""
    wanted = name.lower()
    return next((value for key, value in response.headers.items() if key.lower() == wanted), None)


def shown_url(url: str) -> str:
    """``url`` without its query, for an error message (a query may carry a token)."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def check_status(response: HttpResponse) -> HttpResponse:
    """``response`` when it is a success; 404 is ``NotFound``, any other status ``EngineError``."""
    if 200 <= response.status < 300:
        return response
    where = shown_url(response.url)
    if response.status == 404:
        raise tm.NotFound(f"`{where}` answered 404 not found")
    raise tm.EngineError(f"`{where}` answered HTTP {response.status}")


def mime_of(response: HttpResponse) -> str | None:
    """The response's declared mime type, without parameters."""
    declared = header(response, "content-type")
    return declared.split(";")[0].strip().lower() or None if declared else None
