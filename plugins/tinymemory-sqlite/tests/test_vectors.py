"""The in-memory vector matrix: read in blocks, kept in step with writes from anywhere."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine
from tinymemory_sqlite.vectors import VectorIndex

QUERY = tm.FetchRequest(query="quartz lantern river", mode="vector", limit=100)


def _learning(text: str) -> tm.Learning:
    return tm.Learning(text=text)


def _ids(engine: SqliteEngine) -> list[str]:
    return [hit.id for hit in engine.fetch(QUERY).hits]


def _fresh_ids(path: Path) -> list[str]:
    """What an engine reading the whole file now ranks: the oracle."""
    with SqliteEngine(path) as fresh:
        return _ids(fresh)


def test_every_mix_of_own_and_foreign_writes_ranks_as_a_fresh_read(db_path: Path) -> None:
    with SqliteEngine(db_path) as mine, SqliteEngine(db_path) as theirs:
        steps = [
            lambda: mine.store_many([_learning(f"quartz lantern {n}") for n in range(5)]),
            lambda: theirs.store(_learning("a river of quartz")),
            # Mine after theirs: mine cannot apply it in place, a refresh reads both.
            lambda: mine.store(_learning("lantern by the river")),
            lambda: theirs.forget(tm.ForgetTarget.by_ids(_ids(mine)[:2])),
            lambda: mine.store(_learning("river lantern quartz")),
            lambda: mine.forget(tm.ForgetTarget.by_ids(_ids(mine)[:1])),
            lambda: theirs.store_many([_learning(f"quartz river {n}") for n in range(3)]),
        ]
        for step in steps:
            step()
            assert _ids(mine) == _ids(theirs) == _fresh_ids(db_path)
        assert len(_ids(mine)) == 8


def test_after_a_foreign_store_only_the_new_pieces_are_read(db_path: Path) -> None:
    with SqliteEngine(db_path) as mine, SqliteEngine(db_path) as theirs:
        mine.store_many([_learning(f"quartz lantern {n}") for n in range(50)])
        index = VectorIndex(mine.embedder.dimensions)
        connection = sqlite3.connect(db_path)
        index.refresh(connection)
        assert len(list(index.ranked(mine.embedder.embed_matrix(["quartz"])[0], 10**9))) == 50
        theirs.store(_learning("a river of quartz"))
        statements: list[str] = []
        connection.set_trace_callback(statements.append)
        index.refresh(connection)
        reads = [s for s in statements if "FROM pieces" in s]
        assert reads == ["SELECT id, item, vector FROM pieces WHERE item > 50 ORDER BY id"]
        assert len(list(index.ranked(mine.embedder.embed_matrix(["quartz"])[0], 10**9))) == 51
        # A removal anywhere makes the next refresh read everything again.
        theirs.forget(tm.ForgetTarget.by_ids([theirs.store(_learning("quartz gone")).id]))
        statements.clear()
        index.refresh(connection)
        reads = [s for s in statements if "FROM pieces" in s]
        assert reads == ["SELECT id, item, vector FROM pieces ORDER BY id"]
        connection.close()
