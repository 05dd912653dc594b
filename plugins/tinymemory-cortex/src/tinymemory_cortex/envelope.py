"""Items as CortexDB events and back: envelopes, labels and the v3 / v2 layouts.

An item becomes one event (a learning, a whole document), one per turn (a
conversation) or one per piece (a long document, a long learning; a turn too long for one
event is cut, and then each event of the conversation holds its place among
all of them in ``chunk`` beside its ``turn``). Each event's
``content.text`` is its own text and its envelope ``{v:3, id, kind, meta,
...}`` rides in ``tm:e:NN:`` labels beside lookup labels (``tm:i:`` first)
and readable ones (v3); an event with an empty text, or too many labels,
carries the whole envelope as its text instead (v2). Reading accepts both,
and ignores an event that is neither (someone else's).

No local path leaves the machine (the wire reference's §7): ``file_path`` is
sent as the file's name, ``folder`` and an absolute ``workspace`` are not
sent; the envelope carries their digests instead, so filters still match,
and a :class:`PathBook` (this engine's memory of the paths it wrote) gives
them back whole on the machine that wrote them. Reading is
:mod:`.decoding`.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from tinymemory import (
    Conversation,
    Document,
    InvalidRequest,
    ItemKind,
    Learning,
    MemoryMeta,
    Role,
    StoreItem,
)
from tinymemory.plugin import canonical_json, to_data
from tinymemory.retrieval import cut_pieces

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

    Held in memory for the engine's life; nothing in it leaves the machine.
    Any other reader of the same events (another machine, a new process)
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
    #: The id of the item the event belongs to.
    item_id: str = ""


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
    return [
        label
        for label in labels
        if len(label.encode("utf-8", "surrogatepass")) <= MAX_READABLE_LABEL
    ]


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
        # The older, confirmed readable labels only: the newest docs' agent:/thread:
        # labels have no confirmed position (§5.4), and readable labels are never read.
        readable = [f"kind:{item.item_kind.value}"]
        if "file_path" in meta:
            readable.append(f"file:{meta['file_path']}")
        events: list[Event] = []
        if isinstance(item, Learning):
            envelope = {**base, "learning_kind": item.kind.value, "confidence": item.confidence}
            if item.evidence is not None:
                envelope["evidence"] = item.evidence
            events.extend(self._split(envelope, item.text, scope, lookup, readable, pieces=False))
        elif isinstance(item, Conversation):
            events.extend(self._conversation(item, base, scope, lookup, readable))
        else:
            events.extend(self._document(item, base, scope, lookup, readable))
        # `directives` is built by no vendor client: it is sent because the wire
        # reference (§4.1) has the Rust engine send it, so nothing is derived.
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
        return self._split(envelope, body, scope, lookup, readable, pieces=True)

    def _conversation(
        self,
        item: Conversation,
        base: dict[str, Any],
        scope: Scope,
        lookup: list[str],
        readable: list[str],
    ) -> list[Event]:
        """One event per turn; a turn over the cap is cut, and then every event of the
        conversation carries ``chunk`` (its place among all of them) beside ``turn``."""
        turns: list[tuple[dict[str, Any], Any, list[str]]] = []
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
            cut = self._cut(envelope, turn.text, pieces=False)
            texts = [turn.text] if cut is None else [text for _, text, _ in cut]
            turns.append((envelope, spelled.get("at"), texts))
        total = sum(len(texts) for _, _, texts in turns)
        events: list[Event] = []
        for (envelope, at, texts), turn in zip(turns, item.turns, strict=True):
            for text in texts:
                if total > len(item.turns):
                    envelope = {**envelope, "chunk": {"index": len(events), "count": total}}
                event = self._event(envelope, text, turn.role.value, at, scope, lookup, readable)
                if turn.role is Role.TOOL:
                    event.body["directives"] = {"extract": []}
                    event.body["idempotency_key"] = body_key(event.body)
                events.append(event)
        return events

    def _split(
        self,
        envelope: dict[str, Any],
        body: str,
        scope: Scope,
        lookup: list[str],
        readable: list[str],
        *,
        pieces: bool,
    ) -> list[Event]:
        """One event of ``body``, or one per chunk as :meth:`_cut` cuts it."""
        cut = self._cut(envelope, body, pieces=pieces)
        if cut is None:
            return [self._event(envelope, body, "user", None, scope, lookup, readable)]
        return [
            self._event(
                {**envelope, "chunk": {"index": index, "count": len(cut), **fields}},
                text,
                "user",
                None,
                scope,
                lookup,
                readable + tags,
            )
            for index, (fields, text, tags) in enumerate(cut)
        ]

    def _cut(
        self, envelope: dict[str, Any], body: str, *, pieces: bool
    ) -> list[tuple[dict[str, Any], str, list[str]]] | None:
        """``body`` cut into chunks (their extra ``chunk`` fields, texts and tags), or None
        when it stays one event.

        ``pieces`` (documents) cuts at the chunk target and gives each chunk its
        pages, section and their tags; otherwise (learnings, turns) only what
        would pass the cap on one event is cut, into chunks of index and count.
        """
        widest: dict[str, Any] = {"index": _WIDEST_U32, "count": _WIDEST_U32}
        if pieces and "\f" in body:
            widest["pages"] = [_WIDEST_U32, _WIDEST_U32]
        overhead = _v2_size({**envelope, "chunk": widest}, "")
        if pieces:
            overhead += _SECTION_RESERVE
        cap_room = MAX_EVENT_TEXT_BYTES - overhead
        target = self.chunk_target if pieces else MAX_EVENT_TEXT_BYTES
        room = max(1, min(target - overhead, cap_room))
        # No room for a piece under the cap: whole if it fits, else refused below (the
        # newest Rust's exact test is unconfirmed, §6; this is what the spec says).
        if cap_room < 1 or escaped_size(body) <= room:
            return None
        cut: list[tuple[dict[str, Any], str, list[str]]] = []
        for piece in cut_pieces(body, room, escaped_size):
            fields: dict[str, Any] = {}
            if pieces and piece.pages is not None:
                fields["pages"] = list(piece.pages)
            if pieces and piece.section is not None:
                fields["section"] = piece.section
            cut.append((fields, piece.text, list(piece.tags()) if pieces else []))
        return cut

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
        part = envelope.get("chunk", envelope.get("turn"))
        part_index = None if part is None else int(part["index"])
        return Event(body, size, part_index, str(envelope["id"]))


def _observed_at_of(envelope: Mapping[str, Any], at: object) -> str | None:
    stamp = at if at is not None else envelope["meta"].get("observed_at")
    return None if stamp is None else str(stamp).removesuffix("Z") + "+00:00"


def _v2_size(envelope: dict[str, Any], text: str) -> int:
    return len(canonical_json({**envelope, "v": 2, "text": text}).encode("utf-8", "surrogatepass"))


def body_key(body: Mapping[str, Any]) -> str:
    """The body's idempotency key: ``tm3:`` and 56 hex of SHA-256 over its sorted compact JSON."""
    # Sorted keys: serde_json's Value without `preserve_order`, which the wire
    # reference could not confirm for the whole Rust build (§4.1); only byte-exact
    # replay across the two SDKs depends on it.
    unkeyed = {key: value for key, value in body.items() if key != "idempotency_key"}
    text = json.dumps(unkeyed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "tm3:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:56]
