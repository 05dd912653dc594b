"""Migrating into an engine: batches, reports, failures, and resuming to exactly the same items."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from legacy_workspaces import FailingEngine, LegacyBuilder, mixed_workspace, snapshot, stored_items

import tinymemory as tm
from tinymemory_legacy_import import (
    Checkpoint,
    LegacyReadError,
    LegacyWorkspace,
    MigrationFailed,
    MigrationReport,
    migrate,
    migrate_with,
)


@pytest.fixture
def documents_250(tmp_path: Path) -> Iterator[LegacyWorkspace]:
    builder = LegacyBuilder(tmp_path / "ws")
    for number in range(250):
        builder.doc(f"d{number:03d}", "notes", f"document {number}")
    builder.close()
    with LegacyWorkspace.open(tmp_path / "ws") as workspace:
        yield workspace


def test_250_documents_take_three_batches_and_a_rerun_replays(
    documents_250: LegacyWorkspace, engine: tm.MemoryEngine
) -> None:
    seen: list[MigrationReport] = []
    report = migrate_with(engine, documents_250, None, seen.append)
    assert (report.stored, report.replayed, report.batches) == (250, 0, 3)
    assert [r.checkpoint.documents for r in seen] == ["d099", "d199", "d249"]
    assert [r.stored for r in seen] == [100, 200, 250]
    assert report.checkpoint == Checkpoint(documents="d249")
    assert dict(report.sections)["documents"] == 250
    again = migrate(engine, documents_250)
    assert (again.stored, again.replayed, again.batches) == (0, 250, 3)
    assert len(stored_items(engine)) == 250


def test_a_failed_batch_carries_the_last_committed_checkpoint_and_resumes(
    documents_250: LegacyWorkspace, engine: tm.MemoryEngine
) -> None:
    failing = FailingEngine(engine, fail_on=2, partly=40)
    with pytest.raises(MigrationFailed, match=r"batch 2.*the disk is full") as raised:
        migrate(failing, documents_250)
    assert isinstance(raised.value, tm.EngineError)
    assert raised.value.checkpoint == Checkpoint(documents="d099")
    assert raised.value.cause.message == "the disk is full"
    resumed = migrate(engine, documents_250, raised.value.checkpoint)
    assert (resumed.stored, resumed.replayed, resumed.batches) == (110, 40, 2)
    assert len(stored_items(engine)) == 250


def test_a_failure_on_the_first_batch_carries_the_start_or_from(
    documents_250: LegacyWorkspace, engine: tm.MemoryEngine
) -> None:
    with pytest.raises(MigrationFailed) as raised:
        migrate(FailingEngine(engine, fail_on=1), documents_250)
    assert raised.value.checkpoint == Checkpoint()
    start = Checkpoint(documents="d199")
    with pytest.raises(MigrationFailed) as raised:
        migrate(FailingEngine(engine, fail_on=1), documents_250, start)
    assert raised.value.checkpoint == start


def test_an_empty_workspace_reports_zeros_without_calling_the_engine(
    tmp_path: Path, engine: tm.MemoryEngine
) -> None:
    LegacyBuilder(tmp_path / "ws", chunks=True).close()
    never = FailingEngine(engine, fail_on=1)
    calls: list[MigrationReport] = []
    with LegacyWorkspace.open(tmp_path / "ws") as workspace:
        report = migrate_with(never, workspace, None, calls.append)
        assert (report.stored, report.replayed, report.batches, report.checkpoint) == (
            0,
            0,
            0,
            Checkpoint(),
        )
        start = Checkpoint(profile="zz")
        assert migrate(never, workspace, start).checkpoint == start
    assert never.calls == []
    assert calls == []


def test_a_read_failure_is_raised_as_is_and_its_batch_is_not_sent(
    tmp_path: Path, engine: tm.MemoryEngine
) -> None:
    builder = LegacyBuilder(tmp_path / "ws")
    for number in range(150):
        builder.doc(
            f"d{number:03d}",
            "notes",
            f"document {number}",
            updated_at="yesterday" if number == 120 else 1.0,
        )
    builder.close()
    committed: list[Checkpoint] = []
    with LegacyWorkspace.open(tmp_path / "ws") as workspace, pytest.raises(LegacyReadError):
        migrate_with(engine, workspace, None, lambda report: committed.append(report.checkpoint))
    assert committed == [Checkpoint(documents="d099")]
    assert len(stored_items(engine)) == 100


def test_an_item_the_contract_refuses_is_skipped_and_reported(
    builder: LegacyBuilder, engine: tm.MemoryEngine
) -> None:
    builder.doc("d1", "notes", "\u200b")  # not blank to v1, but a blank document to the contract
    builder.doc("d2", "notes", "fine")
    builder.commit()
    with LegacyWorkspace.open(builder.root) as workspace:
        report = migrate(engine, workspace)
    assert (report.stored, report.batches) == (1, 1)
    assert [(s.section, s.legacy_id) for s in report.skipped] == [("documents", "memory_docs:d1")]
    assert "empty" in report.skipped[0].reason


def test_arguments_are_checked_before_anything_is_read(
    documents_250: LegacyWorkspace, engine: tm.MemoryEngine
) -> None:
    with pytest.raises(tm.InvalidRequest, match="`engine` must be a MemoryEngine"):
        migrate("sqlite", documents_250)  # type: ignore[arg-type]
    with pytest.raises(tm.InvalidRequest, match="`workspace` must be a LegacyWorkspace"):
        migrate(engine, "/tmp/ws")  # type: ignore[arg-type]
    with pytest.raises(tm.InvalidRequest, match="`from_` must be a Checkpoint"):
        migrate(engine, documents_250, {})  # type: ignore[arg-type]
    with pytest.raises(tm.InvalidRequest, match="`on_batch` must be callable"):
        migrate_with(engine, documents_250, None, 3)  # type: ignore[arg-type]
    assert stored_items(engine) == {}


# --- interrupted at any batch, resumed: exactly the items of an uninterrupted run ----------------

MIXED_SCALE = 65  # 650 items in every section: 7 batches, the last one partial


@pytest.fixture(scope="module")
def mixed(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[LegacyWorkspace, dict[str, str]]]:
    root = mixed_workspace(tmp_path_factory.mktemp("mixed") / "ws", scale=MIXED_SCALE)
    with LegacyWorkspace.open(root) as workspace, tm.build_engine("reference") as engine:
        report = migrate(engine, workspace)
        assert (report.stored, report.batches) == (650, 7)
        assert dict(report.sections) == {
            "documents": 130,
            "chunks": 130,
            "conversations": 130,
            "learnings": 195,
            "profile": 65,
        }
        yield workspace, snapshot(engine)


@pytest.mark.parametrize("fail_on", range(1, 8))
@pytest.mark.parametrize("partly", [0, 37])
def test_interrupted_at_any_batch_and_resumed_ends_with_the_same_items(
    mixed: tuple[LegacyWorkspace, dict[str, str]], fail_on: int, partly: int
) -> None:
    workspace, uninterrupted = mixed
    with tm.build_engine("reference") as engine:
        committed: list[Checkpoint] = []
        with pytest.raises(MigrationFailed) as raised:
            migrate_with(
                FailingEngine(engine, fail_on, partly),
                workspace,
                None,
                lambda report: committed.append(report.checkpoint),
            )
        assert raised.value.checkpoint == (committed[-1] if committed else Checkpoint())
        assert len(committed) == fail_on - 1
        before = len(stored_items(engine))
        assert before == 100 * (fail_on - 1) + min(partly, 650 - 100 * (fail_on - 1))
        resumed = migrate(engine, workspace, raised.value.checkpoint)
        assert resumed.replayed == min(partly, 650 - 100 * (fail_on - 1))
        assert before + resumed.stored == 650
        assert snapshot(engine) == uninterrupted


def test_five_thousand_items_interrupted_twice_and_resumed(tmp_path: Path) -> None:
    root = mixed_workspace(tmp_path / "ws", scale=520)
    with LegacyWorkspace.open(root) as workspace:
        with tm.build_engine("reference") as engine:
            whole = migrate(engine, workspace)
            uninterrupted = snapshot(engine)
        assert (whole.stored, whole.batches) == (5200, 52)
        with tm.build_engine("reference") as engine:
            checkpoint = None
            for fail_on in (26, 1):
                with pytest.raises(MigrationFailed) as raised:
                    migrate(FailingEngine(engine, fail_on, partly=50), workspace, checkpoint)
                checkpoint = raised.value.checkpoint
            last = migrate(engine, workspace, checkpoint)
            assert last.batches == 27
            assert snapshot(engine) == uninterrupted
