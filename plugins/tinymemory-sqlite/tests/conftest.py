"""Shared fixtures: a sandbox per test (never the user's own data or configuration), a fresh
database file, and the installed ``tinymemory`` command run as a new user."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import pytest

from tinymemory.testing import Cli, CliResult, Sandbox
from tinymemory_sqlite import PATH_VARIABLE, SqliteEngine

#: Runs the installed ``tinymemory`` command with arguments, in a process of its own.
RunCommand = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """An isolated home, configuration and data folder in the test's folder, so no test can
    reach a real database: the default one is ``tmp_path / "data" / "tinymemory"``."""
    with Sandbox(tmp_path, extra={PATH_VARIABLE: None}).enter() as entered:
        yield entered


@pytest.fixture
def new_user(sandbox: Sandbox) -> dict[str, str]:
    """The environment of a new user, for a child process: the sandbox's."""
    return sandbox.env


@pytest.fixture
def tinymemory_command(sandbox: Sandbox, new_user: dict[str, str]) -> RunCommand:
    """The installed ``tinymemory`` as a new user runs it (``new_user``), in ``tmp_path``."""
    cli = Cli(sandbox)
    return partial(cli.run, env=new_user)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def engine(db_path: Path) -> Iterator[SqliteEngine]:
    with SqliteEngine(db_path) as opened:
        yield opened  # type: ignore[misc]
