"""The office converter: PDF, DOCX, PPTX and XLSX to markdown (the ``office`` extra).

Each library is imported only when a file of its format is converted. Every
failure of a parsing library (a damaged zip, broken XML, a recursion limit)
ends as ``InvalidRequest`` naming the file and the kind of damage, never the
file's content.
"""

from __future__ import annotations

import importlib.util
from typing import ClassVar

from tinymemory import Document, InvalidRequest, TinyMemoryError, Unsupported
from tinymemory_documents.converted import converted_document
from tinymemory_documents.docx_markdown import docx_markdown
from tinymemory_documents.format_converter import FormatConverter
from tinymemory_documents.formats import OFFICE_FORMATS, DocumentFormat
from tinymemory_documents.ooxml_package import checked_package
from tinymemory_documents.pdf_text import pdf_text
from tinymemory_documents.pptx_markdown import pptx_markdown
from tinymemory_documents.xlsx_markdown import xlsx_markdown

#: The module each format needs, and the distribution it comes in.
_LIBRARIES = {
    DocumentFormat.PDF: ("pypdf", "pypdf"),
    DocumentFormat.DOCX: ("docx", "python-docx"),
    DocumentFormat.PPTX: ("pptx", "python-pptx"),
    DocumentFormat.XLSX: ("openpyxl", "openpyxl"),
}


class OfficeConverter(FormatConverter):
    """Converts PDF, DOCX, PPTX and XLSX under :class:`Limits`."""

    name = "documents-office"
    formats: ClassVar[frozenset[DocumentFormat]] = OFFICE_FORMATS

    def convert(self, data: bytes, name: str | None, mime: str | None) -> Document:
        """The document; ``InvalidRequest`` for a file that is damaged, hostile or over a limit."""
        shown, kind = self.claimed(data, name, mime)
        module, distribution = _LIBRARIES[kind]
        if importlib.util.find_spec(module) is None:
            raise Unsupported(
                f"{shown} is {kind.value}, which needs {distribution}: "
                "pip install 'tinymemory-documents[office]'"
            )
        deadline = self.limits.clock(shown)
        try:
            if kind is DocumentFormat.PDF:
                markdown, title = pdf_text(data, self.limits, deadline)
            else:
                checked_package(data, self.limits, shown).close()
                if kind is DocumentFormat.DOCX:
                    markdown, title = docx_markdown(data, deadline)
                elif kind is DocumentFormat.PPTX:
                    markdown, title = pptx_markdown(data, self.limits, deadline)
                else:
                    markdown, title = xlsx_markdown(data, self.limits, deadline)
        except TinyMemoryError:
            raise
        except Exception as error:  # any parser failure, RecursionError and MemoryError included
            raise InvalidRequest(
                f"{shown} could not be read as {kind.value}: the file is damaged or not "
                f"what it claims ({type(error).__name__})"
            ) from None
        return converted_document(markdown, kind, shown=shown, title=title)
