"""Scores and order depend only on what a read admits: BM25's statistics come from it alone.

Were a word's rarity counted over the whole table, a reader confined to its
node could learn from its own item's score how many items elsewhere hold the
word. Each test stores items a reader does not admit and checks that none of
its reads moves: every fetch mode and recall, ids, scores and text.
"""

from __future__ import annotations

from collections.abc import Callable

import tinymemory as tm
from tinymemory_postgres import PostgresEngine

WRITER = tm.Namespace.parse("team:acme/agent:writer")
SIBLING = tm.Namespace.parse("team:acme/agent:editor")
QUERIES = ["crane bolts", "crane", "steel beams tower"]


def _learning(text: str, namespace: tm.Namespace = WRITER, **meta: object) -> tm.Learning:
    return tm.Learning(text=text, meta=tm.MemoryMeta(namespace=namespace, **meta))  # type: ignore[arg-type]


def _reads(engine: PostgresEngine, query: str, filter: tm.MetaFilter) -> dict[str, object]:
    seen: dict[str, object] = {}
    for mode in tm.FetchMode:
        page = engine.fetch(tm.FetchRequest(query=query, mode=mode, filter=filter, limit=10))
        seen[mode.value] = [(hit.id, hit.score, hit.text) for hit in page.hits]
    answer = engine.recall(tm.RecallRequest(question=query, filter=filter, limit=10))
    seen["recall"] = ([(c.id, c.score, c.snippet) for c in answer.citations], answer.answer)
    return seen


def _unmoved(engine: PostgresEngine, filter: tm.MetaFilter, outside: Callable[[], object]) -> None:
    before = {query: _reads(engine, query, filter) for query in QUERIES}
    outside()
    after = {query: _reads(engine, query, filter) for query in QUERIES}
    assert after == before
    assert any(seen["keyword"] for seen in before.values()), "the probe found nothing"


def _own(engine: PostgresEngine, **meta: object) -> None:
    engine.store_many(
        [
            _learning("the crane lifts steel beams onto the tower", **meta),
            _learning("tighten the crane bolts before the wind rises", **meta),
            _learning("steel beams arrive on monday", **meta),
        ]
    )


def test_a_sibling_s_memory_is_not_seen_through_scores(engine: PostgresEngine) -> None:
    _own(engine)
    reach = tm.MetaFilter(reach=tm.Reach.of(WRITER))
    sibling = [_learning(f"crane crane note {n} about bolts", SIBLING) for n in range(20)]
    _unmoved(engine, reach, lambda: engine.store_many(sibling))


def test_another_workspace_is_not_seen_through_scores(engine: PostgresEngine) -> None:
    _own(engine, workspace="site-a")
    mine = tm.MetaFilter(workspace="site-a")
    other = [_learning(f"crane {n} steel", workspace="site-b") for n in range(20)]
    _unmoved(engine, mine, lambda: engine.store_many(other))


def test_a_kind_the_filter_excludes_is_not_seen_through_scores(engine: PostgresEngine) -> None:
    _own(engine)
    learnings = tm.MetaFilter(kinds=[tm.ItemKind.LEARNING])
    documents = [
        tm.Document(
            body=f"crane manual {n}: bolts, steel, tower", meta=tm.MemoryMeta(namespace=WRITER)
        )
        for n in range(10)
    ]
    _unmoved(engine, learnings, lambda: engine.store_many(documents))


def test_a_word_rare_in_the_scope_outranks_a_common_one(engine: PostgresEngine) -> None:
    """The statistics are real: in scope, a rare word weighs more than a common one."""
    engine.store_many([_learning(f"crane note {n}") for n in range(6)] + [_learning("bolts once")])
    engine.store(_learning("crane and bolts together"))
    hits = engine.fetch(tm.FetchRequest(query="crane bolts", mode=tm.FetchMode.KEYWORD)).hits
    assert hits[0].text == "crane and bolts together"
    assert hits[0].score > 1  # holds every word
    assert hits[1].text == "bolts once", "the rare word's match ranks before the common word's"
    assert all(hit.score < 1 for hit in hits[1:])


def test_every_word_first_then_any(engine: PostgresEngine) -> None:
    engine.store_many([_learning("crane"), _learning("crane bolts"), _learning("bolts")])
    hits = engine.fetch(tm.FetchRequest(query="crane bolts", mode=tm.FetchMode.KEYWORD)).hits
    assert hits[0].text == "crane bolts"
    assert sorted(hit.text for hit in hits[1:]) == ["bolts", "crane"]


def test_counted_and_recorded_statistics_agree(engine: PostgresEngine) -> None:
    """A reach alone reads the recorded node sizes; adding a field counts the same items."""
    _own(engine, workspace="site-a")
    engine.store(_learning("crane elsewhere", SIBLING, workspace="site-b"))
    by_reach = tm.MetaFilter(reach=tm.Reach.of(WRITER))
    counted = tm.MetaFilter(reach=tm.Reach.of(WRITER), workspace="site-a")
    for query in QUERIES:
        assert _reads(engine, query, by_reach) == _reads(engine, query, counted)


def test_forgetting_updates_the_statistics(
    engine: PostgresEngine, settings: tm.EngineSettings
) -> None:
    """After a forget, scores are those of a memory that only ever held what is left."""
    _own(engine)
    doomed = engine.store(_learning("crane crane crane"))
    engine.forget(tm.ForgetTarget.by_ids([doomed.id]))
    fresh_settings = tm.EngineSettings(
        options={**settings.options, "schema": f"{settings.options['schema']}_fresh"}
    )
    with tm.build_engine("postgres", fresh_settings, scrub=False) as fresh:
        _own(fresh)  # type: ignore[arg-type]
        reach = tm.MetaFilter(reach=tm.Reach.of(WRITER))
        for query in QUERIES:
            assert _reads(engine, query, reach) == _reads(fresh, query, reach)  # type: ignore[arg-type]
