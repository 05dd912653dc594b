"""Recognising a v1 workspace, refusing what is not one, and opening it without changing it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from legacy_workspaces import LegacyBuilder

import tinymemory as tm
from tinymemory_legacy_import import LegacyWorkspace, NotLegacy


def test_a_missing_path_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(tm.NotFound, match="does not exist"):
        LegacyWorkspace.open(tmp_path / "nowhere")


def test_a_file_is_not_a_workspace(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotLegacy, match="not a directory"):
        LegacyWorkspace.open(tmp_path / "file")


def test_not_legacy_is_an_invalid_request() -> None:
    assert issubclass(NotLegacy, tm.InvalidRequest)


def test_an_empty_folder_names_both_stores(tmp_path: Path) -> None:
    with pytest.raises(
        NotLegacy, match=r"neither memory/memory\.db nor a usable memory_tree/chunks\.db"
    ):
        LegacyWorkspace.open(tmp_path)


def test_a_path_that_is_not_text_is_refused_before_any_io() -> None:
    with pytest.raises(tm.InvalidRequest, match="a workspace is a path"):
        LegacyWorkspace.open(42)  # type: ignore[arg-type]


def test_memory_db_that_is_a_folder_is_refused_even_beside_a_usable_chunk_store(
    tmp_path: Path,
) -> None:
    LegacyBuilder(tmp_path, memory=False, chunks=True).close()
    (tmp_path / "memory" / "memory.db").mkdir(parents=True)
    with pytest.raises(NotLegacy, match=r"memory/memory\.db is not a file"):
        LegacyWorkspace.open(tmp_path)


def test_memory_db_that_is_not_sqlite_is_not_legacy(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "memory.db").write_bytes(b"this is no database at all" * 100)
    with pytest.raises(NotLegacy, match="is not a database"):
        LegacyWorkspace.open(tmp_path)


def test_a_zero_byte_memory_db_fails_on_its_first_table(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "memory.db").write_bytes(b"")
    with pytest.raises(NotLegacy, match="table memory_docs is missing"):
        LegacyWorkspace.open(tmp_path)


@pytest.mark.parametrize(
    ("drop", "missing"),
    [
        ("DROP TABLE episodic_log", "table episodic_log is missing"),
        ("ALTER TABLE user_profile DROP COLUMN value", "column user_profile.value is missing"),
        (
            "ALTER TABLE memory_docs DROP COLUMN tags_json",
            "column memory_docs.tags_json is missing",
        ),
        ("ALTER TABLE episodic_log DROP COLUMN role", "column episodic_log.role is missing"),
    ],
)
def test_the_first_missing_table_or_column_is_named(
    tmp_path: Path, drop: str, missing: str
) -> None:
    LegacyBuilder(tmp_path).close()
    with sqlite3.connect(tmp_path / "memory" / "memory.db") as connection:
        connection.execute(drop)
    connection.close()
    with pytest.raises(NotLegacy, match=missing):
        LegacyWorkspace.open(tmp_path)


def test_a_chunk_only_workspace_opens(tmp_path: Path) -> None:
    builder = LegacyBuilder(tmp_path, memory=False, chunks=True)
    builder.chunk("c1", "email", "gmail:a", 0, "hello")
    builder.close()
    with LegacyWorkspace.open(tmp_path) as workspace:
        assert (workspace.has_memory_db, workspace.has_chunk_store) == (False, True)
        assert workspace.count()["chunks"] == 1


@pytest.mark.parametrize(
    "spoil",
    [
        "not sqlite",
        "no table",
        "missing column",
        "a folder",
    ],
)
def test_an_unusable_chunk_store_is_silently_absent(tmp_path: Path, spoil: str) -> None:
    LegacyBuilder(tmp_path).close()
    chunks = tmp_path / "memory_tree" / "chunks.db"
    chunks.parent.mkdir()
    if spoil == "not sqlite":
        chunks.write_bytes(b"garbage" * 1000)
    elif spoil == "a folder":
        chunks.mkdir()
    else:
        column = "" if spoil == "no table" else "id TEXT, source_kind TEXT, source_id TEXT"
        with sqlite3.connect(chunks) as connection:
            connection.execute(
                f"CREATE TABLE {'other' if not column else 'mem_tree_chunks'} ({column or 'x'})"
            )
        connection.close()
    with LegacyWorkspace.open(tmp_path) as workspace:
        assert (workspace.has_memory_db, workspace.has_chunk_store) == (True, False)


def test_an_empty_early_schema_workspace_opens_with_nothing_in_it(tmp_path: Path) -> None:
    LegacyBuilder(tmp_path, era="early").close()
    with LegacyWorkspace.open(tmp_path) as workspace:
        assert workspace.count() == dict.fromkeys(
            ("documents", "chunks", "conversations", "learnings", "profile"), 0
        )


def test_the_workspace_is_the_canonical_path_through_a_symlink(tmp_path: Path) -> None:
    LegacyBuilder(tmp_path / "real").close()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with LegacyWorkspace.open(tmp_path / "link") as workspace:
        assert workspace.path == str((tmp_path / "real").resolve())


def test_a_home_relative_path_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    LegacyBuilder(tmp_path / "old").close()
    with LegacyWorkspace.open("~/old") as workspace:
        assert workspace.path == str((tmp_path / "old").resolve())


def test_an_unflushed_wal_is_read_and_kept(tmp_path: Path) -> None:
    """A writer that never checkpointed leaves its rows only in ``memory.db-wal``."""
    builder = LegacyBuilder(tmp_path)
    assert builder.memory is not None
    builder.memory.execute("PRAGMA wal_autocheckpoint = 0")
    builder.commit()
    main_bytes = (tmp_path / "memory" / "memory.db").read_bytes()
    builder.doc("d1", "document_notes", "only in the wal")
    builder.commit()  # committed, still open: the row lives in the -wal file alone
    wal = tmp_path / "memory" / "memory.db-wal"
    assert wal.stat().st_size > 0
    assert (tmp_path / "memory" / "memory.db").read_bytes() == main_bytes
    with LegacyWorkspace.open(tmp_path) as workspace:
        texts = [imported.item.render_text() for imported in workspace.items()]
    assert texts == ["only in the wal"]
    assert (tmp_path / "memory" / "memory.db").read_bytes() == main_bytes  # nothing written back
    builder.close()  # the writer's own checkpoint still finds its frames
    with LegacyWorkspace.open(tmp_path) as workspace:
        assert workspace.count()["documents"] == 1


def test_opening_writes_nothing_to_the_databases(tmp_path: Path) -> None:
    builder = LegacyBuilder(tmp_path, chunks=True)
    builder.doc("d1", "document_notes", "kept")
    builder.chunk("c1", "email", "gmail:a", 0, "mail")
    builder.close()
    files = [tmp_path / "memory" / "memory.db", tmp_path / "memory_tree" / "chunks.db"]
    before = [path.read_bytes() for path in files]
    with LegacyWorkspace.open(tmp_path) as workspace:
        assert sum(workspace.count().values()) == 2
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            workspace._layout.memory.connection.execute("DELETE FROM memory_docs")  # type: ignore[union-attr]
    assert [path.read_bytes() for path in files] == before
