"""Cursors: opaque, authenticated, and saying nothing of what the read does not admit.

A cursor holds a few positions (non-negative integers below 2**63) for one
read of one memory. It is sealed with the memory's secret by a deterministic
authenticated encryption built from HMAC-SHA256 alone (a synthetic IV, as in
SIV mode, RFC 5297): the tag is the HMAC of the engine's name, the read and
the positions; the positions are encrypted with a key stream drawn from the
tag. So

- a caller cannot read the positions (the sqlite engine's ``seq`` counts
  items across all scopes: in the clear it told a reader how much its
  siblings hold and when they write);
- the same positions of the same read give the same cursor, byte for byte,
  whatever else the memory holds: an engine that builds positions only from
  what the read admits issues cursors that no sibling's writes can change;
- anything not issued by this codec for this read is ``InvalidRequest``: a
  character appended, changed or removed, padding, another encoding of the
  same bytes, another read's cursor, another memory's or another engine's.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
import secrets
import struct

from tinymemory._errors import InvalidRequest

#: The largest position a cursor holds (SQLite's and PostgreSQL's largest integer).
LARGEST_POSITION = 2**63 - 1
#: How many bytes of the tag a cursor carries.
_TAG = 16
_VERSION = 1
_ALPHABET = re.compile(r"[A-Za-z0-9_-]+")
#: How much of a refused cursor an error message shows.
_SHOWN = 48


def read_key(*parts: str) -> str:
    """The name of one read, from the parts that make it (operation, mode, query, filter JSON).

    A cursor is issued for one read: it is refused by any other.
    """
    joined = "\x1f".join(parts).encode("utf-8", "surrogatepass")
    return hashlib.sha256(joined).hexdigest()


class CursorCodec:
    """Seals and opens one memory's cursors.

    ``secret`` is the memory's own (:func:`new_secret`, kept with the memory,
    so cursors outlive a process); ``engine`` names the engine, so a cursor
    is never taken for another engine's. Thread-safe: it holds no state.
    """

    def __init__(self, secret: bytes, *, engine: str) -> None:
        if len(secret) < 16:
            raise ValueError("a cursor secret holds at least 16 bytes")
        self._engine = engine.encode("utf-8")
        self._mac_key = hmac.digest(secret, b"tinymemory cursor tag", "sha256")
        self._stream_key = hmac.digest(secret, b"tinymemory cursor stream", "sha256")

    def __repr__(self) -> str:
        return "<CursorCodec>"  # the secret stays out of every repr

    def encode(self, read: str, *positions: int) -> str:
        """The cursor continuing ``read`` at ``positions``."""
        for position in positions:
            if not 0 <= position <= LARGEST_POSITION:
                raise ValueError(f"a cursor position is in 0..2**63-1, not {position}")
        return self.seal(read, struct.pack(f">{len(positions)}Q", *positions))

    def decode(self, read: str, text: str | None, count: int) -> tuple[int, ...] | None:
        """The ``count`` positions of ``text``, a cursor of ``read``; None without one.

        ``InvalidRequest`` for anything this codec did not issue for ``read``.
        """
        if text is None:
            return None
        if len(text) != _encoded_length(_TAG + 1 + 8 * count):
            raise unknown_cursor(text)
        positions: tuple[int, ...] = struct.unpack(f">{count}Q", self.unseal(read, text))
        if any(position > LARGEST_POSITION for position in positions):
            raise unknown_cursor(text)
        return positions

    def seal(self, read: str, data: bytes) -> str:
        """The cursor carrying ``data`` (any bytes: an engine whose positions are not
        integers, such as a remote service's own cursor) for ``read``."""
        plain = bytes([_VERSION]) + data
        tag = self._tag(read, plain)
        sealed = tag + _xor(plain, self._stream(tag, len(plain)))
        return base64.urlsafe_b64encode(sealed).decode("ascii").rstrip("=")

    def unseal(self, read: str, text: str) -> bytes:
        """The data :meth:`seal` put in ``text`` for ``read``; ``InvalidRequest`` for
        anything this codec did not issue for ``read``."""
        if len(text) < _encoded_length(_TAG + 1) or not _ALPHABET.fullmatch(text):
            raise unknown_cursor(text)
        try:
            sealed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            raise unknown_cursor(text) from None
        # Only the canonical spelling: unused low bits of the last character must be 0.
        if base64.urlsafe_b64encode(sealed).decode("ascii").rstrip("=") != text:
            raise unknown_cursor(text)
        tag, body = sealed[:_TAG], sealed[_TAG:]
        plain = _xor(body, self._stream(tag, len(body)))
        if not hmac.compare_digest(tag, self._tag(read, plain)) or plain[:1] != bytes([_VERSION]):
            raise unknown_cursor(text)
        return plain[1:]

    def _tag(self, read: str, plain: bytes) -> bytes:
        message = b"\x00".join((self._engine, read.encode("utf-8", "surrogatepass"), plain))
        return hmac.digest(self._mac_key, message, "sha256")[:_TAG]

    def _stream(self, tag: bytes, size: int) -> bytes:
        blocks = (
            hmac.digest(self._stream_key, tag + struct.pack(">I", index), "sha256")
            for index in range(-(-size // 32))
        )
        return b"".join(blocks)[:size]


def new_secret() -> bytes:
    """A fresh random secret for a memory's cursors (32 bytes)."""
    return secrets.token_bytes(32)


def unknown_cursor(text: str) -> InvalidRequest:
    """The refusal of a cursor not issued for the read: ``unknown cursor `...```."""
    shown = text if len(text) <= _SHOWN else text[:_SHOWN] + "…"
    return InvalidRequest(f"unknown cursor `{shown}`")


def _xor(left: bytes, right: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(left, right, strict=True))


def _encoded_length(size: int) -> int:
    return -(-size * 4 // 3)
