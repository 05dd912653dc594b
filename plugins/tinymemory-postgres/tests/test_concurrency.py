"""What a server is for: many writers at once, and failures that lose nothing committed."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time

import psycopg
import pytest

import tinymemory as tm
from tinymemory_postgres import PostgresEngine, connections
from tinymemory_postgres.cluster import ThrowawayCluster

WRITERS = 4
PER_WRITER = 500
SHARED = 100

#: One writer process: its own 500 items and the 100 every writer stores, in batches of 25,
#: interleaved, printing how many of the shared items it wrote itself (not as replays).
_WRITER = """
import json, sys
import tinymemory as tm
conninfo, schema = sys.argv[1], sys.argv[2]
writer, per_writer, shared_count = (int(arg) for arg in sys.argv[3:6])
options = {"conninfo": conninfo, "schema": schema}
engine = tm.build_engine("postgres", tm.EngineSettings(options=options), scrub=False)
own = [tm.Learning(text=f"writer {writer} item {n}") for n in range(per_writer)]
shared = [tm.Learning(text=f"shared item {n}") for n in range(shared_count)]
wrote_shared = 0
for start in range(0, len(own), 25):
    batch = own[start : start + 25] + shared[start // 5 : start // 5 + 5]
    receipts = engine.store_many(batch)
    assert not any(r.replayed for r in receipts[:25]), "a new item was taken for a replay"
    wrote_shared += sum(not r.replayed for r in receipts[25:])
engine.close()
print(json.dumps({"wrote_shared": wrote_shared}))
"""


def _numbers(writer: int) -> list[str]:
    return [str(writer), str(PER_WRITER), str(SHARED)]


def _all_ids(engine: tm.MemoryEngine) -> list[str]:
    ids: list[str] = []
    cursor = None
    while True:
        page = engine.list(tm.ListRequest(limit=500, cursor=cursor))
        ids += [hit.id for hit in page.items]
        cursor = page.next_cursor
        if cursor is None:
            return ids


def test_four_writer_processes_store_every_item_exactly_once(
    cluster: ThrowawayCluster, schema: str, engine: PostgresEngine
) -> None:
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, cluster.socket_conninfo, schema, *_numbers(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(WRITERS)
    ]
    reports = []
    for writer in writers:
        out, err = writer.communicate(timeout=300)
        assert writer.returncode == 0, err
        reports.append(json.loads(out))
    ids = _all_ids(engine)
    assert len(ids) == WRITERS * PER_WRITER + SHARED
    assert len(set(ids)) == len(ids), "an item was stored twice"
    # Each shared item was written by exactly one writer; the others' were replays.
    assert sum(report["wrote_shared"] for report in reports) == SHARED
    texts = {hit.text for hit in engine.list(tm.ListRequest(limit=10_000)).items}
    assert {f"writer {w} item {n}" for w in range(WRITERS) for n in range(PER_WRITER)} <= texts


def test_a_server_restart_mid_batch_loses_nothing_committed(
    cluster: ThrowawayCluster, engine: PostgresEngine
) -> None:
    batches = [
        [tm.Learning(text=f"batch {b} item {n} during a restart") for n in range(100)]
        for b in range(60)
    ]
    outcomes: dict[int, object] = {}
    restarted = threading.Event()
    after_restart: list[int] = []

    def store() -> None:
        for number, batch in enumerate(batches):
            try:
                outcomes[number] = engine.store_many(batch)
            except tm.Unavailable as error:
                outcomes[number] = error
            if restarted.is_set():
                after_restart.append(number)

    writer = threading.Thread(target=store)
    writer.start()
    while len(outcomes) < 3 and writer.is_alive():
        time.sleep(0.01)
    cluster.restart()
    restarted.set()
    writer.join(timeout=120)
    assert not writer.is_alive()
    assert after_restart, "the restart came after the last batch: it tested nothing"
    stored = set(_all_ids(engine))
    for number, batch in enumerate(batches):
        ids = {item.fingerprint() for item in batch}
        if isinstance(outcomes[number], tm.Unavailable):
            assert ids <= stored or not ids & stored, f"batch {number} is half stored"
        else:
            assert ids <= stored, f"batch {number} was answered but is not all stored"
    # The retries carried every batch through the restart.
    assert not [o for o in outcomes.values() if isinstance(o, tm.Unavailable)]


def test_dropped_connections_are_replaced(
    cluster: ThrowawayCluster, engine: PostgresEngine
) -> None:
    engine.store(tm.Learning(text="before the connections were dropped"))
    with psycopg.connect(cluster.socket_conninfo, autocommit=True) as admin:
        dropped = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
        ).fetchone()
    assert dropped is not None
    assert dropped[0] >= 1
    engine.store(tm.Learning(text="after the connections were dropped"))
    assert len(engine.list(tm.ListRequest()).items) == 2


def test_a_server_that_stays_down_is_unavailable_and_stores_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    own = ThrowawayCluster()
    try:
        options = {"conninfo": own.socket_conninfo, "schema": "down"}
        engine = tm.build_engine("postgres", tm.EngineSettings(options=options), scrub=False)
        engine.store(tm.Learning(text="stored while the server ran"))
        own.stop()
        monkeypatch.setattr(connections, "RETRY_SECONDS", 1.0)
        with pytest.raises(tm.Unavailable, match="did not answer"):
            engine.store_many([tm.Learning(text=f"never stored {n}") for n in range(10)])
        assert not engine.health().serving
        monkeypatch.setattr(connections, "RETRY_SECONDS", 15.0)
        own.start()
        # The pool reconnects on its own: the failed batch left nothing, the first item stays.
        assert [hit.text for hit in engine.list(tm.ListRequest()).items] == [
            "stored while the server ran"
        ]
        assert engine.health().serving
        engine.close()
    finally:
        own.remove()
