"""Print the `postgres` engine's speed next to its floor, on a throwaway local cluster.

A synthetic, seeded corpus (a 30,000-word vocabulary drawn with Zipf weights,
s = 1, each text 20 to 60 words) is stored as `tinymemory.Learning` items in
a fresh schema of a cluster this script starts (initdb in a temporary folder,
a Unix socket; removed at the end), at each size asked (10,000 and 100,000 by
default). Each row prints the engine's figure, the floor's, their ratio and
issue 34's target for it, met or not:

- store_many, items/s: all N items through `engine.store_many` in batches of
  100, the default `hashing` embedder included. Floor: psycopg inserting the
  same texts into a bare table (`body text`, a generated
  `to_tsvector('simple', body)` column under a GIN index), `executemany` and a
  commit per 100 rows. Target: at least 0.5 of the floor's rate.
- keyword fetch p50 (limit 10), two-word queries whose words come from one
  stored text. Floor: the bare `ts_rank` query on the bare table: the rows
  matching either word, ordered by `ts_rank`, limit 10. Target: at most 2x.
  Both are timed once both sides are loaded, the engine's read and the
  floor's in turns query by query, so both meet the server's caches (64 MB of
  shared buffers, less than the engine's tables) in the same state.
- vector and hybrid fetch p50 (limit 10). Floor: numpy's `M @ q` and
  `argpartition` over every vector already in memory (no server round trip).
  Target: vector p50 at most 50 ms. The first vector fetch of a process,
  which copies every vector into it, is printed apart.

With ``--pgvector`` (needs PyPI's ``pgserver``, a wheel carrying PostgreSQL 16
and the ``vector`` extension), the same vectors also go into a second
throwaway cluster of pgserver's programs, in a ``vector(n)`` column under an
HNSW index (cosine, m 16, ef_construction 64): its build time, and for each
``hnsw.ef_search`` asked the p50 of ``ORDER BY embedding <=> q LIMIT 10`` and
its recall@10 against the exact top 10 (numpy over the same vectors). The
engine does not use pgvector (docs/engines/postgres.md says why); these
figures are what it would get.

Both sides' tables are vacuumed and analyzed after the load (as autovacuum
would within a minute: statistics, and the GIN index's pending entries merged)
before any query. Latencies are p50 of single, sequential calls. The
machine may be busy: the load average is printed beside the figures.

    python benchmarks/postgres_bench.py [--sizes 10000 100000] [--queries 100] [--seed 7]
        [--pgvector [--ef-search 40 100]]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import attrs
import numpy as np
import psycopg

import tinymemory as tm
from tinymemory_postgres.cluster import ThrowawayCluster

VOCABULARY = 30_000
WORDS = (20, 60)
BATCH = 100
#: Issue 34's targets: store_many at least half its floor's rate, keyword p50 at most twice
#: the bare ts_rank query's, vector p50 at most 50 ms.
STORE_TARGET = 0.5
KEYWORD_TARGET = 2.0
VECTOR_TARGET_MS = 50.0


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


@attrs.frozen
class Figures:
    """One size's figures: the engine's and its floors'."""

    size: int
    store: float
    floor_store: float
    latencies: dict[str, float]
    first_vector: float
    floor_keyword: float
    floor_vector: float


def engine_side(
    conninfo: str, schema: str, texts: list[str], asked: list[str]
) -> tuple[float, dict[str, float], float, np.ndarray]:
    options = {"conninfo": conninfo, "schema": schema}
    with tm.build_engine("postgres", tm.EngineSettings(options=options), scrub=False) as engine:
        items = [tm.Learning(text=text) for text in texts]
        start = time.perf_counter()
        for first in range(0, len(items), BATCH):
            engine.store_many(items[first : first + BATCH])
        rate = len(items) / (time.perf_counter() - start)
        # What autovacuum would do within a minute (the floor's table gets it too): statistics,
        # and the GIN index's pending entries merged.
        with psycopg.connect(conninfo, autocommit=True) as connection:
            tables = ("items", "pieces", "nodes", "node_sizes", "vectors")
            connection.execute(f"VACUUM ANALYZE {', '.join(f'{schema}.{t}' for t in tables)}")
        # The first vector read of a process copies every vector into it.
        start = time.perf_counter()
        engine.fetch(tm.FetchRequest(query=asked[0], mode=tm.FetchMode.VECTOR, limit=10))
        first_vector = (time.perf_counter() - start) * 1000
        latencies = {}
        for mode in (tm.FetchMode.VECTOR, tm.FetchMode.HYBRID):
            latencies[mode.value] = p50_ms(
                lambda query, mode=mode: engine.fetch(
                    tm.FetchRequest(query=query, mode=mode, limit=10)
                ),
                asked,
            )
        with psycopg.connect(conninfo) as connection:
            rows = connection.execute(f"SELECT vector FROM {schema}.vectors").fetchall()
        matrix = np.frombuffer(b"".join(row[0] for row in rows), dtype=np.float32)
        return rate, latencies, first_vector, matrix.reshape(len(rows), -1)


def floor_side(conninfo: str, table: str, texts: list[str]) -> float:
    with psycopg.connect(conninfo) as connection:
        connection.execute(
            f"CREATE TABLE {table} (id bigserial PRIMARY KEY, body text NOT NULL, "
            "words tsvector GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED)"
        )
        connection.execute(f"CREATE INDEX ON {table} USING gin (words)")
        connection.commit()
        start = time.perf_counter()
        with connection.cursor() as cursor:
            for first in range(0, len(texts), BATCH):
                rows = [(text,) for text in texts[first : first + BATCH]]
                cursor.executemany(f"INSERT INTO {table}(body) VALUES (%s)", rows)
                connection.commit()
        rate = len(texts) / (time.perf_counter() - start)
        connection.autocommit = True
        connection.execute(f"VACUUM ANALYZE {table}")
        return rate


def keyword_sides(conninfo: str, schema: str, table: str, asked: list[str]) -> tuple[float, float]:
    """Keyword p50 of the engine and of the bare ``ts_rank`` query, in turns query by query once
    both sides are loaded, so that both meet the server's caches in the same state."""
    options = {"conninfo": conninfo, "schema": schema}
    with (
        tm.build_engine("postgres", tm.EngineSettings(options=options), scrub=False) as engine,
        psycopg.connect(conninfo, autocommit=True) as connection,
    ):

        def ranked(query: str) -> object:
            either = " | ".join(query.split())
            return connection.execute(
                f"SELECT id FROM {table} WHERE words @@ to_tsquery('simple', %s) "
                "ORDER BY ts_rank(words, to_tsquery('simple', %s)) DESC LIMIT 10",
                (either, either),
            ).fetchall()

        def fetched(query: str) -> object:
            return engine.fetch(tm.FetchRequest(query=query, mode=tm.FetchMode.KEYWORD, limit=10))

        mine: list[float] = []
        floor: list[float] = []
        for query in asked:
            mine.append(p50_ms(fetched, [query]))
            floor.append(p50_ms(ranked, [query]))
        return statistics.median(mine), statistics.median(floor)


def numpy_floor(matrix: np.ndarray, asked: list[str]) -> float:
    from tinymemory.plugin import embedders

    embedder = embedders()["hashing"]

    def product(query: str) -> object:
        vector = np.asarray(embedder.embed([query])[0], dtype=np.float32)
        scores = matrix @ vector
        return np.argpartition(-scores, 10)[:10]

    return p50_ms(product, asked)


def query_vectors(asked: list[str]) -> np.ndarray:
    """The ``hashing`` embedder's vectors of ``asked``, as the engine makes them."""
    from tinymemory.plugin import embedders

    embedder = embedders()["hashing"]
    return np.asarray(embedder.embed(asked), dtype=np.float32)


@attrs.frozen
class PgvectorFigures:
    """pgvector's HNSW index over one size's vectors: its build, and per ef_search its p50
    and recall@10 against the exact top 10."""

    size: int
    version: str
    build_seconds: float
    searches: dict[int, tuple[float, float]]


def pgvector_side(matrix: np.ndarray, asked: list[str], ef_searches: list[int]) -> PgvectorFigures:
    """The vectors in a throwaway cluster of pgserver's programs under an HNSW index."""
    import pgserver  # type: ignore[import-not-found,unused-ignore]

    bin_folder = Path(pgserver.__file__).parent / "pginstall" / "bin"
    cluster = ThrowawayCluster(bin_folder)
    try:
        with psycopg.connect(cluster.socket_conninfo, autocommit=True) as connection:
            connection.execute("CREATE EXTENSION vector")
            row = connection.execute(
                "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
            ).fetchone()
            version = str(row[0]) if row else "?"
            connection.execute(
                f"CREATE TABLE ann (id bigint PRIMARY KEY, embedding vector({matrix.shape[1]}))"
            )
            with (
                connection.cursor() as cursor,
                cursor.copy("COPY ann (id, embedding) FROM STDIN") as copy,
            ):
                for number, vector in enumerate(matrix):
                    copy.write_row((number, "[" + ",".join(map(repr, vector.tolist())) + "]"))
            connection.execute("SET maintenance_work_mem = '256MB'")
            start = time.perf_counter()
            connection.execute(
                "CREATE INDEX ON ann USING hnsw (embedding vector_cosine_ops) "
                "WITH (m = 16, ef_construction = 64)"
            )
            build = time.perf_counter() - start
            connection.execute("VACUUM ANALYZE ann")
            vectors = query_vectors(asked)
            exact = [set(np.argsort(-(matrix @ vector))[:10].tolist()) for vector in vectors]
            texts = ["[" + ",".join(map(repr, v.tolist())) + "]" for v in vectors]
            searches = {}
            for ef in ef_searches:
                connection.execute(f"SET hnsw.ef_search = {int(ef)}")
                found: list[set[int]] = []
                times = []
                for text in texts:
                    began = time.perf_counter()
                    rows = connection.execute(
                        "SELECT id FROM ann ORDER BY embedding <=> %s::vector LIMIT 10", (text,)
                    ).fetchall()
                    times.append(time.perf_counter() - began)
                    found.append({row[0] for row in rows})
                recall = statistics.mean(
                    len(hit & truth) / 10 for hit, truth in zip(found, exact, strict=True)
                )
                searches[ef] = (statistics.median(times) * 1000, recall)
    finally:
        cluster.remove()
    return PgvectorFigures(len(matrix), version, build, searches)


def measure(
    conninfo: str, size: int, count: int, seed: int
) -> tuple[Figures, np.ndarray, list[str]]:
    """Every figure at ``size`` items, the engine's and its floors', in one cluster; the
    vectors stored and the queries asked."""
    texts = corpus(size, seed)
    asked = queries(texts, count, seed)
    rate, latencies, first_vector, matrix = engine_side(conninfo, f"bench_{size}", texts, asked)
    floor_rate = floor_side(conninfo, f"bare_{size}", texts)
    latencies["keyword"], floor_keyword = keyword_sides(
        conninfo, f"bench_{size}", f"bare_{size}", asked
    )
    figures = Figures(
        size=size,
        store=rate,
        floor_store=floor_rate,
        latencies=latencies,
        first_vector=first_vector,
        floor_keyword=floor_keyword,
        floor_vector=numpy_floor(matrix, asked),
    )
    return figures, matrix, asked


def report(figures: Figures) -> None:
    """The figures beside their floors, each target met or missed."""
    print(f"\n{figures.size:,} items")
    print(f"{'figure':<30}{'engine':>10}{'floor':>10}{'ratio':>8}  {'target':<16}{'met':<5}floor")
    keyword = figures.latencies["keyword"] / figures.floor_keyword
    vector = figures.latencies["vector"]
    rows = [
        ("store_many, items/s", figures.store, figures.floor_store,
         f"ratio >= {STORE_TARGET}", figures.store / figures.floor_store >= STORE_TARGET,
         "psycopg executemany, bare table + GIN"),
        ("keyword fetch p50, ms", figures.latencies["keyword"], figures.floor_keyword,
         f"ratio <= {KEYWORD_TARGET}", keyword <= KEYWORD_TARGET, "bare ts_rank query"),
        ("vector fetch p50, ms", vector, figures.floor_vector,
         f"<= {VECTOR_TARGET_MS} ms", vector <= VECTOR_TARGET_MS, "numpy M @ q in memory"),
        ("hybrid fetch p50, ms", figures.latencies["hybrid"], figures.floor_vector,
         "-", None, "numpy M @ q in memory"),
        ("first vector fetch, ms", figures.first_vector, figures.floor_vector,
         "-", None, "(copies every vector into the process)"),
    ]  # fmt: skip
    for name, mine, floor, target, met, what in rows:
        verdict = "-" if met is None else ("yes" if met else "NO")
        ratio = mine / floor
        print(f"{name:<30}{mine:>10.2f}{floor:>10.2f}{ratio:>8.2f}  {target:<16}{verdict:<5}{what}")


def report_pgvector(figures: PgvectorFigures) -> None:
    """pgvector's figures at one size."""
    print(
        f"\npgvector {figures.version} (pgserver's PostgreSQL), {figures.size:,} vectors: "
        f"HNSW built in {figures.build_seconds:.1f} s"
    )
    print(f"{'ef_search':>10}{'p50 ms':>10}{'recall@10':>11}")
    for ef, (p50, recall) in figures.searches.items():
        print(f"{ef:>10}{p50:>10.2f}{recall:>11.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pgvector", action="store_true", help="pgvector's HNSW too")
    parser.add_argument("--ef-search", type=int, nargs="+", default=[40, 100])
    arguments = parser.parse_args()
    cluster = ThrowawayCluster()
    try:
        load = os.getloadavg()
        measured = [
            measure(cluster.socket_conninfo, size, arguments.queries, arguments.seed)
            for size in arguments.sizes
        ]
    finally:
        cluster.remove()
    indexed = [
        pgvector_side(matrix, asked, arguments.ef_search)
        for _, matrix, asked in (measured if arguments.pgvector else [])
    ]
    print(f"postgres engine, {arguments.queries} queries a size")
    print(f"load average at start {load[0]:.2f}, at end {os.getloadavg()[0]:.2f}")
    for figures, _, _ in measured:
        report(figures)
    for ann in indexed:
        report_pgvector(ann)


if __name__ == "__main__":
    main()
