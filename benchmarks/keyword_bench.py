"""Print the `sqlite` engine's keyword fetch beside its two floors, measured in one run.

For each size N a seeded corpus is made (a 30,000-word vocabulary drawn with
Zipf weights, s = 1; texts of 20 to 60 words) and stored twice:

- in the engine, as `tinymemory.Learning` items at the root, through
  `store_many` in batches of 100 (the ordinary case: one memory, no filter);
- in a bare `fts5(body, tokenize='unicode61')` table, committed every 100 rows
  as the engine commits, so both indexes have the same shape.

The queries are two words of one stored text, none of the 100 most frequent.
The floors are FTS5's `bm25` MATCH of both words (AND), and the engine's
semantics done by hand: AND, then OR when AND finds fewer than the limit.
The engine row is a whole `fetch` (limit 10) through the public API. Beside
them:

- scoped fetches: the same texts split between two sibling nodes (half and
  half, then one in a hundred at the reader's node), read from one of them,
  so scores come from BM25 over what the read admits rather than from FTS5's
  own statistics;
- top-10 agreement: how often the engine's ten texts, in order, are those of
  the AND-then-OR floor (FTS5's ranking), and their mean overlap.

Latencies are p50/p95 of single, sequential calls after a few untimed ones;
the load average and the process's CPU time are printed beside them.

    python benchmarks/keyword_bench.py [--sizes 10000,100000] [--queries 200] [--seed 7]
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine

VOCABULARY = 30_000
WORDS = (20, 60)
SKIP_FREQUENT = 100
BATCH = 100
LIMIT = 10
WARM_UP = 5
FLOOR_QUERY = "SELECT rowid, body, bm25(docs) s FROM docs WHERE docs MATCH ? ORDER BY s LIMIT ?"
HOME = tm.Namespace.parse("team:bench/agent:home")
SIBLING = tm.Namespace.parse("team:bench/agent:other")


def make_corpus(size: int, seed: int, queries: int) -> tuple[list[str], list[str]]:
    """``size`` distinct texts and ``queries`` two-word queries, each from one text."""
    rng = random.Random(seed)
    vocabulary: dict[str, None] = {}
    while len(vocabulary) < VOCABULARY:
        vocabulary["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(3, 10)))] = None
    words = list(vocabulary)
    weights = list(itertools.accumulate(1.0 / rank for rank in range(1, VOCABULARY + 1)))
    texts = list(
        dict.fromkeys(
            " ".join(rng.choices(words, cum_weights=weights, k=rng.randint(*WORDS)))
            for _ in range(size)
        )
    )
    frequent = set(words[:SKIP_FREQUENT])
    pairs: list[str] = []
    while len(pairs) < queries + WARM_UP:
        rare = list(dict.fromkeys(w for w in rng.choice(texts).split() if w not in frequent))
        if len(rare) >= 2:
            pairs.append(" ".join(rng.sample(rare, 2)))
    return texts, pairs


def latencies(call: Callable[[str], object], queries: Sequence[str]) -> tuple[float, float]:
    """p50 and p95 in ms of ``call`` over ``queries``, after ``WARM_UP`` untimed calls."""
    for query in queries[:WARM_UP]:
        call(query)
    timings = []
    for query in queries[WARM_UP:]:
        start = time.perf_counter()
        call(query)
        timings.append((time.perf_counter() - start) * 1000)
    timings.sort()
    return statistics.median(timings), timings[round(0.95 * len(timings)) - 1]


def floor_table(path: Path, texts: list[str]) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
    for first in range(0, len(texts), BATCH):
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO docs(body) VALUES (?)", ((t,) for t in texts[first : first + BATCH])
        )
        connection.execute("COMMIT")
    return connection


def engine_with(path: Path, texts: list[str], nodes: Sequence[tm.Namespace]) -> SqliteEngine:
    """An engine holding ``texts``, dealt in turn to ``nodes`` (a node may come back)."""
    engine = SqliteEngine(path)
    items = [
        tm.Learning(text=text, meta=tm.MemoryMeta(namespace=nodes[n % len(nodes)]))
        for n, text in enumerate(texts)
    ]
    for first in range(0, len(items), BATCH):
        engine.store_many(items[first : first + BATCH])
    return engine


def run(size: int, args: argparse.Namespace, directory: Path) -> list[tuple[str, str]]:
    texts, queries = make_corpus(size, args.seed, args.queries)
    floor = floor_table(directory / f"floor{size}.db", texts)

    def all_of(query: str) -> list[tuple[int, str, float]]:
        match = " ".join(f'"{word}"' for word in query.split())
        return floor.execute(FLOOR_QUERY, (match, LIMIT)).fetchall()

    def and_then_or(query: str) -> list[tuple[int, str, float]]:
        rows = all_of(query)
        if len(rows) < LIMIT:
            match = " OR ".join(f'"{word}"' for word in query.split())
            seen = {row[0] for row in rows}
            more = floor.execute(FLOOR_QUERY, (match, 2 * LIMIT)).fetchall()
            rows += [row for row in more if row[0] not in seen][: LIMIT - len(rows)]
        return rows

    ordinary = engine_with(directory / f"root{size}.db", texts, [tm.Namespace.ROOT])
    scoped = engine_with(directory / f"split{size}.db", texts, [HOME, SIBLING])
    small = engine_with(directory / f"small{size}.db", texts, [HOME, *[SIBLING] * 99])
    home = tm.MetaFilter(reach=tm.Reach.of(HOME))

    def fetch(engine: SqliteEngine, filter: tm.MetaFilter) -> Callable[[str], tm.FetchPage]:
        def call(query: str) -> tm.FetchPage:
            request = tm.FetchRequest(query=query, mode="keyword", filter=filter, limit=LIMIT)
            return engine.fetch(request)

        return call

    cpu = time.process_time()
    figures = {
        "floor AND": latencies(all_of, queries),
        "floor AND, then OR": latencies(and_then_or, queries),
        "engine fetch": latencies(fetch(ordinary, tm.MetaFilter()), queries),
        "engine fetch, scoped to half the file": latencies(fetch(scoped, home), queries),
        "engine fetch, scoped to 1% of the file": latencies(fetch(small, home), queries),
    }
    cpu = time.process_time() - cpu
    same, overlap = 0, 0.0
    for query in queries:
        mine = [hit.text for hit in fetch(ordinary, tm.MetaFilter())(query).hits]
        theirs = [row[1] for row in and_then_or(query)]
        same += mine == theirs
        overlap += len(set(mine) & set(theirs)) / max(1, len(theirs))
    for engine in (ordinary, scoped, small):
        engine.close()
    floor.close()
    target = figures["floor AND, then OR"][0] * 2
    p50 = figures["engine fetch"][0]
    rows = [(name, f"{low:.3f} / {high:.3f}") for name, (low, high) in figures.items()]
    rows += [
        ("engine p50 / AND-then-OR p50", f"{p50 / figures['floor AND, then OR'][0]:.2f}x"),
        (
            "target: p50 <= 2x AND-then-OR and <= 3 ms",
            f"{'met' if p50 <= min(target, 3.0) else 'NOT met'}",
        ),
        ("top 10 identical to FTS5's (queries)", f"{same / len(queries):.1%}"),
        ("top 10 mean overlap", f"{overlap / len(queries):.1%}"),
        ("CPU time of the timed calls, s", f"{cpu:.2f}"),
    ]
    return [(f"N = {len(texts):,}", ""), *rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated corpus sizes")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per row")
    parser.add_argument("--seed", type=int, default=7, help="seed of the corpus and queries")
    args = parser.parse_args()
    print(
        f"keyword fetch, limit {LIMIT}, {args.queries} queries, seed {args.seed}; "
        f"SQLite {sqlite3.sqlite_version}; load average {os.getloadavg()[0]:.2f}"
    )
    print("figures in ms, p50 / p95")
    with tempfile.TemporaryDirectory(prefix="keyword-bench-") as directory:
        for size in sorted({int(size) for size in args.sizes.split(",")}):
            for name, value in run(size, args, Path(directory)):
                print(f"  {name:<44} {value}" if value else name)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
