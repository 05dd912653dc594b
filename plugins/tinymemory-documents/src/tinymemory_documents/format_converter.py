"""What both converters share: their limits, and claiming the formats they read by sniffing."""

from __future__ import annotations

from typing import ClassVar

from tinymemory import InvalidRequest
from tinymemory_documents.converted import shown_as
from tinymemory_documents.formats import DocumentFormat
from tinymemory_documents.limits import Limits
from tinymemory_documents.sniffing import sniff


class FormatConverter:
    """A converter of the ``formats`` :func:`sniff` tells apart, under :class:`Limits`."""

    #: After a host's own converters of the default priority (0).
    priority = 100
    formats: ClassVar[frozenset[DocumentFormat]] = frozenset()

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits or Limits()

    def sniff(self, data: bytes, name: str | None, mime: str | None) -> bool:
        """Whether ``data`` is one of the formats this converter reads."""
        return sniff(data, name, mime) in self.formats

    def claimed(
        self, data: bytes, name: str | None, mime: str | None
    ) -> tuple[str, DocumentFormat]:
        """How errors name the data, and its format: once it is within the size limit, and ours."""
        shown = shown_as(name)
        self.limits.check_size(data, shown)
        kind = sniff(data, name, mime)
        if kind not in self.formats:
            raise InvalidRequest(f"{shown} is {kind.value}, which this converter does not read")
        return shown, kind
