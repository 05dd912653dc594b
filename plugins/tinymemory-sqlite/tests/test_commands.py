"""``tinymemory sqlite``: where the memory lives, read without touching it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine
from tinymemory_sqlite.schema import VERSION

if TYPE_CHECKING:
    from conftest import RunCommand


def test_it_shows_the_file_and_what_it_holds(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    with SqliteEngine(path) as engine:
        engine.store(tm.Learning(text="kept"))
        engine.store(tm.Document(body="a document"))
    result = tinymemory_command("sqlite", "--json")
    assert result.exit_code == 0, result.stderr
    facts = json.loads(result.stdout)
    assert facts["path"] == str(path)
    assert (facts["exists"], facts["schema"], facts["embedder"]) == (True, VERSION, "hashing")
    assert (facts["items"], facts["pieces"]) == (2, 2)
    assert facts["bytes"] >= path.stat().st_size
    text = tinymemory_command("sqlite").stdout
    assert f"path           {path}\n" in text
    assert "items          2\n" in text


def test_looking_creates_nothing(tmp_path: Path, tinymemory_command: RunCommand) -> None:
    result = tinymemory_command("sqlite", "--json")
    assert json.loads(result.stdout)["exists"] is False
    assert not (tmp_path / "data").exists()


def test_a_file_that_is_no_database_is_a_clean_error(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database at all " * 100)
    result = tinymemory_command("sqlite")
    assert result.exit_code == 1
    assert "cannot be read as a database" in result.stderr
    assert "Traceback" not in result.stderr


def test_it_shows_a_pending_purge(tmp_path: Path, tinymemory_command: RunCommand) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    engine = SqliteEngine(path)
    doomed = engine.store(tm.Learning(text="soon forgotten")).id
    engine.store(tm.Learning(text="kept"))
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM items").fetchone()
    try:
        engine.forget(tm.ForgetTarget.by_ids([doomed]))
        assert json.loads(tinymemory_command("sqlite", "--json").stdout)["pending_purge"] == 1
        assert "pending_purge  1\n" in tinymemory_command("sqlite").stdout
    finally:
        reader.execute("COMMIT")
        reader.close()
    engine.close()
    assert json.loads(tinymemory_command("sqlite", "--json").stdout)["pending_purge"] == 0
