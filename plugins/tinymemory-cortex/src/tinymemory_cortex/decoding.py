"""CortexDB events read back: v3 by their part labels, else v2 by their text, else not ours.

A reader decides by the labels: an event whose ``tm:e:`` parts, numbered
from 0 with none missing, join to a ``v:3`` envelope is v3 (its text is the
item's own); any other event's text is tried as a ``v:2`` envelope (behind
an old ``[role] `` marker too); an event that is neither is somebody else's.
Items are rebuilt from their events, a conversation or a chunked document or
learning only when every part is there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from tinymemory import (
    Document,
    InvalidRequest,
    ItemKind,
    Learning,
    MemoryMeta,
    MetaFilter,
    StoreItem,
)
from tinymemory.plugin import from_data, to_data

from .envelope import PathBook, path_digest


@attrs.frozen
class Decoded:
    """One event of ours: its CortexDB id, its envelope, its own text and its layout."""

    event_id: str
    envelope: dict[str, Any]
    text: str
    version: int

    @property
    def item_id(self) -> str:
        return str(self.envelope["id"])

    @property
    def kind(self) -> ItemKind:
        return ItemKind(self.envelope["kind"])

    @property
    def part(self) -> tuple[int, int] | None:
        """``(index, count)`` of a turn or piece, None for an event that is the whole item."""
        part = self.envelope.get("chunk") or self.envelope.get("turn")
        if not isinstance(part, dict):
            return None
        return int(part["index"]), int(part["count"])


def _v3_envelope(labels: Sequence[object]) -> dict[str, Any] | None:
    slices: dict[int, str] = {}
    for label in labels:
        if not isinstance(label, str) or not label.startswith("tm:e:"):
            continue
        number, colon, part = label[5:].partition(":")
        if not colon or not number.isdigit() or int(number) in slices:
            return None
        slices[int(number)] = part
    if not slices or sorted(slices) != list(range(len(slices))):
        return None
    try:
        data = json.loads("".join(slices[index] for index in range(len(slices))))
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("v") == 3 else None


def _v2_envelope(text: str) -> dict[str, Any] | None:
    candidates = [text]
    if text.startswith("[") and "] " in text:
        candidates.append(text.split("] ", 1)[1])
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict) and data.get("v") == 2:
            return data
    return None


def decode_event(event: object) -> Decoded | None:
    """An event of ours decoded (v3 by its part labels, else v2 by its text); None if not ours."""
    if not isinstance(event, dict):
        return None
    event_id = event.get("id")
    content = event.get("content")
    text = content.get("text") if isinstance(content, dict) else None
    if not isinstance(event_id, str) or not isinstance(text, str):
        return None
    context = event.get("context")
    labels = context.get("labels") if isinstance(context, dict) else None
    envelope = _v3_envelope(labels) if isinstance(labels, list) else None
    version = 3
    if envelope is None:
        envelope, version = _v2_envelope(text), 2
        if envelope is None:
            return None
        text = envelope.get("text", "")
    if not _plausible(envelope) or not isinstance(text, str):
        return None
    return Decoded(event_id, envelope, text, version)


def _plausible(envelope: dict[str, Any]) -> bool:
    kind = envelope.get("kind")
    item_id = envelope.get("id")
    return (
        isinstance(item_id, str)
        and kind in ("document", "conversation", "learning")
        and isinstance(envelope.get("meta"), dict)
    )


def read_meta(envelope: Mapping[str, Any], paths: PathBook) -> MemoryMeta:
    """The item's meta: the wire meta, with the paths this machine wrote given back whole."""
    data = dict(envelope["meta"])
    for field, key in (("file_path", "fp"), ("folder", "fd")):
        digests = envelope.get(key)
        if isinstance(digests, list) and digests:
            known = paths.path(str(digests[-1]))
            if known is not None:
                data[field] = known
    workspace = envelope.get("ws")
    if isinstance(workspace, str):
        known = paths.path(workspace)
        if known is not None:
            data["workspace"] = known
    return _known_meta(data)


#: The meta fields this SDK knows; a newer writer's others (``observed_actor``) are dropped.
_META_FIELDS = frozenset(field.name for field in attrs.fields(MemoryMeta))


def _known_meta(data: dict[str, Any]) -> MemoryMeta:
    known = {key: value for key, value in data.items() if key in _META_FIELDS}
    known.setdefault("source", {"kind": "agent"})
    return from_data(known, MemoryMeta)


def filter_admits(
    request: MetaFilter, kind: ItemKind, meta: MemoryMeta, envelope: Mapping[str, Any]
) -> bool:
    """The full filter on a decoded event: paths match by digest where only digests are known."""
    plain = attrs.evolve(request, workspace=None, folder=None, file_path=None)
    if not plain.matches(kind, meta):
        return False
    if request.workspace is not None:
        digest = envelope.get("ws")
        if isinstance(digest, str) and meta.workspace is None:
            if path_digest(request.workspace) != digest:
                return False
        elif request.workspace != meta.workspace:
            return False
    for wanted, key, field in (
        (request.folder, "fd", "folder"),
        (request.file_path, "fp", "file_path"),
    ):
        if wanted is None:
            continue
        digests = envelope.get(key)
        if isinstance(digests, list) and {
            path_digest(wanted),
            path_digest(wanted.rstrip("/") or wanted),
        } & set(digests):
            continue
        value = meta.folder if field == "folder" else meta.file_path
        if not _path_matches(wanted, value):
            return False
    return True


def _path_matches(wanted: str, value: str | None) -> bool:
    """The filter's own path rule (equal, or a prefix on a ``/`` boundary) on what meta kept."""
    return MetaFilter(folder=wanted).matches(ItemKind.LEARNING, MemoryMeta(folder=value))


def rebuild(events: Sequence[Decoded], paths: PathBook) -> StoreItem | None:
    """The item the events of one id make, or None when a turn or piece is missing."""
    first = events[0]
    envelope = first.envelope
    meta = read_meta(envelope, paths)
    kind = first.kind
    try:
        whole = [event for event in events if event.part is None]
        if kind is not ItemKind.CONVERSATION and whole:
            return _single(whole[0], whole[0].text, meta)
        parts = _complete_parts(events)
        if parts is None:
            return None
        if kind is not ItemKind.CONVERSATION:
            return _single(parts[0], "".join(event.text for event in parts), meta)
        turns: dict[int, dict[str, Any]] = {}
        for event in parts:  # the chunks of a cut turn are consecutive
            turn = dict(event.envelope["turn"])
            if int(turn["index"]) in turns:
                turns[int(turn["index"])]["text"] += event.text
                continue
            spelled: dict[str, Any] = {"role": turn["role"], "text": event.text}
            for key in ("at", "tool_calls"):
                if key in turn:
                    spelled[key] = turn[key]
            turns[int(turn["index"])] = spelled
        data = {"type": "conversation", "turns": list(turns.values()), "meta": to_data(meta)}
        return from_data(data, StoreItem)  # type: ignore[arg-type]
    except (InvalidRequest, KeyError, TypeError, ValueError):
        return None


def _single(event: Decoded, text: str, meta: MemoryMeta) -> Document | Learning:
    """A document or a learning, whole or joined from its pieces, with ``text`` as its text."""
    envelope = event.envelope
    if event.kind is ItemKind.LEARNING:
        return Learning(
            text=text,
            kind=envelope.get("learning_kind", "other"),
            confidence=float(envelope.get("confidence", 0.0)),
            evidence=envelope.get("evidence"),
            meta=meta,
        )
    return Document(title=envelope.get("title"), body=text, mime=envelope.get("mime"), meta=meta)


def _complete_parts(events: Sequence[Decoded]) -> list[Decoded] | None:
    """One event per index ``0..count-1``, all agreeing on ``count``; None when incomplete."""
    by_index: dict[int, Decoded] = {}
    counts = set()
    for event in events:
        part = event.part
        if part is None:
            continue
        counts.add(part[1])
        by_index.setdefault(part[0], event)
    if len(counts) != 1:
        return None
    (count,) = counts
    if count < 1 or sorted(by_index) != list(range(count)):
        return None
    return [by_index[index] for index in range(count)]


def piece_tags(event: Decoded) -> tuple[str, ...]:
    """A ranked piece's read-side tags: ``page:`` and ``section:``."""
    chunk = event.envelope.get("chunk")
    if not isinstance(chunk, dict):
        return ()
    tags: list[str] = []
    pages = chunk.get("pages")
    if isinstance(pages, list) and len(pages) == 2:
        first, last = pages
        tags.append(f"page:{first}" if first == last else f"page:{first}-{last}")
    section = chunk.get("section")
    if isinstance(section, str):
        tags.append(f"section:{section}")
    return tuple(tags)
