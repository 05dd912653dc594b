"""What PostgreSQL's text cannot hold, and the engine's own face: its repr and its health."""

from __future__ import annotations

from collections.abc import Sequence

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
