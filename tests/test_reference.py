"""The reference engine: the whole contract in memory."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

import tinymemory as tm
from tinymemory import (
    Conversation,
    Document,
    EraseRequest,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    InvalidRequest,
    ItemKind,
    Learning,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Reach,
    RecallRequest,
    ReferenceEngine,
    Turn,
)


def listed(engine: tm.MemoryEngine, filter: MetaFilter | None = None) -> list[tm.Hit]:
    hits, cursor = [], None
    while True:
        page = engine.list(ListRequest(filter=filter or MetaFilter(), limit=2, cursor=cursor))
        hits.extend(page.items)
        cursor = page.next_cursor
        if cursor is None:
            return hits


def at(text: str, namespace: str = "root", **meta: object) -> Learning:
    return Learning(text=text, meta=MemoryMeta(namespace=namespace, **meta))  # type: ignore[arg-type]


def test_the_whole_lifecycle_through_the_registry():
    engine = tm.build_engine("reference")
    doc = Document(title="Plan", body="ship the sdk", meta=MemoryMeta(workspace="w", tags=["plan"]))
    chat = Conversation(
        turns=[Turn(role="user", text="hi"), Turn(role="assistant", text="hello")],
        meta=MemoryMeta(workspace="w", thread_id="t1"),
    )
    fact = Learning(
        text="prefers tabs", kind="preference", confidence=0.9, meta=MemoryMeta(workspace="w")
    )
    receipts = engine.store_many([doc, chat, fact])
    assert [r.replayed for r in receipts] == [False, False, False]
    assert engine.store(fact).replayed is True
    hits = listed(engine)
    assert [h.id for h in hits] == [doc.fingerprint(), chat.fingerprint(), fact.fingerprint()]
    assert hits[0].text == "# Plan\n\nship the sdk"
    assert hits[1].text == "user: hi\nassistant: hello"
    assert (hits[2].confidence, hits[0].confidence) == (pytest.approx(0.9), None)
    assert all(h.score == 0 for h in hits)

    kinds = engine.explore(ExploreRequest(facet=Facet.KIND))
    assert {b.value: b.count for b in kinds.buckets} == {
        "document": 1,
        "conversation": 1,
        "learning": 1,
    }
    narrowed = Facet.KIND.narrow(MetaFilter(), "learning")
    assert [h.id for h in listed(engine, narrowed)] == [fact.fingerprint()]

    got = engine.get(GetRequest(ids=[fact.fingerprint(), "unknown", doc.fingerprint()]))
    assert [h.id for h in got] == [fact.fingerprint(), doc.fingerprint()]

    exported = engine.export(ListRequest())
    assert [(e.id, e.item) for e in exported.items] == [
        (doc.fingerprint(), doc),
        (chat.fingerprint(), chat),
        (fact.fingerprint(), fact),
    ]
    assert exported.incomplete == ()

    assert engine.forget(ForgetTarget.by_ids([chat.fingerprint()])).forgotten == 1
    assert engine.forget(ForgetTarget.by_ids([chat.fingerprint()])).forgotten == 0
    report = engine.erase(EraseRequest(reach=Reach.subtree("root"), whole_tree=True))
    assert report.erased_scopes == 2
    assert listed(engine) == []


def test_replay_ignores_observed_at_but_not_namespace():
    engine = ReferenceEngine()
    first = at("same text", observed_at=datetime(2024, 1, 1, tzinfo=UTC))
    again = at("same text", observed_at=datetime(2025, 1, 1, tzinfo=UTC))
    elsewhere = at("same text", namespace="agent:a")
    assert engine.store(first).replayed is False
    assert engine.store(again).replayed is True
    assert engine.store(elsewhere).replayed is False
    assert len(listed(engine)) == 2


def test_keyword_scores_the_share_of_query_words_found():
    engine = ReferenceEngine()
    engine.store_many([at("red apple pie"), at("green apple"), at("blue sky")])
    page = engine.fetch(FetchRequest(query="apple pie", mode=FetchMode.KEYWORD))
    assert [(h.text, h.score) for h in page.hits] == [("red apple pie", 1.0), ("green apple", 0.5)]


def test_vector_and_hybrid_find_near_spellings():
    engine = ReferenceEngine()
    engine.store_many([at("configuration of the database"), at("zebra crossing")])
    vector = engine.fetch(FetchRequest(query="database configurations", mode="vector"))
    assert [h.text for h in vector.hits] == ["configuration of the database"]
    assert vector.hits[0].score >= 0.2
    hybrid = engine.fetch(FetchRequest(query="zebra", mode="hybrid"))
    assert hybrid.hits[0].text == "zebra crossing"


def test_equal_scores_keep_insertion_order_and_pages_follow_cursors():
    engine = ReferenceEngine()
    texts = [f"note {index} about cats" for index in range(5)]
    engine.store_many([at(text) for text in texts])
    seen, cursor = [], None
    while True:
        page = engine.fetch(FetchRequest(query="cats", mode="keyword", limit=2, cursor=cursor))
        seen.extend(h.text for h in page.hits)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == texts
    with pytest.raises(InvalidRequest, match="unknown cursor `abc`"):
        engine.fetch(FetchRequest(query="cats", mode="keyword", cursor="abc"))
    with pytest.raises(InvalidRequest, match="unknown cursor"):
        engine.list(ListRequest(cursor="-1"))


def test_fetch_honours_filter_and_reach():
    engine = ReferenceEngine()
    engine.store_many(
        [
            at("shared cats", workspace="w"),
            at("agent a cats", namespace="agent:a", workspace="w"),
            at("agent b cats", namespace="agent:b", workspace="w"),
            at("job cats", namespace="agent:a/service:job", workspace="w"),
            at("other cats", workspace="x"),
        ]
    )
    scoped = MetaFilter(reach=Reach.of("agent:a"), workspace="w")
    texts = {h.text for h in engine.fetch(FetchRequest(query="cats", filter=scoped, limit=50)).hits}
    assert texts == {"shared cats", "agent a cats"}
    unscoped = {h.text for h in engine.fetch(FetchRequest(query="cats", limit=50)).hits}
    assert "job cats" not in unscoped
    assert len(unscoped) == 4


def test_recall_cites_items_that_resolve_through_list():
    engine = ReferenceEngine()
    engine.store_many([at("the deploy runs on fridays"), at("lunch is at noon")])
    answer = engine.recall(RecallRequest(question="when does the deploy run", limit=1))
    assert answer.model == "reference"
    assert answer.answer == "From 1 stored items: the deploy runs on fridays"
    assert len(answer.citations) == 1
    listed_ids = {h.id: h.kind for h in listed(engine)}
    assert all(listed_ids[c.id] == c.kind for c in answer.citations)


def test_recall_with_nothing_relevant_says_so_without_citations():
    engine = ReferenceEngine()
    answer = engine.recall(RecallRequest(question="anything"))
    assert answer.answer == "Nothing stored answers this question."
    assert answer.citations == ()


def test_namespaces_each_reach_lists_exactly_its_nodes():
    engine = ReferenceEngine()
    nodes = ["root", "agent:a", "agent:b", "agent:a/agent:scout", "agent:a/service:job"]
    engine.store_many([at(f"note at {node}", namespace=node) for node in nodes])

    def reached(reach: Reach | None) -> set[str]:
        return {str(h.meta.namespace) for h in listed(engine, MetaFilter(reach=reach))}

    assert reached(Reach.of("agent:a")) == {"root", "agent:a"}
    assert reached(Reach.of("agent:a/agent:scout")) == {"root", "agent:a", "agent:a/agent:scout"}
    assert reached(Reach.exact("agent:a")) == {"agent:a"}
    assert reached(Reach.subtree("agent:a")) == {"agent:a", "agent:a/agent:scout"}
    assert reached(Reach.subtree("root")) == {"root", "agent:a", "agent:b", "agent:a/agent:scout"}
    assert reached(None) == reached(Reach.subtree("root"))
    assert reached(Reach.exact("agent:a/service:job")) == {"agent:a/service:job"}
    assert reached(Reach.of("agent:a/service:job")) == {"root", "agent:a", "agent:a/service:job"}
    facet = engine.explore(ExploreRequest(facet="namespace"))
    assert {b.value: b.count for b in facet.buckets} == {
        "root": 1,
        "agent:a": 1,
        "agent:b": 1,
        "agent:a/agent:scout": 1,
    }
    job = at("note at agent:a/service:job", namespace="agent:a/service:job").fingerprint()
    assert engine.get(GetRequest(ids=[job])) == []
    assert len(engine.get(GetRequest(ids=[job], reach=Reach.exact("agent:a/service:job")))) == 1
    assert engine.forget(ForgetTarget.by_ids([job])).forgotten == 1


def test_forget_by_filter_removes_only_what_it_admits():
    engine = ReferenceEngine()
    engine.store_many(
        [at("keep"), at("drop one", tags=["drop"]), at("drop two", tags=["drop", "x"])]
    )
    report = engine.forget(ForgetTarget.by_filter(MetaFilter(tags_any=["drop"])))
    assert report.forgotten == 2
    assert [h.text for h in listed(engine)] == ["keep"]
    everything_in_reach = ForgetTarget.by_filter(MetaFilter(reach=Reach.exact("root")))
    assert engine.forget(everything_in_reach).forgotten == 1


def test_erase_removes_a_node_and_below_keeps_the_sibling_and_forgets_replay():
    engine = ReferenceEngine()
    node, child, sibling = at("n", "team:t"), at("c", "team:t/agent:c"), at("s", "team:u")
    doc = Document(body="doc at node", meta=MemoryMeta(namespace="team:t"))
    engine.store_many([node, child, sibling, doc])
    only_learnings = engine.erase(
        EraseRequest(reach=Reach.subtree("team:t"), kinds=[ItemKind.LEARNING])
    )
    assert only_learnings.erased_scopes == 2
    assert {h.text for h in listed(engine)} == {"s", "doc at node"}
    assert engine.store(node).replayed is False
    assert engine.store(child).replayed is False
    exact = engine.erase(EraseRequest(reach=Reach.exact("team:t")))
    assert exact.erased_scopes == 2
    assert {h.text for h in listed(engine)} == {"c", "s"}


def test_concurrent_stores_from_many_threads_lose_nothing():
    engine = ReferenceEngine()
    barrier = threading.Barrier(8)
    receipts: list[tm.StoreReceipt] = []
    lock = threading.Lock()

    def writer(worker: int) -> None:
        barrier.wait()
        for index in range(100):
            got = [engine.store(at(f"worker {worker} item {index}")), engine.store(at("shared"))]
            with lock:
                receipts.extend(got)

    threads = [threading.Thread(target=writer, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(listed(engine)) == 801
    assert sum(not r.replayed for r in receipts) == 801
