"""The pieces behind ``tinymemory mcp``, in this process: the scope, the workspace, failures."""

from __future__ import annotations

import logging
import threading
from typing import Any

import anyio
import anyio.to_thread
import pytest
from conftest import result_text, run_async
from mcp import Client

import tinymemory as tm
from tinymemory.plugin import EngineWrapper
from tinymemory_mcp import CONTEXT_URI, MemoryServer, WorkspaceEngine
from tinymemory_mcp.command import describe_scope, scoped_tools

WRITER = tm.Namespace.parse("team:acme/agent:writer")


def reference() -> tm.MemoryEngine:
    return tm.build_engine("reference")


# --- the scope the command line names -----------------------------------------------------------


@pytest.mark.parametrize(
    ("at", "reach_kind", "read_only", "scope"),
    [
        (None, None, False, tm.ToolScope()),
        (WRITER, None, False, tm.ToolScope.at(WRITER)),
        (WRITER, "exact", False, tm.ToolScope(place=WRITER, reach=tm.Reach.exact(WRITER))),
        (
            WRITER,
            "subtree",
            True,
            tm.ToolScope(place=WRITER, reach=tm.Reach.subtree(WRITER), writes=False),
        ),
        (None, "of", False, tm.ToolScope(reach=tm.Reach.of(tm.Namespace.ROOT))),
        (None, None, True, tm.ToolScope(writes=False)),
    ],
)
def test_the_options_build_the_scope_the_memory_tools_builders_build(
    at: tm.Namespace | None, reach_kind: str | None, read_only: bool, scope: tm.ToolScope
) -> None:
    tools = scoped_tools(reference(), at=at, reach_kind=reach_kind, read_only=read_only)
    assert tools.scope == scope


def test_the_scope_is_described_for_the_log() -> None:
    assert describe_scope(tm.ToolScope()) == (
        "writes at root; reads every namespace but the service sandboxes"
    )
    assert describe_scope(tm.ToolScope.at(WRITER)) == (
        "writes at team:acme/agent:writer; reads team:acme/agent:writer and its ancestors"
    )
    subtree = tm.ToolScope(place=WRITER, reach=tm.Reach.subtree("team:acme"), writes=False)
    assert describe_scope(subtree) == "read-only; reads team:acme and below"


# --- the workspace ---------------------------------------------------------------------------


def test_a_workspace_engine_stores_into_its_workspace_and_reads_only_it() -> None:
    inner = reference()
    outside = inner.store(tm.Learning(text="beta fact", meta=tm.MemoryMeta(workspace="beta")))
    loose = inner.store(tm.Learning(text="loose fact"))
    engine = WorkspaceEngine(inner, "acme")
    mine = engine.store(tm.Learning(text="acme fact"))
    (many,) = engine.store_many([tm.Learning(text="acme second fact")])

    listed = engine.list(tm.ListRequest()).items
    assert sorted(hit.text for hit in listed) == ["acme fact", "acme second fact"]
    assert {hit.meta.workspace for hit in listed} == {"acme"}
    assert [h.id for h in engine.get(tm.GetRequest(ids=[outside.id, mine.id, loose.id]))] == [
        mine.id
    ]
    fetched = engine.fetch(tm.FetchRequest(query="fact", mode=tm.FetchMode.KEYWORD, limit=10))
    assert {hit.id for hit in fetched.hits} == {mine.id, many.id}
    answer = engine.recall(tm.RecallRequest(question="fact"))
    assert {citation.id for citation in answer.citations} <= {mine.id, many.id}
    explored = engine.explore(tm.ExploreRequest(facet=tm.Facet.WORKSPACE))
    assert [(b.value, b.count) for b in explored.buckets] == [("acme", 2)]
    exported = engine.export(tm.ListRequest())
    assert {item.id for item in exported.items} == {mine.id, many.id}


def test_a_workspace_engine_forgets_only_its_own() -> None:
    inner = reference()
    outside = inner.store(tm.Learning(text="beta fact", meta=tm.MemoryMeta(workspace="beta")))
    engine = WorkspaceEngine(inner, "acme")
    mine = engine.store(tm.Learning(text="acme fact", meta=tm.MemoryMeta(tags=["x"])))
    assert engine.forget(tm.ForgetTarget.by_ids([outside.id])).forgotten == 0
    assert engine.forget_within([outside.id], None).forgotten == 0
    assert (
        engine.forget(tm.ForgetTarget.by_filter(tm.MetaFilter(kinds=["learning"]))).forgotten == 1
    )
    assert [hit.id for hit in inner.list(tm.ListRequest()).items] == [outside.id]
    assert mine.id not in [hit.id for hit in inner.list(tm.ListRequest()).items]


def test_a_workspace_engine_refuses_another_workspace_and_erase_before_the_engine_works() -> None:
    inner = reference()
    inner.store(tm.Learning(text="beta fact", meta=tm.MemoryMeta(workspace="beta")))
    before = inner.list(tm.ListRequest()).items
    engine = WorkspaceEngine(inner, "acme")
    with pytest.raises(tm.InvalidRequest, match=r"`filter\.workspace` is fixed by the host"):
        engine.list(tm.ListRequest(filter=tm.MetaFilter(workspace="beta")))
    with pytest.raises(tm.InvalidRequest, match=r"`filter\.workspace` is fixed by the host"):
        engine.forget(tm.ForgetTarget.by_filter(tm.MetaFilter(workspace="beta")))
    with pytest.raises(tm.InvalidRequest, match="an item of workspace `beta` cannot be stored"):
        engine.store(tm.Learning(text="x", meta=tm.MemoryMeta(workspace="beta")))
    with pytest.raises(tm.Unsupported, match="erase cannot be confined"):
        engine.erase(tm.EraseRequest(reach=tm.Reach.subtree("team:acme")))
    with pytest.raises(tm.InvalidRequest, match="non-blank"):
        WorkspaceEngine(inner, " ")
    assert inner.list(tm.ListRequest()).items == before
    # Its own workspace, named again, is no widening.
    assert engine.list(tm.ListRequest(filter=tm.MetaFilter(workspace="acme"))).items == ()


# --- the server in this process ------------------------------------------------------------


class FailingEngine(EngineWrapper):
    """An engine with a bug: ``list`` raises something no contract names."""

    def handle_list(self, request: tm.ListRequest) -> tm.ListPage:
        raise RuntimeError("a bug deep inside the engine")


def test_an_engine_bug_is_a_tool_error_and_the_traceback_stays_in_the_log(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = MemoryServer(tm.MemoryTools(FailingEngine(reference())))

    async def scenario() -> Any:
        async with Client(server.sdk_server()) as client:
            return await client.call_tool("memory_list", {})

    with caplog.at_level(logging.ERROR, logger="tinymemory_mcp"):
        result = run_async(scenario)
    assert result.is_error is True
    assert (
        result_text(result) == "memory_list failed inside the memory server; see the server's log"
    )
    assert "a bug deep inside the engine" in caplog.text


def test_the_context_reads_no_wider_than_the_tools() -> None:
    tools = tm.MemoryTools(reference()).placed_at(WRITER)
    wide = tm.ContextSpec(budget_tokens=500, reach=tm.Reach.subtree(tm.Namespace.ROOT))
    server = MemoryServer(tools, context=wide)
    assert server.context.reach == tm.Reach.of(WRITER)
    assert server.context.budget_tokens == 500


def test_a_closed_server_refuses_calls_and_closes_its_engine_once() -> None:
    closed: list[bool] = []

    class Closing(EngineWrapper):
        def close(self) -> None:
            closed.append(True)
            super().close()

    server = MemoryServer(tm.MemoryTools(Closing(reference())))
    server.close()
    server.close()
    assert closed == [True]
    refused = server.call("memory_list", {})
    assert refused.is_error is True
    assert result_text(refused) == "unavailable: the memory server is shutting down"


def test_a_server_needs_memory_tools_and_a_context_spec() -> None:
    with pytest.raises(tm.InvalidRequest, match="needs MemoryTools"):
        MemoryServer(reference())  # type: ignore[arg-type]
    with pytest.raises(tm.InvalidRequest, match="must be a ContextSpec"):
        MemoryServer(tm.MemoryTools(reference()), context={"budget": 1})  # type: ignore[arg-type]
    assert CONTEXT_URI == "tinymemory://context.md"


# --- a busy engine does not hold a refusal ------------------------------------------------------


class HeldEngine(EngineWrapper):
    """An engine whose ``list`` waits until the test lets it go (a slow call, without a clock)."""

    def __init__(self, inner: tm.MemoryEngine) -> None:
        super().__init__(inner)
        self.entered = threading.Event()
        self.release = threading.Event()

    def handle_list(self, request: tm.ListRequest) -> tm.ListPage:
        self.entered.set()
        assert self.release.wait(timeout=60), "the test never let the call go"
        return super().handle_list(request)


def test_a_refused_call_is_answered_while_the_engine_is_busy_with_another() -> None:
    engine = HeldEngine(reference())
    server = MemoryServer(tm.MemoryTools(engine))
    refusals: list[Any] = []

    async def scenario() -> Any:
        async with Client(server.sdk_server()) as client:
            async with anyio.create_task_group() as group:
                slow: list[Any] = []

                async def slow_call() -> None:
                    slow.append(await client.call_tool("memory_list", {}))

                group.start_soon(slow_call)
                await anyio.to_thread.run_sync(engine.entered.wait)
                # The engine is held inside the first call: each refusal must still come back.
                for arguments in (
                    {"question": "q" * (1024 * 1024)},
                    {"question": "q", "filter": {"tags_any": ["t"] * 1_000_000}},
                    {"question": " "},
                    {"question": "q", "limit": 0},
                ):
                    refusals.append(await client.call_tool("memory_recall", arguments))
                assert not slow, "the slow call ended before it was let go"
                engine.release.set()
            return slow[0]

    slow_result = run_async(scenario)
    assert slow_result.is_error is False
    texts = [result_text(result) for result in refusals]
    assert all(result.is_error for result in refusals), texts
    assert "cap-question-length" in texts[0]
    assert "cap-tags-any" in texts[1]
