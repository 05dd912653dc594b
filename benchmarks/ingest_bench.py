"""Print ingest's and import's CPU beside store_many of the same items, measured in the same run.

A folder of ``--files`` files is made, as a system's doc folder holds them:
markdown, plain text, gzip-compressed changelogs and HTML pages. Rows
printed, each in CPU seconds (``time.process_time``, so a loaded machine
counts less) and per file:

- ingest: ``tm.sync(engine, tm.read("folder", ...))`` into a fresh engine,
  the work ``tinymemory ingest`` does;
- within that very ingest, the CPU spent in the engine (``store_many`` and
  ``get``) and in the converters (each installed converter's ``convert``
  and the decompression), counted as they run; the rest is the overhead
  (the walk, reading, the converter chain, validation, batching, the
  report), and its share of the whole (the median run's: a share is taken
  within one run, so the machine's load moves it little);
- ``store_many`` of the same items in batches of 100 into another fresh
  engine of the same kind, the floor ingest is beside;
- ingest again (every file a replay), beside the first ingest;
- import of the export of those items (``read_items`` then ``sync``, what
  ``tinymemory import`` does) beside ``store_many`` of the same items, and a
  second import (every item a replay) beside the first.

The engine is ``sqlite`` in a temporary file when its plugin is installed
(else the reference engine), built with scrubbing as the command line
builds it; the scrubbing is the engine's cost, in the floor too.

    python benchmarks/ingest_bench.py [--files 600] [--runs 3]
"""

from __future__ import annotations

import argparse
import gzip
import io
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import tinymemory as tm
from tinymemory.files import bounded_lines
from tinymemory.jsonl import export_line, max_line_bytes, read_items


def make_tree(root: Path, files: int) -> None:
    """``files`` files in 20 package folders, of four kinds in turn."""
    for number in range(files):
        folder = root / f"pkg{number % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        lines = "".join(
            f"Line {k}: package {number} changed its parser, release {k}.{number}.\n"
            for k in range(30)
        )
        kind = number % 4
        if kind == 0:
            (folder / f"changelog{number}.gz").write_bytes(gzip.compress(lines.encode()))
        elif kind == 1:
            (folder / f"notes{number}.md").write_text(f"# Notes {number}\n\n{lines}")
        elif kind == 2:
            (folder / f"README{number}.txt").write_text(lines)
        else:
            page = (
                f"<html><head><title>Page {number}</title></head><body><p>{lines}</p></body></html>"
            )
            (folder / f"page{number}.html").write_text(page)


def cpu(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return time.process_time() - start


class Spent:
    """CPU seconds spent inside the calls it wraps, counted as the work runs."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def wrap(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - start

        return timed


@contextmanager
def fresh_engine(folder: Path, spent: Spent | None = None) -> Iterator[tm.MemoryEngine]:
    """A new, empty engine (sqlite in a file of its own, else the reference engine); with
    ``spent``, its ``store_many`` and ``get`` count their CPU there."""
    if "sqlite" in {engine.id for engine in tm.list_engines()}:
        path = Path(tempfile.mkdtemp(dir=folder)) / "memory.db"
        made = tm.build_engine("sqlite", tm.EngineSettings(options={"path": str(path)}))
    else:
        made = tm.build_engine("reference")
    with made as engine:
        if spent is not None:
            engine.store_many = spent.wrap(engine.store_many)  # type: ignore[method-assign]
            engine.get = spent.wrap(engine.get)  # type: ignore[method-assign]
        yield engine


@contextmanager
def converters_timed(spent: Spent) -> Iterator[None]:
    """Every installed converter's ``convert``, and the decompression, counting into ``spent``."""
    from tinymemory import _wrappers
    from tinymemory._plugin_manager import document_converters

    patched = [(type(c), "convert", type(c).convert) for c in document_converters()]
    patched.append((_wrappers, "_decompressed", _wrappers._decompressed))  # type: ignore[arg-type]
    for owner, name, original in patched:
        setattr(owner, name, spent.wrap(original))
    try:
        yield
    finally:
        for owner, name, original in patched:
            setattr(owner, name, original)


def store_batches(engine: tm.MemoryEngine, items: list[tm.StoreItem]) -> None:
    for start in range(0, len(items), tm.MAX_STORE_MANY):
        engine.store_many(items[start : start + tm.MAX_STORE_MANY])


def measure(root: Path, work: Path) -> dict[str, float]:
    paths = sorted(path for path in root.rglob("*") if path.is_file())
    options = {"path": str(root)}
    figures: dict[str, float] = {}
    in_engine, in_converters = Spent(), Spent()
    with fresh_engine(work, in_engine) as engine, converters_timed(in_converters):
        figures["ingest"] = cpu(lambda: tm.sync(engine, tm.read("folder", options=options)))
        figures["ingest: engine"] = in_engine.seconds
        figures["ingest: converters"] = in_converters.seconds
        figures["ingest again"] = cpu(lambda: tm.sync(engine, tm.read("folder", options=options)))
        exported = list(engine.export(tm.ListRequest(limit=1000)).items)
    items = [entry.item for entry in exported]
    with fresh_engine(work) as engine:
        figures["store_many"] = cpu(lambda: store_batches(engine, list(items)))
    dump = "".join(export_line(entry) + "\n" for entry in exported).encode()

    def imported(engine: tm.MemoryEngine) -> None:
        lines = bounded_lines(io.BytesIO(dump), max_line_bytes())
        found, _ = read_items(lines)
        tm.sync(engine, found)

    in_engine = Spent()
    with fresh_engine(work, in_engine) as engine:
        figures["import"] = cpu(lambda: imported(engine))
        figures["import: engine"] = in_engine.seconds
        figures["import again"] = cpu(lambda: imported(engine))
    figures["files"] = len(paths)
    figures["items"] = len(exported)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=600)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        make_tree(work / "doc", args.files)
        tm.convert(b"warm up", name="x.txt")  # plugins loaded before anything is timed
        runs = [measure(work / "doc", work) for _ in range(args.runs)]
    # Each run's overhead is worked out within that run (its ingest less the engine's and
    # the converters' share of that very ingest), so the load of other processes, which
    # moves every figure from run to run, does not move the share.
    for run in runs:
        for name in ("ingest", "import"):
            inside = run[f"{name}: engine"] + run.get(f"{name}: converters", 0.0)
            run[f"{name}: overhead"] = run[name] - inside
            run[f"{name}: share"] = run[f"{name}: overhead"] / run[name]
    best = {key: min(run[key] for run in runs) for key in runs[0]}
    files, items = int(best["files"]), int(best["items"])

    def row(label: str, seconds: float, per: int, unit: str) -> None:
        print(f"{label:<48} {seconds:8.3f} s  {seconds / per * 1000:7.2f} ms/{unit}")

    def median(key: str) -> float:
        return sorted(run[key] for run in runs)[len(runs) // 2]

    def ratio(label: str, value: float, shown: str = "8.2f") -> None:
        print(f"{label:<48} {value:{shown}}")

    print(f"load average {os.getloadavg()[0]:.1f}; best of {args.runs} runs; CPU seconds")
    row("ingest (tm.sync of tm.read of the folder)", best["ingest"], files, "file")
    row("  in the engine (store_many, get)", best["ingest: engine"], files, "file")
    row("  in the converters (convert, decompression)", best["ingest: converters"], files, "file")
    row("  overhead (the rest)", best["ingest: overhead"], files, "file")
    ratio("  overhead share of ingest (median run)", median("ingest: share"), "8.1%")
    row("store_many of the same items (floor)", best["store_many"], files, "file")
    ratio("  ingest / store_many", best["ingest"] / best["store_many"])
    row("ingest again (every file a replay)", best["ingest again"], files, "file")
    ratio("  replay / first ingest", best["ingest again"] / best["ingest"])
    row("import (read_items + tm.sync)", best["import"], items, "item")
    row("  in the engine (store_many, get)", best["import: engine"], items, "item")
    row("  overhead (the rest)", best["import: overhead"], items, "item")
    ratio("  overhead share of import (median run)", median("import: share"), "8.1%")
    ratio("  import / store_many of the same items", best["import"] / best["store_many"])
    row("import again (every item a replay)", best["import again"], items, "item")
    ratio("  replay / first import", best["import again"] / best["import"])


if __name__ == "__main__":
    main()
