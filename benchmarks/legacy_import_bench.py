"""Print the legacy importer's speed beside its floors, measured in the same run.

A v1 workspace of about 10,000 items (every section, built by the plugin's
test helper `mixed_workspace`) is read and migrated. Rows printed:

- read, items/s: `LegacyWorkspace.items()` over the whole workspace (decoding,
  mapping, checkpoints). Floor: bare `sqlite3` fetching the same rows the
  items are made of (all of `memory_docs`, `episodic_log`, `user_profile` and
  `mem_tree_chunks`, in key order), counted as the same number of items.
- migrate into ENGINE, items/s: `migrate(engine, workspace)` into a fresh
  engine (the reference engine; `sqlite` when the plugin is installed, in a
  temporary file). Floor: `store_many` of the same items, pre-built, in
  batches of 100, into another fresh engine of the same kind.
- re-run into ENGINE (all replays), items/s: `migrate` again into the filled
  engine. Floor: `store_many` of the pre-built items again.

Each figure is the best of `--runs` runs; the ratio is project / floor (1.0
means the importer adds nothing over its floor). The machine is shared, so
the load average is printed beside the figures.

    python benchmarks/legacy_import_bench.py [--scale 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import tinymemory as tm
from tinymemory_legacy_import import LegacyWorkspace, migrate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "plugins" / "tinymemory-legacy-import" / "tests"))

from legacy_workspaces import mixed_workspace  # noqa: E402

FLOOR_QUERIES = (
    ("memory", "SELECT * FROM memory_docs ORDER BY document_id"),
    ("memory", "SELECT * FROM episodic_log ORDER BY session_id, timestamp, id"),
    ("memory", "SELECT * FROM user_profile ORDER BY facet_id"),
    ("chunks", "SELECT * FROM mem_tree_chunks ORDER BY source_kind, source_id, seq_in_source, id"),
)


def best(runs: int, once: Callable[[], float]) -> float:
    """The shortest of ``runs`` timings of ``once`` (which returns its own seconds)."""
    return min(once() for _ in range(runs))


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def bare_read(root: Path) -> int:
    """Fetch every row the items are made of with bare sqlite3 (read-only); the row count."""
    files = {"memory": root / "memory" / "memory.db", "chunks": root / "memory_tree" / "chunks.db"}
    rows = 0
    for name, sql in FLOOR_QUERIES:
        connection = sqlite3.connect(f"{files[name].as_uri()}?mode=ro", uri=True)
        rows += len(connection.execute(sql).fetchall())
        connection.close()
    return rows


def engine_kinds() -> list[str]:
    kinds = ["reference"]
    try:
        import tinymemory_sqlite  # noqa: F401
    except ImportError:
        print("(the sqlite plugin is not installed: its rows are left out)")
    else:
        kinds.append("sqlite")
    return kinds


@contextmanager
def fresh_engine(kind: str, folder: Path) -> Iterator[tm.MemoryEngine]:
    """A new, empty engine: the reference engine, or sqlite in a file of its own."""
    if kind == "reference":
        with tm.build_engine("reference") as engine:
            yield engine
        return
    path = Path(tempfile.mkdtemp(dir=folder)) / "memory.db"
    with tm.build_engine("sqlite", tm.EngineSettings(options={"path": str(path)})) as engine:
        yield engine


def store_prebuilt(engine: tm.MemoryEngine, items: list[tm.StoreItem]) -> None:
    for start in range(0, len(items), tm.MAX_STORE_MANY):
        engine.store_many(items[start : start + tm.MAX_STORE_MANY])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=1000, help="units of 10 items each")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (the best is kept)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="legacy-bench-"))
    root = mixed_workspace(folder / "ws", scale=args.scale)
    rows: list[tuple[str, float, float]] = []
    with LegacyWorkspace.open(root) as workspace:
        items = [imported.item for imported in workspace.items()]
        count = len(items)
        read = best(args.runs, lambda: timed(lambda: sum(1 for _ in workspace.items())))
        floor = best(args.runs, lambda: timed(lambda: bare_read(root)))
        rows.append(("read", count / read, count / floor))
        for kind in engine_kinds():

            def migrate_once(kind: str = kind) -> float:
                with fresh_engine(kind, folder) as engine:
                    return timed(lambda: migrate(engine, workspace))

            def store_once(kind: str = kind) -> float:
                with fresh_engine(kind, folder) as engine:
                    return timed(lambda: store_prebuilt(engine, items))

            rows.append(
                (
                    f"migrate into {kind}",
                    count / best(args.runs, migrate_once),
                    count / best(args.runs, store_once),
                )
            )
            with fresh_engine(kind, folder) as engine:
                migrate(engine, workspace)
                again = best(
                    args.runs, lambda engine=engine: timed(lambda: migrate(engine, workspace))
                )
                replay_floor = best(
                    args.runs, lambda engine=engine: timed(lambda: store_prebuilt(engine, items))
                )
                rows.append((f"re-run into {kind} (replays)", count / again, count / replay_floor))
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"legacy import of a {count}-item v1 workspace, best of {args.runs}; load average {load}")
    print(f"{'figure':<30} {'items/s':>10} {'floor items/s':>14} {'ratio':>6}")
    for name, project, floor_rate in rows:
        print(f"{name:<30} {project:>10,.0f} {floor_rate:>14,.0f} {project / floor_rate:>6.2f}")


if __name__ == "__main__":
    main()
