"""Checkpoints: their JSON form, and resuming from every one of them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from legacy_workspaces import LegacyBuilder, mixed_workspace

import tinymemory as tm
from tinymemory.plugin import to_json
from tinymemory_legacy_import import Checkpoint, ChunkCursor, LegacyWorkspace


def test_the_json_form_omits_unset_sections_and_reads_back() -> None:
    full = Checkpoint(
        documents="d07",
        chunks=ChunkCursor("email", "e1"),
        conversations="t-b",
        learnings="d10",
        profile="f2",
    )
    assert json.loads(full.to_json()) == {
        "documents": "d07",
        "chunks": {"source_kind": "email", "source_id": "e1"},
        "conversations": "t-b",
        "learnings": "d10",
        "profile": "f2",
    }
    assert Checkpoint.from_json(full.to_json()) == full
    assert Checkpoint().to_json() == "{}"
    assert Checkpoint.from_json("{}") == Checkpoint()
    assert Checkpoint(profile="ü").to_json() == '{"profile": "ü"}'


def test_unknown_fields_of_a_later_version_are_ignored() -> None:
    later = '{"documents": "d1", "events": "e9", "lessons": 4, "files": null}'
    assert Checkpoint.from_json(later) == Checkpoint(documents="d1")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json", "not json"),
        ("[]", "a checkpoint is a json object"),
        ('{"documents": 3}', "`documents` must be a string"),
        ('{"chunks": "email"}', "`chunks` must be an object"),
        ('{"chunks": {"source_kind": "email"}}', "`chunks` must be an object"),
    ],
)
def test_what_is_not_a_checkpoint_is_refused(text: str, message: str) -> None:
    with pytest.raises(tm.InvalidRequest, match=message):
        Checkpoint.from_json(text)


def test_items_from_refuses_what_is_not_a_checkpoint(tmp_path: Path) -> None:
    root = mixed_workspace(tmp_path / "ws")
    with LegacyWorkspace.open(root) as workspace:
        with pytest.raises(tm.InvalidRequest, match="must be a Checkpoint"):
            workspace.items_from({"documents": "x"})  # type: ignore[arg-type]
        with pytest.raises(tm.InvalidRequest, match="page_size"):
            workspace.items_from(None, page_size=0)


def _stream(
    workspace: LegacyWorkspace, checkpoint: Checkpoint | None, page: int
) -> list[tuple[str, str]]:
    return [
        (imported.section, to_json(imported.item))
        for imported in workspace.items_from(checkpoint, page_size=page)
    ]


def test_resuming_from_every_checkpoint_yields_exactly_the_rest(tmp_path: Path) -> None:
    root = mixed_workspace(tmp_path / "ws", scale=6)
    with LegacyWorkspace.open(root) as workspace:
        everything = list(workspace.items())
        whole = [(imported.section, to_json(imported.item)) for imported in everything]
        assert len(whole) == 60
        for position, imported in enumerate(everything):
            restored = Checkpoint.from_json(imported.checkpoint.to_json())
            assert _stream(workspace, restored, 3) == whole[position + 1 :], position


@pytest.mark.parametrize("page", [1, 2, 3, 7, 256])
def test_the_page_size_never_changes_the_stream(tmp_path: Path, page: int) -> None:
    root = mixed_workspace(tmp_path / "ws", scale=5)
    with LegacyWorkspace.open(root) as workspace:
        assert _stream(workspace, None, page) == _stream(workspace, None, 256)


def test_a_page_of_skipped_rows_never_stalls_the_scan(builder: LegacyBuilder) -> None:
    """Trap T4: many skipped rows between two yielded ones, read one key at a time."""
    builder.doc("a", "notes", "first")
    for number in range(20):
        builder.doc(f"b{number:02d}", "global", "a learning: skipped by the documents section")
        builder.turn(f"s{number:02d}", 1.0, "user", " ")  # a blank thread
    builder.doc("c", "notes", "last")
    builder.turn("t", 1.0, "user", "kept")
    builder.commit()
    with LegacyWorkspace.open(builder.root) as workspace:
        found = [
            (i.section, i.checkpoint.to_data()) for i in workspace.items_from(None, page_size=1)
        ]
    sections = [section for section, _ in found]
    assert sections == ["documents", "documents", "conversations"] + ["learnings"] * 20
    assert found[1][1] == {"documents": "c"}
    assert found[2][1] == {"documents": "c", "conversations": "t"}


def test_keys_order_as_binary_text(builder: LegacyBuilder) -> None:
    """Trap T3: ``Zeta`` sorts before ``chat``, and ``é`` after ``z``."""
    for key in ["chat", "Zeta", "é", "z", "a"]:
        builder.doc(key, "notes", f"doc {key}")
    builder.commit()
    with LegacyWorkspace.open(builder.root) as workspace:
        keys = [
            imported.checkpoint.documents for imported in workspace.items_from(None, page_size=2)
        ]
    assert keys == ["Zeta", "a", "chat", "z", "é"]
