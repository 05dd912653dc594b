"""The app's fixtures: engines (the README's notes ingested, or a fresh one) and test clients.

A client speaks to the app as a browser would to ``tinymemory ui``: with
``Host: 127.0.0.1:<port>``, after opening the token URL once (so it holds
the cookie). Engines are the sqlite engine in a temp folder. What the tests
share besides fixtures is in ``app_support``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from app_support import NOTES, PORT, MakeClient, RecordingEngine, UiClient, sqlite_engine

import tinymemory as tm
from tinymemory.testing import Cli, Sandbox
from tinymemory_ui import Guard, create_app


@pytest.fixture(scope="session")
def ui_notes_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sqlite file holding the README's notes, ingested by `tinymemory ingest` as the README
    runs it (in a sandbox of its own)."""
    sandbox = Sandbox(tmp_path_factory.mktemp("notes-home"))
    done = Cli(sandbox).invoke("ingest", str(NOTES))
    assert done.exit_code == 0, done.stderr
    assert "7 stored, 0 replayed, 0 skipped" in done.stdout, done.stdout
    return sandbox.data_home / "tinymemory" / "memory.db"


@pytest.fixture
def app_notes(ui_notes_file: Path, tmp_path: Path) -> Iterator[tm.MemoryEngine]:
    """The notes' memory, a copy of its own for the test."""
    copy = tmp_path / "notes.db"
    shutil.copyfile(ui_notes_file, copy)
    with sqlite_engine(copy) as engine:
        yield engine


@pytest.fixture
def app_engine(tmp_path: Path) -> Iterator[tm.MemoryEngine]:
    """An empty sqlite memory for the test."""
    with sqlite_engine(tmp_path / "memory.db") as engine:
        yield engine


@pytest.fixture
def app_recorder(app_engine: tm.MemoryEngine) -> RecordingEngine:
    """The empty memory behind a recorder of the operations asked of it."""
    return RecordingEngine(app_engine)


@pytest.fixture
def ui_client() -> MakeClient:
    """A logged-in client of the app over an engine (``writes``: as ``--write``)."""

    def make(engine: tm.MemoryEngine, *, writes: bool = False, **options: Any) -> UiClient:
        guard = Guard(port=PORT, writes=writes)
        app = create_app(engine, guard, **options)
        return UiClient(app.test_client(), guard).log_in()

    return make
