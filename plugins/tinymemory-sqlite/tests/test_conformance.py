"""The whole conformance suite against the engine, on a file and in memory."""

from __future__ import annotations

import itertools
import sqlite3
from pathlib import Path

import pytest

from tinymemory import MemoryEngine
from tinymemory.conformance import ConformanceTests
from tinymemory_sqlite import SqliteEngine


class TestOnAFile(ConformanceTests):
    """Each engine gets a file of its own, as a fresh install would."""

    profile = "ci"

    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path
        self.numbers = itertools.count()

    def make_engine(self) -> MemoryEngine:
        return SqliteEngine(self.folder / f"memory-{next(self.numbers)}.db")

    def test_every_file_is_intact_after_the_suite(self) -> None:
        """After a run of the state machine, every file passes SQLite's and FTS5's own checks."""
        self.test_matches_reference()  # type: ignore[attr-defined]
        files = sorted(self.folder.glob("memory-*.db"))
        assert files
        for file in files:
            with sqlite3.connect(file) as connection:
                assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                connection.execute("INSERT INTO pieces_fts(pieces_fts) VALUES ('integrity-check')")


class TestInMemory(ConformanceTests):
    """``:memory:`` serves the same contract."""

    profile = "ci"

    def make_engine(self) -> MemoryEngine:
        return SqliteEngine(":memory:")
