"""Opaque cursors: what a next page needs, written so that callers cannot read into it.

A listing cursor holds the ``seq`` of the last item handed out; items are
given their ``seq`` in commit order, so items stored meanwhile come at the
end and forgotten ones shift nothing. A ranked cursor holds how many hits
were handed out, the highest ``seq`` the first page's snapshot held (later
items stay out of the following pages) and a digest of its request.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

from tinymemory import InvalidRequest

_PREFIX = "pg1"
#: PostgreSQL's largest ``bigint``.
LARGEST = 2**63 - 1


def request_digest(*parts: str) -> str:
    """A short digest naming a ranked request, so its cursor is refused by any other."""
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:12]


def encode_list(after_seq: int) -> str:
    """A listing cursor continuing after ``after_seq``."""
    return _encode(f"{_PREFIX}.l.{after_seq}")


def encode_ranked(bound: int, offset: int, digest: str) -> str:
    """A ranked cursor: ``offset`` hits in, over items up to ``bound``, for ``digest``."""
    return _encode(f"{_PREFIX}.r.{bound}.{offset}.{digest}")


def decode_list(text: str | None) -> int:
    """The ``seq`` a listing continues after (0 without a cursor); ``InvalidRequest`` else."""
    if text is None:
        return 0
    parts = _parts(text)
    if len(parts) != 3 or parts[1] != "l":
        raise _unknown(text)
    return _number(parts[2], text)


def decode_ranked(text: str | None, digest: str) -> tuple[int, int] | None:
    """``(bound, offset)`` of a ranked cursor of ``digest``; ``InvalidRequest`` for any other."""
    if text is None:
        return None
    parts = _parts(text)
    if len(parts) != 5 or parts[1] != "r":
        raise _unknown(text)
    if parts[4] != digest:
        raise InvalidRequest(f"cursor `{text}` belongs to another request")
    return _number(parts[2], text), _number(parts[3], text)


def _encode(plain: str) -> str:
    return base64.urlsafe_b64encode(plain.encode("ascii")).decode("ascii").rstrip("=")


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
        or int(part) > LARGEST
    ):
        raise _unknown(text)
    return int(part)


def _unknown(text: str) -> InvalidRequest:
    return InvalidRequest(f"unknown cursor `{text}`")
