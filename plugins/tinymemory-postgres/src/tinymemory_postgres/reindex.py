"""Re-embedding a schema's memory with another embedder, in batches that survive an interruption.

New vectors go to ``reindex_vectors`` (a piece's id and its vector, made on
the first reindex and dropped by the last step), a batch of whole items per
write transaction, with the target embedder's identity and the last item
done in the ``settings`` row ``reindex``. Reads go on meanwhile with the
vectors and the embedder still recorded; the last step, one write
transaction, copies the new vectors over the old ones (pieces forgotten
meanwhile are gone from both) and records the new embedder. A run that stops,
for any reason, leaves only committed batches: the next run for the same
embedder continues after the last item done; one for another starts over.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tinymemory.plugin import item_from_json

from .connections import Connection

#: The settings row holding a reindex under way: ``{"embedder": identity, "through": seq}``.
REINDEX_KEY = "reindex"


def begin(connection: Connection, identity: str) -> int:
    """Start or continue a reindex toward ``identity`` (write transaction); the last item
    ``seq`` already done (0 for a fresh start)."""
    connection.execute(
        "CREATE TABLE IF NOT EXISTS reindex_vectors "
        "(piece bigint PRIMARY KEY, vector bytea NOT NULL)"
    )
    state = _state(connection)
    if state is not None and state["embedder"] == identity:
        return int(state["through"])
    connection.execute("DELETE FROM reindex_vectors")
    _mark(connection, identity, 0)
    return 0


def counts(connection: Connection, through: int) -> tuple[int, int]:
    """Items done (``seq`` up to ``through``) and items in all."""
    row = connection.execute(
        "SELECT count(*) FILTER (WHERE seq <= %s), count(*) FROM items", (through,)
    ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


def next_pieces(
    connection: Connection, through: int, batch_size: int
) -> list[tuple[int, int, str]]:
    """``(piece id, item seq, text)`` of the next whole items after ``through``: at least one
    item, and items until about ``batch_size`` pieces."""
    row = connection.execute(
        "SELECT max(item) FROM (SELECT item FROM pieces WHERE item > %s "
        "ORDER BY item, id LIMIT %s) AS first",
        (through, max(batch_size, 1)),
    ).fetchone()
    if row is None or row[0] is None:
        return []
    rows = connection.execute(
        "SELECT p.id, p.item, i.body, p.start, p.length FROM pieces p "
        "JOIN items i ON i.seq = p.item WHERE p.item > %s AND p.item <= %s ORDER BY p.item, p.id",
        (through, row[0]),
    ).fetchall()
    texts: dict[int, str] = {}  # each item's text, rendered once for all its pieces
    pieces = []
    for piece, item, body, start, length in rows:
        if item not in texts:
            texts[item] = item_from_json(body).render_text()
        pieces.append((int(piece), int(item), texts[item][start : start + length]))
    return pieces


def commit_batch(
    connection: Connection, identity: str, rows: Sequence[tuple[int, int, str]], vectors: Any
) -> tuple[int, int, int]:
    """Commit one batch's vectors (write transaction) unless another run got there first;
    the last item done then, the items done and the items in all."""
    reached = (
        rows[-1][1] if _write(connection, identity, rows, vectors) else begin(connection, identity)
    )
    return (reached, *counts(connection, reached))


def _write(
    connection: Connection, identity: str, rows: Sequence[tuple[int, int, str]], vectors: Any
) -> bool:
    state = _state(connection)
    if state is None or state["embedder"] != identity or state["through"] >= rows[0][1]:
        return False
    connection.execute(
        "INSERT INTO reindex_vectors(piece, vector) "
        "SELECT * FROM unnest(%s::bigint[], %s::bytea[])",
        ([piece for piece, _, _ in rows], [vector.tobytes() for vector in vectors]),
    )
    _mark(connection, identity, rows[-1][1])
    return True


def finish(connection: Connection, identity: str) -> bool:
    """Put the new vectors in place (write transaction) when every item is done; whether it did."""
    state = _state(connection)
    if state is None or state["embedder"] != identity:
        return False
    late = connection.execute(
        "SELECT EXISTS (SELECT 1 FROM items WHERE seq > %s)", (state["through"],)
    ).fetchone()
    if late is not None and late[0]:
        return False
    connection.execute(
        "UPDATE vectors v SET vector = r.vector FROM reindex_vectors r WHERE r.piece = v.piece"
    )
    connection.execute("DROP TABLE reindex_vectors")
    connection.execute("DELETE FROM settings WHERE key = %s", (REINDEX_KEY,))
    connection.execute(
        "INSERT INTO settings(key, value) VALUES ('embedder', %s) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (identity,),
    )
    return True


def _state(connection: Connection) -> dict[str, Any] | None:
    row = connection.execute("SELECT value FROM settings WHERE key = %s", (REINDEX_KEY,)).fetchone()
    return json.loads(row[0]) if row else None


def _mark(connection: Connection, identity: str, through: int) -> None:
    connection.execute(
        "INSERT INTO settings(key, value) VALUES (%s, %s) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (REINDEX_KEY, json.dumps({"embedder": identity, "through": through})),
    )
