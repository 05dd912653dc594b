"""The limits every conversion runs under, so a hostile file ends in a clear error, fast.

Checked before any parse where they can be (raw size, the zip directory, a
PDF's declared page count, a sheet's declared range), while an OOXML
package's XML is streamed once before any library parses it (bytes as they
inflate, elements, depth), and again while converting (cells streamed, the
deadline between pages, slides and sheets).
"""

from __future__ import annotations

import time
from typing import Any

import attrs

from tinymemory import InvalidRequest

MIB = 1024 * 1024


def _positive(instance: object, attribute: attrs.Attribute[Any], value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise InvalidRequest(f"`{attribute.name}` must be a positive number")


@attrs.frozen(kw_only=True)
class Limits:
    """How much a converter reads before refusing a file as too large or too costly."""

    #: Most raw bytes a file may have (the contract's ``MAX_DOCUMENT_BYTES``).
    max_bytes: int = attrs.field(default=32 * MIB, validator=_positive)
    #: Most uncompressed bytes an OOXML package may declare, all entries together.
    max_unzipped_bytes: int = attrs.field(default=64 * MIB, validator=_positive)
    #: Most uncompressed bytes of any one entry.
    max_entry_bytes: int = attrs.field(default=64 * MIB, validator=_positive)
    #: Highest compression ratio of an entry over ``ratio_floor_bytes`` (real files: 7 to 20).
    max_ratio: int = attrs.field(default=100, validator=_positive)
    ratio_floor_bytes: int = attrs.field(default=MIB, validator=_positive)
    #: Most entries in a package.
    max_entries: int = attrs.field(default=10_000, validator=_positive)
    #: Most bytes of XML a package's parts hold together, counted as they inflate. A library
    #: holds a part's XML as a tree: this and the next two keep that tree's memory bounded.
    max_xml_bytes: int = attrs.field(default=16 * MIB, validator=_positive)
    #: Most XML elements a package's parts hold together (a million take about 200 MB as a tree).
    max_xml_elements: int = attrs.field(default=300_000, validator=_positive)
    #: Deepest an XML element may be nested (libxml2's own limit without huge trees is 256).
    max_xml_depth: int = attrs.field(default=256, validator=_positive)
    #: Most cells of a spreadsheet, all sheets together (declared ranges and cells read).
    max_cells: int = attrs.field(default=1_000_000, validator=_positive)
    #: Most pages of a PDF, and slides of a presentation.
    max_pages: int = attrs.field(default=2_000, validator=_positive)
    #: Seconds one conversion may take, checked between pages, slides, sheets and rows.
    deadline_seconds: float = attrs.field(default=30.0, validator=_positive)

    def check_size(self, data: bytes, shown: str) -> None:
        """``InvalidRequest`` for an empty file or one over ``max_bytes``."""
        if not data:
            raise InvalidRequest(f"{shown} is empty")
        if len(data) > self.max_bytes:
            raise InvalidRequest(
                f"{shown} is {len(data):,} bytes, over the {self.max_bytes:,}-byte limit"
            )

    def clock(self, shown: str) -> Deadline:
        """A deadline starting now."""
        return Deadline(time.monotonic() + self.deadline_seconds, self.deadline_seconds, shown)


@attrs.define
class Deadline:
    """The moment a conversion must be done by; :meth:`check` raises once it has passed."""

    at: float
    seconds: float
    shown: str

    def check(self) -> None:
        """``InvalidRequest`` once the deadline has passed."""
        if time.monotonic() > self.at:
            raise InvalidRequest(f"{self.shown} took over {self.seconds:g} s to convert")
