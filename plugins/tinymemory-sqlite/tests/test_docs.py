"""The plugin's README, and the README's command-line session, run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tinymemory.testing import Example, examples

if TYPE_CHECKING:
    from conftest import RunCommand

PLUGIN = Path(__file__).resolve().parents[1]
#: The repository's README, whose session runs on this engine (the default one).
ROOT = PLUGIN.parents[1]
PLUGIN_README = PLUGIN / "README.md"
SESSION = re.compile(r"```console\n(.*?)```", re.S)


@pytest.mark.parametrize("example", examples(PLUGIN_README), ids=lambda example: example.name)
def test_readme_example_runs_and_prints_what_it_shows(example: Example) -> None:
    printed = example.run()
    if example.expected is not None:
        assert printed == example.expected


def _sessions() -> list[str]:
    """The README's console blocks of `tinymemory` commands only.

    The first screen's set-up and test commands (a venv, pip, tox) are run by
    the core's newcomer tests, in a fresh virtual environment.
    """
    blocks = SESSION.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    return [
        block
        for block in blocks
        if all(
            line.startswith("$ tinymemory ") for line in block.splitlines() if line.startswith("$")
        )
    ]


def test_the_readme_shows_a_session() -> None:
    assert any("$ tinymemory store" in session for session in _sessions())


def test_the_readme_session_runs_with_no_configuration(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    """Each `$ tinymemory ...` line is a new process over the default database.

    Each prints what the README shows.
    """
    for session in _sessions():
        for line, expected in _steps(session):
            result = tinymemory_command(*shlex.split(line)[1:])
            assert result.exit_code == 0, result.stderr
            assert result.stdout == expected, line
    assert (tmp_path / "data" / "tinymemory" / "memory.db").exists()


def _steps(session: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` for each ``$ `` line of a console block."""
    steps: list[tuple[str, str]] = []
    for line in session.splitlines(keepends=True):
        if line.startswith("$ "):
            steps.append((line[2:].strip(), ""))
        elif steps:
            steps[-1] = (steps[-1][0], steps[-1][1] + line)
    return steps
