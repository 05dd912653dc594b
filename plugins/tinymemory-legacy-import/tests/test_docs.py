"""docs/legacy-import.md: its python examples and its command-line session, run as written."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from tinymemory.testing import examples
from tinymemory_legacy_import.commands import import_v1_command

PLUGIN = Path(__file__).resolve().parents[1]
#: The repository's page of the plugin.
PAGE = PLUGIN.parents[1] / "docs" / "legacy-import.md"
SESSION = re.compile(r"```console\n(.*?)```", re.S)


def test_the_page_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The examples build on one another (the first makes the workspace), so they run in order."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TINYMEMORY_ENGINE", "reference")
    found = examples(PAGE, language="py")
    assert len(found) == 4
    for example in found:
        printed = example.run()
        if example.expected is not None:
            assert printed == example.expected
    sessions = SESSION.findall(PAGE.read_text(encoding="utf-8"))
    assert sessions
    for session in sessions:
        command, *shown = session.splitlines(keepends=True)
        assert command.startswith("$ tinymemory import-v1 ")
        result = CliRunner().invoke(import_v1_command, shlex.split(command)[3:])
        assert result.exit_code == 0, result.output
        assert result.stdout == "".join(shown)


def test_the_readme_points_at_the_page() -> None:
    readme = (PLUGIN / "README.md").read_text()
    assert "docs/legacy-import.md" in readme
    assert "tinymemory import-v1" in readme
