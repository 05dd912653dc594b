"""PDF: the text layer, page by page, each page after the first opening with a form feed
(``\\f``, after the line end that closes the page before), with pypdf.

Empty pages are kept (as empty text between form feeds) so the page count
and the ``page:`` tags the core's ``cut_pieces`` gives stay true. Refused
before extraction: a file whose ``%%EOF`` is missing (truncated), an
encrypted file, and more pages than the limit (the declared count is read
first, so a 20,000-page file costs no page-tree walk). A PDF with no text at
all has no text layer (a scan): ``InvalidRequest`` saying so.
"""

from __future__ import annotations

import io
import re

from tinymemory import InvalidRequest
from tinymemory_documents.limits import Deadline, Limits

PAGE_BREAK = "\f"
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_RUNS = re.compile(r"\n{3,}")


def pdf_text(data: bytes, limits: Limits, deadline: Deadline) -> tuple[str, str | None]:
    """The text of every page, joined by form feeds, and the document's title."""
    from pypdf import PdfReader

    shown = deadline.shown
    if b"%%EOF" not in data[-2048:]:
        raise InvalidRequest(f"{shown} is a truncated PDF (it has no end-of-file marker)")
    reader = PdfReader(io.BytesIO(data), strict=False)
    if reader.is_encrypted:
        raise InvalidRequest(f"{shown} is an encrypted PDF; decrypt it first")
    declared = _declared_pages(reader)
    if declared is not None and declared > limits.max_pages:
        raise InvalidRequest(
            f"{shown} declares {declared:,} pages, over the limit of {limits.max_pages:,}"
        )
    pages = reader.pages
    if len(pages) > limits.max_pages:
        raise InvalidRequest(
            f"{shown} has {len(pages):,} pages, over the limit of {limits.max_pages:,}"
        )
    texts: list[str] = []
    for page in pages:
        deadline.check()
        texts.append(_normalised(page.extract_text()))
    if not any(texts):
        raise InvalidRequest(f"{shown} has no text layer (a scanned PDF?); run OCR on it first")
    metadata = reader.metadata
    title = metadata.title if metadata is not None else None
    # A page ends its last line before the form feed: a heading closing a page never runs
    # into the first line of the next where a viewer draws no form feed.
    return f"\n{PAGE_BREAK}".join(texts), title if isinstance(title, str) else None


def _declared_pages(reader: object) -> int | None:
    """The page tree's ``/Count``, without walking the tree; None when it cannot be read."""
    try:
        count = reader.trailer["/Root"]["/Pages"]["/Count"]  # type: ignore[attr-defined]
    except (KeyError, TypeError, AttributeError, ValueError):
        return None
    return int(count) if isinstance(count, int) else None


def _normalised(text: str) -> str:
    """A page's text with runs of spaces made one, lines trimmed, blank-line runs squeezed."""
    lines = (_SPACES.sub(" ", line).strip() for line in text.replace("\f", "\n").splitlines())
    return _BLANK_RUNS.sub("\n\n", "\n".join(lines)).strip()
