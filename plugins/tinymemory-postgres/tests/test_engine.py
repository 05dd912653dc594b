"""What PostgreSQL's text cannot hold, the engine's own face (its repr and its health), and
writes that leave every table whole."""

from __future__ import annotations

from collections.abc import Sequence

import psycopg
import pytest

import tinymemory as tm
import tinymemory.plugin
from tinymemory.testing import check_cursors_blind_to_siblings, registered
from tinymemory_postgres import PostgresEngine
from tinymemory_postgres.cluster import ThrowawayCluster


def test_a_nul_in_an_item_s_text_is_kept_and_found(engine: PostgresEngine) -> None:
    item = tm.Learning(text="before\x00after the crane")
    receipt = engine.store(item)
    listed = engine.list(tm.ListRequest()).items
    assert [hit.text for hit in listed] == ["before\x00after the crane"]
    hits = engine.fetch(tm.FetchRequest(query="crane", mode=tm.FetchMode.KEYWORD)).hits
    assert [(hit.id, hit.text) for hit in hits] == [(receipt.id, "before\x00after the crane")]


def test_a_nul_in_a_filtered_field_is_refused_before_anything_is_stored(
    engine: PostgresEngine,
) -> None:
    batch = [
        tm.Learning(text="a fine item"),
        tm.Learning(text="a bad one", meta=tm.MemoryMeta(workspace="ws\x00")),
    ]
    with pytest.raises(tm.InvalidRequest, match="NUL character in `workspace`"):
        engine.store_many(batch)
    assert engine.list(tm.ListRequest()).items == ()


def test_the_engine_says_where_it_is_and_that_it_serves(engine: PostgresEngine) -> None:
    assert repr(engine).startswith("<PostgresEngine ")
    assert engine.settings.schema in repr(engine)
    assert engine.health().state is tm.HealthState.OK
    engine.close()
    assert not engine.health().serving
    with pytest.raises(tm.Unavailable, match="closed"):
        engine.list(tm.ListRequest())


def test_cursors_say_nothing_of_a_siblings_memory(engine: PostgresEngine) -> None:
    check_cursors_blind_to_siblings(engine)


def test_a_cursor_not_issued_for_the_read_is_refused(
    engine: PostgresEngine, cluster: ThrowawayCluster
) -> None:
    engine.store_many([tm.Learning(text=f"crane {n}") for n in range(3)])
    cursor = engine.list(tm.ListRequest(limit=1)).next_cursor
    assert cursor
    ranked = engine.fetch(tm.FetchRequest(query="crane", mode="keyword", limit=1)).next_cursor
    assert ranked
    changed = cursor[:-1] + ("A" if cursor[-1] != "A" else "Q")
    for bad in (cursor + "A", cursor + "=", changed, cursor[:-1], ranked):
        with pytest.raises(tm.InvalidRequest, match="unknown cursor `"):
            engine.list(tm.ListRequest(limit=1, cursor=bad))
    other = tm.EngineSettings(options={"conninfo": cluster.socket_conninfo, "schema": "other"})
    with tm.build_engine("postgres", other, scrub=False) as elsewhere:
        elsewhere.store_many([tm.Learning(text=f"crane {n}") for n in range(3)])
        with pytest.raises(tm.InvalidRequest, match="unknown cursor `"):
            elsewhere.list(tm.ListRequest(limit=1, cursor=cursor))


class _Counting:
    """An answerer that answers with how many hits it was handed."""

    name = "counting"

    @tinymemory.plugin.hookimpl
    def tinymemory_answerers(self) -> list[tinymemory.plugin.Answerer]:
        return [self]

    def answer(self, request: tm.RecallRequest, hits: Sequence[tm.Hit]) -> tm.RecallAnswer:
        return tm.RecallAnswer(answer=f"{len(hits)} hits for {request.question}", model="counting")


def test_recall_hands_its_hits_to_the_answerer_named(settings: tm.EngineSettings) -> None:
    options = {**settings.options, "answerer": "counting"}
    with registered(_Counting(), name="counting-plugin"):
        engine = tm.build_engine("postgres", tm.EngineSettings(options=options))
    with engine:
        engine.store(tm.Learning(text="the deploy runs on fridays"))
        answer = engine.recall(tm.RecallRequest(question="deploy"))
    assert (answer.answer, answer.model) == ("1 hits for deploy", "counting")


def _counts(cluster: ThrowawayCluster, schema: str) -> dict[str, int]:
    """How many rows each table of an item's holds."""
    tables = ("items", "item_tags", "pieces", "vectors", "node_sizes")
    with psycopg.connect(cluster.socket_conninfo) as connection:
        return {
            table: int(connection.execute(f"SELECT count(*) FROM {schema}.{table}").fetchone()[0])  # type: ignore[index]
            for table in tables
        }


def test_a_batch_the_server_refuses_at_its_last_statement_stores_nothing(
    engine: PostgresEngine, cluster: ThrowawayCluster, schema: str
) -> None:
    """A write is pipelined: its items, tags, pieces and vectors are sent before the server
    answers any of them; a refusal of the last (the node sizes) leaves none of the others."""
    engine.store(tm.Learning(text="one crane", meta=tm.MemoryMeta(tags=("site",))))
    before = _counts(cluster, schema)
    with psycopg.connect(cluster.socket_conninfo, autocommit=True) as connection:
        connection.execute(
            f"CREATE FUNCTION {schema}.refuse_big() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "BEGIN IF NEW.pieces > 2 THEN RAISE EXCEPTION 'too big' USING ERRCODE = '22000'; "
            "END IF; RETURN NEW; END $$"
        )
        connection.execute(
            f"CREATE TRIGGER refuse_big BEFORE INSERT ON {schema}.node_sizes "
            f"FOR EACH ROW EXECUTE FUNCTION {schema}.refuse_big()"
        )
    batch = [tm.Learning(text=f"crane {n}", meta=tm.MemoryMeta(tags=("site",))) for n in range(3)]
    with pytest.raises(tm.InvalidRequest, match="too big"):
        engine.store_many(batch)
    assert _counts(cluster, schema) == before
    assert [hit.text for hit in engine.list(tm.ListRequest()).items] == ["one crane"]
    hits = engine.fetch(tm.FetchRequest(query="crane", mode=tm.FetchMode.HYBRID)).hits
    assert [hit.text for hit in hits] == ["one crane"]


def test_forgetting_removes_an_item_s_every_row(
    engine: PostgresEngine, cluster: ThrowawayCluster, schema: str
) -> None:
    """No foreign key cascades: the delete itself removes tags, pieces and vectors."""
    kept = engine.store(tm.Learning(text="kept crane", meta=tm.MemoryMeta(tags=("a",))))
    long_text = " ".join(f"word{n} crane section" for n in range(2_000))
    gone = engine.store_many(
        [
            tm.Document(body=long_text, meta=tm.MemoryMeta(tags=("a", "b"))),
            tm.Learning(text="gone crane", meta=tm.MemoryMeta(tags=("b",))),
        ]
    )
    assert _counts(cluster, schema)["pieces"] > 3, "the document is cut into several pieces"
    engine.forget(tm.ForgetTarget.by_ids([receipt.id for receipt in gone]))
    assert _counts(cluster, schema) == {
        "items": 1, "item_tags": 1, "pieces": 1, "vectors": 1, "node_sizes": 1,
    }  # fmt: skip
    for mode in tm.FetchMode:
        hits = engine.fetch(tm.FetchRequest(query="crane", mode=mode)).hits
        assert [hit.id for hit in hits] == [kept.id]
