"""Print the `postgres` engine's speed next to its floor, on a throwaway local cluster.

A synthetic, seeded corpus (a 30,000-word vocabulary drawn with Zipf weights,
s = 1, each text 20 to 60 words) is stored as `tinymemory.Learning` items in
a fresh schema of a cluster this script starts (initdb in a temporary folder,
a Unix socket; removed at the end). Each row prints the engine's figure, the
floor's and their ratio:

- store_many, items/s: all N items through `engine.store_many` in batches of
  100, the default `hashing` embedder included. Floor: psycopg inserting the
  same texts into a bare table (`body text`, a generated
  `to_tsvector('simple', body)` column under a GIN index), `executemany` and a
  commit per 100 rows.
- keyword fetch p50 (limit 10), two-word queries whose words come from one
  stored text. Floor: the bare `ts_rank` query on the bare table: the rows
  matching either word, ordered by `ts_rank`, limit 10.
- vector and hybrid fetch p50 (limit 10). Floor: numpy's `M @ q` and
  `argpartition` over every vector already in memory (no server round trip).

Both sides' tables are analyzed after the load (as autovacuum would within a
minute) before any query. Latencies are p50 of single, sequential calls. The
machine may be busy: the load average is printed beside the figures.

    python benchmarks/postgres_bench.py [--size 100000] [--queries 100] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable

import numpy as np
import psycopg

import tinymemory as tm
from tinymemory_postgres.cluster import ThrowawayCluster

VOCABULARY = 30_000
WORDS = (20, 60)
BATCH = 100


def corpus(size: int, seed: int) -> list[str]:
    """``size`` texts of Zipf-distributed words, the same for a seed."""
    rng = random.Random(seed)
    vocabulary = [f"w{n:05d}" for n in range(VOCABULARY)]
    weights = [1 / (rank + 1) for rank in range(VOCABULARY)]
    texts = []
    for _ in range(size):
        count = rng.randint(*WORDS)
        texts.append(" ".join(rng.choices(vocabulary, weights, k=count)))
    return texts


def queries(texts: list[str], count: int, seed: int) -> list[str]:
    """Two-word queries, both words from one stored text, the 100 most frequent aside."""
    rng = random.Random(seed + 1)
    chosen = []
    while len(chosen) < count:
        words = [w for w in rng.choice(texts).split() if int(w[1:]) >= 100]
        if len(words) >= 2:
            chosen.append(" ".join(rng.sample(words, 2)))
    return chosen


def p50_ms(call: Callable[[str], object], asked: list[str]) -> float:
    times = []
    for query in asked:
        start = time.perf_counter()
        call(query)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def engine_side(
    conninfo: str, texts: list[str], asked: list[str]
) -> tuple[float, dict[str, float], np.ndarray]:
    options = {"conninfo": conninfo, "schema": "bench"}
    with tm.build_engine("postgres", tm.EngineSettings(options=options), scrub=False) as engine:
        items = [tm.Learning(text=text) for text in texts]
        start = time.perf_counter()
        for first in range(0, len(items), BATCH):
            engine.store_many(items[first : first + BATCH])
        rate = len(items) / (time.perf_counter() - start)
        # The statistics autovacuum would gather within a minute (the floor's table gets them too).
        with psycopg.connect(conninfo, autocommit=True) as connection:
            connection.execute("ANALYZE bench.items, bench.pieces, bench.nodes, bench.node_sizes")
        latencies = {}
        for mode in (tm.FetchMode.KEYWORD, tm.FetchMode.VECTOR, tm.FetchMode.HYBRID):
            latencies[mode.value] = p50_ms(
                lambda query, mode=mode: engine.fetch(
                    tm.FetchRequest(query=query, mode=mode, limit=10)
                ),
                asked,
            )
        with psycopg.connect(conninfo) as connection:
            rows = connection.execute("SELECT vector FROM bench.pieces").fetchall()
        matrix = np.frombuffer(b"".join(row[0] for row in rows), dtype=np.float32)
        return rate, latencies, matrix.reshape(len(rows), -1)


def floor_side(conninfo: str, texts: list[str], asked: list[str]) -> tuple[float, float]:
    with psycopg.connect(conninfo) as connection:
        connection.execute(
            "CREATE TABLE bare (id bigserial PRIMARY KEY, body text NOT NULL, "
            "words tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED)"
        )
        connection.execute("CREATE INDEX ON bare USING gin (words)")
        connection.commit()
        start = time.perf_counter()
        with connection.cursor() as cursor:
            for first in range(0, len(texts), BATCH):
                rows = [(text,) for text in texts[first : first + BATCH]]
                cursor.executemany("INSERT INTO bare(body) VALUES (%s)", rows)
                connection.commit()
        rate = len(texts) / (time.perf_counter() - start)
        connection.autocommit = True
        connection.execute("VACUUM ANALYZE bare")

        def ranked(query: str) -> object:
            either = " | ".join(query.split())
            return connection.execute(
                "SELECT id FROM bare WHERE words @@ to_tsquery('simple', %s) "
                "ORDER BY ts_rank(words, to_tsquery('simple', %s)) DESC LIMIT 10",
                (either, either),
            ).fetchall()

        return rate, p50_ms(ranked, asked)


def numpy_floor(matrix: np.ndarray, asked: list[str]) -> float:
    from tinymemory.plugin import embedders

    embedder = embedders()["hashing"]

    def product(query: str) -> object:
        vector = np.asarray(embedder.embed([query])[0], dtype=np.float32)
        scores = matrix @ vector
        return np.argpartition(-scores, 10)[:10]

    return p50_ms(product, asked)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    arguments = parser.parse_args()
    texts = corpus(arguments.size, arguments.seed)
    asked = queries(texts, arguments.queries, arguments.seed)
    cluster = ThrowawayCluster()
    try:
        load = os.getloadavg()
        rate, latencies, matrix = engine_side(cluster.socket_conninfo, texts, asked)
        floor_rate, floor_keyword = floor_side(cluster.socket_conninfo, texts, asked)
        floor_vector = numpy_floor(matrix, asked)
    finally:
        cluster.remove()
    print(f"postgres engine, {arguments.size:,} items, {arguments.queries} queries")
    print(f"load average at start {load[0]:.2f}, at end {os.getloadavg()[0]:.2f}")
    print(f"{'figure':<28}{'engine':>12}{'floor':>12}{'ratio':>8}  floor")
    rows = [
        ("store_many, items/s", rate, floor_rate, "psycopg executemany, bare table + GIN"),
        ("keyword fetch p50, ms", latencies["keyword"], floor_keyword, "bare ts_rank query"),
        ("vector fetch p50, ms", latencies["vector"], floor_vector, "numpy M @ q in memory"),
        ("hybrid fetch p50, ms", latencies["hybrid"], floor_vector, "numpy M @ q in memory"),
    ]
    for name, mine, floor, what in rows:
        print(f"{name:<28}{mine:>12.2f}{floor:>12.2f}{mine / floor:>8.2f}  {what}")


if __name__ == "__main__":
    main()
