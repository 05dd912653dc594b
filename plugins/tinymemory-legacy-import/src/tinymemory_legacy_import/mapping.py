"""The v1 -> v2 mapping: how each legacy row (or group of rows) becomes a StoreItem.

Every item carries ``meta.source = import:<legacy id>`` and ``meta.workspace``
(the workspace's canonical path), and nothing else in ``meta`` unless a rule
below sets it; ``meta.namespace`` stays at the root, so the v1 namespace
survives only as a tag. Functions return ``None`` for a row that is skipped
(a blank text).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import attrs

from tinymemory import (
    Conversation,
    Document,
    Learning,
    LearningKind,
    MemoryMeta,
    Role,
    SourceKind,
    SourceRef,
    ToolCallRef,
    Turn,
    TurnRange,
)

from .values import (
    clamp_confidence,
    compact_json,
    from_seconds,
    is_blank,
    lenient_json,
    nonblank_string,
    rust_trim,
    string_list,
)

#: Stored namespace prefixes whose first ``_`` v1's sanitiser made of a ``:``.
RESTORABLE_PREFIXES = (
    "conversation_",
    "document_",
    "learning_",
    "entity_",
    "profile_",
    "tool_",
    "source_",
    "custom_",
    "event_",
)

_KIND_OF_CLASS = {
    "style": LearningKind.PREFERENCE,
    "channel": LearningKind.PREFERENCE,
    "identity": LearningKind.FACT,
    "tooling": LearningKind.PROCEDURE,
    "veto": LearningKind.CORRECTION,
}

_ROLES = {
    **dict.fromkeys(("assistant", "ai", "agent", "bot", "model"), Role.ASSISTANT),
    **dict.fromkeys(("system", "developer"), Role.SYSTEM),
    **dict.fromkeys(("tool", "function", "tool_result"), Role.TOOL),
}
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
TAINT_TAG = "taint:external_sync"


class Family(enum.Enum):
    """Which section a ``memory_docs`` row belongs to, by its logical namespace."""

    DOCUMENT = "document"
    LEARNING = "learning"
    GLOBAL = "global"
    EVENT = "event"  # raw event payloads: skipped everywhere


def logical_namespace(stored: str, logical: str | None) -> str:
    """The row's namespace as written: ``logical_namespace`` when set, else ``stored`` restored.

    Restoring undoes only the first separator after a known prefix
    (``document_abc_def`` -> ``document:abc_def``); it cannot do more (trap T2).
    """
    if logical is not None and not is_blank(logical):
        return logical
    if ":" not in stored:
        for prefix in RESTORABLE_PREFIXES:
            if stored.startswith(prefix):
                return f"{prefix[:-1]}:{stored[len(prefix) :]}"
    return stored


def classify(namespace: str) -> tuple[Family, str | None]:
    """The family of a logical namespace and, for a learning, its class (``None`` when empty)."""
    if namespace == "global":
        return Family.GLOBAL, None
    if namespace == "learning" or namespace.startswith("learning:"):
        return Family.LEARNING, rust_trim(namespace[len("learning:") :]) or None
    if namespace == "event" or namespace.startswith("event:"):
        return Family.EVENT, None
    return Family.DOCUMENT, None


def is_external(taint: str | None) -> bool:
    """Whether a ``taint`` marks the row external: anything but ``internal`` (trimmed, any case).

    ``None`` means the store has no taint column: every row is internal.
    """
    return taint is not None and rust_trim(taint).lower() != "internal"


def _with_tags(tags: Iterable[str], *added: str | None) -> tuple[str, ...]:
    """``tags``, then each tag of ``added`` that is set and not already there."""
    result = list(tags)
    for tag in added:
        if tag is not None and tag not in result:
            result.append(tag)
    return tuple(result)


@attrs.frozen(kw_only=True)
class Origin:
    """What every item of a workspace shares: the canonical workspace path."""

    workspace: str

    def meta(self, legacy_id: str, **fields: Any) -> MemoryMeta:
        """The meta: an ``import`` source with ``legacy_id``, the workspace, and ``fields``."""
        return MemoryMeta(
            workspace=self.workspace,
            source=SourceRef(kind=SourceKind.IMPORT, id=legacy_id),
            **fields,
        )


@attrs.frozen(kw_only=True)
class DocRow:
    """A decoded ``memory_docs`` row, with its logical namespace worked out."""

    document_id: str
    namespace: str
    title: str
    content: str
    tags_json: str
    metadata_json: str
    updated_at: float
    external: bool

    @property
    def legacy_id(self) -> str:
        """``memory_docs:<document_id>``."""
        return f"memory_docs:{self.document_id}"


def document(origin: Origin, row: DocRow) -> Document | None:
    """A document-namespace row as a Document; ``None`` when its content is blank."""
    if is_blank(row.content):
        return None
    metadata = lenient_json(row.metadata_json)
    if not isinstance(metadata, dict):
        metadata = {}
    title = rust_trim(row.title) or None
    tags = _with_tags(
        string_list(lenient_json(row.tags_json)),
        f"ns:{row.namespace}",
        TAINT_TAG if row.external else None,
    )
    meta = origin.meta(
        row.legacy_id,
        url=nonblank_string(metadata.get("url")),
        tags=tags,
        observed_at=from_seconds(row.updated_at),
    )
    return Document(
        title=title, body=row.content, mime=nonblank_string(metadata.get("mime")), meta=meta
    )


def learning(
    origin: Origin, row: DocRow, family: Family, namespace_class: str | None
) -> Learning | None:
    """A ``learning``/``learning:*`` or ``global`` row as a Learning; ``None`` when blank."""
    taint = TAINT_TAG if row.external else None
    updated = from_seconds(row.updated_at)
    if family is Family.GLOBAL:
        if is_blank(row.content):
            return None
        meta = origin.meta(row.legacy_id, tags=_with_tags((), "global", taint), observed_at=updated)
        return Learning(text=row.content, kind=LearningKind.FACT, confidence=0.5, meta=meta)
    candidate = lenient_json(row.content)
    if (
        isinstance(candidate, dict)
        and nonblank_string(candidate.get("key")) is not None
        and candidate.get("value") is not None
    ):
        return _candidate(origin, row, candidate, namespace_class, taint, updated)
    if is_blank(row.content):
        return None
    meta = origin.meta(
        row.legacy_id, tags=_with_tags((), namespace_class, taint), observed_at=updated
    )
    return Learning(text=row.content, kind=LearningKind.OTHER, confidence=0.5, meta=meta)


def _candidate(
    origin: Origin,
    row: DocRow,
    candidate: dict[str, Any],
    namespace_class: str | None,
    taint: str | None,
    updated: datetime | None,
) -> Learning:
    """A learning candidate (v1's JSON) as a Learning; its own class beats the namespace's (T7)."""
    written_class = nonblank_string(candidate.get("class")) or namespace_class
    kind = (
        _KIND_OF_CLASS.get(rust_trim(written_class).lower(), LearningKind.OTHER)
        if written_class
        else LearningKind.OTHER
    )
    value = candidate["value"]
    text = f"{candidate['key']}: {value if isinstance(value, str) else compact_json(value)}"
    evidence = candidate.get("evidence")
    observed = candidate.get("observed_at")
    is_number = isinstance(observed, (int, float)) and not isinstance(observed, bool)
    observed_at = from_seconds(observed) if is_number else updated
    meta = origin.meta(
        row.legacy_id, tags=_with_tags((), written_class, taint), observed_at=observed_at
    )
    return Learning(
        text=text,
        kind=kind,
        confidence=clamp_confidence(candidate.get("initial_confidence")),
        evidence=None if evidence is None else compact_json(evidence),
        meta=meta,
    )


@attrs.frozen(kw_only=True)
class TurnRow:
    """A decoded ``episodic_log`` row."""

    timestamp: float
    role: str
    content: str
    tool_calls_json: str | None


def role(written: str) -> Role:
    """A v1 role as a v2 one: trimmed and ASCII-lowercased; anything unknown is the user (T10)."""
    return _ROLES.get(rust_trim(written).translate(_ASCII_LOWER), Role.USER)


def tool_calls(text: str | None) -> tuple[ToolCallRef, ...]:
    """The calls of ``tool_calls_json``: an array of calls, ``{"tool_calls": [...]}`` or one call.

    A call's name is the first non-blank string of ``name``, ``tool``,
    ``tool_name``, ``function.name``; its id the first of ``id``, ``call_id``
    (a numeric id is dropped, T11). A call with no name is dropped; JSON
    that does not parse gives no calls.
    """
    value = lenient_json(text)
    if isinstance(value, dict) and isinstance(value.get("tool_calls"), list):
        value = value["tool_calls"]
    calls = value if isinstance(value, list) else [value]
    found = []
    for call in calls:
        if not isinstance(call, dict):
            continue
        function = call.get("function")
        names = [call.get("name"), call.get("tool"), call.get("tool_name")]
        names.append(function.get("name") if isinstance(function, dict) else None)
        name = next((name for name in names if nonblank_string(name) is not None), None)
        if name is None:
            continue
        ids = (call.get("id"), call.get("call_id"))
        found.append(
            ToolCallRef(
                name=name, id=next((i for i in ids if nonblank_string(i) is not None), None)
            )
        )
    return tuple(found)


def thread(origin: Origin, session_id: str, rows: Sequence[TurnRow]) -> Conversation | None:
    """A thread's turns (in ``(timestamp, id)`` order) as a Conversation; blank turns dropped."""
    turns = [
        Turn(
            role=role(row.role),
            text=row.content,
            at=from_seconds(row.timestamp),
            tool_calls=tool_calls(row.tool_calls_json),
        )
        for row in rows
        if not is_blank(row.content)
    ]
    if not turns:
        return None
    meta = origin.meta(
        f"episodic_log:{session_id}",
        thread_id=session_id,
        turns=TurnRange(first=0, last=len(turns) - 1),
        observed_at=turns[-1].at,
    )
    return Conversation(turns=turns, meta=meta)


@attrs.frozen(kw_only=True)
class ChunkRow:
    """A decoded ``mem_tree_chunks`` row, its text already resolved (file or preview)."""

    text: str
    timestamp: datetime | None
    timestamp_ms: int
    tags: tuple[str, ...]


def chunk_source(
    origin: Origin, source_kind: str, source_id: str, chunks: Sequence[ChunkRow]
) -> Conversation | Document | None:
    """A chunk source: a Conversation of user turns for ``chat``, else a Document.

    Blank chunks are dropped; tags and ``observed_at`` come from the kept ones.
    """
    kept = [chunk for chunk in chunks if not is_blank(chunk.text)]
    if not kept:
        return None
    tags = _with_tags(
        _with_tags((), *(tag for chunk in kept for tag in chunk.tags)),
        f"source_kind:{source_kind}",
    )
    latest = max(kept, key=lambda chunk: chunk.timestamp_ms).timestamp
    legacy_id = f"mem_tree_chunks:{source_kind}:{source_id}"
    if source_kind == "chat":
        meta = origin.meta(
            legacy_id,
            thread_id=source_id,
            turns=TurnRange(first=0, last=len(kept) - 1),
            tags=tags,
            observed_at=latest,
        )
        turns = [Turn(role=Role.USER, text=chunk.text, at=chunk.timestamp) for chunk in kept]
        return Conversation(turns=turns, meta=meta)
    meta = origin.meta(legacy_id, tags=tags, observed_at=latest)
    return Document(body="\n\n".join(chunk.text for chunk in kept), meta=meta)


@attrs.frozen(kw_only=True)
class FacetRow:
    """A decoded ``user_profile`` row (optional columns ``None`` when absent)."""

    facet_id: str
    facet_type: str
    key: str
    value: str
    confidence: float | None
    last_seen_at: float
    facet_class: str | None
    evidence_refs_json: str | None


def facet(origin: Origin, row: FacetRow) -> Learning | None:
    """A live profile facet as a preference Learning; ``None`` when its value is blank.

    Its evidence is the column verbatim (not re-encoded, unlike a candidate's).
    """
    if is_blank(row.value):
        return None
    facet_type = None if is_blank(row.facet_type) else row.facet_type
    facet_class = nonblank_string(row.facet_class)
    evidence = row.evidence_refs_json
    meta = origin.meta(
        f"user_profile:{row.facet_id}",
        tags=_with_tags((), facet_type, facet_class),
        observed_at=from_seconds(row.last_seen_at),
    )
    return Learning(
        text=f"{row.key}: {row.value}",
        kind=LearningKind.PREFERENCE,
        confidence=clamp_confidence(row.confidence),
        evidence=None if evidence is None or is_blank(evidence) else evidence,
        meta=meta,
    )
