"""The document formats the converters tell apart, and each one's canonical mime type."""

from __future__ import annotations

import enum


class DocumentFormat(enum.Enum):
    """What a file holds, as :func:`~tinymemory_documents.sniff` decides it."""

    MARKDOWN = "markdown"
    PLAIN_TEXT = "plain_text"
    HTML = "html"
    CODE = "code"
    CSV = "csv"
    PDF = "pdf"
    DOCX = "docx"
    XLSX = "xlsx"
    PPTX = "pptx"
    UNKNOWN = "unknown"

    @property
    def mime(self) -> str:
        """The mime type a Document of this format is stored with."""
        return _MIMES[self]


_OOXML = "application/vnd.openxmlformats-officedocument."
_MIMES = {
    DocumentFormat.MARKDOWN: "text/markdown",
    DocumentFormat.PLAIN_TEXT: "text/plain",
    DocumentFormat.HTML: "text/html",
    DocumentFormat.CODE: "text/x-source",
    DocumentFormat.CSV: "text/csv",
    DocumentFormat.PDF: "application/pdf",
    DocumentFormat.DOCX: _OOXML + "wordprocessingml.document",
    DocumentFormat.XLSX: _OOXML + "spreadsheetml.sheet",
    DocumentFormat.PPTX: _OOXML + "presentationml.presentation",
    DocumentFormat.UNKNOWN: "application/octet-stream",
}

#: The formats the office converter reads (the ``office`` extra).
OFFICE_FORMATS = frozenset(
    {DocumentFormat.PDF, DocumentFormat.DOCX, DocumentFormat.XLSX, DocumentFormat.PPTX}
)
#: Prose formats: with no title of its own, the first heading is the title (code's is no heading,
#: a sheet's name and a slide's heading are no document title).
PROSE_FORMATS = frozenset(
    {
        DocumentFormat.MARKDOWN,
        DocumentFormat.PLAIN_TEXT,
        DocumentFormat.HTML,
        DocumentFormat.PDF,
        DocumentFormat.DOCX,
    }
)
