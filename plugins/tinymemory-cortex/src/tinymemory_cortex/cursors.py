"""Opaque cursors: a tag letter and the lowercase hex of compact JSON.

``l`` (list and export): ``{"scope"?, "engine"?, "offset", "last"?}`` — the
scope being read, CortexDB's cursor of the page being read, how many raw
events of that page were consumed, and the last event id seen (so the copy
of an event split across a page boundary is dropped). ``f`` (fetch):
``{"offset"}`` into the merged ranking. Anything else is ``InvalidRequest``.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from tinymemory import InvalidRequest


def encode(tag: str, data: dict[str, Any]) -> str:
    """The cursor holding ``data`` under ``tag``."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return tag + text.encode("utf-8").hex()


def decode(tag: str, cursor: str) -> dict[str, Any]:
    """The data of a cursor this engine issued under ``tag``; ``InvalidRequest`` otherwise."""
    try:
        if not cursor.startswith(tag):
            raise ValueError
        data = json.loads(bytes.fromhex(cursor[len(tag) :]).decode("utf-8"))
        if not isinstance(data, dict):
            raise ValueError
        return data
    except ValueError:
        raise InvalidRequest("the cursor was not issued by this engine for this read") from None


@attrs.frozen
class ListCursor:
    """Where a listing resumes."""

    scope: str | None = None
    engine: str | None = None
    offset: int = 0
    last: str | None = None

    def encode(self) -> str:
        data: dict[str, Any] = {"offset": self.offset}
        for name in ("scope", "engine", "last"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return encode("l", data)

    @classmethod
    def decode(cls, cursor: str) -> ListCursor:
        data = decode("l", cursor)
        offset = data.get("offset")
        fields = [data.get(name) for name in ("scope", "engine", "last")]
        if (
            not isinstance(offset, int)
            or isinstance(offset, bool)
            or offset < 0
            or not all(value is None or isinstance(value, str) for value in fields)
            or set(data) - {"scope", "engine", "offset", "last"}
        ):
            raise InvalidRequest("the cursor was not issued by this engine for this read")
        scope, engine, last = fields
        return cls(scope, engine, offset, last)


def fetch_offset(cursor: str | None) -> int:
    """The merged-ranking offset a fetch cursor holds (0 without one)."""
    if cursor is None:
        return 0
    data = decode("f", cursor)
    offset = data.get("offset")
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 1 or len(data) != 1:
        raise InvalidRequest("the cursor was not issued by this engine for this read")
    return offset
