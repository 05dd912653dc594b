"""The whole conformance suite against the engine, on a file and in memory."""

from __future__ import annotations

import itertools
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tinymemory import MemoryEngine
from tinymemory.conformance import CHECK_NAMES, ConformanceTests
from tinymemory_sqlite import SqliteEngine

if TYPE_CHECKING:
    from conftest import RunCommand


class TestOnAFile(ConformanceTests):
    """Each engine gets a file of its own, as a fresh install would."""

    profile = "ci"

    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path
        self.numbers = itertools.count()

    def make_engine(self) -> MemoryEngine:
        return SqliteEngine(self.folder / f"memory-{next(self.numbers)}.db")

    def test_every_file_is_intact_after_the_suite(self) -> None:
        """After a run of the state machine, every file passes SQLite's and FTS5's own checks."""
        self.test_matches_reference()  # type: ignore[attr-defined]
        files = sorted(self.folder.glob("memory-*.db"))
        assert files
        for file in files:
            with sqlite3.connect(file) as connection:
                assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                connection.execute("INSERT INTO pieces_fts(pieces_fts) VALUES ('integrity-check')")


class TestInMemory(ConformanceTests):
    """``:memory:`` serves the same contract."""

    profile = "ci"

    def make_engine(self) -> MemoryEngine:
        return SqliteEngine(":memory:")


@pytest.fixture
def temporary(tmp_path: Path, new_user: dict[str, str]) -> Path:
    """The new user's temporary folder (``TMPDIR``), empty at first."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    new_user["TMPDIR"] = str(folder)
    return folder


def _pytest(env: dict[str, str], cwd: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """pytest in a process of its own, as the user ``env`` describes."""
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *options],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _nothing_written(home: Path, temporary: Path) -> None:
    """No database under the home, nothing in the working folder, no temporary folder left."""
    assert not list(home.rglob("memory.db"))
    assert not (home / ".hypothesis").exists()
    assert [path.name for path in temporary.iterdir()] == ["tinymemory-conformance-hypothesis"]


def test_the_command_with_nothing_configured_leaves_the_users_memory_alone(
    tinymemory_command: RunCommand, tmp_path: Path, temporary: Path
) -> None:
    # The whole suite in one process: the timeout only guards against a hang (the run takes
    # about 40 s on an idle 2-core machine, several times that beside CI's other envs).
    done = tinymemory_command("conformance", "sqlite", "--profile", "ci", timeout=600)
    assert done.exit_code == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == (
        "engine `sqlite` with the engine's throwaway test settings, "
        "in a temporary folder removed afterwards"
    )
    _nothing_written(tmp_path, temporary)


def test_the_pytest_option_with_nothing_configured_leaves_the_users_memory_alone(
    tmp_path: Path, new_user: dict[str, str], temporary: Path
) -> None:
    done = _pytest(new_user, tmp_path, "--tinymemory-engine=sqlite", "--tinymemory-profile=ci")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "tinymemory conformance: engine `sqlite`, ci profile, the engine's throwaway test "
        "settings, in a temporary folder removed afterwards"
    ) in done.stdout
    _nothing_written(tmp_path, temporary)


def test_the_docs_base_class_example_runs_as_written(
    tmp_path: Path, new_user: dict[str, str]
) -> None:
    page = Path(__file__).resolve().parents[3] / "docs" / "conformance.md"
    blocks = re.findall(r"```py\n(.*?)```", page.read_text(encoding="utf-8"), re.S)
    (example,) = [block for block in blocks if "(ConformanceTests)" in block]
    (tmp_path / "test_mine.py").write_text(example.replace('"myengine"', '"sqlite"'))
    done = _pytest(new_user, tmp_path, "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(CHECK_NAMES)} passed" in done.stdout
    assert not list(tmp_path.rglob("memory.db"))
