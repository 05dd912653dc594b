"""Scores and order depend only on what a read admits: BM25's statistics come from it.

FTS5's own ``bm25()`` counts every row of the file, so a reader confined to
its node could learn from its own item's score how many items elsewhere hold
a word. Each test stores items a reader does not admit and checks that none
of its reads moves.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine, schema

WRITER = tm.Namespace.parse("team:acme/agent:writer")
SIBLING = tm.Namespace.parse("team:acme/agent:editor")

#: What a read returns that must not move: each hit's id, score and text, in order.
Seen = list[tuple[str, float, str]]


def _learning(text: str, namespace: tm.Namespace = WRITER, **meta: object) -> tm.Learning:
    return tm.Learning(text=text, meta=tm.MemoryMeta(namespace=namespace, **meta))  # type: ignore[arg-type]


def _reads(
    engine: SqliteEngine, query: str, filter: tm.MetaFilter, limit: int = 10
) -> dict[str, Seen]:
    """Every ranked read of ``query`` under ``filter``: each fetch mode and recall."""
    seen: dict[str, Seen] = {}
    for mode in tm.FetchMode:
        page = engine.fetch(tm.FetchRequest(query=query, mode=mode, filter=filter, limit=limit))
        seen[mode.value] = [(hit.id, hit.score, hit.text) for hit in page.hits]
    answer = engine.recall(tm.RecallRequest(question=query, filter=filter, limit=limit))
    seen["recall"] = [(c.id, c.score, c.snippet) for c in answer.citations]
    seen["recall"].append(("answer", 0.0, answer.answer))
    return seen


def _unmoved(
    engine: SqliteEngine,
    queries: list[str],
    filter: tm.MetaFilter,
    outside: Callable[[], object],
) -> None:
    """Storing what ``outside`` stores changes no read of ``queries`` under ``filter``."""
    before = {query: _reads(engine, query, filter) for query in queries}
    outside()
    after = {query: _reads(engine, query, filter) for query in queries}
    assert after == before
    assert any(seen["keyword"] for seen in before.values()), "the probe found nothing"


def test_a_sibling_s_memory_is_not_seen_through_scores(engine: SqliteEngine) -> None:
    """The issue's probe: two items of its own, then 20 in a sibling holding the word."""
    engine.store_many(
        [
            _learning("the quokka sleeps under the harbour crane"),
            _learning("cargo ships wait outside the harbour at dawn"),
        ]
    )
    decoys = [_learning(f"quokka sighting number {n} near the pier", SIBLING) for n in range(20)]
    reader = tm.MetaFilter(reach=tm.Reach.of(WRITER))
    _unmoved(
        engine, ["quokka", "quokka harbour", "harbour"], reader, lambda: engine.store_many(decoys)
    )


def test_another_workspace_is_not_seen_through_scores(engine: SqliteEngine) -> None:
    engine.store_many(
        [
            _learning("the quokka sleeps under the harbour crane", workspace="mine"),
            _learning("cargo ships wait outside the harbour", workspace="mine"),
        ]
    )
    theirs = [_learning(f"quokka {n} on the harbour wall", workspace="theirs") for n in range(20)]
    reader = tm.MetaFilter(reach=tm.Reach.of(WRITER), workspace="mine")
    _unmoved(engine, ["quokka harbour", "crane"], reader, lambda: engine.store_many(theirs))


def test_a_kind_the_filter_excludes_is_not_seen_through_scores(engine: SqliteEngine) -> None:
    engine.store_many(
        [
            _learning("the quokka sleeps under the harbour crane"),
            _learning("cargo ships wait outside the harbour"),
        ]
    )
    documents = [
        tm.Document(body=f"quokka report {n}: the harbour", meta=tm.MemoryMeta(namespace=WRITER))
        for n in range(20)
    ]
    reader = tm.MetaFilter(reach=tm.Reach.of(WRITER), kinds=[tm.ItemKind.LEARNING])
    _unmoved(engine, ["quokka harbour", "crane"], reader, lambda: engine.store_many(documents))


def test_later_pages_do_not_see_what_was_stored_after_the_first(engine: SqliteEngine) -> None:
    engine.store_many([_learning(f"quokka {n} by the harbour crane") for n in range(6)])
    request = tm.FetchRequest(query="quokka crane", mode=tm.FetchMode.KEYWORD, limit=3)
    first = engine.fetch(request)
    later = attrs.evolve(request, cursor=first.next_cursor)
    second = engine.fetch(later)
    engine.store_many([_learning(f"quokka crane {n}") for n in range(20)])
    again = engine.fetch(later)
    assert [(h.id, h.score) for h in again.hits] == [(h.id, h.score) for h in second.hits]


#: Texts of many lengths, words held more than once, a word more than half hold, stop words.
_CORPUS = [
    "harbour crane lifts the containers",
    "the harbour harbour harbour: a crane, a crane and a tug",
    "tide tables for the harbour in spring, when the tide runs high and the crane waits",
    "crane",
    "a quiet bay without any machinery at all, only boats and the tide",
    "the tug pulls the barge past the crane while the pilot reads the tide table",
    "spring tide; neap tide; tide tide tide",
    "containers stacked high on the quay wait for the harbour crane and the night shift",
]


def test_scores_are_fts5_s_own_when_a_read_admits_everything(engine: SqliteEngine) -> None:
    """The formula over admitted pieces gives FTS5's scores bit for bit when both count alike.

    The reader first admits every piece in the file (FTS5's ``bm25()`` is
    used); items in a sibling then make its scores come from the formula.
    """
    engine.store_many([_learning(text) for text in _CORPUS])
    pages = "\n\n".join(f"## Part {n}\n\n" + "the tide and the crane. " * 60 for n in range(4))
    engine.store(tm.Document(body=pages, meta=tm.MemoryMeta(namespace=WRITER)))
    queries = ["harbour crane", "the tide", "tide", "crane tug barge", "the", "spring tide table"]
    reader = tm.MetaFilter(reach=tm.Reach.exact(WRITER))
    elsewhere = [_learning(f"crane {n} tide harbour", SIBLING) for n in range(9)]
    _unmoved(engine, queries, reader, lambda: engine.store_many(elsewhere))


def test_a_rare_word_in_a_large_scope_scores_as_fts5_does(engine: SqliteEngine) -> None:
    """The other plan: a scope much larger than a word's matches reads each match's item."""
    engine.store_many([_learning(f"note {n} about the crane") for n in range(24)])
    engine.store_many([_learning("the quokka and the crane"), _learning("a quokka")])
    reader = tm.MetaFilter(reach=tm.Reach.exact(WRITER))
    elsewhere = [_learning(f"sibling note {n}", SIBLING) for n in range(5)]
    _unmoved(engine, ["quokka", "quokka crane"], reader, lambda: engine.store_many(elsewhere))


def test_forgetting_keeps_the_sizes_in_step(engine: SqliteEngine, db_path: Path) -> None:
    receipts = engine.store_many([_learning(text) for text in _CORPUS])
    engine.store_many([_learning(text, SIBLING) for text in _CORPUS[:3]])
    engine.forget(tm.ForgetTarget.by_ids([receipt.id for receipt in receipts[::2]]))
    engine.erase(tm.EraseRequest(reach=tm.Reach.exact(SIBLING)))
    with sqlite3.connect(db_path) as connection:
        kept = connection.execute("SELECT * FROM node_sizes ORDER BY node, kind").fetchall()
        counted = connection.execute(
            "SELECT i.node, i.kind, count(*), sum(p.tokens) FROM items i "
            "JOIN pieces p ON p.item = i.seq GROUP BY i.node, i.kind ORDER BY i.node, i.kind"
        ).fetchall()
    assert kept == counted
    assert len(kept) == 1


@pytest.mark.parametrize("query", ["harbour crane", "the tide"])
def test_a_file_of_schema_version_2_is_migrated(
    db_path: Path, query: str, as_version_3: Callable[[sqlite3.Connection], None]
) -> None:
    """A file written before pieces kept their lengths (version 2) reads with the same scores."""
    with SqliteEngine(db_path) as engine:
        engine.store_many([_learning(text) for text in _CORPUS])
        engine.store(_learning("crane", SIBLING))
        reader = tm.MetaFilter(reach=tm.Reach.exact(WRITER))
        before = _reads(engine, query, reader)
    with sqlite3.connect(db_path) as connection:
        as_version_3(connection)
        connection.execute("DROP TABLE node_sizes")
        connection.execute("ALTER TABLE pieces DROP COLUMN tokens")
        connection.execute("PRAGMA user_version = 2")
    with SqliteEngine(db_path) as engine:
        assert _reads(engine, query, reader) == before
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == schema.VERSION
        lengths = connection.execute("SELECT tokens FROM pieces ORDER BY id").fetchall()
    assert [length for (length,) in lengths] == [5, 11, 16, 1, 13, 15, 7, 15, 1]


@pytest.mark.parametrize("reach", [None, tm.Reach.exact(WRITER)], ids=["everything", "scoped"])
def test_items_holding_every_word_come_first_then_any(
    engine: SqliteEngine, reach: tm.Reach | None
) -> None:
    """A stop word counts for holding every word, not for matching any or for the score."""
    engine.store_many(
        [
            _learning("a crane by the quay"),
            _learning("crane crane crane"),
            _learning("the quay"),
            _learning("the harbour"),
        ]
    )
    engine.store(_learning("the crane of a sibling", SIBLING))
    request = tm.FetchRequest(
        query="the crane quay", mode=tm.FetchMode.KEYWORD, filter=tm.MetaFilter(reach=reach)
    )
    hits = engine.fetch(request).hits
    texts = [hit.text for hit in hits]
    assert texts[0] == "a crane by the quay"
    assert hits[0].score > 1 > hits[1].score > 0
    assert "the harbour" not in texts
    assert ("the crane of a sibling" in texts) is (reach is None)
