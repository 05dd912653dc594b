"""The in-memory vector matrix: read in blocks, kept in step with writes from anywhere."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.plugin import json_and_id
from tinymemory.retrieval import HashingEmbedder
from tinymemory_sqlite import SqliteEngine, schema
from tinymemory_sqlite.vectors import VectorIndex

READ_BLOCKS = "SELECT pieces, items, vectors FROM vector_blocks"
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
        reads = [s for s in statements if s.startswith(READ_BLOCKS)]
        assert reads == [f"{READ_BLOCKS} WHERE first_item > 50 ORDER BY first_item"]
        assert len(list(index.ranked(mine.embedder.embed_matrix(["quartz"])[0], 10**9))) == 51
        # A removal anywhere makes the next refresh read everything again.
        theirs.forget(tm.ForgetTarget.by_ids([theirs.store(_learning("quartz gone")).id]))
        statements.clear()
        index.refresh(connection)
        reads = [s for s in statements if s.startswith(READ_BLOCKS)]
        assert reads == [f"{READ_BLOCKS} ORDER BY first_item"]
        connection.close()


def _version_1_file(path: Path, texts: list[str]) -> list[str]:
    """A file as version 1 wrote it: each piece's vector in its own row. The items' ids."""
    connection = sqlite3.connect(path, isolation_level=None)
    for statement in schema._statements(schema.MIGRATIONS[0]):  # type: ignore[arg-type]
        connection.execute(statement)
    connection.execute("PRAGMA user_version = 1")
    connection.execute(
        "INSERT INTO settings(key, value) VALUES ('embedder', ?)",
        (json.dumps({"name": "hashing", "dimensions": 256}),),
    )
    connection.execute("INSERT INTO nodes(id, path, depth, last_service) VALUES (1, 'root', 0, -1)")
    vectors = HashingEmbedder().embed_matrix(texts)
    ids = []
    for seq, (text, vector) in enumerate(zip(texts, vectors, strict=True), start=1):
        body, item_id = json_and_id(tm.Learning(text=text))
        ids.append(item_id)
        connection.execute(
            "INSERT INTO items(seq, node, id, kind, source_kind, body) "
            "VALUES (?, 1, ?, 'learning', 'agent', ?)",
            (seq, item_id, body),
        )
        connection.execute(
            "INSERT INTO pieces(id, item, ord, text, vector) VALUES (?, ?, 0, ?, ?)",
            (seq, seq, text, vector.tobytes()),
        )
        connection.execute("INSERT INTO pieces_fts(rowid, text) VALUES (?, ?)", (seq, text))
    connection.close()
    return ids


def test_a_version_1_file_is_migrated_to_vector_blocks(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Blocks of at most 3 pieces, so the 7 items fill several.
    monkeypatch.setattr(schema, "MIGRATED_BLOCK", 3)
    texts = [f"quartz lantern number {n}" for n in range(6)] + ["river stones"]
    ids = _version_1_file(db_path, texts)
    with SqliteEngine(db_path) as engine:
        connection = sqlite3.connect(db_path)
        assert connection.execute("PRAGMA user_version").fetchone() == (schema.VERSION,)
        columns = [row[1] for row in connection.execute("PRAGMA table_info(pieces)")]
        assert "vector" not in columns
        blocks = connection.execute("SELECT first_item, length(items) / 8 FROM vector_blocks")
        assert blocks.fetchall() == [(1, 3), (4, 3), (7, 1)]
        connection.close()
        assert set(_ids(engine)) == set(ids)
        river = tm.FetchRequest(query="river stones", mode="vector", limit=1)
        assert [hit.id for hit in engine.fetch(river).hits] == [ids[6]]
        keyword = tm.FetchRequest(query="lantern", mode="keyword", limit=10)
        assert {hit.id for hit in engine.fetch(keyword).hits} == set(ids[:6])
        # The vectors are the ones the file held: a forget rewrites a migrated block.
        engine.forget(tm.ForgetTarget.by_ids([ids[4]]))
        assert set(_ids(engine)) == set(ids) - {ids[4]}
    assert set(_fresh_ids(db_path)) == set(ids) - {ids[4]}
