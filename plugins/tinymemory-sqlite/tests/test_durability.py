"""Durability for real: a killed writer, two writing processes, and erased text leaving the file."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine
from tinymemory_sqlite.connections import Connections

BATCH = 100
#: Rounds of the SIGKILL test; raise it for a longer soak (the notes' goal is 100).
CRASH_ROUNDS = int(os.environ.get("TINYMEMORY_CRASH_ROUNDS", "8"))

# A writer that stores batches of 100 learnings, each tagged with its batch
# number, and says so on stdout once store_many has returned.
_BATCH_WRITER = """
import sys
import tinymemory as tm
from tinymemory_sqlite import SqliteEngine

engine = SqliteEngine(sys.argv[1])
start = int(sys.argv[2])
for batch in range(start, start + 10_000):
    items = [
        tm.Learning(
            text=f"batch {batch} item {n} " + "filler " * 20,
            meta=tm.MemoryMeta(tags=[f"b{batch}"]),
        )
        for n in range(100)
    ]
    engine.store_many(items)
    print(batch, flush=True)
"""

_ONE_BY_ONE = """
import sys
import tinymemory as tm
from tinymemory_sqlite import SqliteEngine

engine = SqliteEngine(sys.argv[1])
for n in range(500):
    engine.store(tm.Learning(text=f"writer {sys.argv[2]} note {n}"))
print("done", flush=True)
"""


def _python(code: str, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _batch_sizes(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        connection.execute("INSERT INTO pieces_fts(pieces_fts) VALUES ('integrity-check')")
        rows = connection.execute("SELECT tag, count(*) FROM item_tags GROUP BY tag").fetchall()
    return dict(rows)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is a POSIX signal")
def test_a_writer_killed_mid_batch_loses_only_that_batch(db_path: Path) -> None:
    SqliteEngine(db_path).close()  # the schema exists before the first kill
    rng = random.Random(7)
    acknowledged: set[str] = set()
    for round_number in range(CRASH_ROUNDS):
        writer = _python(_BATCH_WRITER, db_path, round_number * 10_000)
        # Killed at a random moment once it is writing (its first batch acknowledged), so
        # a slow start on a busy machine cannot leave a round with nothing written.
        assert writer.stdout is not None
        first = writer.stdout.readline()
        time.sleep(rng.uniform(0.0, 0.4))
        writer.send_signal(signal.SIGKILL)
        out, err = writer.communicate()
        assert writer.returncode == -signal.SIGKILL, err
        acknowledged |= {f"b{line}" for line in (first + out).split()}
        sizes = _batch_sizes(db_path)
        assert set(sizes.values()) <= {BATCH}, f"a partly written batch in round {round_number}"
        assert acknowledged <= set(sizes), "an acknowledged batch was lost"
        # At most the batch in flight was committed without being acknowledged.
        assert len(set(sizes) - acknowledged) <= round_number + 1
    assert acknowledged
    with sqlite3.connect(db_path) as connection:
        items = connection.execute("SELECT count(*) FROM items").fetchone()[0]
    assert items == BATCH * len(_batch_sizes(db_path))
    with SqliteEngine(db_path) as engine:
        hits = engine.fetch(tm.FetchRequest(query="filler", mode="keyword", limit=3)).hits
        assert len(hits) == 3


def test_two_processes_writing_at_once_lose_nothing(db_path: Path) -> None:
    """Both open a file that does not exist yet, so they also create its schema at once."""
    writers = [_python(_ONE_BY_ONE, db_path, name) for name in ("a", "b")]
    for writer in writers:
        out, err = writer.communicate(timeout=300)
        assert (writer.returncode, out.strip(), err) == (0, "done", "")
    with SqliteEngine(db_path) as engine:
        page = engine.explore(tm.ExploreRequest(facet=tm.Facet.KIND))
        assert (page.total, page.buckets[0].count) == (1000, 1000)


def test_a_write_takes_the_lock_when_it_begins(db_path: Path) -> None:
    """Every write is BEGIN IMMEDIATE: a deferred one would fail, not wait, on upgrade."""
    connections = Connections(str(db_path))
    other = sqlite3.connect(db_path, timeout=0, isolation_level=None)
    try:
        with connections.writing(), pytest.raises(sqlite3.OperationalError, match="locked"):
            other.execute("BEGIN IMMEDIATE")
        other.execute("BEGIN IMMEDIATE")
        other.execute("COMMIT")
    finally:
        other.close()
        connections.close()


def test_a_waiting_writer_gets_its_turn(db_path: Path) -> None:
    with SqliteEngine(db_path) as engine:
        holder = sqlite3.connect(db_path, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        releaser = threading.Timer(0.5, lambda: holder.execute("COMMIT"))
        releaser.start()
        try:
            engine.store(tm.Learning(text="written once the other writer is done"))
        finally:
            releaser.join()
            holder.close()
        assert len(engine.list(tm.ListRequest()).items) == 1


SECRET = "zqxsecretvalue77"


def _file_bytes(path: Path) -> bytes:
    data = path.read_bytes()
    wal = Path(f"{path}-wal")
    return data + (wal.read_bytes() if wal.exists() else b"")


def _crowd(engine: SqliteEngine) -> None:
    for start in range(0, 2000, 100):
        engine.store_many(
            [
                tm.Learning(text=f"ordinary note {n} about ledgers")
                for n in range(start, start + 100)
            ]
        )


def test_forgotten_text_leaves_every_byte_of_the_files(db_path: Path) -> None:
    with SqliteEngine(db_path) as engine:
        _crowd(engine)
        secret = engine.store(tm.Learning(text=f"the vault code is {SECRET}")).id
        assert SECRET.encode() in _file_bytes(db_path)
        assert engine.forget(tm.ForgetTarget.by_ids([secret])).forgotten == 1
        assert SECRET.encode() not in _file_bytes(db_path)
        assert (
            len(engine.fetch(tm.FetchRequest(query="ledgers", mode="keyword", limit=5)).hits) == 5
        )


def test_erased_text_leaves_every_byte_of_the_files(db_path: Path) -> None:
    node = tm.Namespace.parse("user:alice")
    with SqliteEngine(db_path) as engine:
        _crowd(engine)
        engine.store(
            tm.Document(body=f"alice's {SECRET} notes", meta=tm.MemoryMeta(namespace=node))
        )
        engine.erase(tm.EraseRequest(reach=tm.Reach.subtree(node)))
        data = _file_bytes(db_path)
        assert SECRET.encode() not in data
        assert b"user:alice" not in data


def test_the_database_opens_after_a_crash_with_a_wal_left_behind(db_path: Path) -> None:
    writer = _python(_BATCH_WRITER, db_path, 0)
    assert writer.stdout is not None
    writer.stdout.readline()  # one batch is in
    os.kill(writer.pid, signal.SIGKILL)
    writer.communicate()
    with SqliteEngine(db_path) as engine:
        assert engine.health() == tm.EngineHealth.ok()
        assert engine.list(tm.ListRequest(limit=1)).items


def _hold_a_reader(path: Path) -> sqlite3.Connection:
    """Another connection inside a read transaction: its snapshot keeps the WAL from being cut."""
    reader = sqlite3.connect(path, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM items").fetchone()
    return reader


@pytest.mark.parametrize("then", ["write", "close"])
def test_a_forget_during_a_read_is_purged_once_the_reader_goes(db_path: Path, then: str) -> None:
    engine = SqliteEngine(db_path)
    _crowd(engine)
    secret = engine.store(tm.Learning(text=f"the vault code is {SECRET}")).id
    reader = _hold_a_reader(db_path)
    assert engine.forget(tm.ForgetTarget.by_ids([secret])).forgotten == 1
    assert SECRET.encode() in _file_bytes(db_path)  # the guarantee waits for the reader
    assert engine.pending_purge == 1
    health = engine.health()
    assert health.state is tm.HealthState.DEGRADED
    assert str(health.reason).startswith("pending_purge 1:")
    engine.store(tm.Learning(text="written while the reader still reads"))
    assert engine.pending_purge == 1
    reader.execute("COMMIT")
    reader.close()
    if then == "write":
        engine.store(tm.Learning(text="the next write finishes the purge"))
        assert (engine.pending_purge, engine.health()) == (0, tm.EngineHealth.ok())
        engine.close()
    else:
        engine.close()
    assert SECRET.encode() not in _file_bytes(db_path)
    with SqliteEngine(db_path) as reopened:
        assert reopened.pending_purge == 0


def test_a_purge_left_pending_is_finished_by_the_next_engine_to_open(db_path: Path) -> None:
    engine = SqliteEngine(db_path)
    _crowd(engine)
    secret = engine.store(tm.Learning(text=f"the vault code is {SECRET}")).id
    reader = _hold_a_reader(db_path)
    engine.forget(tm.ForgetTarget.by_ids([secret]))
    engine.close()  # the reader still holds: the purge stays pending in the file
    assert SECRET.encode() in _file_bytes(db_path)
    reader.execute("COMMIT")
    reader.close()
    with SqliteEngine(db_path) as reopened:
        assert reopened.pending_purge == 0
    assert SECRET.encode() not in _file_bytes(db_path)
