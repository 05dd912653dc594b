"""Shared fixtures: a fresh database file per test, never the user's own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tinymemory_sqlite import PATH_VARIABLE, SqliteEngine


@pytest.fixture(autouse=True)
def _private_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point the default database into the test's folder, so no test can reach a real one."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv(PATH_VARIABLE, raising=False)


#: Runs the installed ``tinymemory`` command with arguments, in a process of its own.
RunCommand = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def new_user(tmp_path: Path) -> dict[str, str]:
    """The environment of a new user: a fresh home and data folder, no configuration."""
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    for name in ("TINYMEMORY_CONFIG", "TINYMEMORY_ENGINE", PATH_VARIABLE):
        env.pop(name, None)
    return env


@pytest.fixture
def tinymemory_command(tmp_path: Path, new_user: dict[str, str]) -> RunCommand:
    """``tinymemory`` as a new user runs it (see ``new_user``).

    It runs in ``tmp_path``, so files a command writes land there.
    """
    command = Path(sys.executable).parent / "tinymemory"
    assert command.exists(), "the tinymemory command is installed with the core"
    env = new_user

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


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def engine(db_path: Path) -> Iterator[SqliteEngine]:
    with SqliteEngine(db_path) as opened:
        yield opened  # type: ignore[misc]
