"""Exact vector search: every piece's vector held in one matrix, kept in step with the file.

The matrix is read from the file on first use. The engine's own writes are
applied to it as they commit; a write by another connection (another
process, or another engine on the same file) moves the database's
``generation`` past the matrix's, and the matrix is read again.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]


def read_generation(connection: sqlite3.Connection) -> int:
    """The database's write generation, moved on by every write that adds or removes pieces."""
    row = connection.execute("SELECT value FROM settings WHERE key = 'generation'").fetchone()
    return int(row[0])


def bump_generation(connection: sqlite3.Connection) -> int:
    """Move the generation on inside a write transaction; the generation before it."""
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
        self._pieces: Ints = np.empty(0, np.int64)
        self._items: Ints = np.empty(0, np.int64)
        self._matrix: Floats = np.empty((0, dimensions), np.float32)
        self._size = 0

    def refresh(self, connection: sqlite3.Connection) -> None:
        """Read the matrix again when the file has moved on from it.

        Rows are copied straight into one matrix, a page of rows at a time,
        so reading 100k vectors holds one copy of them, not three.
        """
        generation = read_generation(connection)
        with self._lock:
            if generation == self._generation:
                return
            count = connection.execute("SELECT count(*) FROM pieces").fetchone()[0]
            self._reserve(count, keep=0)
            size = 0
            rows = connection.execute("SELECT id, item, vector FROM pieces ORDER BY id")
            while page := rows.fetchmany(1024):
                for piece, item, vector in page:
                    if size == len(self._pieces):
                        self._reserve(size + 1, keep=size)
                    self._pieces[size] = piece
                    self._items[size] = item
                    self._matrix[size] = np.frombuffer(vector, np.float32)
                    size += 1
            self._size = size
            self._generation = generation

    def added(self, before: int, pieces: Sequence[int], items: Sequence[int], rows: Floats) -> None:
        """Apply a committed write that added pieces; ``before`` is the generation it moved on."""
        with self._lock:
            if self._generation != before:
                self._generation = None
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
            if self._generation != before:
                self._generation = None
                return
            keep = ~np.isin(self._items[: self._size], np.asarray(items, np.int64))
            self._pieces = self._pieces[: self._size][keep]
            self._items = self._items[: self._size][keep]
            self._matrix = self._matrix[: self._size][keep]
            self._size = len(self._pieces)
            self._generation = before + 1

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
