"""Print the `sqlite` engine's speed and size next to its floor, one row per figure of issue 13.

For each size N a synthetic, seeded corpus is made (a 30,000-word vocabulary
drawn with Zipf weights, s = 1, each text 20 to 60 words) and stored as
`tinymemory.Learning` items in a fresh database file. Each row prints the
engine's figure, the floor's, their ratio, the target and whether it is met:

- store_many, items/s: all N items through `engine.store_many` in batches of
  100, default embedder included. Floor: stdlib sqlite3 inserting the same texts
  into a bare `fts5(body, tokenize='unicode61')` table (WAL,
  synchronous=NORMAL), a commit per 100 rows. Target: >= 0.5 x floor.
- keyword fetch p50 (limit 10) over two-word queries whose words come from one
  stored text, skipping the 100 most frequent words. Floors: a `bm25` MATCH of
  both words on the bare table (AND), and the same followed by an OR of the
  words when AND finds fewer than 10 (AND-then-OR, the engine's semantics).
  Target: <= 2 x the AND-then-OR floor and <= 3 ms.
- re-read of vectors after another process wrote: a second process stores 33
  items into the file; the next vector fetch's time minus the usual one (the
  median of three rounds of 33 items). Target: O(rows changed), taken as <= 5 ms
  at any N.
- first vector fetch in a new process: a fresh process opens the file and
  fetches once by vector; the time of that fetch (numpy imported before it, as
  for the floor). Floor: numpy reading the same vectors as one buffer from a
  file (`numpy.fromfile`). Target: <= 100 ms.
- `tinymemory --help`, wall time of the process, with the bytecode an
  installed package has (see PROCESS_ENV). Floor: `python -c pass`.
  Target: <= 120 ms.
- new process, open + first keyword fetch: wall time of a process that imports
  the engine, opens the file and fetches by keyword once. Target: <= 150 ms.
- file size per item (database + WAL, after the load). Floor (issue 34's): one
  SQLite file with FTS5 and sqlite-vec (float32), a commit per 100 texts, in the
  same run (through pysqlite3: this Python's sqlite3 loads no extensions).
  Target: <= the floor, and <= 1,200 B since the engine's vectors are byte
  codes, which must keep the vector answer recall@5 within half a point of the
  floor's float32 (an answer: a text holding both of the query's words).
- vector fetch p50 / p95 beside sqlite-vec's exact scan, and (up to 100k) an
  HNSW graph (usearch) over the same vectors, the approximate index not
  chosen: its agreement with the exact top 10 and its answer recall@5.
- `--stream 1000000`: every figure above at a million items, the corpus made
  batch by batch (never held whole, so the engine's peak RSS is its own), beside
  the FTS5 + sqlite-vec floor: store CPU, size, vector / keyword / hybrid p50 and
  p95 (and the vector read's CPU p50), recall@5 of the known answer by mode, the
  first keyword and vector fetch of a new process, peak RSS. Targets: vector p50
  <= 30 ms and peak RSS <= 800 MB. Beside exact search, an inverted file (IVF:
  sqrt(N) spherical k-means lists, the nearest probed), the approximate index
  not chosen: its top-10 agreement with exact and answer recall@5 probing 5, 10
  and 20 % of its lists. It takes 30-60 minutes on a busy 2-core machine; each
  side runs alone as `--one-size=N --streamed --side=engine|vec-floor|ivf`.

The size and million rows need `pip install sqlite-vec pysqlite3-binary usearch`.

Issue 34's rows (targets 1 and 3, keyword p95):

- store CPU per item, µs: the CPU time of the same load through
  `tm.build_engine("sqlite")` with the plugins installed here (so scrubbed by
  tinymemory-safety when it is installed, as with the README's install), and
  through the bare engine (no scrubbing). Floor: one SQLite file with FTS5 and
  sqlite-vec (`vec0`, float[256]), the same texts and their hashing vectors
  (embedded per 100 by the same embedder), a commit per 100. The three loads
  run in the engine's process, each into a fresh file, in 3 interleaved rounds
  (floor, bare, scrubbed): each figure is the median of its rounds, and the row
  lists each round's ratio. Targets: <= 1.3 x floor scrubbed, <= 1.1 x without.
  sqlite-vec is loaded into the stdlib sqlite3 when it can load extensions, else
  into `pysqlite3` (pysqlite3-binary); the row names the SQLite version the floor
  ran on.
- recall@5 of keyword, vector and hybrid over queries with a known answer
  text: two rare words of it ("words": keyword's case), four of its rare
  words each with its last letter changed, as an inflection changes a word's
  ending ("variants": vector's case, keyword finds other texts or none), and
  one rare word plus two changed ones ("mixed").
  Target: hybrid >= the better of keyword and vector.

Also printed, with no target of the issue: vector, hybrid and recall latencies
beside the numpy floor (`M @ q` + argpartition), single store, peak RSS.

The engine and the floor of each size run in fresh subprocesses of this script
(`--one-size N --side engine|floor`, which print JSON), so each peak RSS
belongs to that run alone. Latencies are p50/p95 of single, sequential calls;
process times are the median of 5 runs. Wall times move with the machine's
load: the table prints the load average at each size's start, and each load's
CPU time beside its wall time.

    python benchmarks/sqlite_bench.py [--sizes 1000,10000,100000] [--seed 7] [--queries 200]
        [--stream 1000000] [--json]

(`pip install sqlite-vec` for the store floor, and `pysqlite3-binary` where Python's sqlite3
cannot load extensions.)
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
WORDS = (20, 60)  # words per text
BATCH = 100  # the contract's most items per store_many; the floor commits as often
FOREIGN_STORES = 99  # in three rounds of 33
PROCESS_RUNS = 5
STORE_ROUNDS = 3  # interleaved loads of the floor, the bare and the scrubbed engine
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


def zipf_vocabulary(rng: random.Random) -> tuple[list[str], list[float]]:
    """``VOCABULARY`` random words, most frequent first, and their cumulative Zipf weights."""
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
    return vocabulary, cumulative


def make_corpus(size: int, seed: int, queries: int) -> Corpus:
    rng = random.Random(seed)
    vocabulary, cumulative = zipf_vocabulary(rng)

    def text() -> str:
        return " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=rng.randint(*WORDS)))

    texts = [text() for _ in range(size)]
    extra = [text() for _ in range(SINGLE_STORES + WARM_UP + FOREIGN_STORES)]
    rank_of = {word: rank for rank, word in enumerate(vocabulary)}
    pairs: list[tuple[str, str]] = []
    while len(pairs) < queries + WARM_UP:
        # None of the most frequent words.
        words = rng.choice(texts).split(" ")
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
    from tinymemory.retrieval import embedding_matrix
    from tinymemory_sqlite import SqliteEngine

    figures: Figures = {"rss_before_mb": peak_rss_mb()}
    path = directory / "engine.db"
    engine = SqliteEngine(path)
    items = [tm.Learning(text=text) for text in corpus.texts]
    warm_embedder()
    ids: list[str] = []
    start, cpu = time.perf_counter(), time.process_time()
    for first in range(0, len(items), BATCH):
        ids += [receipt.id for receipt in engine.store_many(items[first : first + BATCH])]
    elapsed = time.perf_counter() - start
    figures["store_many_cpu_s"] = time.process_time() - cpu
    figures["store_many_per_s"] = len(items) / elapsed
    figures["store_many_s"] = elapsed
    # The benchmark's own items would otherwise slow every later garbage collection.
    del items
    gc.collect()
    figures["file_bytes"] = file_bytes(path)
    figures["rss_after_load_mb"] = peak_rss_mb()
    figures["keyword"] = latencies(fetcher(engine, tm.FetchMode.KEYWORD), corpus.queries)
    figures["vector"] = latencies(fetcher(engine, tm.FetchMode.VECTOR), corpus.queries)
    figures["recall_at_5"] = engine_recalls(engine, corpus, ids)
    figures.update(store_cpu_rounds(corpus, directory))
    figures["vector_recall"] = vector_recall(engine, corpus.queries[WARM_UP:])
    figures["reread_after_foreign_ms"] = reread_after_foreign(engine, corpus, path)
    engine.close()
    figures["new_process_vector_ms"] = median_of(
        lambda: float(in_new_process(FIRST_VECTOR_FETCH, path, corpus.queries[0]))
    )
    figures["new_process_keyword_ms"] = median_of(
        lambda: timed_ms(lambda: in_new_process(FIRST_KEYWORD_FETCH, path, corpus.queries[0]))
    )
    command = str(Path(sys.executable).parent / "tinymemory")
    figures["help_ms"] = median_of(lambda: timed_ms(lambda: run_process([command, "--help"])))
    engine = SqliteEngine(path)
    if largest:
        # What a store embeds: one text, through the same checks as the engine.
        figures["embed_one"] = latencies(
            lambda text: embedding_matrix(engine.embedder, [text]), corpus.extra
        )
        figures["store"] = latencies(
            lambda text: engine.store(tm.Learning(text=text)), corpus.extra
        )
        figures["hybrid"] = latencies(fetcher(engine, tm.FetchMode.HYBRID), corpus.queries)
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


#: Run in a new process: store the texts of argv[2] (JSON) into the file argv[1].
FOREIGN_STORE = """
import json, sys
import tinymemory as tm
from tinymemory_sqlite import SqliteEngine
with SqliteEngine(sys.argv[1]) as engine:
    engine.store_many([tm.Learning(text=text) for text in json.loads(sys.argv[2])])
"""
#: Run in a new process: open the file, fetch once by vector, print that fetch's ms. numpy
#: is imported first (the engine loads it on first use), as the floor's is.
FIRST_VECTOR_FETCH = """
import sys, time
import numpy
import tinymemory as tm
from tinymemory_sqlite import SqliteEngine
with SqliteEngine(sys.argv[1]) as engine:
    request = tm.FetchRequest(query=sys.argv[2], mode=tm.FetchMode.VECTOR, limit=10)
    start = time.perf_counter()
    engine.fetch(request)
    print((time.perf_counter() - start) * 1000)
"""
#: Run in a new process: import, open the file and fetch once by keyword.
FIRST_KEYWORD_FETCH = """
import sys
import tinymemory as tm
from tinymemory_sqlite import SqliteEngine
with SqliteEngine(sys.argv[1]) as engine:
    engine.fetch(tm.FetchRequest(query=sys.argv[2], mode=tm.FetchMode.KEYWORD, limit=10))
"""


def in_new_process(script: str, *args: object) -> str:
    """Run ``script`` in a new Python process with ``args``; its output."""
    return run_process([sys.executable, "-c", script, *map(str, args)])


#: The environment of the benchmark's processes. An installed package has its
#: bytecode written at install time; a checkout installed for development, run
#: where PYTHONDONTWRITEBYTECODE is set, would compile every module of the core
#: and the plugin again in each new process (about 45 ms of `tinymemory --help`
#: here), which no user's installed copy does. So the processes may write
#: bytecode, and the first of each median's runs writes it.
PROCESS_ENV = {
    name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"
}


def run_process(command: list[str]) -> str:
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        env=PROCESS_ENV,
    )
    if result.returncode:
        sys.exit(f"a process of the benchmark failed:\n{result.stderr}")
    return result.stdout


def timed_ms(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000


def median_of(measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(PROCESS_RUNS))


def reread_after_foreign(engine: SqliteEngine, corpus: Corpus, path: Path) -> float:
    """How much longer the first vector fetch after another process stored items takes.

    The median of three rounds, each storing a third of the extra texts.
    """
    import tinymemory as tm

    query = corpus.queries[WARM_UP]
    fetch = fetcher(engine, tm.FetchMode.VECTOR)
    extra = corpus.extra[-FOREIGN_STORES:]
    rounds = []
    for third in range(3):
        usual = statistics.median(timed_ms(lambda: fetch(query)) for _ in range(9))
        texts = extra[third * len(extra) // 3 : (third + 1) * len(extra) // 3]
        in_new_process(FOREIGN_STORE, path, json.dumps(texts))
        rounds.append(timed_ms(lambda: fetch(query)) - usual)
    return statistics.median(rounds)


def run_floor(corpus: Corpus, largest: bool, directory: Path) -> Figures:
    figures: Figures = {"rss_before_mb": peak_rss_mb()}
    path = directory / "floor.db"
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
    warm_embedder()
    start, cpu = time.perf_counter(), time.process_time()
    for first in range(0, len(corpus.texts), BATCH):
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO docs(body) VALUES (?)", ((t,) for t in corpus.texts[first : first + BATCH])
        )
        connection.execute("COMMIT")
    elapsed = time.perf_counter() - start
    figures["store_many_cpu_s"] = time.process_time() - cpu
    figures["store_many_per_s"] = len(corpus.texts) / elapsed
    figures["store_many_s"] = elapsed
    connection.execute("INSERT INTO docs(docs) VALUES ('optimize')")
    figures["file_bytes"] = file_bytes(path)
    figures["rss_after_load_mb"] = peak_rss_mb()

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
    connection.close()
    figures.update(vector_floor(corpus, directory))
    figures["help_ms"] = median_of(lambda: timed_ms(lambda: in_new_process("pass")))
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def vector_floor(corpus: Corpus, directory: Path) -> Figures:
    """numpy's product over the same vectors, and reading them from a file as one buffer."""
    import numpy as np

    from tinymemory.retrieval import HashingEmbedder

    embedder = HashingEmbedder()
    matrix = embedder.embed_matrix(corpus.texts)
    vectors = embedder.embed_matrix(corpus.queries)
    by_query = dict(zip(corpus.queries, vectors, strict=True))

    def top(query: str) -> list[int]:
        scores = matrix @ by_query[query]
        best = np.argpartition(-scores, LIMIT)[:LIMIT]
        return best[np.argsort(-scores[best])].tolist()  # type: ignore[no-any-return]

    side_file = directory / "vectors.f32"
    matrix.tofile(side_file)
    read = median_of(lambda: timed_ms(lambda: np.fromfile(side_file, np.float32)))
    return {"vector": latencies(top, corpus.queries), "vector_read_ms": read}


def one_size(size: int, side: str, largest: bool, seed: int, queries: int) -> Figures:
    corpus = make_corpus(size, seed, queries)
    with tempfile.TemporaryDirectory(prefix="sqlite-bench-") as directory:
        run = run_engine if side == "engine" else run_floor
        return run(corpus, largest, Path(directory))


# --- issue 34: store CPU beside FTS5 + sqlite-vec, recall@5 of each mode ---------------

RECALL_AT = 5
#: The shortest word a "variants" query changes the ending of.
VARIANT_LENGTH = 6
#: Of the known-answer queries: half "words", a quarter "variants", a quarter "mixed".
KINDS = ("words", "words", "variants", "mixed")


@dataclass(frozen=True)
class Known:
    """A query and the index of the text it was made from (its answer), and its kind."""

    query: str
    answer: int
    kind: str


def known_answers(texts: Sequence[str], count: int) -> list[Known]:
    """``count`` queries made from texts chosen at random (seeded by the corpus itself, which
    the run's seed made), each of a kind of :data:`KINDS` in turn."""
    from collections import Counter

    rng = random.Random(f"{len(texts)} {texts[0]}")
    frequent = {word for word, _ in Counter(" ".join(texts).split()).most_common(SKIP_FREQUENT)}
    return known_from(texts.__getitem__, len(texts), frequent, count, rng)


def known_from(
    text_of: Callable[[int], str], size: int, frequent: set[str], count: int, rng: random.Random
) -> list[Known]:
    """:func:`known_answers` over a corpus read a text at a time (``text_of(index)``)."""

    def variant(word: str) -> str:
        return word[:-1] + rng.choice([c for c in "abcdefghijklmnopqrstuvwxyz" if c != word[-1]])

    known: list[Known] = []
    while len(known) < count:
        kind = KINDS[len(known) % len(KINDS)]
        answer = rng.randrange(size)
        rare = [w for w in dict.fromkeys(text_of(answer).split()) if w not in frequent]
        long = [w for w in rare if len(w) >= VARIANT_LENGTH]
        if kind == "words" and len(rare) >= 2:
            words = rng.sample(rare, 2)
        elif kind == "variants" and len(long) >= 4:
            words = [variant(w) for w in rng.sample(long, 4)]
        elif kind == "mixed" and len(long) >= 2 and len(set(rare) - set(long)) >= 1:
            words = [rng.choice(sorted(set(rare) - set(long)))]
            words += [variant(w) for w in rng.sample(long, 2)]
        else:
            continue
        known.append(Known(" ".join(words), answer, kind))
    return known


def recall_at(
    engine: Any, mode: FetchMode, known: list[Known], ids: Sequence[str] | dict[int, str]
) -> Figures:
    """The share of ``known`` whose answer is in the top :data:`RECALL_AT`, overall and by kind."""
    import tinymemory as tm

    found: dict[str, list[bool]] = {}
    for entry in known:
        page = engine.fetch(tm.FetchRequest(query=entry.query, mode=mode, limit=RECALL_AT))
        hit = ids[entry.answer] in {h.id for h in page.hits}
        found.setdefault(entry.kind, []).append(hit)
    shares = {kind: sum(hits) / len(hits) for kind, hits in found.items()}
    shares["all"] = sum(sum(hits) for hits in found.values()) / len(known)
    return shares


def engine_recalls(engine: Any, corpus: Corpus, ids: list[str]) -> Figures:
    """recall@5 of keyword, vector and hybrid over the known-answer queries."""
    import tinymemory as tm

    known = known_answers(corpus.texts, len(corpus.queries))
    return {
        mode.value: recall_at(engine, mode, known, ids)
        for mode in (tm.FetchMode.KEYWORD, tm.FetchMode.VECTOR, tm.FetchMode.HYBRID)
    }


def warm_embedder() -> None:
    """Load numpy and the hashing code before a timed load, on either side alike."""
    from tinymemory.retrieval import HashingEmbedder

    HashingEmbedder().embed_matrix(["warm up"])


def store_cpu_rounds(corpus: Corpus, directory: Path) -> Figures:
    """Store CPU per item of the floor, the bare engine and the engine through
    ``tm.build_engine`` (scrubbed by what is installed), each into a fresh file, in
    ``STORE_ROUNDS`` interleaved rounds: a machine busy with other work slows the three
    alike, and each figure is the median of its rounds."""
    import tinymemory as tm
    from tinymemory_sqlite import SqliteEngine

    rounds: list[dict[str, float]] = []
    scrubbed_by: list[str] = []
    version = None
    for number in range(STORE_ROUNDS):
        folder = directory / f"store-round-{number}"
        folder.mkdir()
        floor = vector_store_floor(corpus, folder)
        if floor["store_floor_cpu_us"] is None:
            return {"store_cpu": None}
        version = floor["store_floor_sqlite"]
        bare = SqliteEngine(folder / "bare.db")
        scrubbed = tm.build_engine(
            "sqlite", tm.EngineSettings(options={"path": str(folder / "scrubbed.db")})
        )
        scrubbed_by = [scrubber.name for scrubber in getattr(scrubbed, "scrubbers", ())]
        rounds.append(
            {
                "floor": floor["store_floor_cpu_us"],
                "bare": load_cpu_us(bare, corpus.texts),
                "scrubbed": load_cpu_us(scrubbed, corpus.texts),
            }
        )
    medians = {side: statistics.median(r[side] for r in rounds) for side in rounds[0]}
    return {
        "store_cpu": {**medians, "rounds": rounds},
        "scrubbed_by": scrubbed_by,
        "store_floor_sqlite": version,
    }


def load_cpu_us(engine: Any, texts: Sequence[str]) -> float:
    """CPU µs per item of storing ``texts`` as learnings through ``engine``, 100 a call."""
    import tinymemory as tm

    items = [tm.Learning(text=text) for text in texts]
    gc.collect()
    cpu = time.process_time()
    for first in range(0, len(items), BATCH):
        engine.store_many(items[first : first + BATCH])
    spent = time.process_time() - cpu
    engine.close()
    return spent / len(items) * 1e6


def extension_connection(path: Path) -> tuple[Any, str] | None:
    """A connection with sqlite-vec loaded and its SQLite version, or None without one."""
    try:
        import sqlite_vec
    except ImportError:
        return None
    module: Any = sqlite3
    if not hasattr(sqlite3.Connection, "enable_load_extension"):
        try:
            import pysqlite3 as module  # type: ignore[import-not-found,no-redef]
        except ImportError:
            return None
    connection = module.connect(path, isolation_level=None)
    connection.enable_load_extension(True)
    sqlite_vec.load(connection)
    connection.enable_load_extension(False)
    return connection, module.sqlite_version


def vector_store_floor(corpus: Corpus, directory: Path) -> Figures:
    """CPU per item of FTS5 + sqlite-vec: texts and hashing vectors, embedded and committed
    per 100 (None when sqlite-vec cannot be loaded here)."""
    from tinymemory.retrieval import HashingEmbedder

    opened = extension_connection(directory / "vec-floor.db")
    if opened is None:
        return {"store_floor_cpu_us": None}
    connection, version = opened
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
    embedder = HashingEmbedder()
    connection.execute(
        f"CREATE VIRTUAL TABLE vecs USING vec0(embedding float[{embedder.dimensions}])"
    )
    texts = corpus.texts
    cpu = time.process_time()
    for first in range(0, len(texts), BATCH):
        batch = texts[first : first + BATCH]
        rows = range(first + 1, first + 1 + len(batch))
        vectors = embedder.embed_matrix(batch)
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO docs(rowid, body) VALUES (?, ?)", zip(rows, batch, strict=True)
        )
        connection.executemany(
            "INSERT INTO vecs(rowid, embedding) VALUES (?, ?)",
            zip(rows, (vector.tobytes() for vector in vectors), strict=True),
        )
        connection.execute("COMMIT")
    spent = time.process_time() - cpu
    connection.close()
    return {"store_floor_cpu_us": spent / len(texts) * 1e6, "store_floor_sqlite": version}


def store_rows(engine: Figures) -> list[list[str]]:
    """Store CPU per item, scrubbed and bare, beside the FTS5 + sqlite-vec floor (medians of
    interleaved rounds; each round's ratios beside)."""
    store = engine["store_cpu"]
    if store is None:
        return [["store CPU/item, µs (floor needs sqlite-vec: not loadable here)"]]
    by = ", ".join(engine["scrubbed_by"]) or "no scrubber installed"
    base = store["floor"]
    rows = []
    for side, label, target in (
        ("scrubbed", f"scrubbed ({by})", 1.3),
        ("bare", "no scrubbing", 1.1),
    ):
        each = ", ".join(f"{r[side] / r['floor']:.2f}" for r in store["rounds"])
        rows.append(
            [
                f"store CPU/item, µs, {label} "
                f"(floor: FTS5 + sqlite-vec, SQLite {engine['store_floor_sqlite']}; "
                f"median of {len(store['rounds'])} rounds, ratios {each})",
                f"{store[side]:.1f}",
                f"{base:.1f}",
                ratio(store[side], base),
                f"≤ {target} x floor",
                mark(store[side] <= target * base),
            ]
        )
    return rows


def recall_rows(engine: Figures, floor: Figures) -> list[list[str]]:
    """recall@5 by mode (and by kind of query), and keyword p95 beside the floor's."""
    recalls = engine["recall_at_5"]
    shown = {mode: f"{shares['all']:.3f}" for mode, shares in recalls.items()}
    best = max(recalls["keyword"]["all"], recalls["vector"]["all"])
    rows = [
        [
            f"recall@{RECALL_AT} keyword / vector / hybrid",
            f"{shown['keyword']} / {shown['vector']} / {shown['hybrid']}",
            "",
            "",
            "hybrid ≥ max",
            mark(recalls["hybrid"]["all"] >= best),
        ]
    ]
    for kind in dict.fromkeys(KINDS):
        rows.append(
            [
                f"  {kind} queries",
                " / ".join(
                    f"{recalls[mode][kind]:.3f}" for mode in ("keyword", "vector", "hybrid")
                ),
            ]
        )
    p95, floor_p95 = engine["keyword"]["p95_ms"], floor["keyword_or_fallback"]["p95_ms"]
    rows.append(
        [
            "keyword p95, ms (floor: AND, then OR)",
            f"{p95:.2f}",
            f"{floor_p95:.2f}",
            ratio(p95, floor_p95),
            "≤ floor",
            mark(p95 <= floor_p95),
        ]
    )
    return rows


# --- size, vectors, a million items (issue 34, targets 2 and 5) --------------------------

#: The bar of the issue: file size per item, and the smaller one a smaller vector form may
#: claim when it keeps the answer's recall@5 within half a point of float32.
SMALL_FORM_BYTES = 1200
RECALL_SLACK = 0.005
#: Vector fetches in a new process for the first-fetch figure at a million (each opens 1M).
STREAM_PROCESS_RUNS = 3


def holds_answer(query: str, text: str) -> bool:
    """Whether ``text`` answers ``query``: it holds both of the query's words (the text the
    pair was drawn from does, and any other that does is as good an answer)."""
    return set(query.split(" ")) <= set(text.split(" "))


def answer_recall(queries: Sequence[str], found: Sequence[Sequence[str]], top: int = 5) -> float:
    """The share of ``queries`` with an answer among the first ``top`` texts ``found`` for it."""
    hits = sum(
        any(holds_answer(query, text) for text in texts[:top])
        for query, texts in zip(queries, found, strict=True)
    )
    return hits / len(queries)


def vector_recall(engine: SqliteEngine, queries: Sequence[str]) -> float:
    """The engine's answer recall@5 by vector over ``queries``."""
    import tinymemory as tm

    found = [
        [hit.text for hit in engine.fetch(tm.FetchRequest(query=q, mode=tm.FetchMode.VECTOR)).hits]
        for q in queries
    ]
    return answer_recall(queries, found)


def stream_batch(
    size: int, seed: int, index: int, words: tuple[list[str], list[float]]
) -> list[str]:
    """Batch ``index`` (of ``BATCH`` texts) of a corpus of ``size`` made batch by batch, so that
    a million texts need never be held at once: each batch has a seed of its own."""
    rng = random.Random(f"{seed}:{index}")
    vocabulary, cumulative = words
    count = min(BATCH, size - index * BATCH)
    return [
        " ".join(rng.choices(vocabulary, cum_weights=cumulative, k=rng.randint(*WORDS)))
        for _ in range(count)
    ]


def stream_corpus(size: int, seed: int, queries: int) -> tuple[Any, list[str]]:
    """The batches of a streamed corpus (a function of the batch's index) and its queries:
    two words drawn as :func:`make_corpus` draws them, from texts chosen at random."""
    words = zipf_vocabulary(random.Random(seed))
    rank_of = {word: rank for rank, word in enumerate(words[0])}
    rng = random.Random(f"{seed}:queries")
    pairs: list[str] = []
    while len(pairs) < queries + WARM_UP:
        index = rng.randrange(size)
        text = stream_batch(size, seed, index // BATCH, words)[index % BATCH]
        rare = list(dict.fromkeys(w for w in text.split(" ") if rank_of[w] >= SKIP_FREQUENT))
        if len(rare) >= 2:
            pairs.append(" ".join(rng.sample(rare, 2)))
    return (lambda index: stream_batch(size, seed, index, words)), pairs


def cpu_p50_ms(call: Callable[[str], object], inputs: Sequence[str]) -> float:
    """The median CPU time of ``call`` over ``inputs``, in ms: on a machine other jobs
    keep busy, what the call costs rather than how long it waited for a core."""
    timings = []
    for value in inputs[WARM_UP:]:
        start = time.process_time()
        call(value)
        timings.append((time.process_time() - start) * 1000)
    return statistics.median(timings)


def run_engine_stream(size: int, seed: int, queries: int, directory: Path) -> Figures:
    """The engine over a streamed corpus of ``size``: load, size, reads, recall, RSS."""
    import tinymemory as tm
    from tinymemory_sqlite import SqliteEngine

    batch_of, asked = stream_corpus(size, seed, queries)
    known = stream_known(size, seed, queries, batch_of)
    wanted = {entry.answer for entry in known}
    figures: Figures = {"rss_before_mb": peak_rss_mb()}
    path = directory / "engine.db"
    engine = SqliteEngine(path)
    ids: dict[int, str] = {}  # the known answers' ids only: a million would weigh on the RSS
    start, cpu = time.perf_counter(), time.process_time()
    for index in range(-(-size // BATCH)):
        receipts = engine.store_many([tm.Learning(text=text) for text in batch_of(index)])
        for row, receipt in enumerate(receipts, start=index * BATCH):
            if row in wanted:
                ids[row] = receipt.id
    figures["store_many_s"] = time.perf_counter() - start
    figures["store_many_cpu_s"] = time.process_time() - cpu
    figures["file_bytes"] = file_bytes(path)
    figures["rss_after_load_mb"] = peak_rss_mb()
    figures["keyword"] = latencies(fetcher(engine, tm.FetchMode.KEYWORD), asked)
    figures["vector"] = latencies(fetcher(engine, tm.FetchMode.VECTOR), asked)
    figures["hybrid"] = latencies(fetcher(engine, tm.FetchMode.HYBRID), asked)
    figures["vector_recall"] = vector_recall(engine, asked[WARM_UP:])
    figures["vector_cpu_ms"] = cpu_p50_ms(fetcher(engine, tm.FetchMode.VECTOR), asked)
    figures["recall_at_5"] = {
        mode.value: recall_at(engine, mode, known, ids)
        for mode in (tm.FetchMode.KEYWORD, tm.FetchMode.VECTOR, tm.FetchMode.HYBRID)
    }
    engine.close()
    figures["closed_file_bytes"] = file_bytes(path)
    figures["peak_rss_mb"] = peak_rss_mb()
    figures["new_process_vector_ms"] = statistics.median(
        float(in_new_process(FIRST_VECTOR_FETCH, path, asked[0]))
        for _ in range(STREAM_PROCESS_RUNS)
    )
    figures["new_process_keyword_ms"] = statistics.median(
        timed_ms(lambda: in_new_process(FIRST_KEYWORD_FETCH, path, asked[0]))
        for _ in range(STREAM_PROCESS_RUNS)
    )
    return figures


def stream_known(size: int, seed: int, count: int, batch_of: Any) -> list[Known]:
    """Known-answer queries over a streamed corpus, as :func:`known_answers` makes them; the
    frequent words left out are the vocabulary's first (its Zipf order)."""
    vocabulary, _ = zipf_vocabulary(random.Random(seed))
    return known_from(
        lambda index: str(batch_of(index // BATCH)[index % BATCH]),
        size,
        set(vocabulary[:SKIP_FREQUENT]),
        count,
        random.Random(f"{seed}:known"),
    )


#: Shares of an inverted file's lists probed in the comparison with exact search.
PROBED = (0.05, 0.1, 0.2)
#: k-means rounds and sample rows per list when the inverted file is trained.
KMEANS_ROUNDS = 6
SAMPLE_PER_LIST = 40


def ivf_beside_exact(size: int, batch_of: Any, asked: list[str]) -> Figures:
    """An inverted-file index (IVF) over the corpus's vectors beside exact search, the
    approximate index that fits a single file best (centroids and a list id per vector
    stored beside the codes): ``sqrt(N)`` lists trained by spherical k-means on a sample,
    each query probing the lists of its nearest centroids. Printed: its top-10 agreement
    with exact and its answer recall@5 at each share of :data:`PROBED`, beside exact's.
    The reason the engine scans exactly (tinymemory_sqlite/vectors.py)."""
    import numpy as np

    from tinymemory.retrieval import HashingEmbedder

    embedder = HashingEmbedder()
    matrix = np.concatenate(
        [embedder.embed_matrix(batch_of(index)) for index in range(-(-size // BATCH))]
    )
    queries = asked[WARM_UP:]
    vectors = embedder.embed_matrix(queries)
    exact = [np.argsort(-(matrix @ vector), kind="stable")[:LIMIT] for vector in vectors]
    lists = max(1, int(size**0.5))
    rng = np.random.default_rng(0)
    sample = matrix[rng.choice(size, min(size, lists * SAMPLE_PER_LIST), replace=False)]
    centroids = sample[rng.choice(len(sample), lists, replace=False)].copy()
    start = time.process_time()
    for _ in range(KMEANS_ROUNDS):
        nearest = np.argmax(sample @ centroids.T, axis=1)
        for cell in range(lists):
            members = sample[nearest == cell]
            if len(members):
                centroids[cell] = members.mean(axis=0)
        centroids /= np.linalg.norm(centroids, axis=1, keepdims=True) + 1e-12
    cells = np.concatenate(
        [
            np.argmax(matrix[first : first + 65536] @ centroids.T, axis=1)
            for first in range(0, size, 65536)
        ]
    )
    built = time.process_time() - start

    def text_of(row: int) -> str:
        return str(batch_of(row // BATCH)[row % BATCH])

    figures: Figures = {
        "lists": lists,
        "build_cpu_s": built,
        "exact_recall": answer_recall(queries, [[text_of(r) for r in e] for e in exact]),
        "probed": {},
    }
    for share in PROBED:
        probe = max(1, round(share * lists))
        agree, found = [], []
        for vector, best in zip(vectors, exact, strict=True):
            rows = np.flatnonzero(np.isin(cells, np.argsort(-(centroids @ vector))[:probe]))
            top = rows[np.argsort(-(matrix[rows] @ vector), kind="stable")[:LIMIT]]
            agree.append(len(set(top.tolist()) & set(best.tolist())) / LIMIT)
            found.append([text_of(r) for r in top])
        figures["probed"][str(share)] = {
            "agree_top10": statistics.mean(agree),
            "recall": answer_recall(queries, found),
        }
    return figures


def connect_vec_floor(path: Path) -> Any:
    """A connection with sqlite-vec loaded, WAL and synchronous=NORMAL as the engine's.

    Through pysqlite3 (its own SQLite, whose version the table prints): Python's sqlite3
    here is built without loading extensions.
    """
    import pysqlite3.dbapi2 as vec_sqlite
    import sqlite_vec

    connection = vec_sqlite.connect(str(path), isolation_level=None)
    connection.enable_load_extension(True)
    sqlite_vec.load(connection)
    connection.enable_load_extension(False)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    return connection


VEC_QUERY = "SELECT rowid FROM vecs WHERE embedding MATCH ? AND k = 10 ORDER BY distance"


def run_vec_floor(size: int, batch_of: Any, asked: list[str], directory: Path) -> Figures:
    """The issue's floor: one SQLite file, FTS5 + sqlite-vec (float32), a commit per 100
    texts; its size per item, vector p50 and answer recall@5 (sqlite-vec scans exactly)."""
    from tinymemory.retrieval import HashingEmbedder

    embedder = HashingEmbedder()
    figures: Figures = {"rss_before_mb": peak_rss_mb()}
    path = directory / "vec-floor.db"
    connection = connect_vec_floor(path)
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
    dimensions = embedder.dimensions
    connection.execute(f"CREATE VIRTUAL TABLE vecs USING vec0(embedding float[{dimensions}])")
    start, cpu = time.perf_counter(), time.process_time()
    for index in range(-(-size // BATCH)):
        texts = batch_of(index)
        vectors = embedder.embed_matrix(texts)
        first = index * BATCH + 1
        connection.execute("BEGIN")
        connection.executemany(
            "INSERT INTO docs(rowid, body) VALUES (?, ?)", enumerate(texts, start=first)
        )
        connection.executemany(
            "INSERT INTO vecs(rowid, embedding) VALUES (?, ?)",
            ((first + row, vector.tobytes()) for row, vector in enumerate(vectors)),
        )
        connection.execute("COMMIT")
    figures["store_many_s"] = time.perf_counter() - start
    figures["store_many_cpu_s"] = time.process_time() - cpu
    connection.execute("INSERT INTO docs(docs) VALUES ('optimize')")
    figures["file_bytes"] = file_bytes(path)
    figures["rss_after_load_mb"] = peak_rss_mb()
    by_query = dict(zip(asked, embedder.embed_matrix(asked), strict=True))

    def nearest(query: str) -> list[int]:
        rows = connection.execute(VEC_QUERY, (by_query[query].tobytes(),)).fetchall()
        return [rowid for (rowid,) in rows]

    def text_of(rowid: int) -> str:
        return str(batch_of((rowid - 1) // BATCH)[(rowid - 1) % BATCH])

    figures["vector"] = latencies(nearest, asked)
    found = [[text_of(rowid) for rowid in nearest(query)] for query in asked[WARM_UP:]]
    figures["vector_recall"] = answer_recall(asked[WARM_UP:], found)
    connection.close()
    figures["peak_rss_mb"] = peak_rss_mb()
    return figures


def hnsw_beside_exact(corpus: Corpus) -> Figures:
    """An HNSW graph (usearch) over the benchmark's vectors beside the exact scan: its
    agreement with exact on the top 10, its answer recall@5, build time and p50. The
    reason the engine scans exactly (tinymemory_sqlite/vectors.py)."""
    import numpy as np
    from usearch.index import Index

    from tinymemory.retrieval import HashingEmbedder

    embedder = HashingEmbedder()
    matrix = embedder.embed_matrix(corpus.texts)
    asked = corpus.queries[WARM_UP:]
    vectors = embedder.embed_matrix(asked)
    start = time.perf_counter()
    index = Index(ndim=embedder.dimensions, metric="cos", dtype="f32", connectivity=16)
    index.add(np.arange(len(matrix)), matrix)
    built = time.perf_counter() - start
    exact = [np.argsort(-(matrix @ vector), kind="stable")[:LIMIT] for vector in vectors]
    timings, graph = [], []
    for vector in vectors:
        begin = time.perf_counter()
        graph.append(index.search(vector, LIMIT).keys)
        timings.append((time.perf_counter() - begin) * 1000)
    agree = [
        len(set(keys.tolist()) & set(best.tolist())) / LIMIT
        for keys, best in zip(graph, exact, strict=True)
    ]
    return {
        "build_s": built,
        "p50_ms": statistics.median(timings),
        "agree_top10": statistics.mean(agree),
        "recall": answer_recall(asked, [[corpus.texts[k] for k in keys] for keys in graph]),
        "exact_recall": answer_recall(asked, [[corpus.texts[k] for k in e] for e in exact]),
    }


def stream_one(size: int, side: str, seed: int, queries: int) -> Figures:
    with tempfile.TemporaryDirectory(prefix="sqlite-bench-") as directory:
        if side == "engine":
            return run_engine_stream(size, seed, queries, Path(directory))
        batch_of, asked = stream_corpus(size, seed, queries)
        if side == "ivf":
            return ivf_beside_exact(size, batch_of, asked)
        return run_vec_floor(size, batch_of, asked, Path(directory))


def vec_floor_one(size: int, seed: int, queries: int) -> Figures:
    """The sqlite-vec floor over the same corpus as the other sides of ``size``, and the
    HNSW comparison up to 100k (its build takes a minute there)."""
    corpus = make_corpus(size, seed, queries)
    with tempfile.TemporaryDirectory(prefix="sqlite-bench-") as directory:
        figures = run_vec_floor(
            size,
            lambda index: corpus.texts[index * BATCH : (index + 1) * BATCH],
            corpus.queries,
            Path(directory),
        )
    if size <= 100_000:
        figures["hnsw"] = hnsw_beside_exact(corpus)
    return figures


def size_and_vector_rows(engine: Figures, vec_floor: Figures, size: int) -> list[list[str]]:
    """Rows of targets 2 and 5: size beside the sqlite-vec floor, the vector form's recall,
    vector latency at scale, and the HNSW that was not chosen."""
    per_item = sum(engine["file_bytes"].values()) / size
    floor_item = sum(vec_floor["file_bytes"].values()) / size
    recall, floor_recall = engine["vector_recall"], vec_floor["vector_recall"]
    kept = recall >= floor_recall - RECALL_SLACK
    bar = SMALL_FORM_BYTES if kept else floor_item
    rows = [
        [
            "file size per item (db + WAL), B (floor: FTS5 + sqlite-vec)",
            f"{per_item:,.0f}",
            f"{floor_item:,.0f}",
            ratio(per_item, floor_item),
            f"≤ floor; ≤ {SMALL_FORM_BYTES:,} when recall kept",
            mark(per_item <= bar and per_item <= floor_item),
        ],
        [
            "vector answer recall@5 (codes vs sqlite-vec float32)",
            f"{recall:.3f}",
            f"{floor_recall:.3f}",
            "",
            f"≥ floor - {RECALL_SLACK:.3f}",
            mark(kept),
        ],
        [
            "vector fetch p50 / p95, ms (floor: sqlite-vec)",
            pair(engine["vector"]),
            pair(vec_floor["vector"]),
            ratio(engine["vector"]["p50_ms"], vec_floor["vector"]["p50_ms"]),
            "≤ 30 at 1M",
            mark(engine["vector"]["p50_ms"] <= 30) if size >= 1_000_000 else "",
        ],
    ]
    hnsw = vec_floor.get("hnsw")
    if hnsw:
        rows.append(
            [
                "  HNSW (usearch, not used): top-10 agreement with exact / answer recall@5",
                f"{hnsw['agree_top10']:.1%} / {hnsw['recall']:.3f}",
                f"exact {hnsw['exact_recall']:.3f}",
                "",
                f"build {hnsw['build_s']:.0f} s, p50 {hnsw['p50_ms']:.2f} ms",
            ]
        )
    return rows


def stream_rows(result: Figures) -> list[list[str]]:
    """Every figure of a streamed run beside the sqlite-vec floor, and the IVF not chosen."""
    size, engine, floor, ivf = result["size"], result["engine"], result["floor"], result["ivf"]
    rss, floor_rss = engine["peak_rss_mb"], floor["peak_rss_mb"]
    recalls = engine["recall_at_5"]
    best = max(recalls["keyword"]["all"], recalls["vector"]["all"])
    rows = [
        [
            "store CPU per item, µs, no scrubbing (floor: FTS5 + sqlite-vec)",
            f"{engine['store_many_cpu_s'] / size * 1e6:,.0f}",
            f"{floor['store_many_cpu_s'] / size * 1e6:,.0f}",
            ratio(engine["store_many_cpu_s"], floor["store_many_cpu_s"]),
        ],
        ["  load wall / CPU time, s", load_times(engine), load_times(floor)],
        *size_and_vector_rows(engine, floor, size),
        [
            "  file size per item after close (checkpointed), B",
            f"{sum(engine['closed_file_bytes'].values()) / size:,.0f}",
        ],
        [
            "  vector fetch CPU time p50, ms",
            f"{engine['vector_cpu_ms']:.1f}",
            "",
            "",
            "≤ 30 at 1M",
            mark(engine["vector_cpu_ms"] <= 30) if size >= 1_000_000 else "",
        ],
        [
            f"  IVF ({ivf['lists']:,} lists, not used), exact answer recall@5 "
            f"{ivf['exact_recall']:.3f}, build {ivf['build_cpu_s']:.0f} s CPU",
        ],
        *(
            [
                f"    probing {float(share):.0%} of the lists: top-10 agreement with exact / "
                "answer recall@5",
                f"{probed['agree_top10']:.1%} / {probed['recall']:.3f}",
            ]
            for share, probed in ivf["probed"].items()
        ),
        ["keyword fetch p50 / p95, ms", pair(engine["keyword"])],
        ["hybrid fetch p50 / p95, ms", pair(engine["hybrid"])],
        [
            f"recall@{RECALL_AT} of the known answer, keyword / vector / hybrid",
            " / ".join(f"{recalls[mode]['all']:.3f}" for mode in ("keyword", "vector", "hybrid")),
            "",
            "",
            "hybrid ≥ max",
            mark(recalls["hybrid"]["all"] >= best),
        ],
        [
            "new process, first keyword / vector fetch, ms",
            f"{engine['new_process_keyword_ms']:.0f} / {engine['new_process_vector_ms']:.0f}",
        ],
        [
            "peak RSS, MB",
            f"{rss:.0f}",
            f"{floor_rss:.0f}",
            "",
            "≤ 800 at 1M",
            mark(rss <= 800) if size >= 1_000_000 else "",
        ],
        ["  peak before / after load, MB", loads(engine), loads(floor)],
    ]
    rows[0][0] = f"{rows[0][0]}  [load average {result['load']:.2f}, streamed]"
    return [[f"N = {size:,}", *row] if i == 0 else ["", *row] for i, row in enumerate(rows)]


# --- the parent: children, table, targets ----------------------------------------------


def child(
    size: int, side: str, largest: bool, args: argparse.Namespace, *, streamed: bool = False
) -> Figures:
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
    if streamed:
        command.append("--streamed")
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode:
        sys.exit(f"{side} run at {size} failed:\n{result.stderr}")
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def mark(ok: bool) -> str:
    return "✓" if ok else "✗"


def ratio(engine: float, floor: float) -> str:
    return f"{engine / floor:.2f}" if floor else ""


def rows_for(
    size: int, engine: Figures, floor: Figures, vec_floor: Figures, largest: bool
) -> list[list[str]]:
    """Table rows: metric, engine, floor, ratio, target, met."""
    rate, floor_rate = engine["store_many_per_s"], floor["store_many_per_s"]
    keyword, and_or = engine["keyword"]["p50_ms"], floor["keyword_or_fallback"]["p50_ms"]
    reread = engine["reread_after_foreign_ms"]
    first_vector = engine["new_process_vector_ms"]
    help_ms, open_keyword = engine["help_ms"], engine["new_process_keyword_ms"]
    rows = [
        [
            "store_many, items/s",
            f"{rate:,.0f}",
            f"{floor_rate:,.0f}",
            ratio(rate, floor_rate),
            "≥ 0.5 x floor",
            mark(rate >= floor_rate / 2),
        ],
        ["  load wall / CPU time, s", load_times(engine), load_times(floor)],
        *store_rows(engine),
        [
            "keyword fetch p50 / p95, ms (floor: AND)",
            pair(engine["keyword"]),
            pair(floor["keyword"]),
            ratio(keyword, floor["keyword"]["p50_ms"]),
        ],
        [
            f"  floor AND, then OR when < {LIMIT} ({floor['and_short']:.0%} of queries)",
            "",
            pair(floor["keyword_or_fallback"]),
            ratio(keyword, and_or),
            "≤ 2 x floor, ≤ 3 ms",
            mark(keyword <= 2 * and_or and keyword <= 3),
        ],
        [
            f"re-read of vectors after another process stored {FOREIGN_STORES // 3}, ms",
            f"{reread:.2f}",
            "",
            "",
            "O(rows changed): ≤ 5",
            mark(reread <= 5),
        ],
        [
            "first vector fetch in a new process, ms (floor: numpy.fromfile)",
            f"{first_vector:.1f}",
            f"{floor['vector_read_ms']:.1f}",
            ratio(first_vector, floor["vector_read_ms"]),
            "≤ 100",
            mark(first_vector <= 100),
        ],
        [
            "tinymemory --help, ms (floor: python -c pass)",
            f"{help_ms:.0f}",
            f"{floor['help_ms']:.0f}",
            ratio(help_ms, floor["help_ms"]),
            "≤ 120",
            mark(help_ms <= 120),
        ],
        [
            "new process, open + first keyword fetch, ms",
            f"{open_keyword:.0f}",
            "",
            "",
            "≤ 150",
            mark(open_keyword <= 150),
        ],
        [
            "vector fetch p50 / p95, ms (floor: numpy M @ q)",
            pair(engine["vector"]),
            pair(floor["vector"]),
            ratio(engine["vector"]["p50_ms"], floor["vector"]["p50_ms"]),
        ],
        *size_and_vector_rows(engine, vec_floor, size),
    ]
    rows += recall_rows(engine, floor)
    if largest:
        rows += [
            ["embed one text p50 / p95, ms", pair(engine["embed_one"])],
            ["single store p50 / p95, ms", pair(engine["store"])],
            ["hybrid fetch p50 / p95, ms", pair(engine["hybrid"])],
            ["recall p50 / p95, ms", pair(engine["recall"])],
        ]
    rows += [
        ["peak RSS, MB", f"{engine['peak_rss_mb']:.0f}", f"{floor['peak_rss_mb']:.0f}"],
        ["  peak before / after load, MB", loads(engine), loads(floor)],
    ]
    return [[f"N = {size:,}", *row] if i == 0 else ["", *row] for i, row in enumerate(rows)]


def load_times(figures: Figures) -> str:
    return f"{figures['store_many_s']:.2f} / {figures['store_many_cpu_s']:.2f}"


def loads(figures: Figures) -> str:
    return f"{figures['rss_before_mb']:.0f} / {figures['rss_after_load_mb']:.0f}"


def pair(figures: Figures) -> str:
    return f"{figures['p50_ms']:.2f} / {figures['p95_ms']:.2f}"


def print_table(results: list[Figures], args: argparse.Namespace, wall: float) -> None:
    import numpy as np

    header = ["size", "metric", "engine", "floor", "ratio", "target", "met"]
    columns = len(header)
    rows: list[list[str]] = []
    for result in results:
        if result.get("streamed"):
            rows += stream_rows(result)
            continue
        size_rows = rows_for(
            result["size"],
            result["engine"],
            result["floor"],
            result["vec_floor"],
            result["largest"],
        )
        size_rows[0][1] += f"  [load average {result['load']:.2f}]"
        rows += size_rows
    widths = [
        max(len(row[i]) if i < len(row) else 0 for row in [header, *rows]) for i in range(columns)
    ]

    def line(cells: list[str]) -> str:
        cells = cells + [""] * (columns - len(cells))
        text = [cells[0].ljust(widths[0]), cells[1].ljust(widths[1])]
        text += [cell.rjust(width) for cell, width in zip(cells[2:5], widths[2:5], strict=True)]
        text += [cells[5].ljust(widths[5]), cells[6]]
        return "  ".join(text).rstrip()

    print(
        f"sqlite engine vs floor: seed {args.seed}, {args.queries} queries "
        f"({min(RECALLS, args.queries)} recalls), limit {LIMIT}; "
        f"Python {platform.python_version()}, SQLite {sqlite3.sqlite_version}, "
        f"numpy {np.__version__}, {os.cpu_count()} CPUs"
    )
    print(line(header))
    print(line(["-" * width for width in widths]))
    for row in rows:
        if row[0] and row is not rows[0]:
            print()
        print(line(row))
    print(f"\nwhole run {wall:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000", help="comma-separated corpus sizes")
    parser.add_argument("--seed", type=int, default=7, help="seed of the corpus and queries")
    parser.add_argument("--queries", type=int, default=200, help="timed fetch queries")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument(
        "--stream",
        default="",
        help="comma-separated sizes run streamed (e.g. 1000000): every figure the issue asks at "
        "a million, the corpus made batch by batch, beside the FTS5 + sqlite-vec floor",
    )
    parser.add_argument(
        "--side",
        choices=("engine", "floor", "vec-floor", "ivf"),
        default="engine",
        help=argparse.SUPPRESS,
    )
    parser.add_argument("--largest", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--streamed", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one_size is not None:
        if args.streamed:
            figures = stream_one(args.one_size, args.side, args.seed, args.queries)
        elif args.side == "vec-floor":
            figures = vec_floor_one(args.one_size, args.seed, args.queries)
        else:
            figures = one_size(args.one_size, args.side, args.largest, args.seed, args.queries)
        print(json.dumps(figures))
        return
    sizes = sorted({int(size) for size in args.sizes.split(",") if size})
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
                "vec_floor": child(size, "vec-floor", largest, args),
            }
        )
    for size in sorted({int(size) for size in args.stream.split(",") if size}):
        results.append(
            {
                "load": os.getloadavg()[0],
                "size": size,
                "streamed": True,
                "engine": child(size, "engine", False, args, streamed=True),
                "floor": child(size, "vec-floor", False, args, streamed=True),
                "ivf": child(size, "ivf", False, args, streamed=True),
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
