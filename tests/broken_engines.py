"""Engines that each break one rule of the contract, for testing the conformance suite.

Each wraps the reference engine and changes one behaviour; the suite must
fail every one of them, in the check named beside it in ``FAULTS``.
"""

from __future__ import annotations

import attrs

from tinymemory import (
    Citation,
    EngineDescriptor,
    EngineHealth,
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    FacetBucket,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ItemKind,
    ListPage,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Reach,
    RecallAnswer,
    RecallRequest,
    ReferenceEngine,
    StoreReceipt,
)
from tinymemory._engine import EngineWrapper
from tinymemory._items import StoreItem


class Wrapped(EngineWrapper):
    """The reference engine behind a wrapper that subclasses bend."""

    def __init__(self) -> None:
        super().__init__(ReferenceEngine())


class IgnoresFetchFilter(Wrapped):
    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        return self.inner.handle_fetch(attrs.evolve(request, filter=MetaFilter()))


class NeverReplays(Wrapped):
    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return StoreReceipt(self.inner.handle_store(item).id, replayed=False)

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return [self.handle_store(item) for item in items]


class AcceptsEmptyForget(Wrapped):
    def forget(self, target: ForgetTarget) -> ForgetReport:
        if target.ids == () or target.filter == MetaFilter():
            return ForgetReport(0)
        return super().forget(target)


class ServesUndeclaredMode(Wrapped):
    @property
    def descriptor(self) -> EngineDescriptor:
        return attrs.evolve(self.inner.descriptor, fetch_modes=[FetchMode.KEYWORD])

    def fetch(self, request: FetchRequest) -> FetchPage:
        return self.handle_fetch(request)


class CitesUnknownIds(Wrapped):
    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        answer = self.inner.handle_recall(request)
        made_up = Citation(
            id="0" * 40, kind=ItemKind.LEARNING, snippet="made up", meta=MemoryMeta()
        )
        return attrs.evolve(answer, citations=[*answer.citations, made_up])


class ReportsDown(Wrapped):
    def health(self) -> EngineHealth:
        return EngineHealth.down("maintenance")


class UndercountsExplore(Wrapped):
    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        page = self.inner.handle_explore(request)
        if not page.buckets:
            return page
        first, *rest = page.buckets
        return attrs.evolve(page, buckets=[FacetBucket(first.value, first.count - 1), *rest])


class GetsOutOfOrder(Wrapped):
    def handle_get(self, request: GetRequest) -> list[Hit]:
        return sorted(self.inner.handle_get(request), key=lambda hit: hit.id)


class ReversesStoreManyReceipts(Wrapped):
    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return self.inner.handle_store_many(items)[::-1]


class ListIgnoresReach(Wrapped):
    def handle_list(self, request: ListRequest) -> ListPage:
        unscoped = attrs.evolve(request.filter, reach=None)
        return self.inner.handle_list(attrs.evolve(request, filter=unscoped))


class GetIgnoresReach(Wrapped):
    def handle_get(self, request: GetRequest) -> list[Hit]:
        return self.inner.handle_get(attrs.evolve(request, reach=None))


class LeaksSandbox(Wrapped):
    """A subtree read also returns items in ``service:`` sandboxes below its node."""

    def handle_list(self, request: ListRequest) -> ListPage:
        reach = request.filter.reach
        if reach is None or not reach.descendants:
            return self.inner.handle_list(request)
        rest = attrs.evolve(request.filter, reach=None)
        hits = [
            Hit.of_item(item_id, item)
            for item_id, item in self.inner._items.items()
            if item.meta.namespace.is_within(reach.at)
            and attrs.evolve(rest, reach=Reach.exact(item.meta.namespace)).matches(
                item.item_kind, item.meta
            )
        ]
        start = int(request.cursor or 0)
        chosen = hits[start : start + request.limit]
        more = start + request.limit < len(hits)
        return ListPage(items=chosen, next_cursor=str(start + request.limit) if more else None)


class ErasesEveryKind(Wrapped):
    def handle_erase(self, request: EraseRequest) -> EraseReport:
        return self.inner.handle_erase(attrs.evolve(request, kinds=[]))


#: Each broken engine and the fixed check that must catch it.
FAULTS: dict[type[Wrapped], str] = {
    IgnoresFetchFilter: "fetch_filters",
    NeverReplays: "replay",
    AcceptsEmptyForget: "empty_forget",
    ServesUndeclaredMode: "unsupported_modes",
    CitesUnknownIds: "recall",
    ReportsDown: "health",
    UndercountsExplore: "explore",
    GetsOutOfOrder: "get",
    ReversesStoreManyReceipts: "store_many",
    ListIgnoresReach: "namespaces",
    GetIgnoresReach: "namespaces",
    LeaksSandbox: "namespaces",
    ErasesEveryKind: "erase",
}
