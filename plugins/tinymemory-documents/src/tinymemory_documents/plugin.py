"""The entry point: the native and office converters, registered with their priority."""

from __future__ import annotations

from tinymemory.plugin import DocumentConverter, hookimpl
from tinymemory_documents.native import NativeConverter
from tinymemory_documents.office import OfficeConverter


@hookimpl
def tinymemory_document_converters() -> list[DocumentConverter]:
    """Both converters, with the default limits."""
    return [NativeConverter(), OfficeConverter()]
