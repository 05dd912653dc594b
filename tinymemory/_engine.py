"""The engine contract: :class:`MemoryEngine`, its descriptor and its health.

A caller uses the public operations (``recall``, ``fetch``, ``store``, ...);
each checks its request against the contract and refuses a bad one with
:class:`~tinymemory._errors.InvalidRequest` before the engine does any work.
An engine author implements the ``handle_*`` methods, which always receive a
validated request. ``handle_explore``, ``handle_get``, ``handle_store_many``,
``handle_export`` and ``handle_erase`` have the spec's defaults.
"""

from __future__ import annotations

import abc
import builtins
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType

import attrs

from tinymemory._errors import InvalidRequest, Unsupported
from tinymemory._items import StoreItem, StoreReceipt, validate_item, validate_many
from tinymemory._meta import MetaFilter
from tinymemory._namespace import Reach
from tinymemory._operations import (
    MAX_GET_IDS,
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    ExportPage,
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
from tinymemory._validators import WireEnum, optional_str, required_str, to_enum_tuple

#: Page size the listing-based defaults read with.
LISTING_PAGE = 200


class HealthState(WireEnum):
    """Whether an engine is serving."""

    OK = "ok"
    DEGRADED = "degraded"
    DOWN = "down"


@attrs.frozen
class EngineHealth:
    """An engine's health: ok, degraded (still serving) or down, with a reason."""

    state: HealthState
    reason: str | None = attrs.field(default=None, validator=optional_str)

    def __attrs_post_init__(self) -> None:
        if (self.state is HealthState.OK) != (self.reason is None):
            raise InvalidRequest("a degraded or down health needs a reason; ok has none")

    @classmethod
    def ok(cls) -> EngineHealth:
        """Serving normally."""
        return cls(HealthState.OK)

    @classmethod
    def degraded(cls, reason: str) -> EngineHealth:
        """Serving, with a problem worth reporting."""
        return cls(HealthState.DEGRADED, reason)

    @classmethod
    def down(cls, reason: str) -> EngineHealth:
        """Not serving."""
        return cls(HealthState.DOWN, reason)

    @property
    def serving(self) -> bool:
        """Whether calls may succeed (anything but down)."""
        return self.state is not HealthState.DOWN


def _fetch_modes(values: Iterable[FetchMode | str]) -> tuple[FetchMode, ...]:
    return to_enum_tuple(FetchMode, values)


@attrs.frozen(kw_only=True)
class EngineDescriptor:
    """What an engine is and what it needs; hosts read it before offering anything."""

    id: str = attrs.field(validator=required_str)
    label: str = attrs.field(validator=required_str)
    description: str = attrs.field(validator=required_str)
    hosted: bool = False
    needs_endpoint: bool = False
    needs_key: bool = False
    default_endpoint: str | None = attrs.field(default=None, validator=optional_str)
    fetch_modes: tuple[FetchMode, ...] = attrs.field(default=(), converter=_fetch_modes)


def _require(value: object, cls: type, operation: str) -> None:
    if not isinstance(value, cls):
        raise InvalidRequest(f"{operation} takes a {cls.__name__}, not {type(value).__name__}")


class MemoryEngine(abc.ABC):
    """A memory engine: recall, fetch and store, plus the operations around them.

    Engines are synchronous and safe to share between threads. Use one as a
    context manager, or call :meth:`close`, to release what it holds.
    """

    # --- what an engine must provide ------------------------------------

    @property
    @abc.abstractmethod
    def descriptor(self) -> EngineDescriptor:
        """The engine's descriptor."""

    @abc.abstractmethod
    def health(self) -> EngineHealth:
        """Whether the engine is serving."""

    @abc.abstractmethod
    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        """Answer a validated recall request."""

    @abc.abstractmethod
    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        """Serve a validated fetch in a mode the descriptor declares."""

    @abc.abstractmethod
    def handle_store(self, item: StoreItem) -> StoreReceipt:
        """Store a validated item; an item already stored is a replay."""

    @abc.abstractmethod
    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        """Forget by ids or by a non-empty filter; report only what was removed."""

    @abc.abstractmethod
    def handle_list(self, request: ListRequest) -> ListPage:
        """A page of items the filter admits, each with score 0."""

    # --- what an engine may override --------------------------------------

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        """Group items by a facet; the default pages through ``list``."""
        return explore_by_listing(self, request)

    def handle_get(self, request: GetRequest) -> list[Hit]:
        """Read items by id; the default pages through ``list``."""
        return get_by_listing(self, request)

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        """Store a validated batch; the default stores one at a time, stopping at an error."""
        return [self.handle_store(item) for item in items]

    def handle_export(self, request: ListRequest) -> ExportPage:
        """Hand items back whole; the default refuses."""
        raise Unsupported(f"engine `{self.descriptor.id}` does not export items")

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        """Delete for good; the default refuses (callers fall back to forget)."""
        raise Unsupported(f"engine `{self.descriptor.id}` does not erase items")

    def close(self) -> None:
        """Release what the engine holds (connections, files). The default holds nothing."""
        return

    def storage_paths(self) -> tuple[Path, ...]:
        """The local files the engine keeps its memory in, so tools never write over them.

        ``tinymemory export -o`` refuses these. The default is none (a remote
        engine, or one kept in memory); an engine over local files names every
        one it owns, including any that exist only at times (a journal).
        """
        return ()

    # --- the operations callers use ---------------------------------------

    def recall(self, request: RecallRequest) -> RecallAnswer:
        """Answer a question from memory, with citations."""
        _require(request, RecallRequest, "recall")
        request.validate()
        return self.handle_recall(request)

    def fetch(self, request: FetchRequest) -> FetchPage:
        """Rank stored items against a query; ``Unsupported`` for an undeclared mode."""
        _require(request, FetchRequest, "fetch")
        self.ensure_mode(request.mode)
        request.validate()
        return self.handle_fetch(request)

    def store(self, item: StoreItem) -> StoreReceipt:
        """Store one item; an identical item (``observed_at`` aside) is a replay."""
        return self.handle_store(validate_item(item))

    def store_many(self, items: Iterable[StoreItem]) -> list[StoreReceipt]:
        """Store 1 to ``MAX_STORE_MANY`` items (any iterable, read once); receipts in item order.

        The whole batch is checked before anything is stored. An item repeated
        in the batch is a replay of its first copy.
        """
        return self.handle_store_many(validate_many(items))

    def forget(self, target: ForgetTarget) -> ForgetReport:
        """Forget by ids (unconfined) or by a non-empty filter."""
        _require(target, ForgetTarget, "forget")
        target.validate()
        return self.handle_forget(target)

    def list(self, request: ListRequest) -> ListPage:
        """Page through stored items without ranking."""
        _require(request, ListRequest, "list")
        request.validate()
        return self.handle_list(request)

    def explore(self, request: ExploreRequest) -> ExplorePage:
        """Count items per value of a facet, largest first."""
        _require(request, ExploreRequest, "explore")
        request.validate()
        return self.handle_explore(request)

    def get(self, request: GetRequest) -> builtins.list[Hit]:
        """Read items whole by id, in the order named; unknown or out-of-reach ids are left out."""
        _require(request, GetRequest, "get")
        request.validate()
        return self.handle_get(request)

    def export(self, request: ListRequest) -> ExportPage:
        """Page through items as the StoreItems they were stored as."""
        _require(request, ListRequest, "export")
        request.validate()
        return self.handle_export(request)

    def erase(self, request: EraseRequest) -> EraseReport:
        """Delete every item of the request's kinds at its nodes, for good."""
        _require(request, EraseRequest, "erase")
        request.validate()
        return self.handle_erase(request)

    def forget_within(self, ids: Iterable[str], reach: Reach | None) -> ForgetReport:
        """Forget only those of ``ids`` that ``reach`` can see (a confined forget by id).

        The ids are read back with ``get`` under the reach first; nothing found
        means no forget is sent at all.
        """
        named = ForgetTarget.by_ids(ids)  # refuses more ids than its cap before reading them all
        named.validate()
        wanted = list(dict.fromkeys(named.ids or ()))
        found: list[str] = []
        for start in range(0, len(wanted), MAX_GET_IDS):
            batch = wanted[start : start + MAX_GET_IDS]
            found.extend(hit.id for hit in self.get(GetRequest(ids=batch, reach=reach)))
        if not found:
            return ForgetReport(0)
        return self.forget(ForgetTarget.by_ids(found))

    def ensure_mode(self, mode: FetchMode) -> None:
        """Refuse with ``Unsupported`` a fetch mode the descriptor does not declare."""
        if mode not in self.descriptor.fetch_modes:
            raise Unsupported(f"engine `{self.descriptor.id}` does not offer {mode.value} fetch")

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.descriptor.id!r}>"


class EngineWrapper(MemoryEngine):
    """An engine that hands every operation to ``inner``; subclasses override what they change.

    Each ``handle_*`` calls the inner engine's public operation, so the inner
    engine still validates what a subclass passes on. ``close`` closes it.
    """

    def __init__(self, inner: MemoryEngine) -> None:
        self.inner = inner

    @property
    def descriptor(self) -> EngineDescriptor:
        return self.inner.descriptor

    def health(self) -> EngineHealth:
        return self.inner.health()

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return self.inner.store(item)

    def handle_store_many(self, items: builtins.list[StoreItem]) -> builtins.list[StoreReceipt]:
        return self.inner.store_many(items)

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        return self.inner.recall(request)

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        return self.inner.fetch(request)

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        return self.inner.forget(target)

    def handle_list(self, request: ListRequest) -> ListPage:
        return self.inner.list(request)

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        return self.inner.explore(request)

    def handle_get(self, request: GetRequest) -> builtins.list[Hit]:
        return self.inner.get(request)

    def handle_export(self, request: ListRequest) -> ExportPage:
        return self.inner.export(request)

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        return self.inner.erase(request)

    def close(self) -> None:
        self.inner.close()

    def storage_paths(self) -> tuple[Path, ...]:
        return self.inner.storage_paths()


def explore_by_listing(engine: MemoryEngine, request: ExploreRequest) -> ExplorePage:
    """Explore by paging through ``list`` up to ``scan_limit`` items.

    ``truncated`` is set when the scan stops with items left, and the counts
    are then a lower bound.
    """
    request.validate()
    counts: dict[str, int] = {}
    total = missing = 0
    cursor: str | None = None
    truncated = False
    while True:
        size = min(LISTING_PAGE, request.scan_limit - total)
        page = engine.list(ListRequest(filter=request.filter, limit=size, cursor=cursor))
        for hit in page.items:
            total += 1
            values = request.facet.values(hit.kind, hit.meta)
            if not values:
                missing += 1
            for value in values:
                counts[value] = counts.get(value, 0) + 1
        cursor = page.next_cursor
        if cursor is None:
            break
        if total >= request.scan_limit:
            truncated = True
            break
    return build_explore_page(request, counts, total=total, missing=missing, truncated=truncated)


def build_explore_page(
    request: ExploreRequest,
    counts: dict[str, int],
    *,
    total: int,
    missing: int,
    truncated: bool,
) -> ExplorePage:
    """Order counted values largest first (ties by value) and cut them to the limit."""
    ordered = sorted(counts.items(), key=lambda pair: (-pair[1], pair[0].encode("utf-8")))
    kept = ordered[: request.limit]
    return ExplorePage(
        facet=request.facet,
        buckets=[FacetBucket(value, number) for value, number in kept],
        total=total,
        missing=missing,
        more_buckets=len(ordered) - len(kept),
        truncated=truncated,
    )


def get_by_listing(engine: MemoryEngine, request: GetRequest) -> list[Hit]:
    """Get by paging through ``list`` (filtered by the reach alone) until every id is found."""
    request.validate()
    wanted = set(request.ids)
    found: dict[str, Hit] = {}
    for hit in listed_items(engine, MetaFilter(reach=request.reach)):
        if hit.id in wanted:
            found[hit.id] = hit
            if not wanted - found.keys():
                break
    return [found[item_id] for item_id in dict.fromkeys(request.ids) if item_id in found]


def listed_items(engine: MemoryEngine, filter: MetaFilter | None = None) -> Iterator[Hit]:
    """Every item ``filter`` admits (every item when ``None``), in ``list`` order, read a page
    at a time as the caller goes on; a cursor handed back unchanged ends the listing."""
    listing_filter = filter if filter is not None else MetaFilter()
    cursor: str | None = None
    while True:
        page = engine.list(ListRequest(filter=listing_filter, limit=LISTING_PAGE, cursor=cursor))
        yield from page.items
        if page.next_cursor is None or page.next_cursor == cursor:
            return
        cursor = page.next_cursor
