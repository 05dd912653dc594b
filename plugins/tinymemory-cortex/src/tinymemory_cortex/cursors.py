"""Cursors: compact JSON sealed by the retrieval kit's :class:`CursorCodec`.

A list (and export) cursor holds ``{"scope"?, "engine"?, "offset", "last"?}``:
the scope being read, CortexDB's cursor of the page being read, how many raw
events of that page were consumed, and the last event id seen (so the copy
of an event split across a page boundary is dropped). A fetch cursor holds
``{"offset"}`` into the merged ranking. Sealing makes a cursor opaque and
bound to its read: anything this engine did not issue for the read (a
character changed, appended or removed, another read's cursor) is
``InvalidRequest``.

The secret is drawn from a static key and the endpoint, so every process
using the same key reads the others' cursors (a command line pages across
processes); an engine without a static key seals with a secret of its own,
valid while it is open.
"""

from __future__ import annotations

import hmac
import json
from typing import Any

import attrs

from tinymemory import CredentialKind, EngineCredential, FetchRequest, ListRequest
from tinymemory.plugin import to_json
from tinymemory.retrieval import CursorCodec, new_secret, read_key, unknown_cursor


def cursor_codec(engine: str, endpoint: str, credential: EngineCredential) -> CursorCodec:
    """The codec sealing ``engine``'s cursors at ``endpoint`` for this credential."""
    key = credential.bearer() if credential.kind is CredentialKind.STATIC else None
    if key is None:
        return CursorCodec(new_secret(), engine=engine)
    secret = hmac.digest(
        key.encode("utf-8"), b"tinymemory cursors\x00" + endpoint.encode(), "sha256"
    )
    return CursorCodec(secret, engine=engine)


def list_read(request: ListRequest) -> str:
    """The name of a listing (list and export walk alike)."""
    return read_key("list", to_json(request.filter))


def fetch_read(request: FetchRequest) -> str:
    """The name of a ranked read."""
    return read_key("fetch", request.mode.value, request.query, to_json(request.filter))


def _sealed(codec: CursorCodec, read: str, data: dict[str, Any]) -> str:
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return codec.seal(read, text.encode("utf-8"))


def _unsealed(codec: CursorCodec, read: str, cursor: str) -> dict[str, Any]:
    data = json.loads(codec.unseal(read, cursor).decode("utf-8"))
    if not isinstance(data, dict):  # sealed by this engine: never, unless its code changed
        raise unknown_cursor(cursor)
    return data


@attrs.frozen
class ListCursor:
    """Where a listing resumes."""

    scope: str | None = None
    engine: str | None = None
    offset: int = 0
    last: str | None = None

    def encode(self, codec: CursorCodec, read: str) -> str:
        data: dict[str, Any] = {"offset": self.offset}
        for name in ("scope", "engine", "last"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return _sealed(codec, read, data)

    @classmethod
    def decode(cls, codec: CursorCodec, read: str, cursor: str) -> ListCursor:
        data = _unsealed(codec, read, cursor)
        return cls(data.get("scope"), data.get("engine"), data["offset"], data.get("last"))


def fetch_cursor(codec: CursorCodec, read: str, offset: int) -> str:
    """The cursor resuming a ranked read at ``offset`` of its merged ranking."""
    return _sealed(codec, read, {"offset": offset})


def fetch_offset(codec: CursorCodec, read: str, cursor: str | None) -> int:
    """The merged-ranking offset a fetch cursor holds (0 without one)."""
    if cursor is None:
        return 0
    offset: int = _unsealed(codec, read, cursor)["offset"]
    return offset
