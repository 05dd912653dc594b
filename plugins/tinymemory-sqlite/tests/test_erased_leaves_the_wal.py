"""Erased means erased once every reader is gone, however it went: after a reader killed by
SIGKILL, the next writer (any engine on the file, in any process), ``tinymemory sqlite purge``,
the first engine to open the file, or any engine closing takes the text out of the ``-wal`` file
and the database file alike (docs/engines/sqlite.md, "When erased text leaves the disk")."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine

if TYPE_CHECKING:
    from conftest import RunCommand

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX")

SECRET = b"qvault-sigkill-4471"

# A reader in a process of its own: a read transaction on the file, held until it is killed.
_READER = """
import sqlite3, sys
reader = sqlite3.connect(sys.argv[1], isolation_level=None)
reader.execute("BEGIN")
reader.execute("SELECT count(*) FROM items").fetchone()
print("reading", flush=True)
sys.stdin.read()
"""


def wal_bytes(path: Path) -> bytes:
    wal = Path(f"{path}-wal")
    return wal.read_bytes() if wal.exists() else b""


def held_then_killed(path: Path, forget: Callable[[], object]) -> None:
    """Run ``forget`` while a reader process holds a snapshot, then SIGKILL the reader."""
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout is not None
        assert reader.stdout.readline() == "reading\n"
        forget()
        assert SECRET in wal_bytes(path)  # the reader's snapshot keeps the checkpoint back
    finally:
        os.kill(reader.pid, signal.SIGKILL)
        reader.wait(timeout=30)
        if reader.stdin is not None:
            reader.stdin.close()
        if reader.stdout is not None:
            reader.stdout.close()
    assert reader.returncode == -signal.SIGKILL


def stored_secret(engine: SqliteEngine) -> str:
    for start in range(0, 600, 100):
        engine.store_many(
            [
                tm.Learning(text=f"ordinary note {n} about ledgers")
                for n in range(start, start + 100)
            ]
        )
    return engine.store(tm.Learning(text=f"the vault code is {SECRET.decode()}")).id


def gone(path: Path) -> None:
    """The secret is in neither file, and the WAL is cut to nothing."""
    assert SECRET not in wal_bytes(path)
    assert SECRET not in path.read_bytes()
    assert len(wal_bytes(path)) == 0
    with sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True) as connection:
        assert connection.execute(
            "SELECT count(*) FROM settings WHERE key = 'pending_purge'"
        ).fetchone() == (0,)


@pytest.mark.parametrize(
    "then",
    [
        "another engine, open all along, writes",
        "another engine, open all along, closes",
        "the forgetting engine writes",
        "an engine opens the file",
    ],
)
def test_after_a_killed_reader_the_text_leaves_the_wal(db_path: Path, then: str) -> None:
    forgetter = SqliteEngine(db_path)
    bystander = SqliteEngine(db_path)  # opened before the forget: nothing pending then
    secret = stored_secret(forgetter)
    held_then_killed(db_path, lambda: forgetter.forget(tm.ForgetTarget.by_ids([secret])))
    if then == "another engine, open all along, writes":
        bystander.store(tm.Learning(text="a later note"))
    elif then == "another engine, open all along, closes":
        bystander.close()
    elif then == "the forgetting engine writes":
        forgetter.store(tm.Learning(text="a later note"))
    else:
        SqliteEngine(db_path).close()
    try:
        gone(db_path)
    finally:
        bystander.close()
        forgetter.close()


def test_after_a_killed_reader_the_purge_command_takes_the_text_out(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    forgetter = SqliteEngine(path)
    secret = stored_secret(forgetter)

    def forget_and_close() -> None:
        forgetter.forget(tm.ForgetTarget.by_ids([secret]))
        forgetter.close()  # the reader still holds: the purge stays pending in the file

    held_then_killed(path, forget_and_close)
    purged = tinymemory_command("sqlite", "purge")
    assert purged.exit_code == 0, purged.stderr
    gone(path)
