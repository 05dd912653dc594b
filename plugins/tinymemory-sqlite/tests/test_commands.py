"""``tinymemory sqlite``: where the memory lives, read without touching it."""

from __future__ import annotations

import contextlib
import ctypes
import json
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

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


def file_bytes(path: Path) -> bytes:
    """The database's bytes and its WAL's, where erased text must not stay."""
    wal = Path(f"{path}-wal")
    return path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def test_an_erase_while_another_connection_reads_says_the_text_stays_until_a_purge(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    with SqliteEngine(path) as engine:
        engine.store(
            tm.Learning(text="the zeppelin code is 4417", meta=tm.MemoryMeta(namespace="agent:a"))
        )
        engine.store(tm.Learning(text="kept at the root"))
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM items").fetchone()  # holds its snapshot from here
    try:
        erased = tinymemory_command("erase", "--at", "agent:a", "--yes")
        assert erased.exit_code == 0, erased.stderr
        assert erased.stdout == "erased 1 item at agent:a\n"
        assert erased.stderr == (
            "tinymemory: the erase is done, and the engine says: pending_purge 1: forgotten or "
            "erased text is still in the file's bytes while another connection holds an old "
            "snapshot; it is purged at the next write or close once that reader lets go, or "
            "by `tinymemory sqlite purge`\n"
        )
        assert b"zeppelin" in file_bytes(path)  # gone from every read, not yet from the disk
        waited = tinymemory_command("sqlite", "purge", "--wait", "0.3")
        assert waited.exit_code == 1
        assert waited.stdout == ""
        assert waited.stderr == (
            "tinymemory: unavailable: pending_purge 1: another connection still holds an old "
            "snapshot of the file; run `tinymemory sqlite purge` again once it is gone "
            "(--wait SECONDS waits for it)\n"
        )
    finally:
        reader.execute("COMMIT")
        reader.close()
    purged = tinymemory_command("sqlite", "purge")
    assert purged.exit_code == 0, purged.stderr
    assert purged.stdout == "purged: no forgotten or erased text is left in the file's bytes\n"
    assert b"zeppelin" not in file_bytes(path)
    assert json.loads(tinymemory_command("sqlite", "--json").stdout)["pending_purge"] == 0
    assert tinymemory_command("sqlite", "purge").stdout == purged.stdout  # nothing to do


def test_an_erase_no_one_holds_up_says_nothing_more(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    with SqliteEngine(path) as engine:
        engine.store(tm.Learning(text="the zeppelin code is 4417"))
    erased = tinymemory_command("erase", "--at", "root", "--yes")
    assert (erased.exit_code, erased.stderr) == (0, "")
    assert b"zeppelin" not in file_bytes(path)


def test_a_purge_waits_for_the_reader_to_let_go(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    engine = SqliteEngine(path)
    doomed = engine.store(tm.Learning(text="the zeppelin code is 4417")).id
    reader = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM items").fetchone()
    engine.forget(tm.ForgetTarget.by_ids([doomed]))
    engine.close()
    assert b"zeppelin" in file_bytes(path)
    timer = threading.Timer(1.0, lambda: (reader.execute("COMMIT"), reader.close()))
    timer.start()
    try:
        purged = tinymemory_command("sqlite", "purge", "--wait", "30")
    finally:
        timer.join()
    assert purged.exit_code == 0, purged.stderr
    assert b"zeppelin" not in file_bytes(path)


def test_a_folder_where_the_database_should_be_is_a_clean_error(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    path.mkdir(parents=True)
    for args in (("sqlite",), ("sqlite", "--json")):
        result = tinymemory_command(*args)
        assert result.exit_code == 1
        assert result.stdout == ""
        assert result.stderr == (
            f"tinymemory: configuration error: the sqlite database path `{path}` is a folder, "
            "not a database file\n"
        )


#: prctl's PR_CAPBSET_DROP: take a capability out of the bounding set for good.
_PR_CAPBSET_DROP = 24


def _without_privileges() -> None:
    """In the child before it runs: no capability survives its exec, so a root user is
    held to file permissions as any user is (the bypass is CAP_DAC_OVERRIDE)."""
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in range(64):
        libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)  # past the last one: EINVAL


def unprivileged(
    args: list[str], env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args,
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=_without_privileges,
    )


@pytest.mark.parametrize("older_file", [False, True], ids=["current", "without-cursor-secret"])
def test_a_database_in_a_read_only_folder_is_read_and_nothing_is_made_beside_it(
    tmp_path: Path, new_user: dict[str, str], older_file: bool
) -> None:
    folder = tmp_path / "data" / "tinymemory"
    with SqliteEngine(folder / "memory.db") as engine:
        kept = engine.store(tm.Learning(text="kept in a read-only folder")).id
    if older_file:
        # A file written before cursors were sealed holds no secret, and this process
        # cannot record one: its reads seal their cursors with a secret of their own.
        with contextlib.closing(sqlite3.connect(folder / "memory.db")) as connection:
            connection.execute("DELETE FROM settings WHERE key = 'cursor_secret'")
            connection.commit()
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert sorted(path.name for path in folder.iterdir()) == ["memory.db"]
    command = str(Path(sys.executable).parent / "tinymemory")
    folder.chmod(0o555)
    try:
        # The folder truly refuses a write from the commands' processes (root included).
        probe = unprivileged(
            [sys.executable, "-c", f"open({str(folder / 'probe')!r}, 'w')"], new_user, tmp_path
        )
        assert "PermissionError" in probe.stderr
        described = unprivileged([command, "sqlite", "--json"], new_user, tmp_path)
        assert described.returncode == 0, described.stderr
        facts = json.loads(described.stdout)
        assert (facts["exists"], facts["items"], facts["pending_purge"]) == (True, 1, 0)
        listed = unprivileged([command, "list", "--json"], new_user, tmp_path)
        assert listed.returncode == 0, listed.stderr
        assert [item["id"] for item in json.loads(listed.stdout)["items"]] == [kept]
        fetched = unprivileged([command, "fetch", "read-only", "--json"], new_user, tmp_path)
        assert fetched.returncode == 0, fetched.stderr
        assert [hit["id"] for hit in json.loads(fetched.stdout)["hits"]] == [kept]
        stored = unprivileged([command, "store", "not kept"], new_user, tmp_path)
        assert stored.returncode == 1
        assert stored.stderr == (
            f"tinymemory: unsupported: the sqlite database `{folder / 'memory.db'}` can only be "
            "read here: this process cannot write it or its folder\n"
        )
        assert sorted(path.name for path in folder.iterdir()) == ["memory.db"]
    finally:
        folder.chmod(0o755)
