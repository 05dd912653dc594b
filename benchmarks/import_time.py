"""Print how long `import tinymemory` takes in a fresh interpreter.

Each run starts a new Python process and times the import inside it, so
interpreter start-up is not counted. It also reports which heavy modules the
import pulled in (none of the plugin system should load).

    python benchmarks/import_time.py [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

PROBE = """
import json, sys, time
start = time.perf_counter()
import tinymemory
elapsed = time.perf_counter() - start
watched = ("pluggy", "cattrs", "tinymemory.reference", "importlib.metadata")
heavy = [name for name in watched if name in sys.modules]
print(json.dumps({"ms": elapsed * 1000, "heavy": heavy}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="fresh interpreters to time")
    args = parser.parse_args()
    timings, heavy = [], set()
    for _ in range(args.runs):
        result = subprocess.run(
            [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
        )
        sample = json.loads(result.stdout)
        timings.append(sample["ms"])
        heavy.update(sample["heavy"])
    timings.sort()
    p95 = timings[max(0, round(0.95 * len(timings)) - 1)]
    print(f"import tinymemory over {args.runs} fresh interpreters (budget 150 ms)")
    print(f"  median {statistics.median(timings):7.1f} ms")
    print(f"  p95    {p95:7.1f} ms")
    print(f"  max    {timings[-1]:7.1f} ms")
    print(f"  plugin-system modules loaded by the import: {sorted(heavy) or 'none'}")


if __name__ == "__main__":
    main()
