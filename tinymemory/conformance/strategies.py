"""Hypothesis strategies for every contract type, for engine authors to reuse.

Everything drawn is valid: items pass ``validate()``, requests pass their
``validate()``, timestamps are aware UTC datetimes and text is short,
readable and free of lone surrogates (so it always encodes as UTF-8), with a
few non-ASCII letters and JSON escapes mixed in::

    from hypothesis import given
    from tinymemory.conformance import strategies as tms

    @given(tms.store_items())
    def test_store_is_idempotent(item): ...

Optional fields are sometimes set and sometimes not; ``memory_meta()`` and
``meta_filters()`` set any subset of their fields, so Hypothesis shrinks a
failure towards the fewest fields that still show it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, TypeVar

import attrs
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from tinymemory._engine import EngineDescriptor, EngineHealth
from tinymemory._errors import InvalidRequest
from tinymemory._items import (
    Conversation,
    Document,
    DocumentBody,
    Learning,
    LearningKind,
    Role,
    StoreItem,
    StoreReceipt,
    Turn,
)
from tinymemory._meta import (
    ItemKind,
    MemoryMeta,
    MetaFilter,
    SourceKind,
    SourceRef,
    ToolCallRef,
    TurnRange,
)
from tinymemory._namespace import MAX_DEPTH, Namespace, Reach, Segment, SegmentKind
from tinymemory._operations import (
    MAX_BUCKETS,
    MAX_SCAN_LIMIT,
    Citation,
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    Exported,
    ExportPage,
    Facet,
    FacetBucket,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ListPage,
    ListRequest,
    RecallAnswer,
    RecallRequest,
)

__all__ = [
    "citations",
    "conversations",
    "document_bodies",
    "documents",
    "engine_descriptors",
    "engine_healths",
    "erase_reports",
    "erase_requests",
    "explore_pages",
    "explore_requests",
    "export_pages",
    "fetch_pages",
    "fetch_requests",
    "forget_reports",
    "forget_targets",
    "get_requests",
    "hits",
    "item_ids",
    "learnings",
    "list_pages",
    "list_requests",
    "memory_meta",
    "meta_filters",
    "namespaces",
    "reaches",
    "recall_answers",
    "recall_requests",
    "segments",
    "source_refs",
    "store_items",
    "store_receipts",
    "texts",
    "timestamps",
    "tool_call_refs",
    "turn_ranges",
    "turns",
]

T = TypeVar("T")

# Mostly ASCII, a few non-ASCII letters (two bytes, three bytes and one outside
# the BMP) and the characters JSON must escape. No surrogates, so every string
# drawn encodes as UTF-8.
_ALPHABET = (
    "abcdefghijklmnopqrstuvwxyz"
    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "0123456789"
    "     .,:;!?'-_/()"
    "éüßøñçåЖжλΩあ中🙂"
    '"\\\n\t'
)
_WORD = "abcdefghijklmnopqrstuvwxyz0123456789-_éü"
_ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
_HEX = "0123456789abcdef"
_MIMES = (
    "text/markdown",
    "text/plain",
    "text/html",
    "text/x-source",
    "application/pdf",
    "application/octet-stream",
)
_LANGUAGES = ("python", "rust", "typescript", "json", "markdown", "en", "fr", "ja")
_EARLIEST = datetime(1970, 1, 1)
_LATEST = datetime(2100, 12, 31, 23, 59, 59, 999_999)


def _optional(strategy: st.SearchStrategy[T]) -> st.SearchStrategy[T | None]:
    return st.none() | strategy


def texts(max_size: int = 24) -> st.SearchStrategy[str]:
    """Short readable text that is never blank (it holds a non-space character)."""
    if max_size < 1:
        raise InvalidArgument(f"max_size={max_size} must be at least 1")
    return st.text(_ALPHABET, min_size=1, max_size=max_size).filter(str.strip)


def _words(max_size: int = 12) -> st.SearchStrategy[str]:
    # One word of lowercase letters, digits and a few non-ASCII letters.
    return st.text(_WORD, min_size=1, max_size=max_size)


def _paths() -> st.SearchStrategy[str]:
    return st.lists(_words(8), min_size=1, max_size=3).map(lambda parts: "/" + "/".join(parts))


def item_ids() -> st.SearchStrategy[str]:
    """Item ids: mostly fingerprint-shaped (40 lowercase hex), sometimes another opaque id."""
    fingerprint = st.text(_HEX, min_size=40, max_size=40)
    return fingerprint | st.builds("{}-{}".format, _words(6), st.integers(0, 999))


def segments() -> st.SearchStrategy[Segment]:
    """Namespace segments of every kind, with short valid ids."""
    return st.builds(
        Segment,
        st.sampled_from(SegmentKind),
        st.text(_ID_CHARS, min_size=1, max_size=12),
    )


def namespaces(max_depth: int = 3) -> st.SearchStrategy[Namespace]:
    """Namespaces from the root down to ``max_depth`` segments (at most 8)."""
    if not 0 <= max_depth <= MAX_DEPTH:
        raise InvalidArgument(f"max_depth={max_depth} must be between 0 and {MAX_DEPTH}")
    return st.lists(segments(), max_size=max_depth).map(Namespace)


def reaches(max_depth: int = 3) -> st.SearchStrategy[Reach]:
    """Reaches at any namespace, with every combination of ``inherit`` and ``descendants``."""
    return st.builds(
        Reach,
        at=namespaces(max_depth),
        inherit=st.booleans(),
        descendants=st.booleans(),
    )


def _at_precision(value: datetime, precision: str) -> datetime:
    micros = {"s": 0, "ms": value.microsecond // 1000 * 1000}.get(precision, value.microsecond)
    return value.replace(microsecond=micros, tzinfo=UTC, fold=0)


def timestamps() -> st.SearchStrategy[datetime]:
    """Aware UTC datetimes from 1970 to 2100: whole seconds, milliseconds or microseconds."""
    return st.builds(
        _at_precision,
        st.datetimes(min_value=_EARLIEST, max_value=_LATEST),
        st.sampled_from(("s", "ms", "us")),
    )


def turn_ranges() -> st.SearchStrategy[TurnRange]:
    """Turn ranges with ``first <= last``."""
    bounds = st.lists(st.integers(0, 10_000), min_size=2, max_size=2).map(sorted)
    return bounds.map(lambda pair: TurnRange(pair[0], pair[1]))


def tool_call_refs() -> st.SearchStrategy[ToolCallRef]:
    """Tool calls: a tool name and sometimes a call id."""
    return st.builds(ToolCallRef, name=_words(), id=_optional(_words()))


def source_refs() -> st.SearchStrategy[SourceRef]:
    """Sources of every kind, sometimes with the source's own id."""
    return st.builds(SourceRef, kind=st.sampled_from(SourceKind), id=_optional(_words()))


@st.composite
def _some_fields(
    draw: st.DrawFn, fields: Mapping[str, st.SearchStrategy[Any]], min_fields: int
) -> dict[str, Any]:
    """Keyword arguments for any subset of ``fields`` (at least ``min_fields`` of them)."""
    chosen = draw(st.sets(st.sampled_from(sorted(fields)), min_size=min_fields))
    return {name: draw(fields[name]) for name in sorted(chosen)}


def _meta_fields() -> dict[str, st.SearchStrategy[Any]]:
    """What MemoryMeta and MetaFilter share (MemoryMeta's namespace aside)."""
    return {
        "workspace": st.sampled_from(("ws-main", "/home/ada/project")) | _words(),
        "folder": _paths(),
        "file_path": st.builds("{}.{}".format, _paths(), st.sampled_from(("py", "rs", "md"))),
        "language": st.sampled_from(_LANGUAGES),
        "repo": st.builds("{}/{}".format, _words(8), _words(8)),
        "commit": st.text(_HEX, min_size=7, max_size=40),
        "url": st.builds("https://example.com/{}".format, _words()),
        "thread_id": _words(),
        "turns": turn_ranges(),
        "agent_id": _words(),
    }


def _memory_meta(fields: dict[str, Any]) -> MemoryMeta:
    return MemoryMeta(**fields)


def memory_meta() -> st.SearchStrategy[MemoryMeta]:
    """Metadata with any subset of its fields set, each drawn from realistic values."""
    fields = {
        **_meta_fields(),
        "namespace": namespaces(),
        "tool_call": tool_call_refs(),
        "source": source_refs(),
        "tags": st.lists(_words(), min_size=1, max_size=3, unique=True),
        "observed_at": timestamps(),
        "derive": st.booleans(),
    }
    return _some_fields(fields, 0).map(_memory_meta)


def _meta_filter(fields: dict[str, Any]) -> MetaFilter:
    after, before = fields.get("observed_after"), fields.get("observed_before")
    if after is not None and before is not None and after > before:
        fields = {**fields, "observed_after": before, "observed_before": after}
    return MetaFilter(**fields)


def meta_filters(min_fields: int = 0) -> st.SearchStrategy[MetaFilter]:
    """Filters setting any subset of their fields (at least ``min_fields`` of them).

    The subset may hold a reach, kinds, sources, tags_any and either or both
    bounds of the ``observed_at`` window (ordered when both are set). With
    ``min_fields=1`` the filter is never empty, as a forget target needs.
    """
    fields = {
        **_meta_fields(),
        "reach": reaches(),
        "kinds": st.lists(st.sampled_from(ItemKind), min_size=1, max_size=3, unique=True),
        "sources": st.lists(st.sampled_from(SourceKind), min_size=1, max_size=3, unique=True),
        "tool_call": _words(),
        "source_id": _words(),
        "tags_any": st.lists(_words(), min_size=1, max_size=3, unique=True),
        "observed_after": timestamps(),
        "observed_before": timestamps(),
    }
    if not 0 <= min_fields <= len(fields):
        raise InvalidArgument(f"min_fields={min_fields} must be between 0 and {len(fields)}")
    return _some_fields(fields, min_fields).map(_meta_filter)


def document_bodies() -> st.SearchStrategy[DocumentBody]:
    """Document bodies of both forms. A ``uri`` body is not storable until resolved."""
    return st.builds(DocumentBody, text=texts(60)) | st.builds(
        DocumentBody, uri=st.builds("https://example.com/{}".format, _words())
    )


def documents() -> st.SearchStrategy[Document]:
    """Storable documents: a non-blank text body, sometimes a title and a mime type."""
    return st.builds(
        Document,
        title=_optional(texts()),
        body=st.builds(DocumentBody, text=texts(60)),
        mime=_optional(st.sampled_from(_MIMES)),
        meta=memory_meta(),
    )


def turns() -> st.SearchStrategy[Turn]:
    """Conversation turns with non-blank text, sometimes timed, sometimes calling tools."""
    return st.builds(
        Turn,
        role=st.sampled_from(Role),
        text=texts(),
        at=_optional(timestamps()),
        tool_calls=st.lists(tool_call_refs(), max_size=2),
    )


def conversations() -> st.SearchStrategy[Conversation]:
    """Storable conversations of one to four turns."""
    return st.builds(
        Conversation,
        turns=st.lists(turns(), min_size=1, max_size=4),
        meta=memory_meta(),
    )


def _confidences() -> st.SearchStrategy[float]:
    # Learning's converter narrows to f32; every float in 0..1 stays in 0..1.
    return st.sampled_from((0.0, 0.5, 0.75, 0.8, 1.0)) | st.floats(0.0, 1.0)


def learnings() -> st.SearchStrategy[Learning]:
    """Storable learnings of every kind, confidence in 0..1, sometimes with evidence."""
    return st.builds(
        Learning,
        text=texts(),
        kind=st.sampled_from(LearningKind),
        confidence=_confidences(),
        evidence=_optional(texts()),
        meta=memory_meta(),
    )


def store_items() -> st.SearchStrategy[StoreItem]:
    """Storable items of all three kinds."""
    return st.one_of(documents(), conversations(), learnings())


def _limits(highest: int = 50) -> st.SearchStrategy[int]:
    return st.integers(1, highest)


def _cursors() -> st.SearchStrategy[str | None]:
    return _optional(st.integers(0, 10_000).map(str) | _words())


def recall_requests() -> st.SearchStrategy[RecallRequest]:
    """Valid recall requests: a non-blank question, any filter, a positive limit."""
    return st.builds(
        RecallRequest,
        question=texts(),
        filter=meta_filters(),
        limit=_limits(),
        instructions=_optional(texts()),
    )


def fetch_requests() -> st.SearchStrategy[FetchRequest]:
    """Valid fetch requests in every mode (an engine may not serve them all)."""
    return st.builds(
        FetchRequest,
        query=texts(),
        mode=st.sampled_from(FetchMode),
        filter=meta_filters(),
        limit=_limits(),
        cursor=_cursors(),
    )


def list_requests() -> st.SearchStrategy[ListRequest]:
    """Valid list requests, sometimes carrying a cursor."""
    return st.builds(ListRequest, filter=meta_filters(), limit=_limits(), cursor=_cursors())


def forget_targets() -> st.SearchStrategy[ForgetTarget]:
    """Valid forget targets: one to five ids, or a filter setting at least one field."""
    by_ids = st.lists(item_ids(), min_size=1, max_size=5).map(ForgetTarget.by_ids)
    return by_ids | meta_filters(min_fields=1).map(ForgetTarget.by_filter)


def explore_requests() -> st.SearchStrategy[ExploreRequest]:
    """Valid explore requests over every facet."""
    return st.builds(
        ExploreRequest,
        facet=st.sampled_from(Facet),
        filter=meta_filters(),
        limit=_limits(MAX_BUCKETS),
        scan_limit=_limits(MAX_SCAN_LIMIT),
    )


def get_requests() -> st.SearchStrategy[GetRequest]:
    """Valid get requests of one to five ids, sometimes confined by a reach."""
    return st.builds(
        GetRequest,
        ids=st.lists(item_ids(), min_size=1, max_size=5),
        reach=_optional(reaches()),
    )


def _interlocked(request: EraseRequest) -> EraseRequest:
    try:
        request.validate()
    except InvalidRequest:
        return attrs.evolve(request, whole_tree=True)
    return request


def erase_requests() -> st.SearchStrategy[EraseRequest]:
    """Valid erase requests; one naming the whole tree always sets ``whole_tree``."""
    return st.builds(
        EraseRequest,
        reach=reaches(),
        kinds=st.lists(st.sampled_from(ItemKind), max_size=3, unique=True),
        whole_tree=st.booleans(),
    ).map(_interlocked)


def _scores() -> st.SearchStrategy[float]:
    return st.sampled_from((0.0, 0.25, 1.0)) | st.floats(0.0, 1.0)


def hits() -> st.SearchStrategy[Hit]:
    """Hits made from storable items (a learning's confidence included) with a score."""
    return st.builds(Hit.of_item, item_ids(), store_items(), _scores())


def _listed(item_id: str, item: StoreItem) -> Hit:
    return Hit.of_item(item_id, item)


def citations() -> st.SearchStrategy[Citation]:
    """Citations of every kind, sometimes scored."""
    return st.builds(
        Citation,
        id=item_ids(),
        kind=st.sampled_from(ItemKind),
        snippet=texts(),
        meta=memory_meta(),
        score=_optional(_scores()),
    )


def recall_answers() -> st.SearchStrategy[RecallAnswer]:
    """Answers citing up to three items, sometimes naming the model."""
    return st.builds(
        RecallAnswer,
        answer=texts(),
        citations=st.lists(citations(), max_size=3),
        model=_optional(_words()),
    )


def fetch_pages() -> st.SearchStrategy[FetchPage]:
    """Pages of up to three hits, sometimes with a next cursor."""
    return st.builds(FetchPage, hits=st.lists(hits(), max_size=3), next_cursor=_cursors())


def list_pages() -> st.SearchStrategy[ListPage]:
    """Listing pages: up to three hits, each scored 0, sometimes with a next cursor."""
    listed = st.builds(_listed, item_ids(), store_items())
    return st.builds(ListPage, items=st.lists(listed, max_size=3), next_cursor=_cursors())


@st.composite
def _explore_page(draw: st.DrawFn) -> ExplorePage:
    counted = draw(
        st.dictionaries(_words(), st.integers(1, 1000), max_size=4),
    )
    ordered = sorted(counted.items(), key=lambda pair: (-pair[1], pair[0].encode("utf-8")))
    missing = draw(st.integers(0, 100))
    return ExplorePage(
        facet=draw(st.sampled_from(Facet)),
        buckets=[FacetBucket(value, number) for value, number in ordered],
        total=sum(counted.values()) + missing + draw(st.integers(0, 100)),
        missing=missing,
        more_buckets=draw(st.integers(0, 10)),
        truncated=draw(st.booleans()),
    )


def explore_pages() -> st.SearchStrategy[ExplorePage]:
    """Explore pages with buckets largest first (ties by value) and consistent counts."""
    return _explore_page()


def _exported(item: StoreItem) -> Exported:
    return Exported(id=item.fingerprint(), item=item)


def export_pages() -> st.SearchStrategy[ExportPage]:
    """Export pages of up to three items under their fingerprints, sometimes incomplete."""
    return st.builds(
        ExportPage,
        items=st.lists(store_items().map(_exported), max_size=3),
        incomplete=st.lists(item_ids(), max_size=2),
        next_cursor=_cursors(),
    )


def erase_reports() -> st.SearchStrategy[EraseReport]:
    """Erase reports: a scope count and the engine's receipts."""
    return st.builds(
        EraseReport,
        erased_scopes=st.integers(0, 20),
        receipts=st.lists(_words(), max_size=3),
    )


def forget_reports() -> st.SearchStrategy[ForgetReport]:
    """Forget reports: how many items were removed."""
    return st.builds(ForgetReport, st.integers(0, 1000))


def store_receipts() -> st.SearchStrategy[StoreReceipt]:
    """Store receipts, replays and first stores."""
    return st.builds(StoreReceipt, item_ids(), st.booleans())


def engine_descriptors() -> st.SearchStrategy[EngineDescriptor]:
    """Engine descriptors declaring any set of fetch modes, in any order."""
    return st.builds(
        EngineDescriptor,
        id=st.text(_ID_CHARS, min_size=1, max_size=12),
        label=texts(),
        description=texts(60),
        hosted=st.booleans(),
        needs_endpoint=st.booleans(),
        needs_key=st.booleans(),
        default_endpoint=_optional(st.builds("https://{}.example.com".format, _words())),
        fetch_modes=st.lists(st.sampled_from(FetchMode), max_size=3, unique=True),
    )


def engine_healths() -> st.SearchStrategy[EngineHealth]:
    """Healths in all three states; degraded and down carry a reason."""
    return st.one_of(
        st.just(EngineHealth.ok()),
        st.builds(EngineHealth.degraded, texts()),
        st.builds(EngineHealth.down, texts()),
    )
