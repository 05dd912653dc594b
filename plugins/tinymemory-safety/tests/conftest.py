"""Shared set-up: the installed safety plugin over one shared engine.

Helpers live in modules of their own names (``scrub_corpus``, ``shared_engine``),
not here, so these tests can be collected beside the core's own conftest.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from shared_engine import SharedEnginePlugin

from tinymemory._plugin_manager import PLUGINS_VARIABLE, plugin_manager, reset_plugins
from tinymemory_safety.policy import SAFETY_VARIABLES


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
    for variable in SAFETY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    reset_plugins()
    shared = SharedEnginePlugin()
    plugin_manager().register(shared, name="shared-test-engine")
    yield shared
    reset_plugins()
