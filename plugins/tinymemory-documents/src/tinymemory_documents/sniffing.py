"""``sniff``: a file's format from its bytes, its name and its declared mime, in a fixed order.

The order (the contract's): (1) zip magic → the OOXML kind its part names
say, else the one the mime or name says, else docx; (2) ``%PDF-`` → pdf;
(3) the declared mime; (4) the file name: code first (so ``CMakeLists.txt``
is code), then the extensions; (5) an HTML doctype or ``<html`` in the first
512 bytes; (6) non-empty, NUL-free text in UTF-8 or an encoding ``charset-normalizer``
names (:func:`tinymemory.files.decode_text`) → plain text; else unknown.
CSV (``text/csv``, ``.csv``, ``.tsv``) is a format of its own here, so it
converts to a markdown table.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePath

from tinymemory.files import decode_text
from tinymemory_documents.formats import DocumentFormat
from tinymemory_documents.languages import language_for_path

ZIP_MAGIC = b"PK\x03\x04"
PDF_MAGIC = b"%PDF-"

_OOXML_MIME = "application/vnd.openxmlformats-officedocument."
_MIMES = {
    "text/markdown": DocumentFormat.MARKDOWN,
    "text/x-markdown": DocumentFormat.MARKDOWN,
    "text/plain": DocumentFormat.PLAIN_TEXT,
    "text/html": DocumentFormat.HTML,
    "application/xhtml+xml": DocumentFormat.HTML,
    "text/x-source": DocumentFormat.CODE,
    "text/csv": DocumentFormat.CSV,
    "text/tab-separated-values": DocumentFormat.CSV,
    "application/pdf": DocumentFormat.PDF,
    _OOXML_MIME + "wordprocessingml.document": DocumentFormat.DOCX,
    _OOXML_MIME + "spreadsheetml.sheet": DocumentFormat.XLSX,
    "application/vnd.ms-excel.sheet.macroenabled.12": DocumentFormat.XLSX,
    _OOXML_MIME + "presentationml.presentation": DocumentFormat.PPTX,
}
_EXTENSIONS = {
    "md": DocumentFormat.MARKDOWN,
    "markdown": DocumentFormat.MARKDOWN,
    "mdown": DocumentFormat.MARKDOWN,
    "txt": DocumentFormat.PLAIN_TEXT,
    "text": DocumentFormat.PLAIN_TEXT,
    "log": DocumentFormat.PLAIN_TEXT,
    "html": DocumentFormat.HTML,
    "htm": DocumentFormat.HTML,
    "xhtml": DocumentFormat.HTML,
    "csv": DocumentFormat.CSV,
    "tsv": DocumentFormat.CSV,
    "pdf": DocumentFormat.PDF,
    "docx": DocumentFormat.DOCX,
    "xlsx": DocumentFormat.XLSX,
    "xlsm": DocumentFormat.XLSX,
    "pptx": DocumentFormat.PPTX,
}
#: The folder of an OOXML package's main part, by kind.
_PART_FOLDERS = (
    ("word/", DocumentFormat.DOCX),
    ("xl/", DocumentFormat.XLSX),
    ("ppt/", DocumentFormat.PPTX),
)
_OOXML = frozenset({DocumentFormat.DOCX, DocumentFormat.XLSX, DocumentFormat.PPTX})


def sniff(data: bytes, name: str | None = None, mime: str | None = None) -> DocumentFormat:
    """The format of ``data``, named ``name`` and declared as ``mime`` (either may be None)."""
    declared = _by_mime(mime)
    named = _by_name(name)
    if data.startswith(ZIP_MAGIC):
        return _ooxml_kind(data) or next(
            (found for found in (declared, named) if found in _OOXML), DocumentFormat.DOCX
        )
    if data.startswith(PDF_MAGIC):
        return DocumentFormat.PDF
    if declared is not None:
        return declared
    if named is not None:
        return named
    head = data[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        return DocumentFormat.HTML
    if data and decode_text(data) is not None:
        return DocumentFormat.PLAIN_TEXT
    return DocumentFormat.UNKNOWN


def _by_mime(mime: str | None) -> DocumentFormat | None:
    if not mime:
        return None
    return _MIMES.get(mime.split(";", 1)[0].strip().lower())


def _by_name(name: str | None) -> DocumentFormat | None:
    if not name:
        return None
    if language_for_path(name) is not None:
        return DocumentFormat.CODE
    suffix = PurePath(name.replace("\\", "/")).suffix.lower().lstrip(".")
    return _EXTENSIONS.get(suffix)


def _ooxml_kind(data: bytes) -> DocumentFormat | None:
    """The kind the central directory's part names say; None for a zip that is none (or broken)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            names = package.namelist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return None
    for folder, kind in _PART_FOLDERS:
        if any(part.startswith(folder) for part in names):
            return kind
    return None
