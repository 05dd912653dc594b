"""What the app's tests share besides fixtures: constants, an engine that records calls, a test
client that passes the guard, and small readers of pages.

In a module of its own name (not ``conftest``), so that a test importing it
gets this one whatever other conftest.py the folder's subfolders hold.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

import tinymemory as tm
from tinymemory.plugin import EngineWrapper
from tinymemory_ui import Guard

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


class RecordingEngine(EngineWrapper):
    """An engine that records every operation it is asked (by its ``handle_*`` name)."""

    def __init__(self, inner: tm.MemoryEngine) -> None:
        super().__init__(inner)
        self.calls: list[str] = []

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("handle_"):
            self.calls.append(name)
        return super().__getattribute__(name)


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
