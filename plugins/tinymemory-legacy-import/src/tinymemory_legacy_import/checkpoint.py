"""Where an import stands: the key of the last item yielded in each section.

Sections run in a fixed order (:data:`SECTIONS`); a checkpoint holds, per
section, the key of the last item yielded there, and resuming walks every
section again from the first, each strictly after its own key. The JSON form
omits unset sections, so ``{}`` is the start; unknown fields are ignored, so
a checkpoint written by a later version (with more sections) still reads.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from tinymemory import InvalidRequest

#: The sections, in the order they are read.
SECTIONS = ("documents", "chunks", "conversations", "learnings", "profile")
_TEXT_SECTIONS = ("documents", "conversations", "learnings", "profile")


@attrs.frozen
class ChunkCursor:
    """The chunk section's key: a chunk source, ``(source_kind, source_id)``."""

    source_kind: str
    source_id: str


@attrs.frozen(kw_only=True)
class Checkpoint:
    """The last yielded key of each section; ``None`` where nothing was yielded yet."""

    documents: str | None = None
    chunks: ChunkCursor | None = None
    conversations: str | None = None
    learnings: str | None = None
    profile: str | None = None

    def to_data(self) -> dict[str, Any]:
        """The JSON form as plain data, unset sections left out."""
        data: dict[str, Any] = {}
        for name in SECTIONS:
            value = getattr(self, name)
            if isinstance(value, ChunkCursor):
                data[name] = {"source_kind": value.source_kind, "source_id": value.source_id}
            elif value is not None:
                data[name] = value
        return data

    def to_json(self) -> str:
        """The JSON form as text (``{}`` for the start)."""
        return json.dumps(self.to_data(), ensure_ascii=False, sort_keys=False)

    @classmethod
    def from_data(cls, data: object) -> Checkpoint:
        """Read the JSON form's data; anything that is not a checkpoint is ``InvalidRequest``."""
        if not isinstance(data, dict):
            raise InvalidRequest("a checkpoint is a json object")
        fields: dict[str, Any] = {}
        for name in _TEXT_SECTIONS:
            value = data.get(name)
            if value is not None and not isinstance(value, str):
                raise InvalidRequest(f"checkpoint field `{name}` must be a string")
            fields[name] = value
        chunks = data.get("chunks")
        if chunks is not None:
            if not isinstance(chunks, dict) or not all(
                isinstance(chunks.get(part), str) for part in ("source_kind", "source_id")
            ):
                raise InvalidRequest(
                    "checkpoint field `chunks` must be an object of strings source_kind, source_id"
                )
            fields["chunks"] = ChunkCursor(chunks["source_kind"], chunks["source_id"])
        return cls(**fields)

    @classmethod
    def from_json(cls, text: str) -> Checkpoint:
        """Read the JSON form; text that is not a checkpoint is ``InvalidRequest``."""
        try:
            data = json.loads(text)
        except ValueError:
            raise InvalidRequest("a checkpoint is a json object; this is not json") from None
        return cls.from_data(data)
