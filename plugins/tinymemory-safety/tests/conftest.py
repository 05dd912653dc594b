"""Shared set-up: the scrub corpus, and the installed safety plugin over one shared engine."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tinymemory as tm
from tinymemory._plugin_manager import PLUGINS_VARIABLE, plugin_manager, reset_plugins
from tinymemory.plugin import EngineFactory, EngineWrapper, hookimpl

#: The scrub corpus (a copy of the shared reference's scrub-cases.json), beside these tests.
CORPUS = Path(__file__).with_name("scrub-cases.json")


def corpus() -> dict[str, Any]:
    """The corpus: ``positives`` (what must vanish) and ``negatives`` (what must stay)."""
    data: dict[str, Any] = json.loads(CORPUS.read_text(encoding="utf-8"))
    return data


class _Shared(EngineWrapper):
    """The shared store as one build gets it: closing a build leaves the store open."""

    def close(self) -> None:
        return


class SharedEnginePlugin:
    """A test plugin offering the engine ``shared``: every build stores into ``stored``."""

    def __init__(self) -> None:
        self.stored = tm.ReferenceEngine()
        self.descriptor = tm.EngineDescriptor(
            id="shared",
            label="Shared",
            description="Every build stores into one reference engine.",
            fetch_modes=[tm.FetchMode.KEYWORD],
        )

    @hookimpl
    def tinymemory_engines(self) -> list[EngineFactory]:
        return [EngineFactory(descriptor=self.descriptor, build=self.build)]

    def build(self, settings: tm.EngineSettings, credential: tm.EngineCredential) -> _Shared:
        return _Shared(self.stored)

    def held(self) -> list[tm.StoreItem]:
        """Every item the shared store holds, as stored."""
        return [exported.item for exported in self.stored.export(tm.ListRequest(limit=100)).items]


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[SharedEnginePlugin]:
    """The installed safety plugin (its entry point) and the built-ins, nothing else.

    The configuration names the engine ``shared``, which a test plugin offers;
    the yielded plugin holds what every store path left in it.
    """
    config = tmp_path / "config.toml"
    config.write_text('engine = "shared"\n', encoding="utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(config))
    monkeypatch.setenv(PLUGINS_VARIABLE, "tinymemory.reference,safety")
    for variable in ("TINYMEMORY_ENGINE", "TINYMEMORY_ENDPOINT", "TINYMEMORY_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    for variable in ("TINYMEMORY_SAFETY_BARE_CARD", "TINYMEMORY_SAFETY_EMAILS"):
        monkeypatch.delenv(variable, raising=False)
    reset_plugins()
    shared = SharedEnginePlugin()
    plugin_manager().register(shared, name="shared-test-engine")
    yield shared
    reset_plugins()
