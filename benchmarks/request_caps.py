"""Print what a request at every cap costs, beside the same request with short inputs.

On the reference engine and the sqlite engine (a file in a temp folder),
``--items`` learnings of random words are stored; then each request is timed
at its caps (a 16 KiB question or query, 1,000 tags of 8 KiB in ``tags_any``)
and at its floor, the same call with a 64-byte question and one short tag, in
the same run. Each figure is the best of ``--rounds`` calls; the ratio is the
cost of the caps as a multiple of the floor.

    python benchmarks/request_caps.py [--items 200] [--rounds 3] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import string
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import tinymemory as tm


def words(rng: random.Random, size: int) -> str:
    """Random lowercase words, ``size`` bytes long."""
    out: list[str] = []
    total = 0
    while total < size:
        word = "".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9)))
        out.append(word)
        total += len(word) + 1
    return " ".join(out)[:size]


def best(call: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    short, long_question = words(rng, 64), words(rng, tm.MAX_QUESTION_BYTES)
    tags = [words(rng, tm.MAX_FILTER_VALUE_BYTES) for _ in range(tm.MAX_FILTER_TAGS)]
    capped, floor = tm.MetaFilter(tags_any=tags), tm.MetaFilter(tags_any=["t0"])
    items = [
        tm.Learning(text=words(rng, 400), meta=tm.MemoryMeta(tags=(f"t{n}",)))
        for n in range(args.items)
    ]
    with tempfile.TemporaryDirectory() as folder:
        sqlite = tm.build_engine(
            "sqlite", tm.EngineSettings(options={"path": str(Path(folder) / "memory.db")})
        )
        for engine in (tm.ReferenceEngine(), sqlite):
            with engine:
                for start in range(0, len(items), tm.MAX_STORE_MANY):
                    engine.store_many(items[start : start + tm.MAX_STORE_MANY])
                mode = engine.descriptor.fetch_modes[0]
                pairs: dict[str, tuple[Callable[[], object], Callable[[], object]]] = {
                    "recall": (
                        partial(engine.recall, tm.RecallRequest(question=long_question)),
                        partial(engine.recall, tm.RecallRequest(question=short)),
                    ),
                    f"fetch {mode.value}": (
                        partial(
                            engine.fetch,
                            tm.FetchRequest(query=long_question, mode=mode, filter=capped),
                        ),
                        partial(
                            engine.fetch, tm.FetchRequest(query=short, mode=mode, filter=floor)
                        ),
                    ),
                    "list": (
                        partial(engine.list, tm.ListRequest(filter=capped)),
                        partial(engine.list, tm.ListRequest(filter=floor)),
                    ),
                }
                for name, (at_caps, short_call) in pairs.items():
                    cap_seconds = best(at_caps, args.rounds)
                    floor_seconds = best(short_call, args.rounds)
                    print(
                        f"{engine.descriptor.id:9} {name:15} at the caps {cap_seconds:7.3f} s"
                        f"  floor {floor_seconds:7.3f} s  ratio {cap_seconds / floor_seconds:6.1f}"
                    )


if __name__ == "__main__":
    main()
