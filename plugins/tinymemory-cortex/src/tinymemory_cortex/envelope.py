"""Items as CortexDB events and back: envelopes, labels and the v3 / v2 layouts.

An item becomes one event (a learning, a whole document), one per turn (a
conversation) or one per piece (a long document). Each event's
``content.text`` is its own text and its envelope ``{v:3, id, kind, meta,
...}`` rides in ``tm:e:NN:`` labels beside lookup labels (``tm:i:`` first)
and readable ones (v3); an event with an empty text, or too many labels,
carries the whole envelope as its text instead (v2). Reading accepts both,
and ignores an event that is neither (someone else's).

No local path leaves the machine (the wire reference's §7): ``file_path`` is
sent as the file's name, ``folder`` and an absolute ``workspace`` are not
sent; the envelope carries their digests instead, so filters still match,
and a :class:`PathBook` (this engine's memory of the paths it wrote) gives
them back whole on the machine that wrote them.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from tinymemory import (
    Conversation,
    Document,
    InvalidRequest,
    ItemKind,
    Learning,
    MemoryMeta,
    MetaFilter,
    Role,
    StoreItem,
)
from tinymemory.plugin import canonical_json, cut_pieces, from_data, to_data

from .layout import Scope

#: The widest a part label's slice of envelope JSON is, in bytes.
PART_BYTES = 240
#: The most labels an event carries before it is written v2.
MAX_LABELS = 64
#: The longest readable label kept.
MAX_READABLE_LABEL = 256
#: A document piece's target size (v2-encoded), and the cap on any event.
CHUNK_TARGET_BYTES = 256 * 1024
MAX_EVENT_TEXT_BYTES = 768 * 1024
#: Room kept in a piece's overhead for its section title: 120 characters escaped as ``\\u00XX``.
_SECTION_RESERVE = 120 * 6 + 32
_WIDEST_U32 = 4294967295

_MODALITY = {
    ItemKind.DOCUMENT: "document",
    ItemKind.CONVERSATION: "conversation",
    ItemKind.LEARNING: "observation",
}


def digest16(value: str) -> str:
    """The label digest of ``value``: the first 16 hex of its SHA-256."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def path_digest(value: str) -> str:
    """The path digest of ``value``: the first 40 hex of its SHA-256."""
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:40]


def item_label(item_id: str) -> str:
    """The lookup label every event of the item carries first."""
    return "tm:i:" + digest16(item_id)


def escaped_size(text: str) -> int:
    """The bytes ``text`` takes inside a JSON string (control characters escaped)."""
    return len(json.dumps(text, ensure_ascii=False)[1:-1].encode("utf-8", "surrogatepass"))


def is_absolute_workspace(value: str) -> bool:
    """``/...``, ``~...``, ``\\...`` or ``<letter>:...``: a path on this machine."""
    return value.startswith(("/", "~", "\\")) or (
        len(value) >= 2 and value[1] == ":" and value[0].isascii() and value[0].isalpha()
    )


def _folder_digests(path: str) -> list[str]:
    """The digest of the text before every ``/``, then of the whole path, repeats dropped."""
    digests: list[str] = []
    for cut in [index for index, char in enumerate(path) if char == "/"] + [len(path)]:
        digest = path_digest(path[:cut])
        if not digests or digests[-1] != digest:
            digests.append(digest)
    return digests


def file_name(path: str) -> str:
    """The last component of ``path`` split on ``/`` or ``\\``."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


class PathBook:
    """The local paths this engine wrote, by digest, so its own reads give them back whole.

    Nothing in it leaves the machine; another machine reading the same events
    sees file names only.
    """

    def __init__(self) -> None:
        self._paths: dict[str, str] = {}
        self._lock = threading.Lock()

    def remember(self, path: str) -> None:
        with self._lock:
            self._paths[path_digest(path)] = path

    def path(self, digest: str) -> str | None:
        """The path whose digest is ``digest``, when this engine wrote it."""
        return self._paths.get(digest)


# --- writing ---------------------------------------------------------------


@attrs.frozen
class Event:
    """One experience body ready to send, with its v2-encoded size."""

    body: dict[str, Any]
    size: int
    #: The turn or piece index, None for an event that is the whole item.
    part: int | None = None


def wire_meta(meta: MemoryMeta) -> tuple[dict[str, Any], dict[str, Any]]:
    """The meta as it may leave the machine, and the digests standing in for its paths."""
    data: dict[str, Any] = to_data(meta)
    digests: dict[str, Any] = {}
    workspace = meta.workspace
    if workspace is not None and is_absolute_workspace(workspace):
        del data["workspace"]
        digests["ws"] = path_digest(workspace)
    if meta.file_path is not None:
        digests["fp"] = _folder_digests(meta.file_path)
        name = file_name(meta.file_path)
        if name:
            data["file_path"] = name
        else:
            del data["file_path"]
    if meta.folder is not None:
        digests["fd"] = _folder_digests(meta.folder)
        del data["folder"]
    return data, digests


def lookup_labels(meta: MemoryMeta, item_id: str) -> list[str]:
    """``tm:i:`` first, then the labels of the meta fields CortexDB can filter on."""
    labels = [item_label(item_id)]
    workspace = meta.workspace
    logical = workspace if workspace is not None and not is_absolute_workspace(workspace) else None
    for prefix, value in (
        ("tm:t:", meta.thread_id),
        ("tm:s:", meta.source.id),
        ("tm:r:", meta.repo),
        ("tm:w:", logical),
        ("tm:a:", meta.agent_id),
        ("tm:l:", meta.language),
        ("tm:k:", meta.source.kind.value),
    ):
        if value is not None:
            labels.append(prefix + digest16(value))
    if workspace is not None and logical is None:
        labels.append("tm:w:" + path_digest(workspace)[:16])
    return labels


def _part_labels(envelope_json: str) -> list[str]:
    """The envelope's JSON in slices of at most 240 bytes, never inside a character."""
    labels: list[str] = []
    data = envelope_json.encode("utf-8", "surrogatepass")
    start = 0
    while start < len(data):
        end = min(start + PART_BYTES, len(data))
        while end < len(data) and (data[end] & 0xC0) == 0x80:
            end -= 1
        labels.append(f"tm:e:{len(labels):02d}:" + data[start:end].decode("utf-8", "surrogatepass"))
        start = end
    return labels


def _readable(labels: Iterable[str]) -> list[str]:
    return [label for label in labels if len(label.encode("utf-8", "surrogatepass")) <= 256]


class EventWriter:
    """Builds the events of items for one engine (which remembers the paths it writes)."""

    def __init__(self, paths: PathBook, *, chunk_target: int = CHUNK_TARGET_BYTES) -> None:
        self.paths = paths
        self.chunk_target = chunk_target

    def events(self, item: StoreItem, item_id: str, scope: Scope) -> list[Event]:
        """The item's events in order; ``InvalidRequest`` when one would pass the cap."""
        meta, digests = wire_meta(item.meta)
        base: dict[str, Any] = {"v": 3, "id": item_id, "kind": item.item_kind.value, "text": ""}
        base["meta"] = meta
        base.update(digests)
        lookup = lookup_labels(item.meta, item_id)
        readable = [f"kind:{item.item_kind.value}"]
        if "file_path" in meta:
            readable.append(f"file:{meta['file_path']}")
        events: list[Event] = []
        if isinstance(item, Learning):
            envelope = {**base, "learning_kind": item.kind.value, "confidence": item.confidence}
            if item.evidence is not None:
                envelope["evidence"] = item.evidence
            events.append(self._event(envelope, item.text, "user", None, scope, lookup, readable))
        elif isinstance(item, Conversation):
            for index, turn in enumerate(item.turns):
                turn_data: dict[str, Any] = {
                    "index": index,
                    "count": len(item.turns),
                    "role": turn.role.value,
                }
                spelled = to_data(turn)
                if "at" in spelled:
                    turn_data["at"] = spelled["at"]
                if "tool_calls" in spelled:
                    turn_data["tool_calls"] = spelled["tool_calls"]
                envelope = {**base, "turn": turn_data}
                event = self._event(
                    envelope, turn.text, turn.role.value, spelled.get("at"), scope, lookup, readable
                )
                if turn.role is Role.TOOL:
                    event.body["directives"] = {"extract": []}
                    event.body["idempotency_key"] = body_key(event.body)
                events.append(event)
        else:
            events.extend(self._document(item, base, scope, lookup, readable))
        if item.meta.derive is False:
            for event in events:
                event.body["directives"] = {"extract": []}
                event.body["idempotency_key"] = body_key(event.body)
        for event in events:
            if event.size > MAX_EVENT_TEXT_BYTES:
                raise InvalidRequest(
                    f"an event of this {item.item_kind.value} would be {event.size} bytes "
                    f"encoded; CortexDB events are at most {MAX_EVENT_TEXT_BYTES}"
                )
        self._remember(item.meta)
        return events

    def _remember(self, meta: MemoryMeta) -> None:
        for path in (meta.file_path, meta.folder):
            if path is not None:
                self.paths.remember(path)
        if meta.workspace is not None and is_absolute_workspace(meta.workspace):
            self.paths.remember(meta.workspace)

    def _document(
        self,
        item: Document,
        base: dict[str, Any],
        scope: Scope,
        lookup: list[str],
        readable: list[str],
    ) -> list[Event]:
        if item.body.text is None:
            raise InvalidRequest("a document body that is still a uri cannot be stored")
        body = item.body.text
        envelope = dict(base)
        if item.title is not None:
            envelope["title"] = item.title
        if item.mime is not None:
            envelope["mime"] = item.mime
        paged = "\f" in body
        widest: dict[str, Any] = {"index": _WIDEST_U32, "count": _WIDEST_U32}
        if paged:
            widest["pages"] = [_WIDEST_U32, _WIDEST_U32]
        overhead = _v2_size({**envelope, "chunk": widest}, "") + _SECTION_RESERVE
        cap_room = MAX_EVENT_TEXT_BYTES - overhead
        room = max(1, min(self.chunk_target - overhead, cap_room))
        if cap_room < 1 or escaped_size(body) <= room:
            return [self._event(envelope, body, "user", None, scope, lookup, readable)]
        pieces = cut_pieces(body, room, escaped_size)
        events = []
        for index, piece in enumerate(pieces):
            chunk: dict[str, Any] = {"index": index, "count": len(pieces)}
            if piece.pages is not None:
                chunk["pages"] = list(piece.pages)
            if piece.section is not None:
                chunk["section"] = piece.section
            extra = list(piece.tags())
            events.append(
                self._event(
                    {**envelope, "chunk": chunk},
                    piece.text,
                    "user",
                    None,
                    scope,
                    lookup,
                    readable + extra,
                )
            )
        return events

    def _event(
        self,
        envelope: dict[str, Any],
        text: str,
        role: str,
        at: object,
        scope: Scope,
        lookup: list[str],
        readable: list[str],
    ) -> Event:
        v3 = canonical_json(envelope)
        parts = _part_labels(v3)
        shown = _readable(readable)
        size = _v2_size(envelope, text)
        if text and len(lookup) + len(shown) + len(parts) <= MAX_LABELS:
            content_text, labels = text, [*lookup, *shown, *parts]
        else:
            content_text, labels = canonical_json({**envelope, "v": 2, "text": text}), list(lookup)
        kind = ItemKind(envelope["kind"])
        context: dict[str, Any] = {"labels": labels}
        observed = _observed_at_of(envelope, at)
        if observed is not None:
            context["observed_at"] = observed
        body: dict[str, Any] = {
            "scope": scope.path,
            "modality": _MODALITY[kind],
            "content": {"kind": "message", "role": role, "text": content_text},
            "context": context,
        }
        body["idempotency_key"] = body_key(body)
        part = envelope.get("turn", envelope.get("chunk"))
        return Event(body, size, None if part is None else int(part["index"]))


def _observed_at_of(envelope: Mapping[str, Any], at: object) -> str | None:
    stamp = at if at is not None else envelope["meta"].get("observed_at")
    return None if stamp is None else str(stamp).removesuffix("Z") + "+00:00"


def _v2_size(envelope: dict[str, Any], text: str) -> int:
    return len(canonical_json({**envelope, "v": 2, "text": text}).encode("utf-8", "surrogatepass"))


def body_key(body: Mapping[str, Any]) -> str:
    """The body's idempotency key: ``tm3:`` and 56 hex of SHA-256 over its sorted compact JSON."""
    unkeyed = {key: value for key, value in body.items() if key != "idempotency_key"}
    text = json.dumps(unkeyed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "tm3:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:56]


# --- reading ----------------------------------------------------------------


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
        part = self.envelope.get("turn") or self.envelope.get("chunk")
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
        if kind is ItemKind.LEARNING:
            return Learning(
                text=first.text,
                kind=envelope.get("learning_kind", "other"),
                confidence=float(envelope.get("confidence", 0.0)),
                evidence=envelope.get("evidence"),
                meta=meta,
            )
        whole = [event for event in events if event.part is None]
        if kind is ItemKind.DOCUMENT and whole:
            return _document(whole[0], whole[0].text, meta)
        parts = _complete_parts(events)
        if parts is None:
            return None
        if kind is ItemKind.DOCUMENT:
            return _document(parts[0], "".join(event.text for event in parts), meta)
        turns = []
        for event in parts:
            turn = dict(event.envelope["turn"])
            spelled: dict[str, Any] = {"role": turn["role"], "text": event.text}
            for key in ("at", "tool_calls"):
                if key in turn:
                    spelled[key] = turn[key]
            turns.append(spelled)
        return from_data({"type": "conversation", "turns": turns, "meta": to_data(meta)}, StoreItem)  # type: ignore[arg-type]
    except (InvalidRequest, KeyError, TypeError, ValueError):
        return None


def _document(event: Decoded, body: str, meta: MemoryMeta) -> Document:
    envelope = event.envelope
    return Document(title=envelope.get("title"), body=body, mime=envelope.get("mime"), meta=meta)


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
