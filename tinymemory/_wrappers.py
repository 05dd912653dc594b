"""Compressed files read as what they hold, and archives member by member, both bounded.

A wrapper (gzip, bzip2, xz, zstd) is told by its magic number, never by the
name alone, and is read through the standard library's streaming readers
(``zstandard``, the ``zstd`` extra, for zstd: Python 3.11 has none in its
standard library). Two limits make a decompression bomb a named refusal
rather than a full memory:

- what a wrapper holds may be at most ``max_bytes`` (the bound of any file
  read, :data:`~tinymemory.files.MAX_FILE_BYTES`);
- past :data:`RATIO_FLOOR_BYTES`, it may be at most :data:`MAX_RATIO` times
  the size of the compressed data. Text compresses 3 to 10 times, and even a
  repetitive log rarely 50; a bomb of zeros compresses about 1,000 times
  (gzip) to millions (bzip2, zstd). The check runs while reading, so a bomb
  is refused after ``MAX_RATIO`` times its size, never expanded to the end.

An archive (zip, tar) holds many files: :func:`archive_members` reads each
under the same limits, skips links, folders and names that climb out
(``..``, absolute), and stops at :data:`MAX_MEMBERS`. A zip that is one
document's package (OOXML's ``[Content_Types].xml``, ODF's and EPUB's
``mimetype``) is no archive here: a converter reads it whole.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import importlib
import io
import lzma
import tarfile
import zipfile
from collections.abc import Iterator
from typing import IO, Any, Protocol

import attrs

from tinymemory._errors import InvalidRequest, Unsupported

#: A wrapper may hold at most this many times its own size (past the floor below).
MAX_RATIO = 100
#: Below this many bytes held, no ratio is checked: a tiny file compresses oddly.
RATIO_FLOOR_BYTES = 1024 * 1024
#: The most members of one archive read; the rest are one skip.
MAX_MEMBERS = 10_000
#: Nested wrappers (a ``.gz`` of a ``.gz``) are opened this deep at most.
MAX_DEPTH = 4
_CHUNK = 256 * 1024

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: (magic, wrapper name, suffixes its files carry).
_WRAPPERS = (
    (b"\x1f\x8b", "gzip", (".gz", ".gzip")),
    (b"BZh", "bzip2", (".bz2", ".bz")),
    (b"\xfd7zXZ\x00", "xz", (".xz",)),
    (_ZSTD_MAGIC, "zstd", (".zst", ".zstd")),
)
#: Short names of a compressed tar, and the name of what they hold.
_TAR_SHORT = {".tgz": ".tar", ".tbz2": ".tar", ".tbz": ".tar", ".txz": ".tar", ".tzst": ".tar"}
#: Entries that make a zip one document's package, not an archive of files.
_PACKAGE_ENTRIES = frozenset({"[Content_Types].xml", "mimetype", "META-INF/manifest.xml"})


@attrs.frozen
class Unwrapped:
    """What a file holds: its ``data``, the ``name`` it goes by, and the wrappers taken off."""

    data: bytes
    name: str | None
    wrappers: tuple[str, ...] = ()


@attrs.frozen
class ArchiveMember:
    """One file of an archive: its path inside, and its bytes or why it is left out."""

    name: str
    data: bytes | None = None
    skipped: str | None = None


def wrapper_of(data: bytes) -> str | None:
    """The compression wrapping ``data`` (gzip, bzip2, xz, zstd), by its magic; else None."""
    return next((label for magic, label, _ in _WRAPPERS if data.startswith(magic)), None)


def unwrap(data: bytes, name: str | None = None, *, max_bytes: int) -> Unwrapped:
    """``data`` with every compression wrapper taken off, and ``name`` without their suffixes.

    ``InvalidRequest`` naming the file, the wrapper and the limit for a
    decompression bomb, a file holding more than ``max_bytes``, or broken
    compressed data; ``Unsupported`` for zstd when ``zstandard`` is missing.
    """
    wrappers: list[str] = []
    while (label := wrapper_of(data)) is not None and len(wrappers) < MAX_DEPTH:
        data = _decompressed(data, label, name, max_bytes)
        name = _inner_name(name, label)
        wrappers.append(label)
    return Unwrapped(data, name, tuple(wrappers))


def _inner_name(name: str | None, label: str) -> str | None:
    if name is None:
        return None
    suffixes = next(suffixes for _, wrapper, suffixes in _WRAPPERS if wrapper == label)
    lowered = name.lower()
    for suffix in suffixes:
        if lowered.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    for short, long in _TAR_SHORT.items():
        if lowered.endswith(short):
            return name[: -len(short)] + long
    return name


class _Reader(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...
    def close(self) -> None: ...


def _opened(label: str, raw: io.BytesIO) -> _Reader:
    if label == "gzip":
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if label == "bzip2":
        return bz2.BZ2File(raw, mode="rb")
    if label == "xz":
        return lzma.LZMAFile(raw, mode="rb")
    try:  # the `zstd` extra; imported by name, as it may not be installed where types are checked
        zstandard: Any = importlib.import_module("zstandard")
    except ImportError:
        raise Unsupported(
            "zstd needs the `zstandard` package: pip install 'tinymemory[zstd]'"
        ) from None
    reader: _Reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
    return reader


def _decompressed(data: bytes, label: str, name: str | None, max_bytes: int) -> bytes:
    shown = f"`{name}`" if name else "the data"
    bomb = max(RATIO_FLOOR_BYTES, MAX_RATIO * len(data))
    chunks: list[bytes] = []
    held = 0
    try:
        with contextlib.closing(_opened(label, io.BytesIO(data))) as stream:
            while chunk := stream.read(_CHUNK):
                chunks.append(chunk)
                held += len(chunk)
                if held > bomb:
                    raise InvalidRequest(
                        f"{shown} is a decompression bomb: its {label} data holds over "
                        f"{MAX_RATIO} times its {len(data):,} bytes"
                    )
                if held > max_bytes:
                    raise InvalidRequest(
                        f"{shown} holds more than the {max_bytes:,}-byte limit once its "
                        f"{label} is opened"
                    )
    except (OSError, EOFError, lzma.LZMAError, ValueError) as error:
        # zstandard's ZstdError is a ValueError; a truncated file is EOFError.
        raise InvalidRequest(f"{shown} is broken {label} data: {error}") from None
    return b"".join(chunks)


def is_archive(data: bytes, name: str | None = None) -> bool:
    """Whether ``data`` is a zip or tar of files (a zip that is a document's package is not)."""
    if data.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return not any(entry in _PACKAGE_ENTRIES for entry in archive.namelist())
        except (zipfile.BadZipFile, ValueError, OSError):
            return False
    ustar = data[257:262] == b"ustar"
    return ustar or (bool(name) and str(name).lower().endswith(".tar") and _opens_as_tar(data))


def _opens_as_tar(data: bytes) -> bool:
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:"):
            return True
    except (tarfile.TarError, OSError, ValueError):
        return False


def archive_members(data: bytes, *, max_bytes: int) -> Iterator[ArchiveMember]:
    """Each regular file of the zip or tar ``data``, its name as written inside, in order.

    A member over ``max_bytes``, compressed over :data:`MAX_RATIO` times,
    or named outside the archive (``..``, absolute) comes with the reason it
    is skipped; links and folders are left out; past :data:`MAX_MEMBERS`
    one skip says how many more there were. A broken archive is
    ``InvalidRequest``.
    """
    try:
        if data.startswith(b"PK\x03\x04"):
            yield from _zip_members(data, max_bytes)
        else:
            yield from _tar_members(data, max_bytes)
    except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, ValueError) as error:
        raise InvalidRequest(f"a broken archive: {error}") from None


def _unsafe(name: str) -> str | None:
    if name.startswith("/") or "\\" in name or ".." in name.split("/"):
        return "named outside the archive, not read"
    return None


def _zip_members(data: bytes, max_bytes: int) -> Iterator[ArchiveMember]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = [entry for entry in archive.infolist() if not entry.is_dir()]
        for entry in entries[:MAX_MEMBERS]:
            name = entry.filename
            reason = _unsafe(name) or _declared_over(entry, max_bytes)
            if reason is not None:
                yield ArchiveMember(name, skipped=reason)
                continue
            with archive.open(entry) as stream:
                yield _bounded_member(name, stream, entry.compress_size, max_bytes)
        yield from _past_the_cap(len(entries))


def _declared_over(entry: zipfile.ZipInfo, max_bytes: int) -> str | None:
    if entry.file_size > max_bytes:
        return f"{entry.file_size:,} bytes, over the {max_bytes:,}-byte limit"
    if entry.file_size > max(RATIO_FLOOR_BYTES, MAX_RATIO * entry.compress_size):
        return f"a decompression bomb: over {MAX_RATIO} times its compressed size"
    return None


def _bounded_member(name: str, stream: IO[bytes], packed: int, max_bytes: int) -> ArchiveMember:
    """The member read to at most ``max_bytes``, and to the ratio its packed size allows."""
    bound = min(max_bytes, max(RATIO_FLOOR_BYTES, MAX_RATIO * packed))
    data = stream.read(bound + 1)
    if len(data) > bound:
        over = "the size limit" if bound == max_bytes else f"{MAX_RATIO} times its compressed size"
        return ArchiveMember(name, skipped=f"holds more than {over}")
    return ArchiveMember(name, data=data)


def _tar_members(data: bytes, max_bytes: int) -> Iterator[ArchiveMember]:
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
        members = [member for member in archive.getmembers() if not member.isdir()]
        for member in members[:MAX_MEMBERS]:
            name = member.name
            if not member.isfile():
                yield ArchiveMember(name, skipped="a link or special file, not followed")
                continue
            reason = _unsafe(name) or (
                f"{member.size:,} bytes, over the {max_bytes:,}-byte limit"
                if member.size > max_bytes
                else None
            )
            stream = archive.extractfile(member) if reason is None else None
            if stream is None:
                yield ArchiveMember(name, skipped=reason or "cannot be read")
                continue
            with stream:  # within the bound: the whole tar is
                yield ArchiveMember(name, data=stream.read())
        yield from _past_the_cap(len(members))


def _past_the_cap(count: int) -> Iterator[ArchiveMember]:
    """One skip naming how many members were past :data:`MAX_MEMBERS`, when any were."""
    if count > MAX_MEMBERS:
        yield ArchiveMember(
            f"({count - MAX_MEMBERS:,} more)",
            skipped=f"past the {MAX_MEMBERS:,} members read of one archive",
        )


def member_path(archive: str, member: str) -> str:
    """Where a member is said to be: the archive's path, then its path inside as written."""
    return f"{archive.rstrip('/')}/{member.lstrip('/')}"
