"""Exact vector search: every piece's vector held in one matrix, kept in step with the file.

The matrix is read from the file on first use, a page of rows at a time, each
page's vectors joined into one buffer and copied into the matrix as a block.
The engine's own writes are applied to it as they commit. A write by another
connection (another process, or another engine on the same file) moves the
database's ``generation`` past the matrix's: when it only added items, just
their pieces are read (items' ``seq`` only grows, so they are the pieces of
items after the last one held); when it removed some (``removals`` moved too),
the matrix is read again.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]

#: Rows read from SQLite per block.
_PAGE = 4096


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

    def refresh(self, connection: sqlite3.Connection) -> None:
        """Bring the matrix up to the file: the pieces of new items, or all when some went."""
        generation, removals = read_counters(connection)
        with self._lock:
            if generation == self._generation:
                return
            if removals == self._removals:
                last = int(self._items[: self._size].max()) if self._size else 0
                self._read(connection, " WHERE item > ?", (last,))
            else:
                self._size = 0
                self._read(connection, "", ())
            self._generation, self._removals = generation, removals

    def _read(self, connection: sqlite3.Connection, where: str, params: tuple[int, ...]) -> None:
        """Append the pieces ``where`` admits, in id order, a block of rows at a time."""
        rows = connection.execute(f"SELECT id, item, vector FROM pieces{where} ORDER BY id", params)
        while page := rows.fetchmany(_PAGE):
            pieces, items, vectors = zip(*page, strict=True)
            size = self._size + len(page)
            self._reserve(size, keep=self._size)
            self._pieces[self._size : size] = pieces
            self._items[self._size : size] = items
            block = np.frombuffer(b"".join(vectors), np.float32)
            self._matrix[self._size : size] = block.reshape(len(page), self.dimensions)
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
