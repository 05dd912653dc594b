"""The in-memory vector matrix: read in blocks, kept in step with writes from anywhere."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tinymemory as tm
from tinymemory.plugin import json_and_id
from tinymemory.retrieval import HashingEmbedder
from tinymemory_sqlite import SqliteEngine, schema
from tinymemory_sqlite.vectors import VectorIndex, decode, encode

READ_BLOCKS = "SELECT pieces, items, vectors, ranges FROM vector_blocks"
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


# --- codes: what a vector keeps, and the scan over them ----------------------------------

FINITE = st.floats(-4.0, 4.0, allow_nan=False, width=32)


def _index(rows: npt.NDArray[np.float32], items: list[int]) -> VectorIndex:
    """An index read from an empty file, then given ``rows`` as one write: piece ids from 1."""
    connection = sqlite3.connect(":memory:", isolation_level=None)
    connection.create_function("fts5_tokens", 1, schema.fts5_tokens)
    schema.migrate(connection)
    index = VectorIndex(rows.shape[1])
    index.refresh(connection)
    connection.close()
    index.added(0, list(range(1, len(rows) + 1)), items, rows)
    return index


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.float32, hnp.array_shapes(min_dims=2, max_dims=2, max_side=40), elements=FINITE)
)
def test_a_code_keeps_every_entry_within_half_a_step(rows: npt.NDArray[np.float32]) -> None:
    codes, ranges = encode(rows)
    steps = ranges[:, 1:]
    error = np.abs(decode(codes, ranges) - rows)
    assert (error <= steps / 2 + 1e-6 * (1 + np.abs(rows))).all()


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.float32, st.tuples(st.integers(1, 300), st.just(16)), elements=FINITE),
    hnp.arrays(np.float32, (16,), elements=FINITE),
)
def test_the_scan_scores_the_decoded_vectors(
    rows: npt.NDArray[np.float32], query: npt.NDArray[np.float32]
) -> None:
    """The integer path gives ``q . v`` for each decoded vector ``v = low + step * c``, with
    the query rounded to its own code in the ``step * (c . q)`` term only."""
    index = _index(rows, list(range(1, len(rows) + 1)))
    codes, ranges = encode(rows)
    (query_codes,), query_range = encode(query[None, :])
    rounded = decode(query_codes[None, :], query_range)[0].astype(np.float64)
    expected = ranges[:, 0] * query.astype(np.float64).sum() + ranges[:, 1] * (codes @ rounded)
    scale = 1 + np.abs(rows).sum(axis=1) * np.abs(query).sum()
    assert np.allclose(index._scores(query), expected, rtol=0, atol=1e-5 * scale.max())


@settings(max_examples=40, deadline=None)
@given(
    st.data(),
    st.integers(1, 6000),
    st.integers(1, 4),
)
def test_ranked_is_every_positive_item_best_first(
    data: st.DataObject, pieces: int, levels: int
) -> None:
    """Best piece per item, best first, ties to the lower piece, nothing past the bound:
    checked against a full sort of the scan's scores, with few distinct vectors so that
    ties sit on every threshold the partial sorts draw (thousands of rows take the
    sampled threshold's path)."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    rows = rng.integers(0, levels + 1, (pieces, 16)).astype(np.float32)
    items = np.sort(rng.integers(1, pieces + 1, pieces))
    index = _index(rows, items.tolist())
    query = rng.integers(0, 2, 16).astype(np.float32)
    bound = data.draw(st.integers(0, int(items.max())))
    scores = index._scores(query)
    expected: dict[int, tuple[float, int]] = {}
    for piece in np.lexsort((np.arange(pieces), -scores)):
        item = int(items[piece])
        if scores[piece] > 0 and item <= bound and item not in expected:
            expected[item] = (float(scores[piece]), piece + 1)
    got = list(index.ranked(query, bound))
    assert [(item, piece, score) for item, piece, score in got] == [
        (item, piece, score) for item, (score, piece) in expected.items()
    ]
    limit = data.draw(st.integers(0, 80))
    assert list(itertools.islice(index.ranked(query, bound), limit)) == got[:limit]


def test_a_version_3_file_is_migrated_to_codes(
    db_path: Path, as_version_3: Callable[[sqlite3.Connection], None]
) -> None:
    texts = [f"quartz lantern number {n}" for n in range(40)] + ["river stones", "river"]
    with SqliteEngine(db_path) as engine:
        ids = [receipt.id for receipt in engine.store_many([_learning(t) for t in texts])]
        before = _ids(engine)
    with sqlite3.connect(db_path) as connection:
        stored = connection.execute("SELECT vectors, ranges FROM vector_blocks").fetchall()
        as_version_3(connection)
        connection.execute("PRAGMA user_version = 3")
    with SqliteEngine(db_path) as engine:
        assert _ids(engine) == before
        river = tm.FetchRequest(query="river stones", mode="vector", limit=1)
        assert [hit.id for hit in engine.fetch(river).hits] == [ids[40]]
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("PRAGMA user_version").fetchone() == (schema.VERSION,)
        again = connection.execute("SELECT vectors, ranges FROM vector_blocks").fetchall()
    # Decoding and coding again gives the codes back.
    assert [vectors for vectors, _ in again] == [vectors for vectors, _ in stored]
    assert np.allclose(
        np.frombuffer(again[0][1], np.float32), np.frombuffer(stored[0][1], np.float32)
    )


@pytest.mark.parametrize("crowd", [300, 3000])
def test_a_tiny_namespace_in_a_crowd_ranks_as_it_would_alone(db_path: Path, crowd: int) -> None:
    """A read confined to a node of a few items, among thousands that all score higher,
    gets what a memory holding the node alone gives: the filter admits while the scan goes
    on, so no better item elsewhere crowds them out; a forget and another process's store
    inside the node count at once."""
    tiny = tm.Namespace.parse("team:acme/agent:tiny")
    inside = tm.MetaFilter(reach=tm.Reach.exact(tiny))
    query = tm.FetchRequest(query="quartz lantern river", mode="vector", limit=10, filter=inside)

    def in_tiny(text: str) -> tm.Learning:
        return tm.Learning(text=text, meta=tm.MemoryMeta(namespace=tiny))

    with (
        SqliteEngine(db_path) as engine,
        SqliteEngine(db_path) as other,
        SqliteEngine(":memory:") as alone,
    ):
        for first in range(0, crowd, 100):
            engine.store_many(
                [_learning(f"quartz lantern river {n}") for n in range(first, first + 100)]
            )
        texts = ["quartz alone", "lantern and quartz together", "a river bank", "zzz"]
        mine = [engine.store(in_tiny(text)).id for text in texts]
        alone.store_many([in_tiny(text) for text in texts])

        def agree() -> list[str]:
            ids = [hit.id for hit in engine.fetch(query).hits]
            assert ids == [hit.id for hit in alone.fetch(query).hits]
            return ids

        assert set(agree()) == set(mine[:3])
        for memory in (engine, alone):
            memory.forget(tm.ForgetTarget.by_ids([mine[1]]))
        assert set(agree()) == {mine[0], mine[2]}
        other.store(in_tiny("river quartz lantern"))
        alone.store(in_tiny("river quartz lantern"))
        assert len(agree()) == 3
        assert len(engine.fetch(attrs.evolve(query, filter=None)).hits) == 10
