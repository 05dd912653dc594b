"""The native converter: markdown, text and code kept as written; HTML and CSV to markdown."""

from __future__ import annotations

import csv
import io
import re
from typing import ClassVar

from tinymemory import Document, InvalidRequest
from tinymemory.files import DecodedText, decode_text
from tinymemory_documents.converted import converted_document
from tinymemory_documents.format_converter import FormatConverter
from tinymemory_documents.formats import DocumentFormat
from tinymemory_documents.html_markdown import html_to_markdown
from tinymemory_documents.languages import language_for_path
from tinymemory_documents.markdown_text import markdown_table, table_cell

_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_DELIMITERS = ",;\t|"


class NativeConverter(FormatConverter):
    """Converts markdown, plain text, code, HTML and CSV with the standard library alone."""

    name = "documents"
    formats: ClassVar[frozenset[DocumentFormat]] = frozenset(
        {
            DocumentFormat.MARKDOWN,
            DocumentFormat.PLAIN_TEXT,
            DocumentFormat.CODE,
            DocumentFormat.HTML,
            DocumentFormat.CSV,
        }
    )

    def convert(self, data: bytes, name: str | None, mime: str | None) -> Document:
        """The document; ``InvalidRequest`` for text no encoding reads, too large or empty.

        Text not in UTF-8 is read in the encoding an HTML page declares, else
        the one ``charset-normalizer`` names; the document's mime records it
        (``text/plain; charset=cp1252``).
        """
        shown, kind = self.claimed(data, name, mime)
        if kind is DocumentFormat.HTML:
            page = _html_text(data, shown)
            markdown, title = html_to_markdown(page.text)
            return converted_document(
                markdown, kind, shown=shown, title=title, encoding=page.encoding
            )
        decoded = _decoded(data, shown)
        text, encoding = decoded.text, decoded.encoding
        if kind is DocumentFormat.CSV:
            table = self._csv_table(text, name, shown)
            return converted_document(table, kind, shown=shown, encoding=encoding)
        language = language_for_path(name) if kind is DocumentFormat.CODE and name else None
        return converted_document(text, kind, shown=shown, language=language, encoding=encoding)

    def _csv_table(self, text: str, name: str | None, shown: str) -> str:
        sample = text[:8192]
        if (name or "").lower().endswith(".tsv"):
            delimiter = "\t"
        else:
            try:
                delimiter = csv.Sniffer().sniff(sample, delimiters=_DELIMITERS).delimiter
            except csv.Error:
                delimiter = ","
        rows: list[list[str]] = []
        cells = 0
        try:
            for row in csv.reader(io.StringIO(text), delimiter=delimiter):
                cells += len(row)
                if cells > self.limits.max_cells:
                    raise InvalidRequest(
                        f"{shown} has over {self.limits.max_cells:,} cells, the limit"
                    )
                if any(cell.strip() for cell in row):
                    rows.append([table_cell(cell) for cell in row])
        except csv.Error as error:
            raise InvalidRequest(f"{shown} is not valid CSV: {error}") from None
        return markdown_table(rows)


def _decoded(data: bytes, shown: str) -> DecodedText:
    decoded = decode_text(data)
    if decoded is None:
        raise InvalidRequest(f"{shown} is not text in any encoding a detector names")
    return decoded


def _html_text(data: bytes, shown: str) -> DecodedText:
    """The page's text: UTF-8, else the charset its ``<meta>`` declares, else the detected one."""
    try:
        return DecodedText(data.decode("utf-8-sig"), "utf-8")
    except UnicodeDecodeError:
        pass
    declared = _CHARSET.search(data[:4096])
    if declared is None:
        return _decoded(data, shown)
    charset = declared.group(1).decode("ascii")
    try:
        return DecodedText(data.decode(charset), charset.lower())
    except (LookupError, UnicodeDecodeError):
        raise InvalidRequest(
            f"{shown} is not valid in the charset it declares ({charset})"
        ) from None
