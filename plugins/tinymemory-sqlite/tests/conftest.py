"""Shared fixtures: a fresh database file per test, never the user's own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tinymemory_sqlite import PATH_VARIABLE, SqliteEngine


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the default database into the test's folder, so no test can reach a real one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(PATH_VARIABLE, raising=False)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def engine(db_path: Path) -> Iterator[SqliteEngine]:
    with SqliteEngine(db_path) as opened:
        yield opened  # type: ignore[misc]
