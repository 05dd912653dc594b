"""The Document a converter hands back, built one way for every format."""

from __future__ import annotations

from tinymemory import Document, InvalidRequest, MemoryMeta
from tinymemory_documents.formats import PROSE_FORMATS, DocumentFormat
from tinymemory_documents.markdown_text import first_heading, without_title_heading


def shown_as(name: str | None) -> str:
    """How an error names the input: its file name, or ``the data``."""
    return f"`{name}`" if name else "the data"


def converted_document(
    markdown: str,
    kind: DocumentFormat,
    *,
    shown: str,
    title: str | None = None,
    language: str | None = None,
    encoding: str = "utf-8",
) -> Document:
    """A Document of ``markdown`` with the format's mime.

    The title is the document's own, else (prose only) its first heading; with
    neither it is left unset, so ``convert`` falls back to the file name. A
    body opening with a heading that says the document's own title loses that
    heading, as the document shows its title first (prose is kept as written).
    A blank result is ``InvalidRequest``: a converter never stores nothing.
    Text read in another ``encoding`` than UTF-8 names it in the mime.
    """
    if not markdown.strip():
        raise InvalidRequest(f"{shown} holds no text to convert")
    own = " ".join((title or "").split()) or None
    body = markdown if own is None else without_title_heading(markdown, own)
    if own is None and kind in PROSE_FORMATS:
        own = first_heading(markdown)  # prose is kept as written, its heading too
    mime = kind.mime if encoding == "utf-8" else f"{kind.mime}; charset={encoding}"
    return Document(title=own, body=body, mime=mime, meta=MemoryMeta(language=language))
