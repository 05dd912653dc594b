"""Print start-up figures beside their floors, all from one run: new processes, as a user runs them.

Every figure is the median wall time of fresh processes (engine and floor
alternating, so both see the same load), with every plugin installed in this
environment loaded as a user's would be (``TINYMEMORY_PLUGINS`` unset):

- ``import tinymemory``, timed inside the process (interpreter start not
  counted), and the modules it pulls in (none of the plugin system);
- ``tinymemory --help``. Floor: ``python -c pass``. Target: <= 120 ms;
- a new process's first keyword fetch (import, open the file with
  ``SqliteEngine``, one fetch of limit 10), and the same through the public
  registry (``tinymemory.build_engine("sqlite", ...)``, which finds the
  engine's plugin in the entry points). Floor: a process that imports sqlite3
  and runs one bm25 MATCH of the same words on a bare FTS5 table of the same
  texts. Target: <= 1.2 x;
- a new process's first vector fetch. Floor: a process that imports numpy,
  reads the same vectors from a file and ranks them (``M @ q``, argpartition).
  Target: <= 1.3 x;
- beside each fetch and its floor, the modules the process imported
  (``len(sys.modules)`` at its end), so what a read loads is seen, not guessed,
  and with ``--instructions`` the instructions each process ran, counted by
  ``valgrind --tool=callgrind``: the same count whatever else the machine is
  doing, where a shared machine's wall (and even CPU) times are not;
- a ``tinymemory recall`` process on a memory of 1,000 documents (the default
  embedder and answerer), target < 400 ms, and where its time goes: the
  interpreter (the ``python -c pass`` floor), imports, opening the engine,
  retrieval, the answer, printing, and what is left (interpreter exit).

Processes may write bytecode, as an installed package has it (see
``PROCESS_ENV``); the first run of each figure writes it and is not counted.

    python benchmarks/import_time.py [--runs 9] [--size 10000] [--documents 1000] [--instructions]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

LIMIT = 10
FTS_QUERY = "SELECT rowid, bm25(docs) s FROM docs WHERE docs MATCH ? ORDER BY s LIMIT 10"

#: The environment of every measured process: bytecode may be written (an installed
#: package has it), every installed plugin loads, no user configuration is read.
PROCESS_ENV = {
    name: value
    for name, value in os.environ.items()
    if name not in ("PYTHONDONTWRITEBYTECODE", "TINYMEMORY_PLUGINS", "TINYMEMORY_ENGINE")
}

IMPORT_PROBE = """
import json, sys, time
start = time.perf_counter()
import tinymemory
elapsed = time.perf_counter() - start
watched = ("pluggy", "cattrs", "attrs", "tinymemory.reference", "importlib.metadata")
print(json.dumps({"ms": elapsed * 1000, "heavy": [m for m in watched if m in sys.modules]}))
"""

#: argv: the file, the query, the mode. Import, open, fetch once.
ENGINE_FETCH = """
import sys
import tinymemory as tm
from tinymemory_sqlite import SqliteEngine
with SqliteEngine(sys.argv[1]) as engine:
    engine.fetch(tm.FetchRequest(query=sys.argv[2], mode=sys.argv[3], limit=10))
"""
#: The same through the registry, as the README builds an engine (scrubbers, when
#: installed, wrap it and load with its first store: a read never imports them).
REGISTRY_FETCH = """
import sys
import tinymemory as tm
settings = tm.EngineSettings(options={"path": sys.argv[1]})
with tm.build_engine("sqlite", settings) as engine:
    engine.fetch(tm.FetchRequest(query=sys.argv[2], mode=sys.argv[3], limit=10))
"""
#: Appended to a process's script to print how many modules it imported.
COUNT_MODULES = "\nimport sys\nprint(len(sys.modules))\n"
#: argv: the file, the FTS5 query.
KEYWORD_FLOOR = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1])
connection.execute(
    "SELECT rowid, bm25(docs) s FROM docs WHERE docs MATCH ? ORDER BY s LIMIT 10", (sys.argv[2],)
).fetchall()
"""
#: argv: the vectors' file, the query vector's file, the dimensions.
VECTOR_FLOOR = """
import sys
import numpy as np
matrix = np.fromfile(sys.argv[1], np.float32).reshape(-1, int(sys.argv[3]))
query = np.fromfile(sys.argv[2], np.float32)
scores = matrix @ query
best = np.argpartition(-scores, 10)[:10]
best[np.argsort(-scores[best])].tolist()
"""

#: Run the ``tinymemory`` command line (argv[1:]) with each phase of a recall timed:
#: imports (the command line, the recall command's module, the engine's plugin and
#: engine modules), opening the engine, the whole recall call, the answer within it,
#: and printing. Prints the phases (ms) as JSON on stderr.
RECALL_PHASES = """
import json, sys, time
clock = time.perf_counter
phases = {}
start = clock()
import tinymemory._extractive as extractive
answer_ms = []
original_answer = extractive.extractive_answer
def timed_answer(*args, **kwargs):
    begun = clock()
    try:
        return original_answer(*args, **kwargs)
    finally:
        answer_ms.append((clock() - begun) * 1000)
extractive.extractive_answer = timed_answer
from tinymemory._cli.main import main
import tinymemory._cli.data_commands as data_commands
from tinymemory._plugin_manager import engine_factories
engine_factories("sqlite")
import tinymemory_sqlite.engine
phases["import"] = (clock() - start) * 1000
opened = data_commands.open_reader
def timed_open(*args, **kwargs):
    begun = clock()
    engine = opened(*args, **kwargs)
    phases["open"] = (clock() - begun) * 1000
    original_recall = engine.recall
    def timed_recall(request):
        begun = clock()
        answer = original_recall(request)
        phases["recall"] = (clock() - begun) * 1000
        phases["recall_ended"] = clock()
        return answer
    engine.recall = timed_recall
    return engine
data_commands.open_reader = timed_open
status = main(sys.argv[1:])
ended = clock()
phases["answer"] = sum(answer_ms)
phases["retrieval"] = phases["recall"] - phases["answer"]
phases["print"] = (ended - phases.pop("recall_ended")) * 1000
phases["status"] = status
print(json.dumps(phases), file=sys.stderr)
"""


def run_process(
    command: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command, capture_output=True, text=True, check=False, env=env or PROCESS_ENV
    )
    if done.returncode:
        sys.exit(f"a process of the benchmark failed: {command[:3]}\n{done.stderr}")
    return done


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """The wall time and the CPU time (user + system) of one process, in ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run_process(command, env)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000
    return wall, cpu


Sample = tuple[float, float]


def side_by_side(
    runs: int, project: Callable[[], Sample], floor: Callable[[], Sample]
) -> tuple[Sample, Sample]:
    """Median wall and CPU ms of ``runs`` alternating processes of each, after one untimed."""
    project()
    floor()
    mine, base = [], []
    for _ in range(runs):
        mine.append(project())
        base.append(floor())
    return _medians(mine), _medians(base)


def _medians(samples: list[Sample]) -> Sample:
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def module_count(script: str, *argv: str) -> int:
    """How many modules the process of ``script`` with ``argv`` has imported when it ends."""
    done = run_process([sys.executable, "-c", script + COUNT_MODULES, *argv])
    return int(done.stdout.split()[-1])


def instructions(script: str, *argv: str) -> float:
    """Millions of instructions the process of ``script`` with ``argv`` runs (callgrind)."""
    done = run_process(
        [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            "-c",
            script,
            *argv,
        ]
    )
    (collected,) = re.findall(r"Collected : (\d+)", done.stderr)
    return int(collected) / 1e6


# --- data -----------------------------------------------------------------------------


def vocabulary(rng: random.Random, size: int = 5000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choices(letters, k=rng.randint(3, 9))) for _ in range(size)}
    return sorted(words)


def sentence(rng: random.Random, words: list[str]) -> str:
    chosen = rng.choices(words, cum_weights=_zipf(len(words)), k=rng.randint(6, 16))
    return " ".join(chosen).capitalize() + "."


_ZIPF: dict[int, list[float]] = {}


def _zipf(size: int) -> list[float]:
    if size not in _ZIPF:
        total, cumulative = 0.0, []
        for rank in range(1, size + 1):
            total += 1.0 / rank
            cumulative.append(total)
        _ZIPF[size] = cumulative
    return _ZIPF[size]


def build_notes(folder: Path, size: int, rng: random.Random) -> tuple[Path, Path, str]:
    """``size`` short notes in the engine's file and in a bare FTS5 table; a two-word query."""
    import tinymemory as tm
    from tinymemory_sqlite import SqliteEngine

    words = vocabulary(rng)
    texts = [" ".join(sentence(rng, words) for _ in range(rng.randint(1, 3))) for _ in range(size)]
    engine_file, floor_file = folder / "notes.db", folder / "notes-floor.db"
    with SqliteEngine(engine_file) as engine:
        for first in range(0, size, 100):
            engine.store_many([tm.Learning(text=text) for text in texts[first : first + 100]])
    connection = sqlite3.connect(floor_file, isolation_level=None)
    connection.execute("CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='unicode61')")
    connection.execute("BEGIN")
    connection.executemany("INSERT INTO docs(body) VALUES (?)", ((text,) for text in texts))
    connection.execute("COMMIT")
    connection.execute("INSERT INTO docs(docs) VALUES ('optimize')")
    connection.close()
    rare = [word for word in rng.choice(texts).rstrip(".").lower().split() if len(word) > 5]
    query = " ".join(rare[:2] or ["anything"])
    return engine_file, floor_file, query


def vector_files(folder: Path, texts_from: Path, query: str) -> tuple[Path, Path, int]:
    """The engine's vectors as one float32 file, and the query's vector, for the floor."""
    import numpy as np

    from tinymemory.retrieval import HashingEmbedder

    connection = sqlite3.connect(texts_from)
    texts = [row[0] for row in connection.execute("SELECT text FROM pieces ORDER BY id")]
    connection.close()
    embedder = HashingEmbedder()
    matrix_file, query_file = folder / "vectors.f32", folder / "query.f32"
    embedder.embed_matrix(texts).astype(np.float32).tofile(matrix_file)
    embedder.embed_matrix([query]).astype(np.float32)[0].tofile(query_file)
    return matrix_file, query_file, embedder.dimensions


def build_documents(folder: Path, count: int, rng: random.Random) -> tuple[Path, str]:
    """A memory of ``count`` documents (a title and 4 to 12 sentences) and a question."""
    import tinymemory as tm
    from tinymemory_sqlite import SqliteEngine

    words = vocabulary(rng)
    documents = [
        tm.Document(
            title=" ".join(rng.sample(words, 3)).title(),
            body=" ".join(sentence(rng, words) for _ in range(rng.randint(4, 12))),
        )
        for _ in range(count)
    ]
    path = folder / "documents.db"
    with SqliteEngine(path) as engine:
        for first in range(0, count, 100):
            engine.store_many(documents[first : first + 100])
    body = documents[count // 2].body.text or ""
    rare = [word for word in body.rstrip(".").lower().split() if len(word) > 5]
    return path, f"what about {' '.join(rare[:2])}?"


# --- the figures ----------------------------------------------------------------------


def import_figures(runs: int) -> dict[str, object]:
    timings, heavy = [], set()
    for _ in range(runs + 1):
        sample = json.loads(run_process([sys.executable, "-c", IMPORT_PROBE]).stdout)
        timings.append(sample["ms"])
        heavy.update(sample["heavy"])
    return {"median_ms": statistics.median(timings[1:]), "heavy": sorted(heavy)}


class Recall(NamedTuple):
    """A recall process beside ``python -c pass``, its phases (median ms) and its question."""

    process: Sample
    floor: Sample
    phases: dict[str, float]
    question: str


def recall_figures(runs: int, folder: Path, rng: random.Random, count: int) -> Recall:
    path, question = build_documents(folder, count, rng)
    config = folder / "config.toml"
    config.write_text(f'engine = "sqlite"\n\n[engines.sqlite]\npath = "{path}"\n', "utf-8")
    env = {**PROCESS_ENV, "TINYMEMORY_CONFIG": str(config)}
    command = str(Path(sys.executable).parent / "tinymemory")
    process, floor = side_by_side(
        runs,
        lambda: timed([command, "recall", question], env),
        lambda: timed([sys.executable, "-c", "pass"]),
    )
    samples = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        done = run_process([sys.executable, "-c", RECALL_PHASES, "recall", question], env)
        wall = (time.perf_counter() - start) * 1000
        phases = json.loads(done.stderr.splitlines()[-1])
        phases["wall"] = wall
        samples.append(phases)
    names = ("import", "open", "retrieval", "answer", "print", "wall")
    phases = {name: statistics.median(sample[name] for sample in samples[1:]) for name in names}
    return Recall(process, floor, phases, question)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="timed processes per figure")
    parser.add_argument("--size", type=int, default=10_000, help="notes for the first fetches")
    parser.add_argument("--documents", type=int, default=1_000, help="documents for recall")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count each fetch's and floor's instructions with valgrind (load-independent)",
    )
    args = parser.parse_args()
    rng = random.Random(args.seed)
    python = sys.executable
    command = str(Path(python).parent / "tinymemory")
    load = os.getloadavg()[0]
    imported = import_figures(args.runs)
    help_ms, pass_ms = side_by_side(
        args.runs, lambda: timed([command, "--help"]), lambda: timed([python, "-c", "pass"])
    )
    with tempfile.TemporaryDirectory(prefix="start-up-bench-") as name:
        folder = Path(name)
        engine_file, floor_file, query = build_notes(folder, args.size, rng)
        match = " ".join(f'"{word}"' for word in query.split())
        keyword_argv = (str(engine_file), query, "keyword")
        keyword = side_by_side(
            args.runs,
            lambda: timed([python, "-c", ENGINE_FETCH, *keyword_argv]),
            lambda: timed([python, "-c", KEYWORD_FLOOR, str(floor_file), match]),
        )
        registry = side_by_side(
            args.runs,
            lambda: timed([python, "-c", REGISTRY_FETCH, *keyword_argv]),
            lambda: timed([python, "-c", KEYWORD_FLOOR, str(floor_file), match]),
        )
        matrix_file, query_file, dimensions = vector_files(folder, engine_file, query)
        vector_argv = (str(engine_file), query, "vector")
        floor_argv = (str(matrix_file), str(query_file), str(dimensions))
        vector = side_by_side(
            args.runs,
            lambda: timed([python, "-c", ENGINE_FETCH, *vector_argv]),
            lambda: timed([python, "-c", VECTOR_FLOOR, *floor_argv]),
        )
        #: Each fetch's process and its floor's: a script and its arguments.
        pairs = {
            "keyword": (
                (ENGINE_FETCH, *keyword_argv),
                (KEYWORD_FLOOR, str(floor_file), match),
            ),
            "keyword through build_engine": (
                (REGISTRY_FETCH, *keyword_argv),
                (KEYWORD_FLOOR, str(floor_file), match),
            ),
            "vector": ((ENGINE_FETCH, *vector_argv), (VECTOR_FLOOR, *floor_argv)),
        }
        modules = {
            name: (module_count(*mine), module_count(*base)) for name, (mine, base) in pairs.items()
        }
        counted = {
            name: (instructions(*mine), instructions(*base))
            for name, (mine, base) in pairs.items()
            if args.instructions
        }
        recall = recall_figures(args.runs, folder, rng, args.documents)
    print(
        f"start-up, median of {args.runs} fresh processes each (engine and floor alternating); "
        f"load average {load:.2f}, {os.cpu_count()} CPUs; wall ms (CPU ms)"
    )
    rows = [
        (
            "tinymemory --help (floor: python -c pass)",
            help_ms,
            pass_ms,
            "≤ 120 ms",
            help_ms[0] <= 120,
        ),
        (
            f"first keyword fetch, {args.size:,} notes (floor: sqlite3 FTS5 MATCH)",
            *keyword,
            "≤ 1.2 x",
            keyword[0][0] <= 1.2 * keyword[1][0],
        ),
        (
            "first keyword fetch through build_engine (floor: the same MATCH)",
            *registry,
            "≤ 1.2 x",
            registry[0][0] <= 1.2 * registry[1][0],
        ),
        (
            f"first vector fetch, {args.size:,} notes (floor: numpy fromfile, M @ q)",
            *vector,
            "≤ 1.3 x",
            vector[0][0] <= 1.3 * vector[1][0],
        ),
        (
            f"tinymemory recall, {args.documents:,} documents (floor: python -c pass)",
            recall.process,
            recall.floor,
            "< 400 ms",
            recall.process[0] < 400,
        ),
    ]
    print(f"{'figure':<66} {'project':>16} {'floor':>16} {'ratio':>6}  target")
    print(f"{'import tinymemory, in-process':<66} {imported['median_ms']:9.1f}{'':>33}  ≤ 150 ms")
    for label, mine, base, target, met in rows:
        ratio = mine[0] / base[0]
        print(
            f"{label:<66} {_pair(mine)} {_pair(base)} {ratio:6.2f}  {target} {'✓' if met else '✗'}"
        )
    print(f"  modules of the plugin system loaded by the import: {imported['heavy'] or 'none'}")
    print("  modules a process had imported at its end (project / floor):")
    for name, (mine_count, base_count) in modules.items():
        print(f"    first {name} fetch: {mine_count} / {base_count}")
    if counted:
        print("  instructions a process ran, millions (valgrind; project / floor = ratio):")
        for name, (mine_ir, base_ir) in counted.items():
            print(
                f"    first {name} fetch: {mine_ir:.0f} / {base_ir:.0f} = {mine_ir / base_ir:.2f}"
            )
    phases = recall.phases
    interpreter = recall.floor[0]
    accounted = sum(phases[name] for name in ("import", "open", "retrieval", "answer", "print"))
    print(f"\nwhere a recall process's time goes ({recall.question!r}), median wall ms:")
    parts = [
        ("interpreter start (python -c pass)", interpreter),
        ("imports: command line, recall command, engine plugin", phases["import"]),
        ("open the engine", phases["open"]),
        ("retrieval (recall minus answer; numpy loads here)", phases["retrieval"]),
        ("extractive answer", phases["answer"]),
        ("printing", phases["print"]),
        ("the rest (interpreter exit)", phases["wall"] - interpreter - accounted),
    ]
    for label, value in parts:
        print(f"  {label:<56} {value:7.1f}  {value / phases['wall']:5.1%}")
    print(f"  {'whole process':<56} {phases['wall']:7.1f}")


def _pair(sample: Sample) -> str:
    return f"{sample[0]:7.1f} ({sample[1]:5.1f})"


if __name__ == "__main__":
    main()
