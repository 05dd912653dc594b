"""The conformance suite, alone, against the sqlite engine: the test the mutation run uses.

``run.py`` copies this file into the folder it lays out for mutmut; it is not
collected by the core's own test run (its name does not start with ``test_``).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from tinymemory import ItemLimits, MemoryEngine, set_item_limits
from tinymemory.conformance import ConformanceTests
from tinymemory_sqlite import SqliteEngine

# The suite builds its items at the caps in force: a cap of 1 MiB instead of 10 keeps the
# run of each mutant short (the sqlite engine takes seconds to index 10 MiB).
set_item_limits(ItemLimits(max_item_bytes=1024 * 1024))


class TestSqlite(ConformanceTests):
    """Each engine gets a file of its own in the test's temporary folder."""

    profile = "mutation"

    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path
        self.numbers = itertools.count()

    def make_engine(self) -> MemoryEngine:
        return SqliteEngine(self.folder / f"memory-{next(self.numbers)}.db")
