"""``tinymemory sqlite``: where the memory lives, read without touching it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine


def _tinymemory(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    for name in ("TINYMEMORY_CONFIG", "TINYMEMORY_ENGINE", "TINYMEMORY_SQLITE_PATH"):
        env.pop(name, None)
    command = Path(sys.executable).parent / "tinymemory"
    return subprocess.run(
        [str(command), *args], env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_it_shows_the_file_and_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    with SqliteEngine(path) as engine:
        engine.store(tm.Learning(text="kept"))
        engine.store(tm.Document(body="a document"))
    result = _tinymemory(tmp_path, "sqlite", "--json")
    assert result.returncode == 0, result.stderr
    facts = json.loads(result.stdout)
    assert facts["path"] == str(path)
    assert (facts["exists"], facts["schema"], facts["embedder"]) == (True, 1, "hashing")
    assert (facts["items"], facts["pieces"]) == (2, 2)
    assert facts["bytes"] >= path.stat().st_size
    text = _tinymemory(tmp_path, "sqlite").stdout
    assert f"path      {path}\n" in text
    assert "items     2\n" in text


def test_looking_creates_nothing(tmp_path: Path) -> None:
    result = _tinymemory(tmp_path, "sqlite", "--json")
    assert json.loads(result.stdout)["exists"] is False
    assert not (tmp_path / "data").exists()


def test_a_file_that_is_no_database_is_a_clean_error(tmp_path: Path) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database at all " * 100)
    result = _tinymemory(tmp_path, "sqlite")
    assert result.returncode == 1
    assert "cannot be read as a database" in result.stderr
    assert "Traceback" not in result.stderr
