"""TinyMemory's document converters: format sniffing and conversion to markdown.

Installed, the plugin registers two converters that ``tinymemory.convert``
asks (``priority`` 100, so a host's own converters of the default priority
come first): :class:`NativeConverter` (markdown, text and code kept; HTML and
CSV to markdown) and :class:`OfficeConverter` (PDF, DOCX, PPTX and XLSX with
the ``office`` extra). Both run under :class:`Limits`; pass your own limits
by handing ``convert`` a converter built with them.
"""

from __future__ import annotations

from tinymemory_documents.formats import DocumentFormat
from tinymemory_documents.languages import language_for_path
from tinymemory_documents.limits import Limits
from tinymemory_documents.native import NativeConverter
from tinymemory_documents.office import OfficeConverter
from tinymemory_documents.sniffing import sniff

__all__ = [
    "DocumentFormat",
    "Limits",
    "NativeConverter",
    "OfficeConverter",
    "language_for_path",
    "sniff",
]
