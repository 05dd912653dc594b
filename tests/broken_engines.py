"""Engines that each break one rule of the contract, for testing the conformance suite.

Each wraps the reference engine and changes one behaviour; the suite must
fail every one of them, in the check named beside it in ``FAULTS``.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, TypeVar

import attrs

from tinymemory import (
    Citation,
    EngineDescriptor,
    EngineHealth,
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
    InvalidRequest,
    ItemKind,
    ListPage,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    RecallAnswer,
    RecallRequest,
    ReferenceEngine,
    StoreReceipt,
    Unavailable,
)
from tinymemory._cursors import CursorCodec, new_secret, read_key
from tinymemory._engine import EngineWrapper, explore_by_listing
from tinymemory._items import MAX_STORE_MANY, Learning, StoreItem
from tinymemory._limits import USIZE_MAX
from tinymemory._wire import to_json
from tinymemory.retrieval import Piece, cut_pieces

T = TypeVar("T")


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


def _trimmed(hit: Hit) -> Hit:
    return attrs.evolve(hit, text=hit.text.strip())


class TrimsText(Wrapped):
    """Reads hand text back trimmed."""

    def handle_list(self, request: ListRequest) -> ListPage:
        page = self.inner.handle_list(request)
        return attrs.evolve(page, items=[_trimmed(hit) for hit in page.items])

    def handle_get(self, request: GetRequest) -> list[Hit]:
        return [_trimmed(hit) for hit in self.inner.handle_get(request)]


class NormalisesText(Wrapped):
    """Reads hand text back in Unicode's composed form (NFC)."""

    def handle_list(self, request: ListRequest) -> ListPage:
        page = self.inner.handle_list(request)
        items = [
            attrs.evolve(hit, text=unicodedata.normalize("NFC", hit.text)) for hit in page.items
        ]
        return attrs.evolve(page, items=items)


class StoresOverTheMaximum(Wrapped):
    """Takes a batch of any size (the batch is never checked as a whole)."""

    def store_many(self, items: Sequence[StoreItem]) -> list[StoreReceipt]:
        return [self.store(item) for item in items]


class StoresPartOfAnInvalidBatch(Wrapped):
    """Checks the batch's size, then stores item by item until an invalid one."""

    def store_many(self, items: Sequence[StoreItem]) -> list[StoreReceipt]:
        if not 1 <= len(items) <= MAX_STORE_MANY:
            raise InvalidRequest("store_many takes between 1 and 100 items")
        return [self.store(item) for item in items]


class AnswersLimitZero(Wrapped):
    """A list of limit 0 answers an empty page instead of refusing."""

    def list(self, request: ListRequest) -> ListPage:
        if request.limit == 0:
            return ListPage(items=[])
        return super().list(request)


class FetchPageOverLimit(Wrapped):
    """Fetch serves one hit more than the limit."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.handle_fetch(attrs.evolve(request, limit=request.limit + 1))
        start = int(request.cursor or 0)
        more = page.next_cursor is not None
        return attrs.evolve(page, next_cursor=str(start + request.limit) if more else None)


class FetchRepeatsAcrossPages(Wrapped):
    """Each next fetch page starts one hit early, serving the last hit again."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.handle_fetch(request)
        if page.next_cursor is None:
            return page
        return attrs.evolve(page, next_cursor=str(int(page.next_cursor) - 1))


class ListPageOverLimit(Wrapped):
    """List serves one item more than the limit."""

    def handle_list(self, request: ListRequest) -> ListPage:
        return self.inner.handle_list(attrs.evolve(request, limit=request.limit + 1))


class DropsTagsPastTheVariableLimit(Wrapped):
    """List reads only the first 999 tags of ``tags_any`` (an old SQLite's bound-variable limit)."""

    def handle_list(self, request: ListRequest) -> ListPage:
        tags = request.filter.tags_any[:999]
        return self.inner.handle_list(
            attrs.evolve(request, filter=attrs.evolve(request.filter, tags_any=tags))
        )


class FetchWorstFirst(Wrapped):
    """Fetch hands each page's hits worst first."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.handle_fetch(request)
        return attrs.evolve(page, hits=page.hits[::-1])


class DropsConfidenceOnFetch(Wrapped):
    """Fetch hits of learnings carry no confidence."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.handle_fetch(request)
        return attrs.evolve(page, hits=[attrs.evolve(hit, confidence=None) for hit in page.hits])


def _own_cursor(cursor: str | None) -> str | None:
    """A cursor that is not a decimal offset read as "start over"."""
    return cursor if cursor is not None and cursor.isdigit() else None


class ForeignCursorStartsOver(Wrapped):
    """List, export and fetch read a cursor they never issued as the first page."""

    def handle_list(self, request: ListRequest) -> ListPage:
        return self.inner.handle_list(attrs.evolve(request, cursor=_own_cursor(request.cursor)))

    def handle_export(self, request: ListRequest) -> ExportPage:
        return self.inner.handle_export(attrs.evolve(request, cursor=_own_cursor(request.cursor)))

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        return self.inner.handle_fetch(attrs.evolve(request, cursor=_own_cursor(request.cursor)))


class WindowIncludesItsEnd(Wrapped):
    """List reads ``observed_before`` as inclusive."""

    def handle_list(self, request: ListRequest) -> ListPage:
        before = request.filter.observed_before
        if before is None:
            return self.inner.handle_list(request)
        widened = attrs.evolve(request.filter, observed_before=before + timedelta(microseconds=1))
        return self.inner.handle_list(attrs.evolve(request, filter=widened))


class FolderPrefixByText(Wrapped):
    """List matches a folder filter as a text prefix, so ``a/b`` admits ``a/bc``."""

    def handle_list(self, request: ListRequest) -> ListPage:
        folder = request.filter.folder
        if folder is None:
            return self.inner.handle_list(request)
        unfiltered = attrs.evolve(request.filter, folder=None)
        page = self.inner.handle_list(attrs.evolve(request, filter=unfiltered))
        kept = [hit for hit in page.items if (hit.meta.folder or "").startswith(folder.rstrip("/"))]
        return attrs.evolve(page, items=kept)


class ForgetCrossesWorkspaces(Wrapped):
    """A forget by tags drops the filter's workspace."""

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        if target.filter is not None and target.filter.tags_any:
            target = ForgetTarget.by_filter(attrs.evolve(target.filter, workspace=None))
        return self.inner.handle_forget(target)


class CitesOverTheLimit(Wrapped):
    """Recall cites two items more than the limit."""

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        return self.inner.handle_recall(attrs.evolve(request, limit=request.limit + 2))


class RecallIgnoresKinds(Wrapped):
    """Recall cites items of every kind, whatever the filter's kinds."""

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        return self.inner.handle_recall(
            attrs.evolve(request, filter=attrs.evolve(request.filter, kinds=[]))
        )


class ExploreTiesReversed(Wrapped):
    """Explore orders buckets of equal count by value, descending."""

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        page = self.inner.handle_explore(request)
        ordered = sorted(page.buckets, key=lambda bucket: bucket.value, reverse=True)
        ordered.sort(key=lambda bucket: -bucket.count)
        return attrs.evolve(page, buckets=ordered)


class ExploreIgnoresLimit(Wrapped):
    """Explore hands back every bucket, whatever the limit."""

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        return self.inner.handle_explore(attrs.evolve(request, limit=500))


class ListLosesTags(Wrapped):
    """Listed items come back without their tags."""

    def handle_list(self, request: ListRequest) -> ListPage:
        page = self.inner.handle_list(request)
        items = [attrs.evolve(hit, meta=attrs.evolve(hit.meta, tags=())) for hit in page.items]
        return attrs.evolve(page, items=items)


class ListsWithAScore(Wrapped):
    """Listed items carry a score, where a listing's is always 0."""

    def handle_list(self, request: ListRequest) -> ListPage:
        page = self.inner.handle_list(request)
        return attrs.evolve(page, items=[attrs.evolve(hit, score=0.5) for hit in page.items])


class ExportLosesEvidence(Wrapped):
    """Exported learnings come back without their evidence."""

    def handle_export(self, request: ListRequest) -> ExportPage:
        page = self.inner.handle_export(request)
        items = [
            attrs.evolve(entry, item=attrs.evolve(entry.item, evidence=None))
            if isinstance(entry.item, Learning)
            else entry
            for entry in page.items
        ]
        return attrs.evolve(page, items=items)


class ForgetCountsUnknownIds(Wrapped):
    """A forget by ids reports every id named as forgotten, stored or not."""

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        report = self.inner.handle_forget(target)
        return ForgetReport(len(target.ids)) if target.ids is not None else report


class IgnoresClose(Wrapped):
    """Close releases nothing: the engine serves on."""

    def close(self) -> None:
        return


# --- round three: each breaks a rule only away from the one point round two built ---


def _within(filter: MetaFilter, item: StoreItem) -> bool:
    return filter.matches(item.item_kind, item.meta)


class ListCapsPagesAt100(Wrapped):
    """A list page asked with a limit above 100 holds 100 items and says there is no more."""

    def handle_list(self, request: ListRequest) -> ListPage:
        if request.limit <= 100:
            return self.inner.handle_list(request)
        page = self.inner.handle_list(attrs.evolve(request, limit=100))
        return attrs.evolve(page, next_cursor=None)


class LaterFetchPagesDropTheFilter(Wrapped):
    """Fetch pages after the first are ranked without the request's filter."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        if request.cursor is None:
            return self.inner.handle_fetch(request)
        return self.inner.handle_fetch(attrs.evolve(request, filter=MetaFilter()))


class MoreBucketsCountsItems(Wrapped):
    """``more_buckets`` counts the items of the buckets cut, not the buckets."""

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        page = self.inner.handle_explore(request)
        whole = self.inner.handle_explore(attrs.evolve(request, limit=500))
        cut = sum(bucket.count for bucket in whole.buckets[request.limit :])
        return attrs.evolve(page, more_buckets=cut)


class InheritsOnlyTheParent(Wrapped):
    """An inheriting reach reads its node and its parent, not every ancestor."""

    def _narrowed(self, reach: Reach | None, namespace: Namespace) -> bool:
        if reach is None or not reach.inherit or namespace == reach.at:
            return Reach.admitted_by(reach, namespace)
        if reach.at.is_within(namespace) and namespace != reach.at.parent():
            return False
        return Reach.admitted_by(reach, namespace)

    def handle_list(self, request: ListRequest) -> ListPage:
        page = self.inner.handle_list(attrs.evolve(request, limit=2**32, cursor=None))
        kept = [
            hit for hit in page.items if self._narrowed(request.filter.reach, hit.meta.namespace)
        ]
        start = int(request.cursor or 0)
        more = start + request.limit < len(kept)
        chosen = kept[start : start + request.limit]
        return ListPage(items=chosen, next_cursor=str(start + request.limit) if more else None)


class GetIgnoresReachBelowTheTop(Wrapped):
    """``get`` honours the reach for items at most two levels deep only."""

    def handle_get(self, request: GetRequest) -> list[Hit]:
        everywhere = self.inner.handle_get(
            attrs.evolve(request, reach=Reach.subtree(Namespace.ROOT))
        )
        scoped = {hit.id for hit in self.inner.handle_get(request)}
        return [
            hit for hit in everywhere if hit.id in scoped or len(hit.meta.namespace.segments) > 2
        ]


class EraseTouchesAncestors(Wrapped):
    """An erase with an inheriting reach also erases the ancestors that reach would read."""

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        report = self.inner.handle_erase(request)
        if request.reach.inherit:
            for ancestor in request.reach.at.ancestors_and_self()[1:-1]:
                self.inner.handle_erase(attrs.evolve(request, reach=Reach.exact(ancestor)))
        return report


class ErasesTwoLevelsDown(Wrapped):
    """An erase with descendants reaches children and grandchildren, nothing deeper."""

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        if not request.reach.descendants:
            return self.inner.handle_erase(request)
        at = request.reach.at
        doomed = {
            item.meta.namespace
            for item in self.inner._open_items().values()
            if item.meta.namespace.is_within(at)
            and len(item.meta.namespace.segments) - len(at.segments) <= 2
        }
        for node in doomed:
            self.inner.handle_erase(attrs.evolve(request, reach=Reach.exact(node)))
        return EraseReport(erased_scopes=len(doomed))


class WholeTreeOnlyWithoutKinds(Wrapped):
    """The whole-tree interlock holds only when no kinds are named: naming all three erases."""

    def erase(self, request: EraseRequest) -> EraseReport:
        if request.kinds:
            return self.inner.handle_erase(request)
        return super().erase(request)


class ReachOnlyForgetForgetsNothing(Wrapped):
    """A forget by a filter holding only a reach is taken as empty: nothing forgotten."""

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        if target.filter is not None and target.filter == MetaFilter(reach=target.filter.reach):
            return ForgetReport(0)
        return self.inner.handle_forget(target)


def _cut(text: str) -> str:
    return text[: 64 * 1024]


class CutsTextAt64KiB(Wrapped):
    """Listed text is cut to its first 65,536 characters."""

    def handle_list(self, request: ListRequest) -> ListPage:
        page = self.inner.handle_list(request)
        return attrs.evolve(
            page, items=[attrs.evolve(hit, text=_cut(hit.text)) for hit in page.items]
        )


class ChecksCapsOneByOne(Wrapped):
    """store_many checks each item's own rules, then stores one by one, so an item over a cap
    is refused only when its turn comes, after the items before it are stored."""

    def store_many(self, items: Sequence[StoreItem]) -> list[StoreReceipt]:
        batch = list(items)
        if not 1 <= len(batch) <= MAX_STORE_MANY:
            raise InvalidRequest("store_many takes between 1 and 100 items")
        for item in batch:
            item.validate()
        return [self.store(item) for item in batch]


class IdentityIgnoresToolCallId(Wrapped):
    """An item differing from a stored one only in its tool call's id is a replay of it."""

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        call = item.meta.tool_call
        if call is not None and call.id is not None:
            bare = item.with_meta(attrs.evolve(item.meta, tool_call=attrs.evolve(call, id=None)))
            for stored_id, stored in self.inner._items.items():
                other = stored.meta.tool_call
                if (
                    other is not None
                    and stored.with_meta(
                        attrs.evolve(stored.meta, tool_call=attrs.evolve(other, id=None))
                    )
                    == bare
                ):
                    return StoreReceipt(stored_id, replayed=True)
        return self.inner.handle_store(item)

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return [self.handle_store(item) for item in items]


class RoundsConfidence(Wrapped):
    """Listed learnings carry their confidence rounded to two decimals."""

    def handle_list(self, request: ListRequest) -> ListPage:
        page = self.inner.handle_list(request)
        items = [
            attrs.evolve(hit, confidence=round(hit.confidence, 2))
            if hit.confidence is not None
            else hit
            for hit in page.items
        ]
        return attrs.evolve(page, items=items)


class PathFilterByLike(Wrapped):
    """Folder filters match like SQL's LIKE: ``_`` any character, ``%`` any run, ASCII case
    ignored."""

    def handle_list(self, request: ListRequest) -> ListPage:
        folder = request.filter.folder
        if folder is None:
            return self.inner.handle_list(request)
        pattern = re.escape(folder.rstrip("/")).replace("_", ".").replace("%", ".*")
        rest = attrs.evolve(request.filter, folder=None)
        admitted = [
            Hit.of_item(item_id, item)
            for item_id, item in self.inner._items.items()
            if _within(rest, item)
            and item.meta.folder is not None
            and re.fullmatch(f"{pattern}(/.*)?", item.meta.folder, re.IGNORECASE | re.ASCII)
        ]
        start = int(request.cursor or 0)
        more = start + request.limit < len(admitted)
        chosen = admitted[start : start + request.limit]
        return ListPage(items=chosen, next_cursor=str(start + request.limit) if more else None)


class WindowInWholeSeconds(Wrapped):
    """List compares window bounds in whole seconds, dropping their fractions."""

    def handle_list(self, request: ListRequest) -> ListPage:
        filter = request.filter
        whole = attrs.evolve(
            filter,
            observed_after=filter.observed_after and filter.observed_after.replace(microsecond=0),
            observed_before=filter.observed_before
            and filter.observed_before.replace(microsecond=0),
        )
        return self.inner.handle_list(attrs.evolve(request, filter=whole))


class LosesConcurrentStores(Wrapped):
    """Stores read the whole memory, add the item and write it all back: stores running at
    once lose each other's items."""

    #: How long a store of the thread check waits for a partner: only the last, lone one
    #: ever waits it out, so it bounds a run's wall time, not whether the fault shows.
    PARTNER_SECONDS = 5.0

    def __init__(self) -> None:
        super().__init__()
        # Two stores from the check's worker threads meet here, each with the memory read,
        # so they always overlap: no sleep racing a loaded machine's scheduler.
        self._overlap = threading.Barrier(2)

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        before = dict(self.inner._items)
        receipt = self.inner.handle_store(item)
        if threading.current_thread() is not threading.main_thread():
            try:
                self._overlap.wait(timeout=self.PARTNER_SECONDS)
            except threading.BrokenBarrierError:
                self._overlap.reset()
        self.inner._items.clear()
        self.inner._items.update(before)
        self.inner._items[receipt.id] = item
        return receipt

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return [self.handle_store(item) for item in items]


class TransientRefusal(InvalidRequest):
    transient = True


class RefusesAsTransient(Wrapped):
    """Refusals of bad requests are marked transient, as if worth retrying unchanged."""

    def list(self, request: ListRequest) -> ListPage:
        try:
            return super().list(request)
        except InvalidRequest as error:
            raise TransientRefusal(error.message) from None


class ExportsAfterClose(Wrapped):
    """After close, list and the rest fail, but export, erase and store_many still serve."""

    def close(self) -> None:
        self.closed = True

    def _open(self) -> None:
        if getattr(self, "closed", False):
            raise Unavailable("the engine is closed")

    def health(self) -> EngineHealth:
        if getattr(self, "closed", False):
            return EngineHealth.down("closed")
        return super().health()

    def handle_list(self, request: ListRequest) -> ListPage:
        self._open()
        return self.inner.handle_list(request)

    def handle_get(self, request: GetRequest) -> list[Hit]:
        self._open()
        return self.inner.handle_get(request)

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        self._open()
        return self.inner.handle_recall(request)

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        self._open()
        return self.inner.handle_explore(request)

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        self._open()
        return self.inner.handle_forget(target)

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        self._open()
        return self.inner.handle_fetch(request)

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        self._open()
        return self.inner.handle_store(item)


# --- round four: one per class of each field type, and per rule the contract settled ---


def _without(filter: MetaFilter, field: str) -> MetaFilter:
    """``filter`` with ``field`` back at its default."""
    changes: dict[str, Any] = {field: getattr(MetaFilter(), field)}
    return attrs.evolve(filter, **changes)


class BendsOneField(Wrapped):
    """Reads that match one filter field by ``same(stored, wanted)`` instead of the contract's
    rule: the inner engine reads without that field, this wrapper decides and pages."""

    field = ""

    def __init__(self) -> None:
        super().__init__()
        self.codec = CursorCodec(new_secret(), engine="broken")
        #: Each item's store order, which listings page by.
        self.seqs: dict[str, int] = {}

    def same(self, stored: Any, wanted: Any) -> bool:
        raise NotImplementedError

    def stored_value(self, hit: Hit) -> Any:
        return getattr(hit.meta, self.field)

    def _admits(self, hit: Hit, filter: MetaFilter) -> bool:
        wanted = getattr(filter, self.field)
        if wanted in (None, ()):
            return True
        stored = self.stored_value(hit)
        return stored is not None and self.same(stored, wanted)

    def _all(self, filter: MetaFilter) -> list[Hit]:
        every = self.inner.list(ListRequest(filter=_without(filter, self.field), limit=USIZE_MAX))
        return [hit for hit in every.items if self._admits(hit, filter)]

    def _paged(
        self, read: str, hits: list[Hit], cursor: str | None, limit: int
    ) -> tuple[list[Hit], str | None]:
        positions = self.codec.decode(read, cursor, 1)
        start = positions[0] if positions else 0
        end = start + limit
        return hits[start:end], self.codec.encode(read, end) if end < len(hits) else None

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        receipt = self.inner.store(item)
        self.seqs.setdefault(receipt.id, len(self.seqs) + 1)
        return receipt

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return [self.handle_store(item) for item in items]

    def handle_list(self, request: ListRequest) -> ListPage:
        read = read_key("list", to_json(request.filter))
        positions = self.codec.decode(read, request.cursor, 1)
        after = positions[0] if positions else 0
        rest = [hit for hit in self._all(request.filter) if self.seqs[hit.id] > after]
        items = rest[: request.limit]
        more = len(rest) > request.limit
        cursor = self.codec.encode(read, self.seqs[items[-1].id]) if more else None
        return ListPage(items=items, next_cursor=cursor)

    def handle_export(self, request: ListRequest) -> ExportPage:
        page = self.handle_list(request)
        loose = ListRequest(filter=_without(request.filter, self.field), limit=USIZE_MAX)
        exported = {entry.id: entry for entry in self.inner.export(loose).items}
        return ExportPage(
            items=[exported[hit.id] for hit in page.items], next_cursor=page.next_cursor
        )

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        loose = attrs.evolve(
            request, filter=_without(request.filter, self.field), limit=USIZE_MAX, cursor=None
        )
        hits = [hit for hit in self.inner.fetch(loose).hits if self._admits(hit, request.filter)]
        read = read_key("fetch", request.mode.value, request.query, to_json(request.filter))
        page, cursor = self._paged(read, hits, request.cursor, request.limit)
        return FetchPage(hits=page, next_cursor=cursor)

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        return explore_by_listing(self, request)

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        if target.filter is None:
            return self.inner.forget(target)
        ids = [hit.id for hit in self._all(target.filter)]
        return self.inner.forget(ForgetTarget.by_ids(ids)) if ids else ForgetReport(0)


class UrlIgnoresCase(BendsOneField):
    """``url`` compares case-insensitively."""

    field = "url"

    def same(self, stored: Any, wanted: Any) -> bool:
        return str(stored).casefold() == str(wanted).casefold()


class AgentIdByNormalForm(BendsOneField):
    """``agent_id`` compares the NFC forms, so a decomposed value matches its composed one."""

    field = "agent_id"

    def same(self, stored: Any, wanted: Any) -> bool:
        return unicodedata.normalize("NFC", stored) == unicodedata.normalize("NFC", wanted)


class WorkspaceTrimmed(BendsOneField):
    """``workspace`` compares with white space at either end trimmed off both sides."""

    field = "workspace"

    def same(self, stored: Any, wanted: Any) -> bool:
        return str(stored).strip() == str(wanted).strip()


class CommitByPrefix(BendsOneField):
    """``commit`` admits every stored commit that starts with the value (as a short hash)."""

    field = "commit"

    def same(self, stored: Any, wanted: Any) -> bool:
        return str(stored).startswith(str(wanted))


class ToolCallBySubstring(BendsOneField):
    """``tool_call`` admits every tool name that holds the value."""

    field = "tool_call"

    def stored_value(self, hit: Hit) -> Any:
        return None if hit.meta.tool_call is None else hit.meta.tool_call.name

    def same(self, stored: Any, wanted: Any) -> bool:
        return str(wanted) in str(stored)


class LanguageFilterTrimmed(BendsOneField):
    """The ``language`` filter value is trimmed before an exact compare (the stored one is
    not): only a filter with white space shows it."""

    field = "language"

    def same(self, stored: Any, wanted: Any) -> bool:
        return bool(stored == str(wanted).strip())


class FolderIgnoresCase(BendsOneField):
    """``folder`` matches as a path prefix, case-insensitively."""

    field = "folder"

    def same(self, stored: Any, wanted: Any) -> bool:
        prefix = str(wanted).rstrip("/").casefold()
        value = str(stored).casefold()
        return value == prefix or value.startswith(prefix + "/")


class TurnsByContainment(BendsOneField):
    """A ``turns`` filter admits any conversation whose range lies within it."""

    field = "turns"

    def same(self, stored: Any, wanted: Any) -> bool:
        return bool(wanted.first <= stored.first and stored.last <= wanted.last)


class FetchWindowEndInclusive(BendsOneField):
    """Fetch, explore and forget read ``observed_before`` as inclusive (list is right)."""

    field = "observed_before"

    def stored_value(self, hit: Hit) -> Any:
        return hit.meta.observed_at

    def same(self, stored: Any, wanted: Any) -> bool:
        return bool(stored <= wanted)

    def handle_list(self, request: ListRequest) -> ListPage:
        return self.inner.list(request)


class RepoCollapsesSpaces(BendsOneField):
    """``repo`` compares with runs of white space collapsed to one space."""

    field = "repo"

    def same(self, stored: Any, wanted: Any) -> bool:
        return " ".join(str(stored).split()) == " ".join(str(wanted).split())


class ThreadIdBySuffix(BendsOneField):
    """``thread_id`` admits every stored id that ends with the value."""

    field = "thread_id"

    def same(self, stored: Any, wanted: Any) -> bool:
        return str(stored).endswith(str(wanted))


class SourceIdAsLikePattern(BendsOneField):
    """``source_id`` is matched as a SQL LIKE pattern: ``_`` and ``%`` are wildcards."""

    field = "source_id"

    def stored_value(self, hit: Hit) -> Any:
        return hit.meta.source.id

    def same(self, stored: Any, wanted: Any) -> bool:
        pattern = "".join(
            ".*" if char == "%" else "." if char == "_" else re.escape(char) for char in wanted
        )
        return re.fullmatch(pattern, str(stored), re.DOTALL) is not None


class FilePathByTextPrefix(BendsOneField):
    """``file_path`` matches as a text prefix, not on a ``/`` boundary."""

    field = "file_path"

    def same(self, stored: Any, wanted: Any) -> bool:
        return str(stored).startswith(str(wanted).rstrip("/"))


class TagsAnyNeedsEveryTag(BendsOneField):
    """``tags_any`` admits an item only when it holds every tag asked."""

    field = "tags_any"

    def stored_value(self, hit: Hit) -> Any:
        return hit.meta.tags

    def same(self, stored: Any, wanted: Any) -> bool:
        return set(wanted) <= set(stored)


class KindsReadsTheFirstKind(BendsOneField):
    """A ``kinds`` filter of several kinds admits only the first."""

    field = "kinds"

    def stored_value(self, hit: Hit) -> Any:
        return hit.kind

    def same(self, stored: Any, wanted: Any) -> bool:
        return bool(stored == wanted[0])


class ExploreIgnoresSources(Wrapped):
    """Explore counts items of every source kind, whatever ``sources`` asks."""

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        return self.inner.explore(attrs.evolve(request, filter=_without(request.filter, "sources")))


class _OwnCursors(Wrapped):
    """Pages cut by this wrapper from whole inner reads, with cursors of its own choosing:
    a listing's position is the store order of its last item, a fetch's an offset."""

    def __init__(self) -> None:
        super().__init__()
        self.codec = CursorCodec(new_secret(), engine="broken")
        self.seqs: dict[str, int] = {}

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        receipt = self.inner.store(item)
        self.seqs.setdefault(receipt.id, len(self.seqs) + 1)
        return receipt

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return [self.handle_store(item) for item in items]

    def read_of(self, operation: str, request: ListRequest | FetchRequest) -> str:
        parts = [operation, to_json(request.filter)]
        if isinstance(request, FetchRequest):
            parts[1:1] = [request.mode.value, request.query]
        return read_key(*parts)

    def start(self, read: str, cursor: str | None) -> int:
        positions = self.codec.decode(read, cursor, 1)
        return positions[0] if positions else 0

    def cursor(self, read: str, position: int, more: bool) -> str | None:
        return self.codec.encode(read, position) if more else None

    def handle_list(self, request: ListRequest) -> ListPage:
        every = self.inner.list(attrs.evolve(request, cursor=None, limit=USIZE_MAX)).items
        read = self.read_of("list", request)
        after = self.start(read, request.cursor)
        rest = [hit for hit in every if self.seqs[hit.id] > after]
        page = rest[: request.limit]
        last = self.seqs[page[-1].id] if page else after
        return ListPage(items=page, next_cursor=self.cursor(read, last, len(rest) > len(page)))

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        every = self.inner.fetch(attrs.evolve(request, cursor=None, limit=USIZE_MAX)).hits
        read = self.read_of("fetch", request)
        start = self.start(read, request.cursor)
        end = start + request.limit
        return FetchPage(
            hits=every[start:end], next_cursor=self.cursor(read, end, end < len(every))
        )


class ListCursorOfAnyFilter(_OwnCursors):
    """A list cursor names no filter: one issued under one filter pages another."""

    def read_of(self, operation: str, request: ListRequest | FetchRequest) -> str:
        return operation if operation == "list" else super().read_of(operation, request)


class FetchCursorOfAnyMode(_OwnCursors):
    """A fetch cursor names its query and filter but not its mode."""

    def read_of(self, operation: str, request: ListRequest | FetchRequest) -> str:
        if isinstance(request, FetchRequest):
            return read_key(operation, request.query, to_json(request.filter))
        return super().read_of(operation, request)


class CursorSealOfFirstBytes(_OwnCursors):
    """A cursor is checked on all but its last two characters: a change there is read as
    the cursor it was."""

    def start(self, read: str, cursor: str | None) -> int:
        if cursor is not None:
            issued = self.issued.get(cursor[:-2])
            cursor = issued if issued is not None else cursor
        return super().start(read, cursor)

    def cursor(self, read: str, position: int, more: bool) -> str | None:
        cursor = super().cursor(read, position, more)
        if cursor is not None:
            self.issued[cursor[:-2]] = cursor
        return cursor

    def __init__(self) -> None:
        super().__init__()
        self.issued: dict[str, str] = {}


#: One secret for every engine of the class, as if built into the code.
_SHARED_CODEC = CursorCodec(b"one secret for all memories", engine="broken")


class CursorsOfEveryMemory(_OwnCursors):
    """Every memory seals its cursors with the same secret: one memory takes another's."""

    def __init__(self) -> None:
        super().__init__()
        self.codec = _SHARED_CODEC


class FetchCursorAfterItsLastHit(Wrapped):
    """A fetch page that holds the last hit still carries a cursor (to an empty page)."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.fetch(request)
        if page.next_cursor is not None or len(page.hits) < request.limit:
            return page
        return attrs.evolve(
            page,
            next_cursor=self.inner.fetch(
                attrs.evolve(request, limit=max(1, request.limit - 1))
            ).next_cursor,
        )


class GetKeepsTheLastPlace(Wrapped):
    """``get`` of an id named twice returns it once, at the place it was last named."""

    def handle_get(self, request: GetRequest) -> list[Hit]:
        last = list(dict.fromkeys(reversed(request.ids)))[::-1]
        return self.inner.get(attrs.evolve(request, ids=last))


class EraseCountsItems(Wrapped):
    """``erased_scopes`` counts the items erased."""

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        before = len(self.inner.list(ListRequest(filter=MetaFilter(), limit=USIZE_MAX)).items)
        report = self.inner.erase(request)
        after = len(self.inner.list(ListRequest(filter=MetaFilter(), limit=USIZE_MAX)).items)
        return attrs.evolve(report, erased_scopes=before - after)


class ReplayKeepsTheNewestTime(Wrapped):
    """A replay observed later moves the stored ``observed_at`` to the newer time."""

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        receipt = self.inner.store(item)
        seen = item.meta.observed_at
        if receipt.replayed and seen is not None:
            (stored,) = self.inner.get(GetRequest(ids=[receipt.id]))
            if stored.meta.observed_at is None or stored.meta.observed_at < seen:
                self.inner.forget(ForgetTarget.by_ids([receipt.id]))
                self.inner.store(item)
        return receipt

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return [self.handle_store(item) for item in items]


class KeywordFetchServes100(Wrapped):
    """Keyword fetch ends its read after 100 hits, however many match."""

    def __init__(self) -> None:
        super().__init__()
        self.codec = CursorCodec(new_secret(), engine="broken")

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        if request.mode is not FetchMode.KEYWORD:
            return self.inner.fetch(request)
        every = self.inner.fetch(attrs.evolve(request, cursor=None, limit=100)).hits
        read = read_key("keyword", request.query, to_json(request.filter))
        positions = self.codec.decode(read, request.cursor, 1)
        start = positions[0] if positions else 0
        end = start + request.limit
        cursor = self.codec.encode(read, end) if end < len(every) else None
        return FetchPage(hits=every[start:end], next_cursor=cursor)


class KeywordByLikeness(Wrapped):
    """Keyword fetch ranks as hybrid does: items only like the query (no word of it) come too."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        if request.mode is FetchMode.KEYWORD:
            request = attrs.evolve(request, mode=FetchMode.HYBRID)
        return self.inner.fetch(request)


class KeywordUnscored(Wrapped):
    """Keyword fetch serves the right hits, each with a score of 0."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.fetch(request)
        if request.mode is not FetchMode.KEYWORD:
            return page
        return attrs.evolve(page, hits=[attrs.evolve(hit, score=0.0) for hit in page.hits])


class ListsByOffset(_OwnCursors):
    """List and export cursors are offsets into what the read admits now: a forget between
    pages shifts the rest, and one item is never served."""

    def _offset_page(
        self, every: Sequence[T], request: ListRequest
    ) -> tuple[Sequence[T], str | None]:
        read = self.read_of("list", request)
        start = self.start(read, request.cursor)
        end = start + request.limit
        return every[start:end], self.cursor(read, end, end < len(every))

    def handle_list(self, request: ListRequest) -> ListPage:
        every = self.inner.list(attrs.evolve(request, cursor=None, limit=USIZE_MAX)).items
        items, cursor = self._offset_page(every, request)
        return ListPage(items=list(items), next_cursor=cursor)

    def handle_export(self, request: ListRequest) -> ExportPage:
        every = self.inner.export(attrs.evolve(request, cursor=None, limit=USIZE_MAX)).items
        items, cursor = self._offset_page(every, request)
        return ExportPage(items=list(items), next_cursor=cursor)


#: The target of the pieces the piece-serving engines cut documents into.
PIECE_TARGET = 500


def _best_piece(hit: Hit, query: str) -> Piece | None:
    """The first piece of a long document's hit holding a word of ``query``."""
    if hit.kind is not ItemKind.DOCUMENT or len(hit.text.encode()) <= PIECE_TARGET:
        return None
    words = set(re.findall(r"\w+", query.lower()))
    pieces = cut_pieces(hit.text, PIECE_TARGET)
    return next((p for p in pieces if words & set(re.findall(r"\w+", p.text.lower()))), pieces[0])


class ServesBestPieces(Wrapped):
    """A conforming engine that answers a long document's fetch hit with its best piece and
    that piece's tags; the faults below each change one thing of it."""

    def tags(self, piece: Piece, hit: Hit) -> tuple[str, ...]:
        return piece.tags()

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.fetch(request)
        hits = []
        for hit in page.hits:
            piece = _best_piece(hit, request.query)
            if piece is None:
                hits.append(hit)
                continue
            tags = [*hit.meta.tags, *self.tags(piece, hit)]
            hits.append(attrs.evolve(hit, text=piece.text, meta=attrs.evolve(hit.meta, tags=tags)))
        return attrs.evolve(page, hits=hits)


class PieceTaggedWithTheWholeDocument(ServesBestPieces):
    """A piece is tagged with the pages of the whole document, not its own."""

    def tags(self, piece: Piece, hit: Hit) -> tuple[str, ...]:
        (whole,) = cut_pieces(hit.text, len(hit.text.encode()))
        return whole.tags()


class PieceUntagged(ServesBestPieces):
    """A piece is served without its ``page:``/``section:`` tags."""

    def tags(self, piece: Piece, hit: Hit) -> tuple[str, ...]:
        return ()


class PieceSectionOfItsLastHeading(ServesBestPieces):
    """A piece's section is the last heading inside it, not the one in effect where it
    starts."""

    def tags(self, piece: Piece, hit: Hit) -> tuple[str, ...]:
        headings = re.findall(r"^#{1,6} (.+)$", piece.text, re.MULTILINE)
        pages = [tag for tag in piece.tags() if tag.startswith("page:")]
        return (*pages, f"section:{headings[-1]}") if headings else piece.tags()


class HitPerPiece(Wrapped):
    """A long document matched in two pieces gives two hits."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.fetch(request)
        hits: list[Hit] = []
        for hit in page.hits:
            piece = _best_piece(hit, request.query)
            hits.append(hit)
            if piece is not None:
                tags = [*hit.meta.tags, *piece.tags()]
                hits.append(
                    attrs.evolve(hit, text=piece.text, meta=attrs.evolve(hit.meta, tags=tags))
                )
        return attrs.evolve(page, hits=hits[: request.limit])


#: Each broken engine and the fixed check that must catch it.
FAULTS: dict[type[Wrapped], str] = {
    TrimsText: "text_preserved",
    NormalisesText: "text_preserved",
    StoresOverTheMaximum: "store_many_limits",
    StoresPartOfAnInvalidBatch: "store_many_limits",
    AnswersLimitZero: "refusals",
    DropsTagsPastTheVariableLimit: "caps",
    FetchPageOverLimit: "paging",
    FetchRepeatsAcrossPages: "paging",
    ListPageOverLimit: "paging",
    FetchWorstFirst: "paging",
    DropsConfidenceOnFetch: "paging",
    ForeignCursorStartsOver: "cursors",
    WindowIncludesItsEnd: "filter_bounds",
    FolderPrefixByText: "filter_bounds",
    ForgetCrossesWorkspaces: "forget_by_filter",
    CitesOverTheLimit: "recall",
    RecallIgnoresKinds: "recall",
    ExploreTiesReversed: "explore",
    ExploreIgnoresLimit: "explore",
    IgnoresClose: "close",
    ListLosesTags: "round_trip",
    ListsWithAScore: "round_trip",
    ExportLosesEvidence: "export",
    ForgetCountsUnknownIds: "forget_by_id",
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
    RefusesAsTransient: "refusals",
    ExportsAfterClose: "close",
    ListCapsPagesAt100: "page_sizes",
    LaterFetchPagesDropTheFilter: "page_sizes",
    MoreBucketsCountsItems: "explore_cuts",
    InheritsOnlyTheParent: "deep_reach",
    GetIgnoresReachBelowTheTop: "deep_reach",
    ReachOnlyForgetForgetsNothing: "deep_reach",
    EraseTouchesAncestors: "erase_levels",
    ErasesTwoLevelsDown: "erase_levels",
    WholeTreeOnlyWithoutKinds: "erase_levels",
    ChecksCapsOneByOne: "batch_positions",
    CutsTextAt64KiB: "long_text",
    IdentityIgnoresToolCallId: "single_field",
    RoundsConfidence: "single_field",
    PathFilterByLike: "hostile_paths",
    WindowInWholeSeconds: "time_bounds",
    LosesConcurrentStores: "threads",
    UrlIgnoresCase: "field_url",
    AgentIdByNormalForm: "field_agent_id",
    WorkspaceTrimmed: "field_workspace",
    CommitByPrefix: "field_commit",
    ToolCallBySubstring: "field_tool_call",
    LanguageFilterTrimmed: "field_language",
    FolderIgnoresCase: "field_folder",
    TurnsByContainment: "field_turns",
    FetchWindowEndInclusive: "field_observed_at",
    ExploreIgnoresSources: "field_sources",
    RepoCollapsesSpaces: "field_repo",
    ThreadIdBySuffix: "field_thread_id",
    SourceIdAsLikePattern: "field_source_id",
    FilePathByTextPrefix: "field_file_path",
    TagsAnyNeedsEveryTag: "field_tags_any",
    KindsReadsTheFirstKind: "field_kinds",
    ListCursorOfAnyFilter: "cursor_reads",
    FetchCursorOfAnyMode: "cursor_reads",
    CursorSealOfFirstBytes: "cursor_reads",
    CursorsOfEveryMemory: "cursor_reads",
    FetchCursorAfterItsLastHit: "page_ends",
    GetKeepsTheLastPlace: "get_once",
    EraseCountsItems: "erase_count",
    ReplayKeepsTheNewestTime: "replay_keeps_first",
    KeywordFetchServes100: "keyword_matches",
    KeywordByLikeness: "keyword_matches",
    KeywordUnscored: "keyword_matches",
    ListsByOffset: "paging_under_writes",
    PieceTaggedWithTheWholeDocument: "piece_hits",
    PieceUntagged: "piece_hits",
    PieceSectionOfItsLastHeading: "piece_hits",
    HitPerPiece: "piece_hits",
}
