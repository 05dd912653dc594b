"""The engine under test beside the reference engine: the same writes, every read compared.

A :class:`Twin` stores, forgets and erases in both engines, and compares
whatever the engine reads (every page of ``list``, ``export`` and ``fetch``,
``get``, ``explore``) in full with the reference engine's answer. Where the
contract leaves a choice to the engine (the order of a listing, how a
ranked read ranks), the comparison leaves it too: listings compare as sets,
and fetch hits must be admitted, each the stored item, best first by the
engine's own scores, and in keyword mode all of them found when every
admitted item holds the query's word.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinymemory._items import StoreItem, StoreReceipt
from tinymemory._meta import MetaFilter
from tinymemory._namespace import Reach
from tinymemory._operations import (
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    Hit,
    ListRequest,
)
from tinymemory._wire import to_json
from tinymemory.reference import ReferenceEngine

from .harness import Call, Harness
from .item_checks import expect_ranked_hit

#: Every entry of the reference's answer, in one page.
_ALL = 2**32


def shape(page: ExplorePage) -> tuple[object, ...]:
    """What two explore answers must agree on: buckets in order, and every count."""
    buckets = [(bucket.value, bucket.count) for bucket in page.buckets]
    return (buckets, page.more_buckets, page.total, page.missing, page.truncated)


def seen(hit: Hit) -> tuple[object, ...]:
    """What two reads of one item must agree on."""
    return (hit.id, hit.kind, hit.meta, hit.text, hit.confidence)


class Twin:
    """One check's engine and a reference engine given the same writes."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.reference = ReferenceEngine()
        self.items: dict[str, StoreItem] = {}

    # --- writes -----------------------------------------------------------

    def same_receipts(
        self, call: str, got: Sequence[StoreReceipt], wanted: Sequence[StoreReceipt]
    ) -> None:
        """Receipts equal in order, each the same id and the same replay."""
        shown = [(self.h.names([receipt.id]), receipt.replayed) for receipt in got]
        expected = [(self.h.names([receipt.id]), receipt.replayed) for receipt in wanted]
        self.h.expect(shown == expected, call, f"receipts (id, replayed) {expected}", repr(shown))

    def store(self, item: StoreItem, label: str) -> str:
        """Store in both; the receipts (id and replay) must agree."""
        wanted = self.reference.store(item)
        self.h.name(wanted.id, label)
        got = self.h.store(item, label)
        self.same_receipts(f"store({label})", [got], [wanted])
        self.items[wanted.id] = item
        return wanted.id

    def store_many(self, items: Sequence[tuple[str, StoreItem]]) -> list[str]:
        """Store a batch in both; the receipts must agree, in order."""
        for label, item in items:
            self.h.name(item.fingerprint(), label)
        batch = [item for _, item in items]
        wanted = self.reference.store_many(batch)
        got = self.h.store_many(batch)
        self.same_receipts(f"store_many({len(batch)} items)", got, wanted)
        for receipt, item in zip(wanted, batch, strict=True):
            self.items[receipt.id] = item
        return [receipt.id for receipt in wanted]

    def forget(self, target: ForgetTarget) -> None:
        """Forget in both; the counts must agree."""
        wanted = self.reference.forget(target).forgotten
        got = self.h.forget(target)
        self.h.expect(got == wanted, Call("forget", target), f"{wanted} forgotten", got)

    def erase(self, request: EraseRequest) -> bool:
        """Erase in both; ``False`` when the engine refuses erase with ``Unsupported``."""
        if self.h.erase(request) is None:
            return False
        self.reference.erase(request)
        return True

    # --- reads --------------------------------------------------------------

    def expected(self, filter: MetaFilter) -> list[Hit]:
        """What ``filter`` admits, as the reference reads it."""
        return list(self.reference.list(ListRequest(filter=filter, limit=_ALL)).items)

    def same_hits(
        self, call: object, wanted: Sequence[Hit], got: Sequence[Hit], ordered: bool
    ) -> None:
        """The same items (in the same order when ``ordered``), each read the same way."""
        if not ordered:
            wanted = sorted(wanted, key=lambda hit: hit.id)
            got = sorted(got, key=lambda hit: hit.id)
        wanted_ids, got_ids = [hit.id for hit in wanted], [hit.id for hit in got]
        label = str(call)
        if got_ids != wanted_ids:
            missing = [item_id for item_id in wanted_ids if item_id not in got_ids]
            extra = [item_id for item_id in got_ids if item_id not in wanted_ids]
            shown = f"{self.h.names(got_ids)}; missing {self.h.names(missing)}"
            self.h.fail(
                label, self.h.names(wanted_ids), f"{shown}, unexpected {self.h.names(extra)}"
            )
        for want, hit in zip(wanted, got, strict=True):
            if seen(hit) != seen(want):
                self.h.fail(label, to_json(want), to_json(hit))

    def lists(self, filter: MetaFilter, limit: int) -> None:
        """``list`` in pages of ``limit`` reads what the reference reads."""
        got = self.h.listed(filter, page=limit)
        self.same_hits(
            Call("list", ListRequest(filter=filter, limit=limit)),
            self.expected(filter),
            got,
            ordered=False,
        )

    def exports(self, filter: MetaFilter, limit: int) -> None:
        """``export`` in pages of ``limit`` hands back what the reference holds, whole."""
        exported = self.h.exported(filter, page=limit)
        if exported is None:
            return
        call = Call("export", ListRequest(filter=filter, limit=limit))
        got = {entry.id: entry.item for entry in exported}
        wanted = {
            entry.id: entry.item
            for entry in self.reference.export(ListRequest(filter=filter, limit=_ALL)).items
        }
        if sorted(got) != sorted(wanted):
            self.h.fail(call, self.h.names(sorted(wanted)), self.h.names(sorted(got)))
        for item_id, item in wanted.items():
            if got[item_id] != item:
                self.h.fail(call, to_json(item), to_json(got[item_id]))

    def gets(self, ids: Sequence[str], reach: Reach | None) -> None:
        """``get`` reads what the reference reads, in the order named."""
        request = GetRequest(ids=ids, reach=reach)
        wanted = self.reference.get(request)
        self.same_hits(Call("get", request), wanted, self.h.get(ids, reach), ordered=True)

    def explores(self, request: ExploreRequest) -> None:
        """``explore`` answers exactly what the reference answers: buckets in order, counts."""
        wanted = shape(self.reference.explore(request))
        got = shape(self.h.explore(request))
        self.h.expect(
            got == wanted,
            Call("explore", request),
            "buckets, more_buckets, total, missing, truncated = " + repr(wanted),
            repr(got),
        )

    def fetches(
        self, request: FetchRequest, every_admitted: bool, modes: Sequence[FetchMode] | None = None
    ) -> None:
        """Every page of ``request`` in every declared mode: admitted hits only, each the
        stored item, best first across pages; with ``every_admitted`` (every admitted item
        holds the query's word) a keyword fetch finds all of them (how near in meaning a
        long text is to one word is the engine's own business). ``modes`` narrows the
        declared modes read."""
        admitted = {hit.id for hit in self.expected(request.filter)}
        declared = self.h.engine.descriptor.fetch_modes
        for mode in [mode for mode in declared if modes is None or mode in modes]:
            current = FetchRequest(
                query=request.query, mode=mode, filter=request.filter, limit=request.limit
            )
            hits = self.h.fetched(current)
            call = f"fetch {to_json(current)}, every page"
            stray = [hit.id for hit in hits if hit.id not in admitted]
            self.h.expect(not stray, call, "only items the filter admits", self.h.names(stray))
            for hit in hits:
                expect_ranked_hit(self.h, call, hit, self.items[hit.id])
            scores = [hit.score for hit in hits]
            self.h.expect(
                scores == sorted(scores, reverse=True),
                call,
                "hits best first, within and across pages",
                f"scores {scores}",
            )
            if every_admitted and mode is FetchMode.KEYWORD:
                found = sorted(hit.id for hit in hits)
                self.h.expect(
                    found == sorted(admitted),
                    call,
                    self.h.names(sorted(admitted)),
                    self.h.names(found),
                )

    def reads_agree(self, filter: MetaFilter, limits: Sequence[int] = (3,)) -> None:
        """``list`` and ``export`` at every limit, and explore by kind, agree under ``filter``."""
        for limit in limits:
            self.lists(filter, limit)
            self.exports(filter, limit)
        self.explores(ExploreRequest(facet=Facet.KIND, filter=filter, limit=500))
