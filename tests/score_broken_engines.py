"""Print how many broken engines the conformance suite catches, per set, and how fast.

Run from the repository root::

    python tests/score_broken_engines.py            # both sets
    python tests/score_broken_engines.py heldout    # one

For each engine: the first fixed check that failed, the seconds (wall and
CPU) until that failure was reported, and the whole fixed run's seconds.
The development set (``tests/broken_engines.py``) shaped the checks; the
held-out set (``tests/broken_engines_heldout.py``) did not.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from broken_engines import FAULTS
from broken_engines_heldout import HELDOUT

from tinymemory.conformance import CheckResult, Outcome, run
from tinymemory.conformance.checks import FIXED_CHECK_NAMES


def first_failure(engine: type) -> tuple[str, float, float] | None:
    """The first fixed check ``engine`` fails, and the wall and CPU seconds until then."""
    wall, cpu = time.perf_counter(), time.process_time()
    failures: list[tuple[str, float, float]] = []

    def heard(result: CheckResult) -> None:
        if result.outcome is Outcome.FAILED and not failures:
            failures.append((result.check, time.perf_counter() - wall, time.process_time() - cpu))

    run(engine, checks=FIXED_CHECK_NAMES, on_result=heard)
    return failures[0] if failures else None


def score(name: str, engines: list[type]) -> None:
    """Print each engine's first failure and the set's count."""
    caught = 0
    slowest = 0.0
    for engine in engines:
        failure = first_failure(engine)
        if failure is None:
            print(f"  MISSED  {engine.__name__}")
            continue
        caught += 1
        check, seconds, cpu_seconds = failure
        slowest = max(slowest, seconds)
        shown = f"{engine.__name__:44} {check:22}"
        print(f"  caught  {shown} {seconds:5.1f} s ({cpu_seconds:.1f} s CPU)")
    print(f"{name}: caught {caught} of {len(engines)}; slowest first failure {slowest:.1f} s")


def main() -> None:
    sets = {"development": list(FAULTS), "heldout": list(HELDOUT)}
    for name in sys.argv[1:] or list(sets):
        score(name, sets[name])


if __name__ == "__main__":
    main()
