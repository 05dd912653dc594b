"""``tinymemory import-v1``: the report, the checkpoint file, resuming, dry runs, clean errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from legacy_workspaces import FailingEngine, LegacyBuilder, mixed_workspace, snapshot

import tinymemory as tm
from tinymemory.plugin import EngineWrapper
from tinymemory_legacy_import import Checkpoint, LegacyWorkspace, commands, migrate


class Kept(EngineWrapper):
    """The shared engine, left open when a command closes what it built."""

    def close(self) -> None:
        pass


class Configured:
    """Stands in for ``MemoryConfig``: ``load().build()`` hands out ``engine``, counting builds."""

    def __init__(self) -> None:
        self.engine: tm.MemoryEngine = Kept(tm.build_engine("reference"))
        self.builds = 0

    def load(self) -> Configured:
        return self

    def build(self, credential: object) -> tm.MemoryEngine:
        self.builds += 1
        return self.engine


@pytest.fixture
def configured(monkeypatch: pytest.MonkeyPatch) -> Configured:
    config = Configured()
    monkeypatch.setattr(commands, "MemoryConfig", config)
    return config


@pytest.fixture(scope="module")
def workspace_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return mixed_workspace(tmp_path_factory.mktemp("cli") / "ws", scale=25)  # 250 items


@pytest.fixture(scope="module")
def uninterrupted(workspace_path: Path) -> dict[str, str]:
    with LegacyWorkspace.open(workspace_path) as workspace, tm.build_engine("reference") as engine:
        migrate(engine, workspace)
        return snapshot(engine)


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(commands.import_v1_command, [str(arg) for arg in args])


def test_one_item_is_reported_as_one_item(configured: Configured, tmp_path: Path) -> None:
    builder = LegacyBuilder(tmp_path / "single")
    builder.doc("d1", "global", "the only document")
    builder.close()
    result = run(tmp_path / "single")
    assert result.exit_code == 0, result.output
    assert "imported 1 item in 1 batch: 1 stored, 0 replayed, 0 skipped\n" in result.stdout


def test_it_imports_and_reports_per_section(
    workspace_path: Path, configured: Configured, tmp_path: Path, uninterrupted: dict[str, str]
) -> None:
    checkpoint = tmp_path / "import.checkpoint"
    result = run(workspace_path, "--checkpoint", checkpoint)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "section          items  skipped\n"
        "documents           50        0\n"
        "chunks              50        0\n"
        "conversations       50        0\n"
        "learnings           75        0\n"
        "profile             25        0\n"
        "imported 250 items in 3 batches: 250 stored, 0 replayed, 0 skipped\n"
        f"checkpoint: {checkpoint}\n"
    )
    saved = json.loads(checkpoint.read_text(encoding="utf-8"))
    with LegacyWorkspace.open(workspace_path) as workspace:
        final = list(workspace.items())[-1].checkpoint
        assert saved == {"workspace": workspace.path, "checkpoint": final.to_data()}
    assert snapshot(configured.engine) == uninterrupted
    again = run(workspace_path, "--checkpoint", checkpoint)
    assert "imported 0 items in 0 batches" in again.stdout  # resumed from the end: nothing left
    rerun = run(workspace_path)  # no checkpoint: everything again, as replays
    assert "imported 250 items in 3 batches: 0 stored, 250 replayed" in rerun.stdout


def test_a_failed_batch_leaves_the_checkpoint_of_the_last_one_and_a_rerun_resumes(
    workspace_path: Path, configured: Configured, tmp_path: Path, uninterrupted: dict[str, str]
) -> None:
    healthy = configured.engine
    configured.engine = FailingEngine(healthy, fail_on=3, partly=10)
    checkpoint = tmp_path / "cp.json"
    failed = run(workspace_path, "--checkpoint", checkpoint)
    assert failed.exit_code == 1
    assert (
        "tinymemory: engine error: store_many failed on batch 3 (engine error: the disk is full)"
        in failed.stderr
    )
    assert f"run the same command again to resume from `{checkpoint}`" in failed.stderr
    with LegacyWorkspace.open(workspace_path) as workspace:
        committed = list(workspace.items())[199].checkpoint
    assert Checkpoint.from_data(json.loads(checkpoint.read_text())["checkpoint"]) == committed
    assert not list(tmp_path.glob(".cp.json.*"))  # no temporary file left beside it
    configured.engine = healthy
    resumed = run(workspace_path, "--checkpoint", checkpoint)
    assert resumed.exit_code == 0, resumed.output
    assert "imported 50 items in 1 batch: 40 stored, 10 replayed" in resumed.stdout
    assert snapshot(healthy) == uninterrupted


def test_without_a_checkpoint_file_a_failure_says_how_to_resume(
    workspace_path: Path, configured: Configured
) -> None:
    configured.engine = FailingEngine(configured.engine, fail_on=1)
    failed = run(workspace_path)
    assert failed.exit_code == 1
    assert "pass --checkpoint FILE to resume" in failed.stderr


def test_a_dry_run_counts_and_builds_no_engine(
    workspace_path: Path, configured: Configured, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "cp.json"
    result = run(workspace_path, "--dry-run", "--checkpoint", checkpoint)
    assert result.exit_code == 0, result.output
    assert "learnings           75        0\n" in result.stdout
    assert result.stdout.endswith("dry run: 250 items in the workspace, nothing stored\n")
    assert configured.builds == 0
    assert not checkpoint.exists()
    as_json = json.loads(run(workspace_path, "--dry-run", "--json").stdout)
    assert as_json == {
        "dry_run": True,
        "items": 250,
        "sections": {
            "documents": 50,
            "chunks": 50,
            "conversations": 50,
            "learnings": 75,
            "profile": 25,
        },
    }


def test_a_dry_run_from_a_checkpoint_counts_what_is_left(
    workspace_path: Path, configured: Configured, tmp_path: Path
) -> None:
    checkpoint = tmp_path / "cp.json"
    configured.engine = FailingEngine(configured.engine, fail_on=2)
    run(workspace_path, "--checkpoint", checkpoint)
    result = run(workspace_path, "--dry-run", "--checkpoint", checkpoint)
    assert result.stdout.endswith("dry run: 150 items after the checkpoint, nothing stored\n")


def test_the_json_report(workspace_path: Path, configured: Configured) -> None:
    report = json.loads(run(workspace_path, "--json").stdout)
    assert (report["stored"], report["replayed"], report["batches"], report["skipped"]) == (
        250,
        0,
        3,
        [],
    )
    assert report["sections"]["profile"] == 25
    assert Checkpoint.from_data(report["checkpoint"]).profile == "f00024a"


def test_a_progress_bar_is_drawn_only_on_a_terminal(
    workspace_path: Path, configured: Configured, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "importing" not in run(workspace_path).stderr
    monkeypatch.setattr(commands, "_stderr_is_terminal", lambda: True)
    assert "importing" in run(workspace_path).stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{oops", "is not json"),
        ('{"workspace": "/elsewhere", "checkpoint": {}}', "belongs to the workspace `/elsewhere`"),
        ("[]", "holds no checkpoint"),
        ('{"workspace": "%s", "checkpoint": {"documents": 3}}', "`documents` must be a string"),
    ],
)
def test_a_bad_checkpoint_file_is_refused_before_anything_is_stored(
    workspace_path: Path, configured: Configured, tmp_path: Path, content: str, message: str
) -> None:
    checkpoint = tmp_path / "cp.json"
    checkpoint.write_text(content.replace("%s", str(workspace_path.resolve())), encoding="utf-8")
    result = run(workspace_path, "--checkpoint", checkpoint)
    assert result.exit_code == 1
    assert result.stderr.startswith("tinymemory: invalid request: checkpoint file")
    assert message in result.stderr
    assert configured.builds == 0


def test_a_checkpoint_file_in_no_folder_is_refused_before_anything_is_stored(
    workspace_path: Path, configured: Configured, tmp_path: Path
) -> None:
    result = run(workspace_path, "--checkpoint", tmp_path / "missing" / "cp.json")
    assert result.exit_code == 1
    assert "its folder does not exist" in result.stderr
    assert configured.builds == 0


def test_what_is_no_workspace_is_a_clean_error(tmp_path: Path, configured: Configured) -> None:
    missing = run(tmp_path / "nowhere")
    assert (missing.exit_code, missing.stderr) == (
        1,
        f"tinymemory: not found: `{tmp_path / 'nowhere'}` does not exist\n",
    )
    empty = run(tmp_path)
    assert empty.exit_code == 1
    assert "is not a v1 workspace: neither memory/memory.db" in empty.stderr
    assert configured.builds == 0


@pytest.fixture
def new_user(tmp_path: Path) -> Iterator[dict[str, str]]:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    env.pop("TINYMEMORY_CONFIG", None)
    env["TINYMEMORY_ENGINE"] = "reference"
    return env


def test_the_installed_command_has_it(
    workspace_path: Path, tmp_path: Path, new_user: dict[str, Any]
) -> None:
    command = Path(sys.executable).parent / "tinymemory"
    checkpoint = tmp_path / "cp.json"
    result = subprocess.run(
        [str(command), "import-v1", str(workspace_path), "--checkpoint", str(checkpoint)],
        env=new_user,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "imported 250 items in 3 batches: 250 stored, 0 replayed, 0 skipped\n" in result.stdout
    assert json.loads(checkpoint.read_text())["checkpoint"]["profile"] == "f00024a"
