"""A batch is written as its items would be one by one: the same rows, pieces, vectors and
receipts, whatever the batch holds (several kinds, namespaces, tags, copies of one item)."""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.conformance import strategies as tms
from tinymemory_sqlite import SqliteEngine

#: Every table a store writes, as rows a batch and single stores must agree on.
TABLE_ROWS = {
    "items": "SELECT * FROM items ORDER BY seq",
    "pieces": "SELECT * FROM pieces ORDER BY id",
    "piece_texts": "SELECT id, text FROM piece_texts ORDER BY id",
    "item_tags": "SELECT tag, item FROM item_tags ORDER BY item, tag",
    "nodes": "SELECT path, depth, last_service FROM nodes ORDER BY id",
    "node_sizes": "SELECT * FROM node_sizes ORDER BY node, kind",
    "keyword_lengths": "SELECT id, sz FROM pieces_fts_docsize ORDER BY id",
}


def written(path: Path) -> dict[str, Any]:
    """What the file holds, each piece's vector (its codes and range) by piece id."""
    with sqlite3.connect(path) as connection:
        rows: dict[str, Any] = {
            name: connection.execute(query).fetchall() for name, query in TABLE_ROWS.items()
        }
        vectors = {}
        for pieces, codes, ranges in connection.execute(
            "SELECT pieces, vectors, ranges FROM vector_blocks"
        ):
            ids = np.frombuffer(pieces, np.int64)
            by_row = np.frombuffer(codes, np.uint8).reshape(len(ids), -1)
            bounds = np.frombuffer(ranges, np.float32).reshape(len(ids), -1)
            for piece, row, bound in zip(ids.tolist(), by_row, bounds, strict=True):
                vectors[piece] = (row.tobytes(), bound.tobytes())
    connection.close()
    rows["vectors"] = vectors
    return rows


def receipts(receipts: list[tm.StoreReceipt]) -> list[tuple[str, bool]]:
    return [(receipt.id, receipt.replayed) for receipt in receipts]


batches = st.lists(tms.store_items(), min_size=1, max_size=8).flatmap(
    # Copies of items already in the batch: a later copy is a replay.
    lambda items: st.lists(st.sampled_from(items), max_size=3).map(lambda copies: items + copies)
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batches)
def test_a_batch_writes_what_its_items_would_one_by_one(batch: list[tm.StoreItem]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        together, alone = Path(folder, "batch.db"), Path(folder, "single.db")
        with SqliteEngine(together) as engine:
            batched = receipts(engine.store_many(batch))
            assert receipts(engine.store_many(batch)) == [(id, True) for id, _ in batched]
        with SqliteEngine(alone) as engine:
            single = receipts([engine.store(item) for item in batch])
        assert batched == single
        assert written(together) == written(alone)
        # And what was written reads back: each item's pieces make up its text.
        with sqlite3.connect(together) as connection:
            pieces = connection.execute(
                "SELECT i.id, t.text FROM piece_texts t JOIN items i ON i.seq = t.item "
                "ORDER BY t.id"
            ).fetchall()
        connection.close()
        texts: dict[str, str] = {}
        for item_id, text in pieces:
            texts[item_id] = texts.get(item_id, "") + text
        expected = {id: item.render_text() for (id, _), item in zip(batched, batch, strict=True)}
        assert texts == {id: text for id, text in expected.items() if text}


def test_a_long_documents_pieces_keep_their_text_beside_a_learning(tmp_path: Path) -> None:
    long_body = "\f".join(f"Page {n}. " + "harbour tides " * 300 for n in range(1, 4))
    learning = tm.Learning(text="harbour tides turn at noon")
    document = tm.Document(title="Coast guide", body=long_body)
    with SqliteEngine(tmp_path / "memory.db") as engine:
        engine.store_many([document, learning])
    rows = written(tmp_path / "memory.db")
    stored = [text for _, _, _, _, _, _, text, _ in rows["pieces"]]
    assert stored[-1] == ""  # the learning's text, read back from its JSON
    assert all(stored[:-1])
    assert [text for _, text in rows["piece_texts"]][-1] == learning.text
    assert "".join(text for _, text in rows["piece_texts"][:-1]) == document.render_text()


@pytest.mark.parametrize("bad", [0, 1, 2])
def test_a_batch_with_one_invalid_item_stores_nothing(tmp_path: Path, bad: int) -> None:
    previous = tm.set_item_limits(tm.ItemLimits(max_item_bytes=40))
    try:
        batch = [tm.Learning(text=f"a plain note number {n}") for n in range(3)]
        batch[bad] = tm.Learning(text="x" * 41)
        with tm.build_engine(
            "sqlite", tm.EngineSettings(options={"path": str(tmp_path / "memory.db")})
        ) as engine:
            with pytest.raises(tm.InvalidRequest, match="at most 40 bytes"):
                engine.store_many(batch)
            assert engine.list(tm.ListRequest()).items == ()
    finally:
        tm.set_item_limits(previous)
