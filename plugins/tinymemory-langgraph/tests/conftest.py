"""The plugin's fixtures: a TinyMemoryStore on each engine the LangGraph suite runs on.

``store`` is parametrized over ``sqlite`` (a file in the test's temporary
folder) and ``reference``; ``sqlite_store`` is the sqlite one alone, for the
tests that read the same file with the CLI or the web view.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory_langgraph import TinyMemoryStore


def pytest_configure(config: pytest.Config) -> None:
    # trustcall, which LangMem imports, imports `Send` from `langgraph.constants`, a path
    # LangGraph 1.x deprecates: the repository turns warnings into errors.
    config.addinivalue_line(
        "filterwarnings", "ignore:Importing Send from langgraph.constants is deprecated"
    )


def engine_on(name: str, folder: Path) -> tm.MemoryEngine:
    """The engine ``name``: sqlite keeps its file ``memory.db`` in ``folder``."""
    if name == "sqlite":
        return tm.build_engine(
            "sqlite", tm.EngineSettings(options={"path": str(folder / "memory.db")})
        )
    return tm.build_engine(name)


@pytest.fixture(params=["sqlite", "reference"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tm.MemoryEngine]:
    """A fresh engine of each kind."""
    with engine_on(request.param, tmp_path) as opened:
        yield opened


@pytest.fixture
def store(engine: tm.MemoryEngine) -> TinyMemoryStore:
    """A store at the root of a fresh engine."""
    return TinyMemoryStore(engine)


@pytest.fixture
def sqlite_file(tmp_path: Path) -> Path:
    """Where the sqlite store keeps its memory."""
    return tmp_path / "memory.db"


@pytest.fixture
def sqlite_store(sqlite_file: Path) -> Iterator[TinyMemoryStore]:
    """A store at the root of a fresh sqlite engine on :func:`sqlite_file`."""
    with engine_on("sqlite", sqlite_file.parent) as opened:
        yield TinyMemoryStore(opened)
