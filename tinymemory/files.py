"""Files in and out: reads held to a bound, and a file replaced only once complete.

Every read of outside input goes through one of the readers here, so no file
or stream is held in memory before its size is known to be within a bound:

- :func:`read_file` checks the size the file system reports, then reads at
  most one byte past the bound (a file that grows in between is still
  refused);
- :func:`read_stream` reads a stream (stdin) to the same bound;
- :func:`read_line` reads a stream's next line, held to a bound (a longer
  line is skipped whole and refused), and :func:`bounded_lines` yields a
  stream's lines so.

:func:`replacing` writes a file aside and renames it over its target only
once it is complete, so a reader never sees half of it and a failure leaves
the old file as it was.

Each refusal is ``InvalidRequest`` naming what was read and the bound.

What a file holds: :func:`unwrap` takes compression off (gzip, bzip2, xz,
zstd; a decompression bomb refused), :func:`decode_text` reads text in any
encoding a detector names, and :func:`archive_members` reads a zip or tar
member by member, under the same limits.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, BinaryIO

from tinymemory._encodings import DecodedText, decode_text
from tinymemory._errors import InvalidRequest
from tinymemory._wrappers import (
    MAX_MEMBERS,
    MAX_RATIO,
    RATIO_FLOOR_BYTES,
    ArchiveMember,
    Unwrapped,
    archive_members,
    is_archive,
    member_path,
    unwrap,
    wrapper_of,
)

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_MEMBERS",
    "MAX_RATIO",
    "RATIO_FLOOR_BYTES",
    "ArchiveMember",
    "DecodedText",
    "LineTooLong",
    "Unwrapped",
    "archive_members",
    "decode_text",
    "is_archive",
    "member_path",
    "unwrap",
    "wrapper_of",
    "bounded_lines",
    "read_file",
    "read_line",
    "read_stream",
    "replacing",
]

#: The most bytes ``convert`` (and so ``store --file``) reads of one file: 32 MiB.
MAX_FILE_BYTES = 32 * 1024 * 1024
#: How much a reader asks for at a time.
_CHUNK = 1024 * 1024


def read_file(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the file at ``path``; ``InvalidRequest`` when it cannot be read or is too big.

    The size is checked on the opened file before anything is read, so a huge
    file is refused at once, holding none of it. Only a regular file is read
    (a folder, a pipe or a device is refused: its size says nothing).
    """
    shown = f"`{path}`"
    try:
        # Looked at before it is opened: opening a pipe would wait for a writer.
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise InvalidRequest(f"{shown} is not a regular file")
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after the checks
    except OSError as error:
        raise InvalidRequest(f"{shown} cannot be read: {error.strerror}") from None
    with handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):  # replaced since it was looked at
            raise InvalidRequest(f"{shown} is not a regular file")
        if info.st_size > max_bytes:
            raise InvalidRequest(
                f"{shown} is {info.st_size:,} bytes, over the {max_bytes:,}-byte limit"
            )
        try:
            return read_stream(handle, max_bytes, shown=shown)
        except OSError as error:
            raise InvalidRequest(f"{shown} cannot be read: {error.strerror}") from None


def read_stream(stream: BinaryIO, max_bytes: int, *, shown: str = "the input") -> bytes:
    """Everything ``stream`` holds, read to at most ``max_bytes`` (``InvalidRequest`` past it)."""
    chunks: list[bytes] = []
    held = 0
    while chunk := stream.read(min(_CHUNK, max_bytes + 1 - held)):
        chunks.append(chunk)
        held += len(chunk)
        if held > max_bytes:
            raise InvalidRequest(f"{shown} holds more than the {max_bytes:,}-byte limit")
    return b"".join(chunks)


class LineTooLong(InvalidRequest):
    """A line over the bound :func:`read_line` was given; the stream is past its end."""


def read_line(stream: BinaryIO, max_bytes: int) -> bytes:
    """The next line of ``stream`` with its line end (``b""`` at the end of the stream).

    A line over ``max_bytes`` is read on to its end, no more than
    ``max_bytes`` of it held at a time, then refused with :class:`LineTooLong`:
    the next call reads the line after it, so a reader can answer and go on.
    """
    line = stream.readline(max_bytes + 1)
    if len(line) <= max_bytes:
        return line
    ended = line.endswith(b"\n")
    del line  # let it go before the rest is read
    while not ended:
        rest = stream.readline(_CHUNK)
        ended = not rest or rest.endswith(b"\n")
    raise LineTooLong(f"a line is over the {max_bytes:,}-byte limit of a line")


def bounded_lines(
    stream: BinaryIO, max_line_bytes: int, *, shown: str = "the input"
) -> Iterator[bytes]:
    """The lines of ``stream`` (each with its line end), none held past ``max_line_bytes``.

    A longer line ends the lines: ``InvalidRequest`` naming its number.
    """
    number = 0
    while True:
        number += 1
        try:
            line = read_line(stream, max_line_bytes)
        except LineTooLong:
            raise InvalidRequest(
                f"{shown}: line {number} is over the {max_line_bytes:,}-byte limit of a line"
            ) from None
        if not line:
            return
        yield line


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """A UTF-8 text file beside ``path`` (through symlinks), renamed over it once complete.

    The new file is flushed to disk before the rename, so a crash leaves the
    old file or the whole new one. It is readable by its owner only (memory
    is private), unless it replaces a file, whose permissions it keeps. When
    the block raises, the
    file aside is removed and ``path`` is left as it was. A file that cannot be
    made or renamed is ``InvalidRequest`` naming ``path`` and why.
    """
    target = Path(path).resolve()
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".part"
        )
        if target.is_file():
            os.chmod(descriptor, target.stat().st_mode & 0o777)
    except OSError as error:
        raise InvalidRequest(f"`{path}` cannot be written: {error.strerror}") from None
    try:
        with open(descriptor, "w", encoding="utf-8") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())  # on disk before it takes the old file's place
        os.replace(temporary, target)
    except BaseException as error:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise InvalidRequest(f"`{path}` cannot be written: {error.strerror}") from None
        raise
