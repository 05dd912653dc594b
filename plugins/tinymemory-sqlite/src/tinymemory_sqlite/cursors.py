"""Opaque cursors: what a next page needs, written so that callers cannot read into it.

A listing cursor holds the ``seq`` of the last item handed out: the next page
starts after it, so items stored meanwhile (always with a higher ``seq``)
come at the end, and forgotten ones shift nothing. A ranked cursor holds how
many hits were handed out, the highest ``seq`` that existed when the first
page was read (later items are left out of the following pages, so they
cannot push hits from one page to the next), and a digest of the request it
belongs to.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

import attrs

from tinymemory import InvalidRequest

_PREFIX = "tm1"
#: The largest number a cursor holds: SQLite's largest integer.
_LARGEST = 2**63 - 1


@attrs.frozen
class ListCursor:
    """Where a listing continues: after the item with ``after_seq``."""

    after_seq: int


@attrs.frozen
class RankedCursor:
    """Where a ranked read continues: ``offset`` hits in, over items up to ``bound_seq``."""

    bound_seq: int
    offset: int
    request: str


def request_digest(*parts: str) -> str:
    """A short digest naming a ranked request, so its cursor is refused by any other."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12]


def encode(cursor: ListCursor | RankedCursor) -> str:
    """The cursor as an opaque string."""
    if isinstance(cursor, ListCursor):
        plain = f"{_PREFIX}.l.{cursor.after_seq}"
    else:
        plain = f"{_PREFIX}.r.{cursor.bound_seq}.{cursor.offset}.{cursor.request}"
    return base64.urlsafe_b64encode(plain.encode("ascii")).decode("ascii").rstrip("=")


def decode_list(text: str | None) -> ListCursor | None:
    """The listing cursor ``text`` holds; ``InvalidRequest`` for anything else."""
    if text is None:
        return None
    parts = _parts(text)
    if len(parts) != 3 or parts[1] != "l":
        raise _unknown(text)
    return ListCursor(_number(parts[2], text))


def decode_ranked(text: str | None, request: str) -> RankedCursor | None:
    """The ranked cursor ``text`` holds for ``request``; ``InvalidRequest`` for anything else."""
    if text is None:
        return None
    parts = _parts(text)
    if len(parts) != 5 or parts[1] != "r":
        raise _unknown(text)
    if parts[4] != request:
        raise InvalidRequest(f"cursor `{text}` belongs to another request")
    return RankedCursor(_number(parts[2], text), _number(parts[3], text), parts[4])


def _parts(text: str) -> list[str]:
    try:
        padded = text + "=" * (-len(text) % 4)
        plain = base64.urlsafe_b64decode(padded.encode("ascii")).decode("ascii")
    except (UnicodeError, binascii.Error, ValueError):
        raise _unknown(text) from None
    # The decoder skips characters outside its alphabet: only the exact text issued is read.
    if base64.urlsafe_b64encode(plain.encode("ascii")).decode("ascii").rstrip("=") != text:
        raise _unknown(text)
    parts = plain.split(".")
    if parts[0] != _PREFIX:
        raise _unknown(text)
    return parts


def _number(part: str, text: str) -> int:
    if (
        not part.isascii()
        or not part.isdigit()
        or str(int(part)) != part
        or len(part) > 19
        or int(part) > _LARGEST
    ):
        raise _unknown(text)
    return int(part)


def _unknown(text: str) -> InvalidRequest:
    return InvalidRequest(f"unknown cursor `{text}`")
