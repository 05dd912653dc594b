"""The native converter: markdown, text and code kept as written; HTML and CSV to markdown."""

from __future__ import annotations

import csv
import io
import re
from typing import ClassVar

from tinymemory import Document, InvalidRequest
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
        """The document; ``InvalidRequest`` for text that is not UTF-8, too large or empty."""
        shown, kind = self.claimed(data, name, mime)
        if kind is DocumentFormat.HTML:
            markdown, title = html_to_markdown(_html_text(data, shown))
            return converted_document(markdown, kind, shown=shown, title=title)
        text = _utf8(data, shown)
        if kind is DocumentFormat.CSV:
            return converted_document(self._csv_table(text, name, shown), kind, shown=shown)
        language = language_for_path(name) if kind is DocumentFormat.CODE and name else None
        return converted_document(text, kind, shown=shown, language=language)

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


def _utf8(data: bytes, shown: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InvalidRequest(f"{shown} is not valid UTF-8 (byte {error.start})") from None


def _html_text(data: bytes, shown: str) -> str:
    """The page's text: UTF-8, else the charset its ``<meta>`` declares."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        declared = _CHARSET.search(data[:4096])
        if declared is None:
            raise InvalidRequest(f"{shown} is not UTF-8 and declares no charset") from None
        try:
            return data.decode(declared.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            raise InvalidRequest(
                f"{shown} is not valid in the charset it declares "
                f"({declared.group(1).decode('ascii', 'replace')})"
            ) from None
