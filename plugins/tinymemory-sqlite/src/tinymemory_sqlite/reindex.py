"""Re-embedding a file's memory with another embedder, in batches that survive an interruption.

New vectors go to ``reindex_blocks`` (laid out as ``vector_blocks``, made on
the first reindex and dropped by the last step), a batch of whole items per
write transaction, with the target embedder's record and the last item done
in the ``settings`` row ``reindex``. Reads go on meanwhile with the vectors
and the embedder still recorded; the last step, one write transaction, puts
the new blocks in place of the old ones (less the items forgotten meanwhile),
records the new embedder and moves the generation and removals counters on,
so every engine on the file reads its vectors again. A run that stops, for
any reason, leaves only committed batches: the next run for the same
embedder continues after the last item done; one for another embedder starts
over.
"""

from __future__ import annotations

import json
import sqlite3
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

from .schema import write_block

if TYPE_CHECKING:  # numpy loads with the first reindex, never with the engine
    import numpy as np

#: The settings row holding a reindex under way: ``{"embedder": record, "through": seq}``.
REINDEX_KEY = "reindex"

_BLOCKS = (
    "CREATE TABLE IF NOT EXISTS reindex_blocks (first_item INTEGER PRIMARY KEY, "
    "pieces BLOB NOT NULL, items BLOB NOT NULL, vectors BLOB NOT NULL)"
)


def begin(connection: sqlite3.Connection, record: str) -> int:
    """Start or continue a reindex toward the embedder ``record`` (write transaction); the
    last item ``seq`` already done (0 for a fresh start)."""
    connection.execute(_BLOCKS)
    row = connection.execute("SELECT value FROM settings WHERE key = ?", (REINDEX_KEY,)).fetchone()
    state = json.loads(row[0]) if row else None
    if state is not None and state["embedder"] == record:
        return int(state["through"])
    connection.execute("DELETE FROM reindex_blocks")
    _mark(connection, record, 0)
    return 0


def counts(connection: sqlite3.Connection, through: int) -> tuple[int, int]:
    """Items done (``seq`` up to ``through``) and items in all."""
    done, total = connection.execute(
        "SELECT count(*) FILTER (WHERE seq <= ?), count(*) FROM items", (through,)
    ).fetchone()
    return int(done), int(total)


def next_pieces(
    connection: sqlite3.Connection, through: int, batch_size: int
) -> list[tuple[int, int, str]]:
    """``(piece id, item seq, text)`` of the next whole items after ``through``: at least one
    item, and items until about ``batch_size`` pieces."""
    last = connection.execute(
        "SELECT max(item) FROM (SELECT item FROM pieces WHERE item > ? ORDER BY item, id LIMIT ?)",
        (through, max(batch_size, 1)),
    ).fetchone()[0]
    if last is None:
        return []
    rows = connection.execute(
        "SELECT id, item, text FROM piece_texts WHERE item > ? AND item <= ? ORDER BY item, id",
        (through, last),
    ).fetchall()
    return [(int(piece), int(item), str(text)) for piece, item, text in rows]


def commit_batch(
    connection: sqlite3.Connection,
    record: str,
    rows: Sequence[tuple[int, int, str]],
    vectors: np.ndarray,
) -> tuple[int, int, int]:
    """Commit one batch's vectors (write transaction) unless another run got there first;
    the last item done then, the items done and the items in all."""
    written = _write(connection, record, rows, vectors)
    reached = rows[-1][1] if written else begin(connection, record)
    return (reached, *counts(connection, reached))


def _write(
    connection: sqlite3.Connection,
    record: str,
    rows: Sequence[tuple[int, int, str]],
    vectors: np.ndarray,
) -> bool:
    row = connection.execute("SELECT value FROM settings WHERE key = ?", (REINDEX_KEY,)).fetchone()
    state = json.loads(row[0]) if row else None
    if state is None or state["embedder"] != record or state["through"] >= rows[0][1]:
        return False
    import numpy as np

    connection.execute(
        "INSERT INTO reindex_blocks(first_item, pieces, items, vectors) VALUES (?, ?, ?, ?)",
        (
            rows[0][1],
            array("q", [piece for piece, _, _ in rows]).tobytes(),
            array("q", [item for _, item, _ in rows]).tobytes(),
            np.ascontiguousarray(vectors, dtype=np.float32).tobytes(),
        ),
    )
    _mark(connection, record, rows[-1][1])
    return True


def finish(connection: sqlite3.Connection, record: str) -> bool:
    """Put the new vectors in place (write transaction) when every item is done; whether it did.

    Blocks keep only the items still stored; the old blocks go, the new embedder is recorded.
    """
    row = connection.execute("SELECT value FROM settings WHERE key = ?", (REINDEX_KEY,)).fetchone()
    state = json.loads(row[0]) if row else None
    if state is None or state["embedder"] != record:
        return False
    late = connection.execute(
        "SELECT 1 FROM items WHERE seq > ? LIMIT 1", (state["through"],)
    ).fetchone()
    if late is not None:
        return False
    import numpy as np

    connection.execute("DELETE FROM vector_blocks")
    stored = connection.execute("SELECT seq FROM items").fetchall()
    kept = np.asarray([seq for (seq,) in stored], np.int64)
    blocks = connection.execute(
        "SELECT first_item, pieces, items, vectors FROM reindex_blocks ORDER BY first_item"
    ).fetchall()
    for _, pieces, items, vectors in blocks:
        held = np.frombuffer(items, np.int64)
        keep = np.isin(held, kept)
        if not keep.any():
            continue
        rows = np.frombuffer(vectors, np.float32).reshape(len(held), -1)
        # Laid out as a store lays out its block (the vectors kept as codes and ranges).
        write_block(
            connection,
            np.frombuffer(pieces, np.int64)[keep].tolist(),
            held[keep].tolist(),
            rows[keep].tobytes(),
        )
    connection.execute("DROP TABLE reindex_blocks")
    connection.execute("DELETE FROM settings WHERE key = ?", (REINDEX_KEY,))
    connection.execute(
        "INSERT OR REPLACE INTO settings(key, value) VALUES ('embedder', ?)", (record,)
    )
    return True


def _mark(connection: sqlite3.Connection, record: str, through: int) -> None:
    connection.execute(
        "INSERT OR REPLACE INTO settings(key, value) VALUES (?, ?)",
        (REINDEX_KEY, json.dumps({"embedder": record, "through": through})),
    )
