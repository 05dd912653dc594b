"""Print the `sqlite` engine's speed and size next to the floor: bare SQLite FTS5 and numpy.

For each size N a synthetic, seeded corpus is made (a 30,000-word vocabulary
drawn with Zipf weights, s = 1, each text cut to 200 bytes, as in
perf-security-notes.md section 1) and stored as `tinymemory.Learning` items
in a fresh database file:

- store_many: all N items through `engine.store_many` in batches of 100, wall
  time including the default embedder. Floor: stdlib sqlite3 inserting the same
  texts into a bare `fts5(body, tokenize='unicode61')` table (WAL,
  synchronous=NORMAL) with executemany in one transaction, then 'optimize'
  (not timed, as in section 1).
- at the largest size only: 300 single `engine.store` calls, and the embedding
  of one text alone (the single-store target is p95 < 2 ms + embedding p95);
  keyword, vector and hybrid `fetch` (limit 10) over two-word queries whose
  words come from one stored text, skipping the 100 most frequent words;
  `recall` over 100 questions "what about <w1> <w2>?". Floors: the same queries
  as a `bm25` MATCH of both words on the bare table (and, for reference, with
  the engine's fallback to OR when both words find fewer than 10), and
  `M @ q` + argpartition + sort of 10 in numpy over the engine's own vectors
  (query vectors made beforehand). Each timed call is one query, after a few
  untimed warm-up calls.
- peak RSS (ru_maxrss) and file size (database + WAL) after the load.

The engine and the floor of each size run in fresh subprocesses of this script
(`--one-size N --side engine|floor`, which print JSON), so each peak RSS
belongs to that run alone. Latencies are p50/p95 of single, sequential calls;
the targets are those of perf-security-notes.md section 0 and the issue. Wall
times move with the machine's load: the table prints the load average and the
CPU time of each load beside its wall time.

    python benchmarks/sqlite_bench.py [--sizes 10000,100000] [--seed 7] [--queries 200] [--json]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tinymemory import FetchMode
    from tinymemory_sqlite import SqliteEngine

VOCABULARY = 30_000
TEXT_BYTES = 200
BATCH = 100  # the contract's most items per store_many
SINGLE_STORES = 300
RECALLS = 100
WARM_UP = 5
SKIP_FREQUENT = 100
LIMIT = 10
FTS_QUERY = "SELECT rowid, bm25(docs) s FROM docs WHERE docs MATCH ? ORDER BY s LIMIT 10"

Figures = dict[str, Any]


# --- the corpus ------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """The stored texts, texts for single stores, and the queries, all from one seed."""

    texts: list[str]
    extra: list[str]
    queries: list[str]
    questions: list[str]


def make_corpus(size: int, seed: int, queries: int) -> Corpus:
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocabulary: list[str] = []
    seen: set[str] = set()
    while len(vocabulary) < VOCABULARY:
        word = "".join(rng.choices(letters, k=rng.randint(3, 10)))
        if word not in seen:
            seen.add(word)
            vocabulary.append(word)
    # Zipf, s = 1: the word of rank r (from 1) has weight 1 / r.
    cumulative: list[float] = []
    total = 0.0
    for rank in range(1, VOCABULARY + 1):
        total += 1.0 / rank
        cumulative.append(total)

    def text() -> str:
        words: list[str] = []
        length = -1
        while length < TEXT_BYTES:
            drawn = rng.choices(vocabulary, cum_weights=cumulative, k=8)
            words += drawn
            length += sum(len(word) + 1 for word in drawn)
        return " ".join(words)[:TEXT_BYTES]

    texts = [text() for _ in range(size)]
    extra = [text() for _ in range(SINGLE_STORES + WARM_UP)]
    rank_of = {word: rank for rank, word in enumerate(vocabulary)}
    pairs: list[tuple[str, str]] = []
    while len(pairs) < queries + WARM_UP:
        # Whole words only (the last one may be cut), none of the most frequent.
        words = rng.choice(texts).split(" ")[:-1]
        rare = list(dict.fromkeys(w for w in words if rank_of.get(w, 0) >= SKIP_FREQUENT))
        if len(rare) >= 2:
            first, second = rng.sample(rare, 2)
            pairs.append((first, second))
    return Corpus(
        texts=texts,
        extra=extra,
        queries=[f"{first} {second}" for first, second in pairs],
        questions=[f"what about {first} {second}?" for first, second in pairs],
    )


# --- measuring -------------------------------------------------------------------


def percentile(samples: Sequence[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[max(0, round(fraction * len(ordered)) - 1)]


def latencies(call: Callable[[str], object], inputs: Sequence[str]) -> Figures:
    """p50/p95 in ms of ``call`` over ``inputs``, after ``WARM_UP`` untimed calls."""
    for value in inputs[:WARM_UP]:
        call(value)
    timings = []
    for value in inputs[WARM_UP:]:
        start = time.perf_counter()
        call(value)
        timings.append((time.perf_counter() - start) * 1000)
    return {
        "p50_ms": statistics.median(timings),
        "p95_ms": percentile(timings, 0.95),
        "max_ms": max(timings),
        "calls": len(timings),
    }


def file_bytes(path: Path) -> dict[str, int]:
    """The sizes of the database file and of its WAL (0 when there is none)."""
    wal = Path(f"{path}-wal")
    return {"db": path.stat().st_size, "wal": wal.stat().st_size if wal.exists() else 0}


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run_engine(corpus: Corpus, largest: bool, directory: Path) -> Figures:
    import tinymemory as tm
    from tinymemory_sqlite import SqliteEngine
    from tinymemory_sqlite.embedding import as_matrix

    figures: Figures = {"rss_before_mb": peak_rss_mb()}
    path = directory / "engine.db"
    engine = SqliteEngine(path)
    items = [tm.Learning(text=text) for text in corpus.texts]
    start, cpu = time.perf_counter(), time.process_time()
    for first in range(0, len(items), BATCH):
        engine.store_many(items[first : first + BATCH])
    elapsed = time.perf_counter() - start
    figures["store_many_cpu_s"] = time.process_time() - cpu
    figures["store_many_per_s"] = len(items) / elapsed
    figures["store_many_s"] = elapsed
    # The benchmark's own items would otherwise slow every later garbage collection.
    del items
    gc.collect()
    figures["file_bytes"] = file_bytes(path)
    figures["rss_after_load_mb"] = peak_rss_mb()
    if largest:
        query = corpus.queries[0]
        start = time.perf_counter()
        engine.fetch(tm.FetchRequest(query=query, mode=tm.FetchMode.VECTOR, limit=LIMIT))
        figures["first_vector_fetch_ms"] = (time.perf_counter() - start) * 1000
        # What a store embeds: one text, through the same checks as the engine.
        figures["embed_one"] = latencies(
            lambda text: as_matrix(engine.embedder, [text]), corpus.extra
        )
        figures["store"] = latencies(
            lambda text: engine.store(tm.Learning(text=text)), corpus.extra
        )
        for mode in tm.FetchMode:
            figures[mode.value] = latencies(fetcher(engine, mode), corpus.queries)
        figures["recall"] = latencies(
            lambda question: engine.recall(tm.RecallRequest(question=question, limit=LIMIT)),
            corpus.questions[: RECALLS + WARM_UP],
        )
    engine.close()
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def fetcher(engine: SqliteEngine, mode: FetchMode) -> Callable[[str], object]:
    import tinymemory as tm

    def fetch(query: str) -> object:
        return engine.fetch(tm.FetchRequest(query=query, mode=mode, limit=LIMIT))

    return fetch


def run_floor(corpus: Corpus, largest: bool, directory: Path) -> Figures:
    figures: Figures = {"rss_before_mb": peak_rss_mb()}
    path = directory / "floor.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
    start, cpu = time.perf_counter(), time.process_time()
    connection.execute("BEGIN")
    connection.executemany("INSERT INTO docs(body) VALUES (?)", ((t,) for t in corpus.texts))
    connection.execute("COMMIT")
    elapsed = time.perf_counter() - start
    figures["store_many_cpu_s"] = time.process_time() - cpu
    figures["store_many_per_s"] = len(corpus.texts) / elapsed
    figures["store_many_s"] = elapsed
    connection.execute("INSERT INTO docs(docs) VALUES ('optimize')")
    figures["file_bytes"] = file_bytes(path)
    figures["rss_after_load_mb"] = peak_rss_mb()
    if largest:

        def all_of(query: str) -> list[Any]:
            match = " ".join(f'"{word}"' for word in query.split())
            return connection.execute(FTS_QUERY, (match,)).fetchall()

        def or_fallback(query: str) -> list[Any]:
            # The engine's semantics: every word first, any word when that finds too few.
            rows = all_of(query)
            if len(rows) < LIMIT:
                match = " OR ".join(f'"{word}"' for word in query.split())
                rows += connection.execute(FTS_QUERY, (match,)).fetchall()
            return rows

        figures["keyword"] = latencies(all_of, corpus.queries)
        figures["keyword_or_fallback"] = latencies(or_fallback, corpus.queries)
        figures["and_short"] = sum(len(all_of(query)) < LIMIT for query in corpus.queries) / len(
            corpus.queries
        )
        figures["vector"] = vector_floor(corpus)
    connection.close()
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def vector_floor(corpus: Corpus) -> Figures:
    import numpy as np

    from tinymemory_sqlite.embedding import HashingEmbedder

    embedder = HashingEmbedder()
    matrix = embedder.embed_matrix(corpus.texts)
    vectors = embedder.embed_matrix(corpus.queries)
    by_query = dict(zip(corpus.queries, vectors, strict=True))

    def top(query: str) -> list[int]:
        scores = matrix @ by_query[query]
        best = np.argpartition(-scores, LIMIT)[:LIMIT]
        return best[np.argsort(-scores[best])].tolist()  # type: ignore[no-any-return]

    return latencies(top, corpus.queries)


def one_size(size: int, side: str, largest: bool, seed: int, queries: int) -> Figures:
    corpus = make_corpus(size, seed, queries)
    with tempfile.TemporaryDirectory(prefix="sqlite-bench-") as directory:
        run = run_engine if side == "engine" else run_floor
        return run(corpus, largest, Path(directory))


# --- the parent: children, table, targets ----------------------------------------------


def child(size: int, side: str, largest: bool, args: argparse.Namespace) -> Figures:
    command = [
        sys.executable,
        __file__,
        f"--one-size={size}",
        f"--side={side}",
        f"--seed={args.seed}",
        f"--queries={args.queries}",
    ]
    if largest:
        command.append("--largest")
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode:
        sys.exit(f"{side} run at {size} failed:\n{result.stderr}")
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def rows_for(size: int, engine: Figures, floor: Figures, largest: bool) -> list[list[str]]:
    """Table rows: metric, engine, floor, target, met."""
    rate, floor_rate = engine["store_many_per_s"], floor["store_many_per_s"]
    rows = [
        [
            "store_many, items/s",
            f"{rate:,.0f}",
            f"{floor_rate:,.0f}",
            f"≥ 1/10 floor = {floor_rate / 10:,.0f}",
            mark(rate >= floor_rate / 10),
        ],
        ["  load wall / CPU time, s", load_times(engine), load_times(floor)],
        ["file size (db + WAL), MB", sizes(engine["file_bytes"]), sizes(floor["file_bytes"])],
    ]
    if largest:
        embed, store = engine["embed_one"], engine["store"]
        budget = 2.0 + embed["p95_ms"]
        rows += [
            ["first vector fetch (reads vectors), ms", f"{engine['first_vector_fetch_ms']:.0f}"],
            ["embed one text p50 / p95, ms", pair(embed)],
            [
                "single store p50 / p95, ms",
                pair(store),
                "",
                f"p95 < 2 + embed p95 = {budget:.2f}",
                mark(store["p95_ms"] < budget),
            ],
            [
                "keyword fetch p50 / p95, ms",
                pair(engine["keyword"]),
                pair(floor["keyword"]),
                "p50 < 2, p95 < 5",
                mark(engine["keyword"]["p50_ms"] < 2 and engine["keyword"]["p95_ms"] < 5),
            ],
            [
                f"  floor with OR when AND < {LIMIT} ({floor['and_short']:.0%} of queries)",
                "",
                pair(floor["keyword_or_fallback"]),
            ],
            [
                "vector fetch p50 / p95, ms",
                pair(engine["vector"]),
                pair(floor["vector"]),
                f"p50 ≤ 2 x floor p50 = {2 * floor['vector']['p50_ms']:.2f}",
                mark(engine["vector"]["p50_ms"] <= 2 * floor["vector"]["p50_ms"]),
            ],
            [
                "hybrid fetch p50 / p95, ms",
                pair(engine["hybrid"]),
                "",
                "p95 < 25",
                mark(engine["hybrid"]["p95_ms"] < 25),
            ],
            ["recall p50 / p95, ms", pair(engine["recall"])],
        ]
    rss = engine["peak_rss_mb"]
    rss_row = ["peak RSS, MB", f"{rss:.0f}", f"{floor['peak_rss_mb']:.0f}"]
    if largest:
        rss_row += ["< 300", mark(rss < 300)]
    rows += [rss_row, ["  peak before / after load, MB", loads(engine), loads(floor)]]
    return [[f"N = {size:,}", *row] if i == 0 else ["", *row] for i, row in enumerate(rows)]


def load_times(figures: Figures) -> str:
    return f"{figures['store_many_s']:.2f} / {figures['store_many_cpu_s']:.2f}"


def loads(figures: Figures) -> str:
    return f"{figures['rss_before_mb']:.0f} / {figures['rss_after_load_mb']:.0f}"


def sizes(files: dict[str, int]) -> str:
    db, wal = files["db"] / 1e6, files["wal"] / 1e6
    return f"{db + wal:.1f} ({db:.1f} + {wal:.1f})"


def pair(figures: Figures) -> str:
    return f"{figures['p50_ms']:.2f} / {figures['p95_ms']:.2f}"


def print_table(results: list[Figures], args: argparse.Namespace, wall: float) -> None:
    import numpy as np

    header = ["size", "metric", "engine", "floor", "target", ""]
    rows: list[list[str]] = []
    for result in results:
        rows += rows_for(result["size"], result["engine"], result["floor"], result["largest"])
    widths = [max(len(row[i]) if i < len(row) else 0 for row in [header, *rows]) for i in range(6)]

    def line(cells: list[str]) -> str:
        cells = cells + [""] * (6 - len(cells))
        text = [cells[0].ljust(widths[0]), cells[1].ljust(widths[1])]
        text += [cell.rjust(width) for cell, width in zip(cells[2:4], widths[2:4], strict=True)]
        text += [cells[4].ljust(widths[4]), cells[5]]
        return "  ".join(text).rstrip()

    print(
        f"sqlite engine vs floor: seed {args.seed}, {args.queries} queries "
        f"({min(RECALLS, args.queries)} recalls), limit {LIMIT}; "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
        f"numpy {np.__version__}, {os.cpu_count()} CPUs, "
        f"load average at start {results[0]['load']:.2f}"
    )
    print("floor: bare FTS5 table + executemany in one transaction; numpy M @ q + argpartition")
    print(line(header))
    print(line(["-" * width for width in widths]))
    for row in rows:
        if row[0] and row is not rows[0]:
            print()
        print(line(row))
    print(f"\nwhole run {wall:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated corpus sizes")
    parser.add_argument("--seed", type=int, default=7, help="seed of the corpus and queries")
    parser.add_argument("--queries", type=int, default=200, help="timed fetch queries")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument(
        "--side", choices=("engine", "floor"), default="engine", help=argparse.SUPPRESS
    )
    parser.add_argument("--largest", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_size is not None:
        figures = one_size(args.one_size, args.side, args.largest, args.seed, args.queries)
        print(json.dumps(figures))
        return
    sizes = sorted({int(size) for size in args.sizes.split(",")})
    start = time.perf_counter()
    results = []
    for size in sizes:
        largest = size == sizes[-1]
        results.append(
            {
                "load": os.getloadavg()[0],
                "size": size,
                "largest": largest,
                "engine": child(size, "engine", largest, args),
                "floor": child(size, "floor", largest, args),
            }
        )
    wall = time.perf_counter() - start
    if args.json:
        document = {"seed": args.seed, "queries": args.queries, "wall_s": wall, "results": results}
        print(json.dumps(document, indent=2))
    else:
        print_table(results, args, wall)


if __name__ == "__main__":
    main()
