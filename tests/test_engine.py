"""The engine base: validation before work, and the spec's defaults."""

from __future__ import annotations

from typing import Any

import pytest

from tinymemory import (
    Document,
    EngineDescriptor,
    EngineHealth,
    EraseRequest,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    InvalidRequest,
    Learning,
    ListPage,
    ListRequest,
    MemoryEngine,
    MemoryMeta,
    MetaFilter,
    Reach,
    RecallAnswer,
    RecallRequest,
    ReferenceEngine,
    StoreReceipt,
    Unavailable,
    Unsupported,
)


class SpyEngine(MemoryEngine):
    """Records every handle_* call; serves keyword fetch only."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    @property
    def descriptor(self) -> EngineDescriptor:
        return EngineDescriptor(
            id="spy", label="Spy", description="records calls", fetch_modes=[FetchMode.KEYWORD]
        )

    def health(self) -> EngineHealth:
        return EngineHealth.ok()

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        self.calls.append("recall")
        return RecallAnswer(answer="")

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        self.calls.append("fetch")
        return FetchPage(hits=[])

    def handle_store(self, item: Any) -> StoreReceipt:
        self.calls.append("store")
        return StoreReceipt(item.fingerprint(), replayed=False)

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        self.calls.append("forget")
        return ForgetReport(0)

    def handle_list(self, request: ListRequest) -> ListPage:
        self.calls.append("list")
        return ListPage(items=[])


BAD_CALLS = [
    (
        "recall",
        lambda e: e.recall(RecallRequest(question="  ")),
        "recall question must not be empty",
    ),
    (
        "recall",
        lambda e: e.recall(RecallRequest(question="q", limit=0)),
        "recall limit must be positive",
    ),
    (
        "fetch",
        lambda e: e.fetch(FetchRequest(query="", mode="keyword")),
        "fetch query must not be empty",
    ),
    ("fetch", lambda e: e.fetch(FetchRequest(query="q", mode="keyword", limit=0)), "fetch limit"),
    ("store", lambda e: e.store(Learning(text=" ")), "learning text must not be empty"),
    ("store", lambda e: e.store("not an item"), "a stored item is a Document"),
    ("store_many", lambda e: e.store_many([]), "store_many takes between 1 and 100 items"),
    (
        "store_many",
        lambda e: e.store_many([Learning(text="ok"), Learning(text="")]),
        "learning text must not be empty",
    ),
    ("forget", lambda e: e.forget(ForgetTarget.by_ids([])), "forget needs at least one id"),
    ("forget", lambda e: e.forget(ForgetTarget.by_filter(MetaFilter())), "empty filter"),
    ("list", lambda e: e.list(ListRequest(limit=0)), "list limit must be positive"),
    ("list", lambda e: e.list({"limit": 5}), "list takes a ListRequest"),
    ("explore", lambda e: e.explore(ExploreRequest(facet="kind", limit=0)), "explore limit"),
    ("get", lambda e: e.get(GetRequest(ids=[])), "get takes between 1 and 200 ids"),
    ("export", lambda e: e.export(ListRequest(limit=0)), "list limit must be positive"),
    (
        "erase",
        lambda e: e.erase(EraseRequest(reach=Reach.subtree("root"))),
        "erasing the whole tree needs whole_tree: true",
    ),
]


@pytest.mark.parametrize(("operation", "call", "message"), BAD_CALLS)
def test_a_bad_request_is_refused_before_any_engine_work(operation, call, message):
    engine = SpyEngine()
    with pytest.raises(InvalidRequest, match=message):
        call(engine)
    assert engine.calls == [], f"{operation} reached the engine"


def test_an_undeclared_mode_is_unsupported_before_validation():
    engine = SpyEngine()
    with pytest.raises(Unsupported, match="engine `spy` does not offer vector fetch"):
        engine.fetch(FetchRequest(query="", mode="vector"))
    assert engine.calls == []


def test_export_and_erase_default_to_unsupported():
    engine = SpyEngine()
    with pytest.raises(Unsupported, match="engine `spy` does not export items"):
        engine.export(ListRequest())
    with pytest.raises(Unsupported, match="engine `spy` does not erase items"):
        engine.erase(EraseRequest(reach=Reach.exact("agent:a")))


class DefaultsEngine(ReferenceEngine):
    """The reference engine's storage with the base class's listing defaults."""

    handle_get = MemoryEngine.handle_get
    handle_explore = MemoryEngine.handle_explore
    handle_store_many = MemoryEngine.handle_store_many

    def __init__(self) -> None:
        super().__init__()
        self.listings = 0
        self.stores = 0

    def handle_list(self, request: ListRequest) -> ListPage:
        self.listings += 1
        return super().handle_list(request)

    def handle_store(self, item: Any) -> StoreReceipt:
        self.stores += 1
        return super().handle_store(item)


def _learning(text: str, **meta: Any) -> Learning:
    return Learning(text=text, meta=MemoryMeta(**meta))


def test_store_many_default_stores_one_at_a_time_and_replays_repeats():
    engine = DefaultsEngine()
    a, b = _learning("alpha"), _learning("beta")
    receipts = engine.store_many([a, b, a])
    assert [r.id for r in receipts] == [a.fingerprint(), b.fingerprint(), a.fingerprint()]
    assert [r.replayed for r in receipts] == [False, False, True]
    assert engine.stores == 3
    assert len(engine.list(ListRequest()).items) == 2


def test_explore_by_listing_counts_orders_and_cuts():
    engine = DefaultsEngine()
    for index in range(5):
        engine.store(_learning(f"w1 {index}", workspace="w1", tags=["x", "y"]))
    for index in range(3):
        engine.store(_learning(f"w2 {index}", workspace="w2", tags=["y"]))
    for index in range(3):
        engine.store(_learning(f"w0 {index}", workspace="w0"))
    engine.store(_learning("no workspace"))
    page = engine.explore(ExploreRequest(facet=Facet.WORKSPACE, limit=2))
    assert [(b.value, b.count) for b in page.buckets] == [("w1", 5), ("w0", 3)]
    assert (page.total, page.missing, page.more_buckets, page.truncated) == (12, 1, 1, False)
    tags = engine.explore(ExploreRequest(facet=Facet.TAG))
    assert [(b.value, b.count) for b in tags.buckets] == [("y", 8), ("x", 5)]
    assert tags.missing == 4


def test_explore_by_listing_truncates_at_the_scan_limit():
    engine = DefaultsEngine()
    engine.store_many([_learning(f"item {i}", workspace="w") for i in range(10)])
    page = engine.explore(ExploreRequest(facet="workspace", scan_limit=4))
    assert page.truncated is True
    assert page.total == 4
    assert page.buckets[0].count == 4
    whole = engine.explore(ExploreRequest(facet="workspace", scan_limit=10))
    assert (whole.total, whole.truncated) == (10, False)


def test_get_by_listing_keeps_request_order_and_leaves_out_unknown_and_unreached():
    engine = DefaultsEngine()
    root = _learning("at root")
    a = _learning("at a", namespace="agent:a")
    b = _learning("at b", namespace="agent:b")
    engine.store_many([root, a, b])
    ids = [b.fingerprint(), "missing", root.fingerprint(), a.fingerprint(), b.fingerprint()]
    hits = engine.get(GetRequest(ids=ids))
    assert [h.id for h in hits] == [b.fingerprint(), root.fingerprint(), a.fingerprint()]
    scoped = engine.get(GetRequest(ids=ids, reach=Reach.of("agent:a")))
    assert [h.id for h in scoped] == [root.fingerprint(), a.fingerprint()]
    assert scoped[1].text == "at a"


def test_get_by_listing_stops_once_every_id_is_found():
    engine = DefaultsEngine()
    items = [_learning(f"item {i}") for i in range(450)]
    for start in range(0, 450, 100):
        engine.store_many(items[start : start + 100])
    engine.listings = 0
    engine.get(GetRequest(ids=[items[0].fingerprint()]))
    assert engine.listings == 1
    engine.listings = 0
    engine.get(GetRequest(ids=[items[449].fingerprint()]))
    assert engine.listings == 3


def test_forget_within_forgets_only_what_the_reach_sees():
    engine = ReferenceEngine()
    a = _learning("a", namespace="agent:a")
    b = _learning("b", namespace="agent:b")
    engine.store_many([a, b])
    report = engine.forget_within(
        [a.fingerprint(), b.fingerprint(), a.fingerprint()], Reach.of("agent:b")
    )
    assert report.forgotten == 1
    assert [h.id for h in engine.list(ListRequest()).items] == [a.fingerprint()]


def test_forget_within_sends_no_forget_when_nothing_is_found():
    class Counting(ReferenceEngine):
        forgets = 0

        def handle_forget(self, target: ForgetTarget) -> ForgetReport:
            Counting.forgets += 1
            return super().handle_forget(target)

    engine = Counting()
    engine.store(_learning("a", namespace="agent:a"))
    assert engine.forget_within(["nope"], None).forgotten == 0
    assert Counting.forgets == 0
    with pytest.raises(InvalidRequest, match="forget needs at least one id"):
        engine.forget_within([], None)


def test_engine_is_a_context_manager_and_reprs_its_id():
    with ReferenceEngine() as engine:
        assert repr(engine) == "<ReferenceEngine 'reference'>"
        engine.store(Document(body="kept"))
    # Leaving the block closed it: it answers nothing more.
    assert engine.health() == EngineHealth.down("the engine is closed")
    with pytest.raises(Unavailable, match="the reference engine is closed"):
        engine.store(Document(body="kept"))


def test_health_states():
    assert EngineHealth.ok().serving
    assert EngineHealth.degraded("slow").serving
    assert not EngineHealth.down("gone").serving
    with pytest.raises(InvalidRequest):
        EngineHealth.down(None)  # type: ignore[arg-type]
