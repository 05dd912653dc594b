"""Exact vector search: every piece's vector held in one matrix, kept in step with the file.

The file keeps vectors a write at a time: one ``vector_blocks`` row per store
holds its pieces' ids, their items' ``seq`` and their float32 vectors, each as
one buffer. A process's first vector read is then a few hundred rows copied
into the matrix as blocks (a row per piece cost a SQLite step and a numpy
copy each: half a second at 100k pieces), and a store writes one row of
vectors instead of one per piece. Removing items rewrites the blocks that held
them (``secure_delete`` zeroes the old bytes).

The vectors stay float32 on disk. Stored as float16, only 91-93 % of the
benchmark's queries kept the same top 10 at 1k to 100k items (int8 with a
scale per vector: 12-26 %; ``benchmarks/sqlite_bench.py`` prints both); the
bar for storing them smaller was 99 %. The hashing embedder's texts share
words, so near-ties are common and any rounding reorders them.

The matrix is read from the file on first use. The engine's own writes are
applied to it as they commit. A write by another connection (another
process, or another engine on the same file) moves the database's
``generation`` past the matrix's: when it only added items, just their blocks
are read (items' ``seq`` only grows, so they are the blocks after the last
item held); when it removed some (``removals`` moved too), the matrix is read
again.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]


def read_counters(connection: sqlite3.Connection) -> tuple[int, int]:
    """The database's write ``generation`` (moved on by every write that adds or removes
    pieces) and its ``removals`` counter (moved on by those that remove; 0 before the first).
    """
    rows = dict(
        connection.execute(
            "SELECT key, CAST(value AS INTEGER) FROM settings "
            "WHERE key IN ('generation', 'removals')"
        ).fetchall()
    )
    return int(rows["generation"]), int(rows.get("removals", 0))


def bump_generation(connection: sqlite3.Connection, *, removing: bool = False) -> int:
    """Move the generation on (and, ``removing``, the removals) inside a write transaction;
    the generation before it.
    """
    if removing:
        connection.execute(
            "INSERT INTO settings(key, value) VALUES ('removals', '1') "
            "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
        )
    row = connection.execute(
        "UPDATE settings SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation' "
        "RETURNING CAST(value AS INTEGER)"
    ).fetchone()
    return int(row[0]) - 1


def remove_from_blocks(connection: sqlite3.Connection, items: Sequence[int]) -> None:
    """Take ``items``' vectors out of the blocks holding them, inside a write transaction."""
    doomed = np.asarray(items, np.int64)
    blocks = connection.execute(
        "SELECT first_item, pieces, items, vectors FROM vector_blocks WHERE first_item IN ("
        "SELECT (SELECT max(first_item) FROM vector_blocks WHERE first_item <= value) "
        "FROM json_each(?))",
        (json.dumps(items),),
    ).fetchall()
    for first_item, pieces, held, vectors in blocks:
        held_items = np.frombuffer(held, np.int64)
        keep = ~np.isin(held_items, doomed)
        if not keep.any():
            connection.execute("DELETE FROM vector_blocks WHERE first_item = ?", (first_item,))
            continue
        rows = np.frombuffer(vectors, np.float32).reshape(len(held_items), -1)
        connection.execute(
            "UPDATE vector_blocks SET pieces = ?, items = ?, vectors = ? WHERE first_item = ?",
            (
                np.frombuffer(pieces, np.int64)[keep].tobytes(),
                held_items[keep].tobytes(),
                rows[keep].tobytes(),
                first_item,
            ),
        )


class VectorIndex:
    """The vectors of every piece, with the piece's id and its item's ``seq``."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._removals: int | None = None
        self._pieces: Ints = np.empty(0, np.int64)
        self._items: Ints = np.empty(0, np.int64)
        self._matrix: Floats = np.empty((0, dimensions), np.float32)
        self._size = 0

    # The write side's statements, here so the engine reaches them through its index.
    bump_generation = staticmethod(bump_generation)
    remove_from_blocks = staticmethod(remove_from_blocks)

    def refresh(self, connection: sqlite3.Connection) -> None:
        """Bring the matrix up to the file: the pieces of new items, or all when some went."""
        generation, removals = read_counters(connection)
        with self._lock:
            if generation == self._generation:
                return
            if removals == self._removals:
                last = int(self._items[: self._size].max()) if self._size else 0
                self._read(connection, " WHERE first_item > ?", (last,))
            else:
                self._size = 0
                # length() reads a blob's size from its row, not the blob: reserving the
                # whole matrix first saves a copy of it per growth.
                count = connection.execute(
                    "SELECT coalesce(sum(length(pieces)), 0) / 8 FROM vector_blocks"
                ).fetchone()[0]
                self._reserve(count, keep=0)
                self._read(connection, "", ())
            self._generation, self._removals = generation, removals

    def _read(self, connection: sqlite3.Connection, where: str, params: tuple[int, ...]) -> None:
        """Append the blocks ``where`` admits, in order."""
        rows = connection.execute(
            f"SELECT pieces, items, vectors FROM vector_blocks{where} ORDER BY first_item", params
        )
        for pieces, items, vectors in rows:
            count = len(pieces) // 8
            size = self._size + count
            self._reserve(size, keep=self._size)
            self._pieces[self._size : size] = np.frombuffer(pieces, np.int64)
            self._items[self._size : size] = np.frombuffer(items, np.int64)
            block = np.frombuffer(vectors, np.float32).reshape(count, self.dimensions)
            self._matrix[self._size : size] = block
            self._size = size

    def added(self, before: int, pieces: Sequence[int], items: Sequence[int], rows: Floats) -> None:
        """Apply a committed write that added pieces; ``before`` is the generation it moved on.

        When another connection wrote in between, the write is left for :meth:`refresh`,
        which reads it with the other's.
        """
        with self._lock:
            if self._generation != before:
                return
            size = self._size + len(pieces)
            self._reserve(size, keep=self._size)
            self._pieces[self._size : size] = pieces
            self._items[self._size : size] = items
            self._matrix[self._size : size] = rows
            self._size = size
            self._generation = before + 1

    def _reserve(self, rows: int, *, keep: int) -> None:
        """Room for ``rows`` rows, keeping the first ``keep``; grows by a quarter, not double."""
        if rows <= len(self._pieces):
            return
        capacity = max(rows, len(self._pieces) + len(self._pieces) // 4, 1024)
        pieces = np.zeros(capacity, np.int64)
        items = np.zeros(capacity, np.int64)
        matrix = np.zeros((capacity, self.dimensions), np.float32)
        pieces[:keep] = self._pieces[:keep]
        items[:keep] = self._items[:keep]
        matrix[:keep] = self._matrix[:keep]
        self._pieces, self._items, self._matrix = pieces, items, matrix

    def removed(self, before: int, items: Sequence[int]) -> None:
        """Apply a committed write that removed ``items``' pieces."""
        with self._lock:
            if self._generation != before or self._removals is None:
                self._generation = self._removals = None
                return
            keep = ~np.isin(self._items[: self._size], np.asarray(items, np.int64))
            self._pieces = self._pieces[: self._size][keep]
            self._items = self._items[: self._size][keep]
            self._matrix = self._matrix[: self._size][keep]
            self._size = len(self._pieces)
            self._generation = before + 1
            self._removals += 1

    def ranked(self, query: Floats, bound_seq: int) -> Iterator[tuple[int, int, float]]:
        """``(item seq, piece id, score)`` of items up to ``bound_seq``: best piece, best first.

        Only positive scores count. Ties go to the lower piece id. The order is
        produced in growing prefixes, so a caller who stops early pays for a
        partial sort only.
        """
        with self._lock:
            pieces = self._pieces[: self._size]
            items = self._items[: self._size]
            scores = self._matrix[: self._size] @ query
        if len(items) and items.max() > bound_seq:
            scores[items > bound_seq] = 0.0
        positive = int(np.count_nonzero(scores > 0))
        seen: set[int] = set()
        done = 0
        window = 64
        while done < positive:
            window = min(window, positive)
            if window < len(scores):
                best = np.argpartition(scores, len(scores) - window)[len(scores) - window :]
                chosen = np.flatnonzero(scores >= scores[best].min())
            else:
                chosen = np.flatnonzero(scores > 0)
            chosen = chosen[scores[chosen] > 0]
            order = chosen[np.lexsort((pieces[chosen], -scores[chosen]))]
            for index in order[done:]:
                item = int(items[index])
                if item not in seen:
                    seen.add(item)
                    yield item, int(pieces[index]), float(scores[index])
            done = len(order)
            window *= 8
