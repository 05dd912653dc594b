"""Shared test set-up: pytester (pytest in a subprocess), built-in plugins only, a configuration."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from distributions import install_ingesting_plugin

from tinymemory._plugin_manager import (
    BUILTIN_PLUGINS,
    PLUGINS_VARIABLE,
    plugin_manager,
    reset_plugins,
)

pytest_plugins = ["pytester"]

#: Slow, and run by the `newcomer` tox env on its own: fresh virtual environments.
collect_ignore = ["newcomer"]


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


@pytest.fixture
def ingesting(site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The installed ``ingesting`` plugin (tests/distributions.py), its engine configured.

    Only it and the built-ins load, chosen with ``TINYMEMORY_PLUGINS``; the
    configuration file names its engine ``shared``. Yields the plugin's module,
    whose ``STORED`` holds what every engine built from it stored.
    """
    name = install_ingesting_plugin(site)
    file = site / "config.toml"
    file.write_text('engine = "shared"\n', encoding="utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(file))
    monkeypatch.setenv(PLUGINS_VARIABLE, ",".join([*BUILTIN_PLUGINS, name]))
    for variable in ("TINYMEMORY_ENGINE", "TINYMEMORY_ENDPOINT", "TINYMEMORY_API_KEY"):
        monkeypatch.delenv(variable, raising=False)
    reset_plugins()
    plugin_manager()
    yield importlib.import_module("ingesting_mod")
    reset_plugins()
