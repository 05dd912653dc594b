"""Exact vector search over every piece's vector, held as byte codes kept in step with the file.

The file keeps vectors a write at a time: one ``vector_blocks`` row per store
holds its pieces' ids, their items' ``seq``, their vectors' codes and each
code's range, each as one buffer. A process's first vector read is then a few
hundred rows copied into memory as blocks, and a store writes one row of
vectors instead of one per piece. Removing items rewrites the blocks that held
them (``secure_delete`` zeroes the old bytes).

**Codes** (version 4). A vector is kept as one byte per dimension: its
smallest entry ``low``, a ``step`` of ``(largest - low) / 255`` and the
entries' rounded steps above ``low`` (:func:`encode`); 264 bytes at 256
dimensions instead of 1,024 as float32. An affine code per vector, not a
signed one: the default embedder's vectors have no negative entries, so a
signed byte would spend half its values on nothing. On the benchmark's 200
queries at 100k items, the engine finds the answer in the top 5 for 39 where
float32 finds 40 (within the half point the issue allows;
``benchmarks/sqlite_bench.py`` prints both); float16 would cost twice the
bytes.

**Scores** are the product of the query with each decoded vector, computed
without decoding: the query is coded the same way, the byte products are
summed by numkong's integer kernels, and the ranges put the sum back on the
cosine's scale. So a read keeps 256 bytes per piece in memory (256 MB at a
million pieces) and scans them in about 23 ms of CPU at a million here, against 1 GB
and a float product for float32 rows.

**Why exact, and no approximate index.** A top-10 read over a million pieces
costs about 21 ms of CPU here (numkong's scan 17 ms, the rest numpy over the
scores), under the issue's 30 ms, and stays exact. Measured on the benchmark's
vectors (256-dim hashing of 20-60 Zipf-drawn words; ``benchmarks/sqlite_bench.py
--stream`` prints it again): an inverted file of ``sqrt(N)`` k-means lists, the
approximate index that fits a single file best (centroids and a list id per
vector beside the codes), agreed with exact on the top 10 about in proportion to
the share of lists it probed (43 % probing a tenth at 100k), and an HNSW graph
(usearch 2.26) on 9 %. A short query's hashing vector has a few dozen non-zero
buckets among 256 while a note's has most of them: what makes a note near a query
is a handful of buckets, which neither cells nor graphs built over whole vectors
keep together. So filters stay exact with one scoring, and the file stays the only
state, with nothing to train, rebuild or serialise.

A read whose filter admits few items (a node of a few thousand among a million)
scores only their rows: the engine lists them (by index) and :meth:`VectorIndex.ranked`
finds their rows by bisection, as the rows' items only grow (see ``LISTED_PER_SCANNED``
in :mod:`tinymemory_sqlite.ranking` for when it lists).

The codes are read from the file on first use. The engine's own writes are
applied to them as they commit (coded as the file holds them, so a fresh read
agrees). A write by another connection (another process, or another engine on
the same file) moves the database's ``generation`` past the index's: when it
only added items, just their blocks are read (items' ``seq`` only grows, so
they are the blocks after the last item held); when it removed some
(``removals`` moved too), everything is read again.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from typing import TypeVar

import numkong
import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float32]
Ints = npt.NDArray[np.int64]
Codes = npt.NDArray[np.uint8]
Entry = TypeVar("Entry", bound=np.generic)

#: Code values: a byte's.
LEVELS = 255


def encode(rows: Floats) -> tuple[Codes, Floats]:
    """``rows`` as codes and, per row, ``(low, step)``: ``low + step * code`` is the entry
    within half a step. A row of equal entries has step 0 and codes 0."""
    rows = np.asarray(rows, np.float32)
    low = rows.min(axis=1)
    step = (rows.max(axis=1) - low) / LEVELS
    safe = np.where(step > 0, step, 1.0).astype(np.float32)
    codes = np.rint((rows - low[:, None]) / safe[:, None]).astype(np.uint8)
    return codes, np.stack([low, step], axis=1).astype(np.float32)


def decode(codes: Codes, ranges: Floats) -> Floats:
    """The vectors ``codes`` and ``ranges`` stand for (to within half a step per entry)."""
    decoded: Floats = ranges[:, :1] + ranges[:, 1:] * codes.astype(np.float32)
    return decoded


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
        "SELECT first_item, pieces, items, vectors, ranges FROM vector_blocks "
        "WHERE first_item IN (SELECT (SELECT max(first_item) FROM vector_blocks "
        "WHERE first_item <= value) FROM json_each(?))",
        (json.dumps(items),),
    ).fetchall()
    for first_item, pieces, held, vectors, ranges in blocks:
        held_items = np.frombuffer(held, np.int64)
        keep = ~np.isin(held_items, doomed)
        if not keep.any():
            connection.execute("DELETE FROM vector_blocks WHERE first_item = ?", (first_item,))
            continue
        codes = np.frombuffer(vectors, np.uint8).reshape(len(held_items), -1)
        connection.execute(
            "UPDATE vector_blocks SET pieces = ?, items = ?, vectors = ?, ranges = ? "
            "WHERE first_item = ?",
            (
                np.frombuffer(pieces, np.int64)[keep].tobytes(),
                held_items[keep].tobytes(),
                codes[keep].tobytes(),
                np.frombuffer(ranges, np.float32).reshape(-1, 2)[keep].tobytes(),
                first_item,
            ),
        )


#: Rows scored at once: their products stay in the processor's cache on their way out.
SCAN_ROWS = 1 << 16


class VectorIndex:
    """The codes of every piece's vector, with the piece's id and its item's ``seq``."""

    def __init__(self, dimensions: int) -> None:
        self.dimensions = dimensions
        self._lock = threading.Lock()
        self._generation: int | None = None
        self._removals: int | None = None
        self._pieces: Ints = np.empty(0, np.int64)
        self._items: Ints = np.empty(0, np.int64)
        self._codes: Codes = np.empty((0, dimensions), np.uint8)
        # Per row: low, step, and step times the sum of the codes (see _scores).
        self._low: Floats = np.empty(0, np.float32)
        self._step: Floats = np.empty(0, np.float32)
        self._step_sum: Floats = np.empty(0, np.float32)
        self._size = 0
        # Whether the rows' items never go down (as blocks are read and stores add them):
        # then an item's rows are found by bisection (see _rows_of).
        self._in_order = True

    # The write side's statements, here so the engine reaches them through its index.
    bump_generation = staticmethod(bump_generation)
    remove_from_blocks = staticmethod(remove_from_blocks)

    def refresh(self, connection: sqlite3.Connection) -> None:
        """Bring the codes up to the file: the pieces of new items, or all when some went."""
        generation, removals = read_counters(connection)
        with self._lock:
            if generation == self._generation:
                return
            if removals == self._removals:
                last = int(self._items[: self._size].max()) if self._size else 0
                self._read(connection, " WHERE first_item > ?", (last,))
            else:
                self._size = 0
                self._in_order = True
                # length() reads a blob's size from its row, not the blob: reserving all
                # the rows first saves a copy of them per growth.
                count = connection.execute(
                    "SELECT coalesce(sum(length(pieces)), 0) / 8 FROM vector_blocks"
                ).fetchone()[0]
                self._reserve(count, keep=0)
                self._read(connection, "", ())
            self._generation, self._removals = generation, removals

    def _read(self, connection: sqlite3.Connection, where: str, params: tuple[int, ...]) -> None:
        """Append the blocks ``where`` admits, in order."""
        rows = connection.execute(
            f"SELECT pieces, items, vectors, ranges FROM vector_blocks{where} ORDER BY first_item",
            params,
        )
        for pieces, items, vectors, ranges in rows:
            codes = np.frombuffer(vectors, np.uint8).reshape(-1, self.dimensions)
            self._append(
                np.frombuffer(pieces, np.int64),
                np.frombuffer(items, np.int64),
                codes,
                np.frombuffer(ranges, np.float32).reshape(-1, 2),
            )

    def _append(self, pieces: Ints, items: Ints, codes: Codes, ranges: Floats) -> None:
        size = self._size + len(pieces)
        if len(items):
            after = int(self._items[self._size - 1]) if self._size else int(items[0])
            self._in_order &= bool(items[0] >= after and np.all(items[1:] >= items[:-1]))
        self._reserve(size, keep=self._size)
        rows = slice(self._size, size)
        self._pieces[rows] = pieces
        self._items[rows] = items
        self._codes[rows] = codes
        self._low[rows] = ranges[:, 0]
        self._step[rows] = ranges[:, 1]
        self._step_sum[rows] = ranges[:, 1] * codes.sum(axis=1, dtype=np.float32)
        self._size = size

    def added(self, before: int, pieces: Sequence[int], items: Sequence[int], rows: Floats) -> None:
        """Apply a committed write that added pieces; ``before`` is the generation it moved on.

        When another connection wrote in between, the write is left for :meth:`refresh`,
        which reads it with the other's.
        """
        with self._lock:
            if self._generation != before:
                return
            codes, ranges = encode(rows)
            self._append(np.asarray(pieces, np.int64), np.asarray(items, np.int64), codes, ranges)
            self._generation = before + 1

    def _reserve(self, rows: int, *, keep: int) -> None:
        """Room for ``rows`` rows, keeping the first ``keep``; grows by a quarter, not double."""
        if rows <= len(self._pieces):
            return
        capacity = max(rows, len(self._pieces) + len(self._pieces) // 4, 1024)
        self._pieces = _grown(self._pieces, capacity, keep)
        self._items = _grown(self._items, capacity, keep)
        self._codes = _grown(self._codes, capacity, keep)
        self._low = _grown(self._low, capacity, keep)
        self._step = _grown(self._step, capacity, keep)
        self._step_sum = _grown(self._step_sum, capacity, keep)

    def removed(self, before: int, items: Sequence[int]) -> None:
        """Apply a committed write that removed ``items``' pieces."""
        with self._lock:
            if self._generation != before or self._removals is None:
                self._generation = self._removals = None
                return
            keep = ~np.isin(self._items[: self._size], np.asarray(items, np.int64))
            self._pieces = self._pieces[: self._size][keep]
            self._items = self._items[: self._size][keep]
            self._codes = self._codes[: self._size][keep]
            self._low = self._low[: self._size][keep]
            self._step = self._step[: self._size][keep]
            self._step_sum = self._step_sum[: self._size][keep]
            self._size = len(self._pieces)
            self._generation = before + 1
            self._removals += 1

    @property
    def size(self) -> int:
        """How many pieces' vectors are held."""
        return self._size

    def _scores(self, query: Floats, rows: Ints | None = None) -> Floats:
        """The query's product with every decoded vector (or those of ``rows``), from the codes.

        ``q . v = low * sum(q) + step * (c . q)`` for ``v = low + step * c``; in the last
        term the query is coded too, ``q ~ q_low + q_step * q_c``, so that ``c . q =
        q_low * sum(c) + q_step * (c . q_c)``, where ``c . q_c`` is a product of bytes,
        summed exactly in integers.
        """
        every = slice(0, self._size)
        chosen = every if rows is None else rows
        codes = self._codes[chosen]
        low, step, step_sum = self._low[chosen], self._step[chosen], self._step_sum[chosen]
        (query_codes,), ((query_low, query_step),) = encode(query[None, :])
        scores = np.empty((1, len(codes)), np.float32)
        for first in range(0, len(codes), SCAN_ROWS):
            last = min(first + SCAN_ROWS, len(codes))
            numkong.cdist(
                query_codes[None, :], codes[first:last], metric="dot", out=scores[:, first:last]
            )
        products: Floats = scores[0]
        products *= query_step
        products *= step
        if query_low:
            products += query_low * step_sum
        products += float(query.sum()) * low
        return products

    def _rows_of(self, items: Ints) -> Ints:
        """The rows of the pieces of ``items`` (ascending, distinct), in row order."""
        held = self._items[: self._size]
        if not self._in_order:
            return np.flatnonzero(np.isin(held, items))
        starts = np.searchsorted(held, items, "left")
        counts = np.searchsorted(held, items, "right") - starts
        # Each item's run of rows: its start, then one more per row after it.
        before = np.cumsum(counts) - counts
        rows: Ints = np.arange(int(counts.sum())) + np.repeat(starts - before, counts)
        return rows

    def ranked(
        self, query: Floats, bound_seq: int, within: Sequence[int] | None = None
    ) -> Iterator[tuple[int, int, float]]:
        """``(item seq, piece id, score)`` of items up to ``bound_seq`` (and, given, among the
        ascending, distinct seqs ``within``): best piece, best first.

        Only positive scores count. Ties go to the lower piece id. The order is
        produced in growing prefixes, so a caller who stops early pays for a
        partial sort only. ``within`` scores only its items' rows: the whole scan
        of a million pieces costs ~20 ms of CPU, a few thousand rows well under one.
        """
        with self._lock:
            rows = None if within is None else self._rows_of(np.asarray(within, np.int64))
            pieces = self._pieces[: self._size] if rows is None else self._pieces[rows]
            items = self._items[: self._size] if rows is None else self._items[rows]
            scores = self._scores(query, rows) if len(items) else np.empty(0, np.float32)
        if len(items) and items.max() > bound_seq:
            scores[items > bound_seq] = 0.0
        positive = int(np.count_nonzero(scores > 0))
        seen: set[int] = set()
        done = 0
        window = 64
        while done < positive:
            window = min(window, positive)
            chosen = best_rows(scores, window)
            chosen = chosen[scores[chosen] > 0]
            order = chosen[np.lexsort((pieces[chosen], -scores[chosen]))]
            for index in order[done:]:
                item = int(items[index])
                if item not in seen:
                    seen.add(item)
                    yield item, int(pieces[index]), float(scores[index])
            done = len(order)
            window *= 8


def best_rows(scores: Floats, count: int) -> Ints:
    """The rows of the ``count`` best scores and of every score tied with the worst of them.

    A threshold is taken from every 64th score first, so the partial sort runs on the few
    rows above it, not on all (a partition of a million scores costs ~18 ms, a comparison ~1).
    """
    if count >= len(scores):
        return np.flatnonzero(scores > -np.inf)
    candidates = np.arange(len(scores))
    sample = scores[::64]
    wanted = count // 16 + 1
    if len(sample) > 4 * wanted:
        threshold = np.partition(sample, len(sample) - wanted)[len(sample) - wanted]
        above = np.flatnonzero(scores >= threshold)
        if len(above) >= count:
            candidates = above
    picked = scores[candidates]
    best = np.argpartition(picked, len(picked) - count)[len(picked) - count :]
    return np.flatnonzero(scores >= picked[best].min())


def _grown(array: npt.NDArray[Entry], capacity: int, keep: int) -> npt.NDArray[Entry]:
    """``array`` with room for ``capacity`` rows, its first ``keep`` kept."""
    grown: npt.NDArray[Entry] = np.zeros((capacity, *array.shape[1:]), array.dtype)
    grown[:keep] = array[:keep]
    return grown
