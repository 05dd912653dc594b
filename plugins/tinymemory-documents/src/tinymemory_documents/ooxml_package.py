"""Opening an OOXML package (docx, xlsx, pptx) only after its zip directory passes the limits.

Checked from the central directory before any XML is parsed, in O(entries):
the entry count, each entry's declared size and compression ratio, the
declared total, encrypted entries, absolute or ``..`` names. A directory that
lies about a size cannot make more come out: ``zipfile`` stops each entry at
its declared size and then fails its CRC check, which is a ``BadZipFile``.

Then every XML part (by its name, or by its first bytes: a library picks
parts by content type) is streamed once through ``expat``, a chunk at a time,
before any library parses it: the XML the parts hold together is counted
as it inflates (bytes, elements, nesting depth) and refused past
:class:`Limits`, so what a library later holds as a tree is bounded
whatever the directory claims. OOXML never declares a DTD, so a part that
does (the start of a billion-laughs expansion) is refused too.

Once a library has opened the package, :func:`own_title` reads the title its
core properties hold, if it has any.
"""

from __future__ import annotations

import io
import itertools
import re
import zipfile
import zlib
from collections.abc import Callable
from typing import IO, Protocol
from xml.parsers import expat

from tinymemory import InvalidRequest
from tinymemory_documents.limits import Limits

#: How far into a part its root element must start (the prolog: declaration, comments).
_PROLOG_BYTES = 4096
#: How much of a part is inflated at a time.
_CHUNK = 64 * 1024
_ROOT = re.compile(rb"<[A-Za-z_]")
#: The relationship from a package to its core properties (``docProps/core.xml``).
_CORE_PROPERTIES = (
    "http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties"
)


class OpenedPackage(Protocol):
    """A package as python-docx and python-pptx open it."""

    def part_related_by(self, reltype: str) -> object:
        """The part ``reltype`` relates the package to; ``KeyError`` when there is none."""
        ...


def own_title(package: OpenedPackage, title: Callable[[], str]) -> str | None:
    """The package's own title: ``title()`` (its core properties'), None without such a part.

    For a package without one, python-docx and python-pptx make a part up, titled
    "Word Document" or "PowerPoint Presentation": no title of the file's. Reading
    the core properties is what makes it up, so ``title`` is called after the check.
    """
    try:
        package.part_related_by(_CORE_PROPERTIES)
    except KeyError:
        return None
    return title() or None


def checked_package(data: bytes, limits: Limits, shown: str) -> zipfile.ZipFile:
    """The zip of ``data``, once its directory and its XML parts pass ``limits``."""
    try:
        package = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as error:
        raise InvalidRequest(f"{shown} is not a readable zip package ({error})") from None
    try:
        _check_directory(package, limits, shown)
        _check_parts(package, limits, shown)
    except BaseException:
        package.close()
        raise
    return package


def _check_directory(package: zipfile.ZipFile, limits: Limits, shown: str) -> None:
    entries = package.infolist()
    if len(entries) > limits.max_entries:
        raise InvalidRequest(
            f"{shown} holds {len(entries):,} zip entries, over the limit of {limits.max_entries:,}"
        )
    total = 0
    for entry in entries:
        name = entry.filename
        if name.startswith(("/", "\\")) or ".." in name.replace("\\", "/").split("/"):
            raise InvalidRequest(f"{shown} has a zip entry with an unsafe name ({name!r})")
        if entry.flag_bits & 0x1:
            raise InvalidRequest(f"{shown} is encrypted (entry `{name}`); it cannot be read")
        if entry.file_size > limits.max_entry_bytes:
            raise InvalidRequest(
                f"{shown}: entry `{name}` unpacks to {entry.file_size:,} bytes, over the "
                f"{limits.max_entry_bytes:,}-byte limit (a zip bomb?)"
            )
        ratio = entry.file_size / max(entry.compress_size, 1)
        if entry.file_size > limits.ratio_floor_bytes and ratio > limits.max_ratio:
            raise InvalidRequest(
                f"{shown}: entry `{name}` is compressed {ratio:,.0f} to 1, over the limit of "
                f"{limits.max_ratio} to 1 (a zip bomb?)"
            )
        total += entry.file_size
    if total > limits.max_unzipped_bytes:
        raise InvalidRequest(
            f"{shown} unpacks to {total:,} bytes, over the {limits.max_unzipped_bytes:,}-byte "
            "limit (a zip bomb?)"
        )


class _XmlTally:
    """What a package's XML parts hold together, counted as they stream: bytes, elements, depth.

    Each part goes through ``expat`` once, in chunks, so no part is held whole.
    A part expat cannot parse stops being counted but not read: its bytes still
    count, and the library that parses it after will report the damage.
    """

    def __init__(self, limits: Limits, shown: str) -> None:
        self.limits = limits
        self.shown = shown
        self.bytes = 0
        self.elements = 0
        self.depth = 0
        self.name = ""
        self.max_elements = limits.max_xml_elements
        self.max_depth = limits.max_xml_depth

    def part(self, name: str, head: bytes, stream: IO[bytes]) -> None:
        """Count the part ``name``: its ``head``, then the rest of ``stream``.

        ``InvalidRequest`` past a limit.
        """
        _check_prolog(head, name, self.shown)
        self.name, self.depth = name, 0
        parser = expat.ParserCreate()
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.StartDoctypeDeclHandler = self._doctype
        parsing = True
        for chunk in itertools.chain([head], iter(lambda: stream.read(_CHUNK), b"")):
            self.bytes += len(chunk)
            if self.bytes > self.limits.max_xml_bytes:
                raise InvalidRequest(
                    f"{self.shown} holds over {self.limits.max_xml_bytes:,} bytes of XML, the "
                    f"limit (at part `{name}`)"
                )
            if parsing:
                try:
                    parser.Parse(chunk, False)
                except expat.ExpatError:
                    parsing = False

    def _start(self, name: str, attributes: object) -> None:
        self.elements += 1
        self.depth += 1
        if self.elements <= self.max_elements and self.depth <= self.max_depth:
            return  # the common case, kept short: it runs for every element
        if self.elements > self.limits.max_xml_elements:
            raise InvalidRequest(
                f"{self.shown} holds over {self.limits.max_xml_elements:,} XML elements, the "
                f"limit (at part `{self.name}`)"
            )
        if self.depth > self.limits.max_xml_depth:
            raise InvalidRequest(
                f"{self.shown}: part `{self.name}` nests XML elements over "
                f"{self.limits.max_xml_depth:,} deep, the limit"
            )

    def _end(self, name: str) -> None:
        self.depth -= 1

    def _doctype(self, *declaration: object) -> None:
        raise InvalidRequest(
            f"{self.shown}: part `{self.name}` declares a DTD; entity expansion is refused"
        )


def _check_parts(package: zipfile.ZipFile, limits: Limits, shown: str) -> None:
    """Stream every part that is XML by its name or by its first bytes through the tally.

    A library picks the parts it parses by content type, not by name, so a part
    holding XML under another name (``word/document.bin``) is counted too.
    """
    tally = _XmlTally(limits, shown)
    for entry in package.infolist():
        try:
            with package.open(entry) as part:
                head = part.read(_PROLOG_BYTES)
                if entry.filename.endswith((".xml", ".rels")) or _looks_like_xml(head):
                    tally.part(entry.filename, head, part)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, zlib.error) as error:
            raise InvalidRequest(
                f"{shown}: zip entry `{entry.filename}` is damaged ({error})"
            ) from None


def _looks_like_xml(head: bytes) -> bool:
    """Whether a part starts as XML does (a byte-order mark and blanks, then ``<``)."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    return head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n").startswith(b"<")


def _check_prolog(head: bytes, name: str, shown: str) -> None:
    """Refuse a DTD in the part's prolog, or a part with no root element near its start."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16: check it as text
        head = head.decode("utf-16", "replace").encode("utf-8", "replace")
    root = _ROOT.search(head)
    prolog = head[: root.start()] if root else head
    if b"<!DOCTYPE" in prolog.upper() or b"<!ENTITY" in prolog.upper():
        raise InvalidRequest(f"{shown}: part `{name}` declares a DTD; entity expansion is refused")
    if root is None and len(head) == _PROLOG_BYTES:
        raise InvalidRequest(
            f"{shown}: part `{name}` has no root element in its first {_PROLOG_BYTES:,} bytes"
        )
