"""Whose file it is: ours opens, anything else is refused untouched, a busy file is transient."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine, connections, schema
from tinymemory_sqlite.schema import APPLICATION_ID, VERSION


def _header(path: Path) -> tuple[int, int, str]:
    connection = sqlite3.connect(path)
    try:
        return (
            connection.execute("PRAGMA application_id").fetchone()[0],
            connection.execute("PRAGMA user_version").fetchone()[0],
            connection.execute("PRAGMA journal_mode").fetchone()[0],
        )
    finally:
        connection.close()


def test_a_new_file_is_marked_as_ours(db_path: Path) -> None:
    with SqliteEngine(db_path):
        pass
    assert int.from_bytes(b"TMem", "big") == APPLICATION_ID
    assert _header(db_path) == (APPLICATION_ID, VERSION, "wal")


def test_an_empty_file_is_taken_as_new(db_path: Path) -> None:
    db_path.touch()
    with SqliteEngine(db_path) as engine:
        engine.store(tm.Learning(text="first"))
    assert _header(db_path)[0] == APPLICATION_ID


@pytest.mark.parametrize(
    ("setup", "found"),
    [
        (
            [
                "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)",
                "INSERT INTO customers (name) VALUES ('Ada')",
            ],
            "application_id 0, user_version 0, tables: customers",
        ),
        (
            [
                "CREATE TABLE items (id TEXT)",
                "PRAGMA application_id = 42",
                "PRAGMA user_version = 7",
            ],
            "application_id 42, user_version 7, tables: items",
        ),
        (
            ["PRAGMA user_version = 3"],
            "application_id 0, user_version 3, tables: none",
        ),
    ],
)
def test_another_programs_database_is_refused_and_left_as_it_was(
    db_path: Path, setup: list[str], found: str
) -> None:
    connection = sqlite3.connect(db_path)
    for statement in setup:
        connection.execute(statement)
    connection.commit()
    connection.close()
    before = db_path.read_bytes()
    header = _header(db_path)
    with pytest.raises(tm.ConfigError) as caught:
        SqliteEngine(db_path)
    assert caught.value.message == (
        f"`{db_path}` is not a tinymemory-sqlite database ({found}); "
        "it was left as it is: choose another path"
    )
    assert db_path.read_bytes() == before
    assert _header(db_path) == header
    assert header[2] == "delete"  # never switched to WAL
    assert sorted(path.name for path in db_path.parent.iterdir()) == [db_path.name]


def test_a_file_of_ours_from_before_the_application_id_still_opens(db_path: Path) -> None:
    with SqliteEngine(db_path) as engine:
        kept = engine.store(tm.Learning(text="written by an earlier version")).id
    connection = sqlite3.connect(db_path)
    connection.execute("PRAGMA application_id = 0")
    connection.close()
    assert _header(db_path)[0] == 0
    with SqliteEngine(db_path) as engine:
        assert [hit.id for hit in engine.list(tm.ListRequest()).items] == [kept]
    assert _header(db_path)[0] == APPLICATION_ID


def test_a_file_busy_when_first_opened_is_unavailable(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connections, "BUSY_TIMEOUT", 0.05)
    holder = sqlite3.connect(db_path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(tm.Unavailable) as caught:
            SqliteEngine(db_path)
        assert caught.value.transient
        assert "is busy, try again" in caught.value.message
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with SqliteEngine(db_path) as engine:  # once it is free, it opens
        assert engine.health() == tm.EngineHealth.ok()


def _layout(path: Path) -> list[tuple[object, ...]]:
    """What a file's layout is: its header, settings' names, and each schema row's SQL with the
    spacing an ``ALTER TABLE`` leaves (``vectors BLOB\\n, ranges ...``) taken out."""
    connection = sqlite3.connect(path)
    try:
        rows: list[tuple[object, ...]] = [
            (
                kind,
                name,
                table,
                sql and re.sub(r"\s*([(),])\s*", r"\1", re.sub(r"\s+", " ", sql)).strip(),
            )
            for kind, name, table, sql in connection.execute(
                "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name"
            )
        ]
        # Settings' names, not values: each file draws its own cursor secret.
        rows += connection.execute("SELECT key FROM settings ORDER BY key").fetchall()
        return [*rows, _header(path)]
    finally:
        connection.close()


def test_a_new_file_is_made_as_the_migrations_make_a_version_1_file(tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    connection = sqlite3.connect(old, isolation_level=None)
    for statement in schema._statements(schema.MIGRATIONS[0]):  # type: ignore[arg-type]
        connection.execute(statement)
    connection.execute("PRAGMA user_version = 1")
    connection.close()
    with SqliteEngine(old):
        pass
    new = tmp_path / "new.db"
    with SqliteEngine(new):
        pass
    assert _layout(new) == _layout(old)
    assert _header(new) == (APPLICATION_ID, VERSION, "wal")


def test_a_new_file_runs_no_migration(db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schema, "MIGRATIONS", ())
    with SqliteEngine(db_path) as engine:
        engine.store(tm.Learning(text="made in one step"))
        assert len(engine.list(tm.ListRequest()).items) == 1
