"""Shared test set-up: pytester (pytest in a subprocess), built-in plugins only, a configuration."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tinymemory.plugins import BUILTIN_PLUGINS, PLUGINS_VARIABLE, reset_plugins

pytest_plugins = ["pytester"]


@pytest.fixture
def builtin_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Only the built-in plugins, and those the test registers; reset afterwards.

    Installed plugins (say tinymemory-sqlite, or a scrubber) would otherwise
    change what a test sees from one machine to the next. They are turned
    off the way a user turns them off: ``TINYMEMORY_PLUGINS`` names the
    plugins to load.
    """
    monkeypatch.setenv(PLUGINS_VARIABLE, ",".join(BUILTIN_PLUGINS))
    reset_plugins()
    yield
    reset_plugins()


@pytest.fixture
def reference_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the configuration at the reference engine, with nothing from the environment."""
    file = tmp_path / "memory.toml"
    file.write_text('engine = "reference"\n', encoding="utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(file))
    for name in ("TINYMEMORY_ENGINE", "TINYMEMORY_ENDPOINT", "TINYMEMORY_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return file


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on ``sys.path`` to install fake distributions into."""
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for module in [path.stem for path in tmp_path.glob("*.py")]:
        sys.modules.pop(module, None)
