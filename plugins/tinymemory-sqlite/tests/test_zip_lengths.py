"""``zip(..., strict=True)`` in the sqlite engine's item rows: one length.

This backs the mutation run's survivors of the class "``strict`` loosened" in the
sqlite engine's item rows, which the mutation run judges with the suite against this
engine (docs/conformance.md, "Judged by mutation testing"): ``strict=True`` changes
nothing but raising when the sides' lengths differ, so a mutant that drops it, or
sets it false, is equivalent when they never differ. Here ``zip`` in ``item_rows``
records its sides' lengths (``tinymemory.testing.zip_lengths``); the conformance
suite's fixed checks then pass, the module's zips ran, and none saw sides of two
lengths. The core helpers that run mutates beside it are watched by the core's
``tests/test_core_zip_lengths.py``.
"""

from __future__ import annotations

from pathlib import Path

from tinymemory import MemoryEngine
from tinymemory.conformance import CHECKS, run
from tinymemory.testing import zip_lengths
from tinymemory_sqlite import SqliteEngine, item_rows


def test_zip_sides_have_one_length(tmp_path: Path) -> None:
    numbers = iter(range(10**6))

    def factory() -> MemoryEngine:
        return SqliteEngine(tmp_path / f"memory-{next(numbers)}.db")

    with zip_lengths(item_rows) as lengths:
        report = run(factory, checks=[check.name for check in CHECKS if check.fixed])
    failed = [result for result in report.results if result.outcome.name == "FAILED"]
    assert not failed, failed
    assert len(lengths.calls[item_rows.__name__]) > 10
    assert lengths.uneven() == {item_rows.__name__: []}
