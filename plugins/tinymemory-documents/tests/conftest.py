"""Shared fixtures: this plugin's converters alone, and a private data folder for commands."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tinymemory._plugin_manager import reset_plugins

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # fixture_files, for the tests and the benchmark alike

#: The files LibreOffice saved (see README), each beside its expected text.
OFFICE_SUITE = HERE / "office_suite"

RunCommand = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(autouse=True)
def _only_this_plugin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """The built-in plugins and this one (and sqlite, for storing), never the user's data."""
    monkeypatch.setenv("TINYMEMORY_PLUGINS", "tinymemory.reference,documents,sqlite")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("TINYMEMORY_CONFIG", "TINYMEMORY_ENGINE"):
        monkeypatch.delenv(name, raising=False)
    reset_plugins()
    yield
    reset_plugins()


@pytest.fixture
def tinymemory_command(tmp_path: Path) -> RunCommand:
    """The installed ``tinymemory`` command, run in ``tmp_path`` as a new user."""
    command = Path(sys.executable).parent / "tinymemory"
    env = {**os.environ, "HOME": str(tmp_path)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(command), *args],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    return run
