"""Shared fixtures: this plugin's converters alone, and a sandbox (never the user's data)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tinymemory.testing import Cli, CliResult, Sandbox, only_plugins

#: The files LibreOffice saved (see README), each beside its expected text.
OFFICE_SUITE = Path(__file__).resolve().parent / "office_suite"

RunCommand = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """The built-in plugins and this one (and sqlite, for storing), in a sandbox."""
    plugins = ("tinymemory.reference", "documents", "sqlite")
    with Sandbox(tmp_path).enter() as entered, only_plugins(*plugins):
        yield entered


@pytest.fixture
def tinymemory_command(sandbox: Sandbox) -> RunCommand:
    """The installed ``tinymemory`` command, run in the sandbox as a new user, with the
    plugins this test loads."""
    cli = Cli(sandbox)

    def run(*args: str) -> CliResult:
        return cli.run(*args, env=dict(os.environ))

    return run
