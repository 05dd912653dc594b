"""Shared set-up: the installed safety plugin over one shared engine, in a sandbox.

Helpers live in modules of their own names (``scrub_corpus``, ``shared_engine``),
not here, so these tests can be collected beside the core's own conftest.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from shared_engine import SharedEnginePlugin

from tinymemory.testing import Cli, Sandbox, only_plugins, registered
from tinymemory_safety.policy import SAFETY_VARIABLES


def enter(sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """This process in ``sandbox`` through ``monkeypatch``, so a test's own ``setenv`` is
    undone in order with the sandbox's (the safety variables cleared besides)."""
    changes = {**sandbox.changes(), **dict.fromkeys(SAFETY_VARIABLES)}
    for name, value in changes.items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    return sandbox


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """A sandbox whose configuration names the engine ``shared``, which a test plugin offers."""
    config = tmp_path / "config.toml"
    config.write_text('engine = "shared"\n', encoding="utf-8")
    return enter(Sandbox(tmp_path / "sandbox", {"TINYMEMORY_CONFIG": str(config)}), monkeypatch)


@pytest.fixture
def installed(sandbox: Sandbox) -> Iterator[SharedEnginePlugin]:
    """The installed safety plugin (its entry point) and the built-ins, nothing else, and the
    engine ``shared``: the yielded plugin holds what every store path left in it."""
    shared = SharedEnginePlugin()
    with only_plugins("tinymemory.reference", "safety"), registered(shared, "shared-test-engine"):
        yield shared


@pytest.fixture
def cli(sandbox: Sandbox) -> Cli:
    """The ``tinymemory`` command in this process, with the plugins the test loads."""
    return Cli(sandbox)
