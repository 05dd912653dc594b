"""The plugin's fixtures: a TinyMemoryStore on each engine the LangGraph suite runs on.

``store`` is parametrized over the engines of :mod:`engines` (sqlite,
reference, the CortexDB double, PostgreSQL); ``sqlite_store`` is the sqlite one alone, for the
tests that read the same file with the CLI or the web view.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from engines import NAMES, engine_named

import tinymemory as tm
from tinymemory_langgraph import TinyMemoryStore


def pytest_configure(config: pytest.Config) -> None:
    # trustcall, which LangMem imports, imports `Send` from `langgraph.constants`, a path
    # LangGraph 1.x deprecates: the repository turns warnings into errors.
    config.addinivalue_line(
        "filterwarnings", "ignore:Importing Send from langgraph.constants is deprecated"
    )


@pytest.fixture(params=NAMES)
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tm.MemoryEngine]:
    """A fresh engine of each kind."""
    with engine_named(request.param, tmp_path) as opened:
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
    settings = tm.EngineSettings(options={"path": str(sqlite_file)})
    with tm.build_engine("sqlite", settings) as opened:
        yield TinyMemoryStore(opened)
