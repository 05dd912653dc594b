"""The app's fixtures: engines (the README's notes ingested, or a fresh one) and test clients.

A client speaks to the app as a browser would to ``tinymemory ui``: with
``Host: 127.0.0.1:<port>``, after opening the token URL once (so it holds
the cookie). Engines are the sqlite engine in a temp folder.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

import tinymemory as tm
from tinymemory.plugin import EngineWrapper
from tinymemory.testing import Cli, Sandbox
from tinymemory_ui import Guard, create_app

REPO = Path(__file__).resolve().parents[3]
#: The README's example notes, ingested as its main job does.
NOTES = REPO / "docs" / "examples" / "notes"
#: The port the clients say they reach (nothing listens: the test client calls the app).
PORT = 38517
#: The README's question and what its answer holds.
QUESTION = "What is the travel budget?"
BUDGET = "1,200 EUR"


def sqlite_engine(path: Path) -> tm.MemoryEngine:
    """The sqlite engine on the file ``path``."""
    return tm.build_engine("sqlite", tm.EngineSettings(options={"path": str(path)}))


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


class RecordingEngine(EngineWrapper):
    """An engine that records every operation it is asked (by its ``handle_*`` name)."""

    def __init__(self, inner: tm.MemoryEngine) -> None:
        super().__init__(inner)
        self.calls: list[str] = []

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("handle_"):
            self.calls.append(name)
        return super().__getattribute__(name)


@pytest.fixture
def app_recorder(app_engine: tm.MemoryEngine) -> RecordingEngine:
    """The empty memory behind a recorder of the operations asked of it."""
    return RecordingEngine(app_engine)


class UiClient:
    """A Flask test client with the guard it passes: ``Host`` 127.0.0.1:PORT, and (once
    :meth:`log_in` ran) the token cookie."""

    def __init__(self, client: FlaskClient, guard: Guard) -> None:
        self.client = client
        self.guard = guard
        self.base_url = f"http://127.0.0.1:{guard.port}"

    def log_in(self) -> UiClient:
        """Open the token URL, as the person does once; the cookie is held from then on."""
        answer = self.get(f"/?token={self.guard.token}")
        assert answer.status_code == 303, answer.text
        return self

    def get(self, path: str, **kwargs: Any) -> Any:
        """``GET path``."""
        return self.client.get(path, base_url=self.base_url, **kwargs)

    def post(self, path: str, data: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        """``POST path`` with the form ``data`` and the run's CSRF value."""
        form = {"csrf": self.guard.csrf, **(data or {})}
        return self.client.post(path, data=form, base_url=self.base_url, **kwargs)


MakeClient = Callable[..., UiClient]


@pytest.fixture
def ui_client() -> MakeClient:
    """A logged-in client of the app over an engine (``writes``: as ``--write``)."""

    def make(engine: tm.MemoryEngine, *, writes: bool = False, **options: Any) -> UiClient:
        guard = Guard(port=PORT, writes=writes)
        app = create_app(engine, guard, **options)
        return UiClient(app.test_client(), guard).log_in()

    return make


def ids_in(html: str, element: str) -> list[str]:
    """The whole ids the item links inside ``<element id=...>`` point at, in order."""
    opened = re.search(rf'<(\w+) id="{element}">', html)
    assert opened is not None, f"no #{element}"
    tag = opened.group(1)
    body = html[opened.end() : html.index(f"</{tag}>", opened.end())]
    return re.findall(r'class="item-link" href="/items/([0-9a-f]{40})"', body)


def store_learnings(engine: tm.MemoryEngine, texts: list[str], **meta: Any) -> list[str]:
    """Store each text as a learning with ``meta``; their ids."""
    items = [tm.Learning(text=text, kind="fact", meta=tm.MemoryMeta(**meta)) for text in texts]
    return [receipt.id for receipt in engine.store_many(items)]
