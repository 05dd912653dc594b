"""Requests and answers of every engine operation, each request with ``validate()``.

``validate()`` applies the contract's rules and raises
:class:`~tinymemory._errors.InvalidRequest` with the original's message; the
engine base class calls it before any engine work.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from tinymemory._errors import InvalidRequest
from tinymemory._f32 import to_f32
from tinymemory._items import Learning, StoreItem
from tinymemory._limits import (
    MAX_CURSOR_BYTES,
    MAX_FORGET_IDS,
    MAX_ID_BYTES,
    MAX_INSTRUCTIONS_BYTES,
    MAX_QUERY_BYTES,
    MAX_QUESTION_BYTES,
)
from tinymemory._meta import ItemKind, MemoryMeta, MetaFilter, SourceKind, as_filter, item_kinds
from tinymemory._namespace import Namespace, Reach
from tinymemory._validators import (
    WireEnum,
    capped_strings,
    capped_text,
    count,
    instance_of,
    is_blank,
    optional_capped_text,
    str_tuple,
    to_tuple_of,
)

#: The most ids one ``get`` takes.
MAX_GET_IDS = 200
#: The most buckets one ``explore`` returns.
MAX_BUCKETS = 500
#: The most items one ``explore`` may scan.
MAX_SCAN_LIMIT = 50_000
#: How many items ``explore`` scans when the request does not say.
DEFAULT_SCAN_LIMIT = 5_000

_cursor = optional_capped_text(MAX_CURSOR_BYTES, "cap-cursor-length")


def _forget_ids(values: Iterable[str]) -> tuple[str, ...]:
    return capped_strings(
        values,
        "ids",
        MAX_FORGET_IDS,
        "cap-forget-ids",
        entry_bytes=MAX_ID_BYTES,
        entry_rule="cap-id-length",
    )


def _get_ids(values: Iterable[str]) -> tuple[str, ...]:
    return capped_strings(
        values,
        "ids",
        MAX_GET_IDS,
        "cap-get-ids",
        entry_bytes=MAX_ID_BYTES,
        entry_rule="cap-id-length",
    )


def _score(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidRequest("`score` must be a number")
    return to_f32(value)


def _optional_score(value: float | None) -> float | None:
    return None if value is None else _score(value)


# --- recall -----------------------------------------------------------------


@attrs.frozen(kw_only=True)
class RecallRequest:
    """A question to answer from memory, under ``filter``, citing at most ``limit`` items."""

    question: str = attrs.field(validator=capped_text(MAX_QUESTION_BYTES, "cap-question-length"))
    filter: MetaFilter = attrs.field(factory=MetaFilter, converter=as_filter)
    limit: int = attrs.field(default=10, validator=count)
    instructions: str | None = attrs.field(
        default=None,
        validator=optional_capped_text(MAX_INSTRUCTIONS_BYTES, "cap-instructions-length"),
    )

    def validate(self) -> None:
        """Refuse a blank question or a zero limit."""
        if is_blank(self.question):
            raise InvalidRequest("recall question must not be empty")
        if self.limit == 0:
            raise InvalidRequest("recall limit must be positive")


@attrs.frozen(kw_only=True)
class Citation:
    """An item an answer rests on."""

    id: str
    kind: ItemKind = attrs.field(converter=ItemKind)
    snippet: str
    meta: MemoryMeta
    score: float | None = attrs.field(default=None, converter=_optional_score)


def _citations(values: Iterable[Citation]) -> tuple[Citation, ...]:
    return to_tuple_of(Citation, "citations", values)


@attrs.frozen(kw_only=True)
class RecallAnswer:
    """A synthesized answer, the items it cites, and the model that wrote it."""

    answer: str
    citations: tuple[Citation, ...] = attrs.field(default=(), converter=_citations)
    model: str | None = None

    def _repr_markdown_(self) -> str:
        from tinymemory._display import answer_markdown

        return answer_markdown(self)

    def _repr_html_(self) -> str:
        from tinymemory._display import answer_html

        return answer_html(self)


# --- fetch and list ---------------------------------------------------------


class FetchMode(WireEnum):
    """How ``fetch`` ranks: by words, by meaning, or both fused."""

    KEYWORD = "keyword"
    VECTOR = "vector"
    HYBRID = "hybrid"


@attrs.frozen(kw_only=True)
class FetchRequest:
    """Raw retrieval: ``query`` ranked by ``mode`` under ``filter``, a page of ``limit`` hits."""

    query: str = attrs.field(validator=capped_text(MAX_QUERY_BYTES, "cap-query-length"))
    mode: FetchMode = attrs.field(default=FetchMode.HYBRID, converter=FetchMode)
    filter: MetaFilter = attrs.field(factory=MetaFilter, converter=as_filter)
    limit: int = attrs.field(default=10, validator=count)
    cursor: str | None = attrs.field(default=None, validator=_cursor)

    def validate(self) -> None:
        """Refuse a blank query or a zero limit."""
        if is_blank(self.query):
            raise InvalidRequest("fetch query must not be empty")
        if self.limit == 0:
            raise InvalidRequest("fetch limit must be positive")


@attrs.frozen(kw_only=True)
class Hit:
    """One item as a read returns it.

    ``text`` is the item's ``render_text()``; ``score`` is 0 in listings;
    ``confidence`` is a learning's confidence and ``None`` for other kinds.
    """

    id: str
    kind: ItemKind = attrs.field(converter=ItemKind)
    text: str
    meta: MemoryMeta
    score: float = attrs.field(default=0.0, converter=_score)
    confidence: float | None = attrs.field(default=None, converter=_optional_score)

    @classmethod
    def of_item(cls, item_id: str, item: StoreItem, score: float = 0.0) -> Hit:
        """The hit for a stored item: its rendered text, meta and (learnings) confidence."""
        return cls(
            id=item_id,
            kind=item.item_kind,
            text=item.render_text(),
            meta=item.meta,
            score=score,
            confidence=item.confidence if isinstance(item, Learning) else None,
        )

    def _repr_markdown_(self) -> str:
        from tinymemory._display import hits_markdown

        return hits_markdown([self], None, scored=bool(self.score))

    def _repr_html_(self) -> str:
        from tinymemory._display import hits_html

        return hits_html([self], None, scored=bool(self.score))


def _hits(values: Iterable[Hit]) -> tuple[Hit, ...]:
    return to_tuple_of(Hit, "hits", values)


class _PageViews:
    """A page of hits in a notebook: a table (scores when ranked), and a pandas hand-off."""

    def _shown(self) -> tuple[tuple[Hit, ...], str | None, bool]:
        raise NotImplementedError

    def _repr_markdown_(self) -> str:
        from tinymemory._display import hits_markdown

        hits, cursor, scored = self._shown()
        return hits_markdown(hits, cursor, scored=scored)

    def _repr_html_(self) -> str:
        from tinymemory._display import hits_html

        hits, cursor, scored = self._shown()
        return hits_html(hits, cursor, scored=scored)

    def to_pandas(self) -> Any:
        """The page as a ``pandas.DataFrame``, a row a hit; ``Unsupported`` without pandas."""
        from tinymemory._display import HIT_COLUMNS, records, to_pandas

        return to_pandas(records(self._shown()[0]), HIT_COLUMNS)


@attrs.frozen(kw_only=True)
class FetchPage(_PageViews):
    """Ranked hits, best first, and the cursor of the next page."""

    hits: tuple[Hit, ...] = attrs.field(converter=_hits)
    next_cursor: str | None = None

    def _shown(self) -> tuple[tuple[Hit, ...], str | None, bool]:
        return self.hits, self.next_cursor, True


@attrs.frozen(kw_only=True)
class ListRequest:
    """A page of stored items under ``filter``, without ranking."""

    filter: MetaFilter = attrs.field(factory=MetaFilter, converter=as_filter)
    limit: int = attrs.field(default=50, validator=count)
    cursor: str | None = attrs.field(default=None, validator=_cursor)

    def validate(self) -> None:
        """Refuse a zero limit."""
        if self.limit == 0:
            raise InvalidRequest("list limit must be positive")


@attrs.frozen(kw_only=True)
class ListPage(_PageViews):
    """Listed items (each with score 0) and the cursor of the next page."""

    items: tuple[Hit, ...] = attrs.field(converter=_hits)
    next_cursor: str | None = None

    def _shown(self) -> tuple[tuple[Hit, ...], str | None, bool]:
        return self.items, self.next_cursor, False


# --- forget -----------------------------------------------------------------


@attrs.frozen
class ForgetTarget:
    """What to forget: ``ids`` (not confined by any reach) or a non-empty ``filter``.

    Exactly one is set; build one with :meth:`by_ids` or :meth:`by_filter`.
    """

    ids: tuple[str, ...] | None = attrs.field(
        default=None,
        converter=attrs.converters.optional(_forget_ids),
    )
    filter: MetaFilter | None = None

    def __attrs_post_init__(self) -> None:
        if (self.ids is None) == (self.filter is None):
            raise InvalidRequest("a forget target holds exactly one of ids or filter")
        if self.filter is not None and not isinstance(self.filter, MetaFilter):
            raise InvalidRequest("`filter` must be a MetaFilter")

    @classmethod
    def by_ids(cls, ids: Iterable[str]) -> ForgetTarget:
        """Forget these ids, wherever they are (a lone string is refused, not split)."""
        return cls(ids=ids)

    @classmethod
    def by_filter(cls, filter: MetaFilter) -> ForgetTarget:
        """Forget every item ``filter`` admits (it must set at least one field)."""
        return cls(filter=filter)

    def validate(self) -> None:
        """Refuse no ids, a blank id, or an empty filter."""
        if self.ids is not None:
            if not self.ids:
                raise InvalidRequest("forget needs at least one id")
            if any(not item_id.strip() for item_id in self.ids):
                raise InvalidRequest("an id must not be blank")
        elif self.filter is not None and self.filter.is_empty():
            raise InvalidRequest("forget refuses an empty filter, which would mean everything")


@attrs.frozen
class ForgetReport:
    """How many items a forget actually removed."""

    forgotten: int = attrs.field(validator=count)


# --- explore and get --------------------------------------------------------


class Facet(WireEnum):
    """A metadata dimension ``explore`` groups by, fixed by the contract."""

    KIND = "kind"
    SOURCE = "source"
    SOURCE_ID = "source_id"
    WORKSPACE = "workspace"
    FOLDER = "folder"
    FILE_PATH = "file_path"
    LANGUAGE = "language"
    REPO = "repo"
    URL = "url"
    THREAD = "thread"
    AGENT = "agent"
    TOOL_CALL = "tool_call"
    TAG = "tag"
    NAMESPACE = "namespace"

    def values(self, kind: ItemKind, meta: MemoryMeta) -> tuple[str, ...]:
        """The values an item has for this facet (several for tags, none when unset)."""
        if self is Facet.KIND:
            return (kind.value,)
        if self is Facet.SOURCE:
            return (meta.source.kind.value,)
        if self is Facet.TAG:
            return meta.tags
        if self is Facet.NAMESPACE:
            return (str(meta.namespace),)
        if self is Facet.TOOL_CALL:
            return (meta.tool_call.name,) if meta.tool_call else ()
        value = {
            Facet.SOURCE_ID: meta.source.id,
            Facet.WORKSPACE: meta.workspace,
            Facet.FOLDER: meta.folder,
            Facet.FILE_PATH: meta.file_path,
            Facet.LANGUAGE: meta.language,
            Facet.REPO: meta.repo,
            Facet.URL: meta.url,
            Facet.THREAD: meta.thread_id,
            Facet.AGENT: meta.agent_id,
        }[self]
        return () if value is None else (value,)

    def narrow(self, filter: MetaFilter, value: str) -> MetaFilter:
        """``filter`` with this facet's field replaced by ``value`` (a bucket drilled into).

        Folder and file path narrow by prefix, as their filter fields match;
        a namespace narrows the reach to exactly that node.
        """
        if not isinstance(value, str) or not value.strip():
            raise InvalidRequest(f"a `{self.value}` value must not be blank")
        if self is Facet.KIND:
            return attrs.evolve(filter, kinds=(ItemKind(value),))
        if self is Facet.SOURCE:
            return attrs.evolve(filter, sources=(SourceKind(value),))
        if self is Facet.TAG:
            return attrs.evolve(filter, tags_any=(value,))
        if self is Facet.NAMESPACE:
            return attrs.evolve(filter, reach=Reach.exact(Namespace.parse(value)))
        field = {Facet.THREAD: "thread_id", Facet.AGENT: "agent_id"}.get(self, self.value)
        changes: dict[str, Any] = {field: value}
        return attrs.evolve(filter, **changes)


@attrs.frozen(kw_only=True)
class ExploreRequest:
    """Count the items ``filter`` admits per value of ``facet``."""

    facet: Facet = attrs.field(converter=Facet)
    filter: MetaFilter = attrs.field(factory=MetaFilter, converter=as_filter)
    limit: int = attrs.field(default=50, validator=count)
    scan_limit: int = attrs.field(default=DEFAULT_SCAN_LIMIT, validator=count)

    def validate(self) -> None:
        """Refuse a bucket limit outside 1..=500 or a scan limit outside 1..=50000."""
        if not 1 <= self.limit <= MAX_BUCKETS:
            raise InvalidRequest(f"explore limit must be between 1 and {MAX_BUCKETS}")
        if not 1 <= self.scan_limit <= MAX_SCAN_LIMIT:
            raise InvalidRequest(f"explore scan_limit must be between 1 and {MAX_SCAN_LIMIT}")


@attrs.frozen
class FacetBucket:
    """One value of a facet and how many items have it."""

    value: str
    count: int = attrs.field(validator=count)


def _buckets(values: Iterable[FacetBucket]) -> tuple[FacetBucket, ...]:
    return to_tuple_of(FacetBucket, "buckets", values)


@attrs.frozen(kw_only=True)
class ExplorePage:
    """Buckets largest first (ties by value).

    ``missing`` counts items with no value, ``more_buckets`` the values cut by
    the limit; ``truncated`` means the scan stopped early, so counts are a
    lower bound.
    """

    facet: Facet = attrs.field(converter=Facet)
    buckets: tuple[FacetBucket, ...] = attrs.field(converter=_buckets)
    total: int = attrs.field(validator=count)
    missing: int = attrs.field(validator=count)
    more_buckets: int = attrs.field(validator=count)
    truncated: bool

    def _repr_markdown_(self) -> str:
        from tinymemory._display import explore_markdown

        return explore_markdown(self)

    def _repr_html_(self) -> str:
        from tinymemory._display import explore_html

        return explore_html(self)

    def to_pandas(self) -> Any:
        """The buckets as a ``pandas.DataFrame`` (value, count); ``Unsupported`` without pandas."""
        from tinymemory._display import to_pandas

        rows = [{"value": bucket.value, "count": bucket.count} for bucket in self.buckets]
        return to_pandas(rows, ("value", "count"))


@attrs.frozen(kw_only=True)
class GetRequest:
    """Read items whole by id, in the order named; ids beyond ``reach`` are left out."""

    ids: tuple[str, ...] = attrs.field(converter=_get_ids)
    reach: Reach | None = attrs.field(default=None, validator=instance_of(Reach, optional=True))

    def validate(self) -> None:
        """Refuse no ids or a blank id (more than 200 are refused when the request is built)."""
        if not self.ids:
            raise InvalidRequest(f"get takes between 1 and {MAX_GET_IDS} ids")
        if any(not item_id.strip() for item_id in self.ids):
            raise InvalidRequest("an id must not be blank")


# --- export and erase -------------------------------------------------------


@attrs.frozen(kw_only=True)
class Exported:
    """An item handed back whole, as it was stored, under its id."""

    id: str
    item: StoreItem


def _exports(values: Iterable[Exported]) -> tuple[Exported, ...]:
    return to_tuple_of(Exported, "items", values)


@attrs.frozen(kw_only=True)
class ExportPage:
    """Exported items; ``incomplete`` names items the engine holds only part of."""

    items: tuple[Exported, ...] = attrs.field(converter=_exports)
    incomplete: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)
    next_cursor: str | None = None


@attrs.frozen(kw_only=True)
class EraseRequest:
    """Delete for good every item of ``kinds`` (all when empty) at the nodes ``reach`` names.

    ``reach.at`` and, with ``descendants``, everything below it (sandboxes
    included; ``inherit`` is ignored). The root's whole tree of every kind is
    refused unless ``whole_tree`` is set.
    """

    reach: Reach = attrs.field(validator=instance_of(Reach, optional=False))
    kinds: tuple[ItemKind, ...] = attrs.field(default=(), converter=item_kinds)
    whole_tree: bool = False

    def erases(self, kind: ItemKind, namespace: Namespace) -> bool:
        """Whether an item of ``kind`` at ``namespace`` falls to this erase."""
        if self.kinds and kind not in self.kinds:
            return False
        if namespace == self.reach.at:
            return True
        return self.reach.descendants and namespace.is_within(self.reach.at)

    def validate(self) -> None:
        """Refuse the whole tree without the interlock."""
        everything = not self.kinds or set(self.kinds) == set(ItemKind)
        if self.reach.at.is_root and self.reach.descendants and everything and not self.whole_tree:
            raise InvalidRequest("erasing the whole tree needs whole_tree: true")


@attrs.frozen(kw_only=True)
class EraseReport:
    """How many scopes an erase touched, and the engine's receipts for it."""

    erased_scopes: int = attrs.field(validator=count)
    receipts: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)
