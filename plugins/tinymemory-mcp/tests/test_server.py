"""``tinymemory mcp`` as a host runs it: a subprocess, driven by the MCP SDK's client over stdio."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import REPO, Home, result_json, result_text, run_async
from mcp.shared.exceptions import MCPError

WRITER = "team:acme/agent:writer"
EDITOR = "team:acme/agent:editor"
READS = ["memory_recall", "memory_fetch", "memory_list", "memory_get", "memory_explore"]
WRITES = ["memory_store", "memory_forget"]
FIXTURE = REPO / "tests" / "fixtures" / "tool_contracts.json"


def listed(tools: list) -> list[dict]:
    """The listed tools in the plain ``{name, description, parameters}`` form."""
    return [
        {"name": tool.name, "description": tool.description, "parameters": tool.input_schema}
        for tool in tools
    ]


# --- what the model is offered ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_tools_are_the_frozen_specs_over_either_protocol_era(home: Home, mode: str) -> None:
    async def scenario() -> Any:
        async with home.session("--engine", "reference", mode=mode) as client:
            return (await client.list_tools()).tools

    tools = run_async(scenario)
    shown = listed(tools)
    assert shown == json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert shown == home.json("tools", extra={"TINYMEMORY_ENGINE": "reference"})
    hints = {tool.name: tool.annotations.read_only_hint for tool in tools}
    assert hints == {name: name in READS for name in READS + WRITES}


def test_the_default_engine_is_the_configured_sqlite_and_its_tools_are_the_clis(
    home: Home,
) -> None:
    async def scenario() -> Any:
        async with home.session() as client:
            tools = (await client.list_tools()).tools
            read = await client.read_resource("tinymemory://context.md")
            prompt = await client.get_prompt("memory_context")
            shown = (client.server_info, client.instructions)
            return shown, tools, read.contents[0].text, prompt.messages[0]

    (info, instructions), tools, context, prompt = run_async(scenario)
    assert info.name == "tinymemory"
    assert instructions.startswith("Long-term memory. memory_recall answers")
    assert "cannot choose a namespace or a reach" in instructions
    assert listed(tools) == home.json("tools")
    assert "over engine `sqlite`" in home.server_log()
    # An empty memory: an empty document, and a prompt that says so.
    assert context == ""
    assert prompt.content.text == "Memory holds nothing for this session yet."


# --- store, recall, and a later process -------------------------------------------------------


def test_a_session_stores_and_recalls_and_a_later_tinymemory_recall_finds_it(home: Home) -> None:
    async def scenario() -> Any:
        async with home.session("--at", WRITER) as client:
            stored = result_json(
                await client.call_tool(
                    "memory_store",
                    {"document": {"title": "Release plan", "text": "We ship the SDK on Friday."}},
                )
            )
            tabs = result_json(
                await client.call_tool(
                    "memory_store",
                    {"learning": {"text": "The user prefers tabs", "learning_kind": "preference"}},
                )
            )
            again = result_json(
                await client.call_tool(
                    "memory_store",
                    {"learning": {"text": "The user prefers tabs", "learning_kind": "preference"}},
                )
            )
            answer = result_json(
                await client.call_tool("memory_recall", {"question": "When do we ship the SDK?"})
            )
            return stored, tabs, again, answer

    stored, tabs, again, answer = run_async(scenario)
    assert stored["replayed"] is False
    assert again == {"id": tabs["id"], "replayed": True}
    assert "Friday" in answer["answer"]
    cited = answer["citations"][0]
    assert cited["id"] == stored["id"]
    assert cited["kind"] == "document"
    assert cited["meta"]["source"] == {"kind": "agent"}
    assert "namespace" not in json.dumps(answer)

    later = home.json("recall", "When do we ship the SDK?", "--at", WRITER)
    assert stored["id"] in [citation["id"] for citation in later["citations"]]
    items = {item["id"]: item for item in home.json("list")["items"]}
    assert items[stored["id"]]["meta"]["namespace"] == WRITER
    assert items[tabs["id"]]["meta"]["source"]["kind"] == "agent"


# --- the scope ----------------------------------------------------------------------------------

# The attacks of the core tools' tests; JSON text is what MCP carries as an object.
HOST_FIXED = [
    (json.loads(arguments) if isinstance(arguments, str) else arguments, path)
    for arguments, path in json.loads(
        (FIXTURE.parent / "host_fixed_arguments.json").read_text(encoding="utf-8")
    )
]


def seed_siblings(home: Home) -> dict[str, str]:
    """A root rule, a team rule, the writer's and the editor's own."""
    ids = home.seed(
        ("shared rule: office closes at six", None, None),
        ("team rule: ship on fridays", "team:acme", None),
        ("writer rule: short sentences", WRITER, None),
        ("editor rule: private checklist", EDITOR, None),
    )
    return dict(zip(["root", "team", "writer", "editor"], ids, strict=True))


def test_a_host_fixed_key_is_refused_by_every_tool_and_memory_is_unchanged(home: Home) -> None:
    seed_siblings(home)
    before = home.exported()

    async def scenario() -> Any:
        refusals = []
        async with home.session("--at", WRITER) as client:
            for name in READS + WRITES:
                for arguments, path in HOST_FIXED:
                    result = await client.call_tool(name, arguments)
                    refusals.append((name, path, result.is_error, result_text(result)))
        return refusals

    for name, path, is_error, text in run_async(scenario):
        assert is_error is True
        assert text == (
            f"invalid request: {name}: `{path}` is fixed by the host "
            "and cannot be passed to a memory tool"
        )
    assert home.exported() == before


def test_a_sibling_is_never_read_nor_forgotten(home: Home) -> None:
    ids = seed_siblings(home)

    async def scenario() -> Any:
        async with home.session("--at", WRITER) as client:
            listed_ = result_json(await client.call_tool("memory_list", {"limit": 50}))
            fetched = result_json(
                await client.call_tool(
                    "memory_fetch", {"query": "editor private checklist", "mode": "keyword"}
                )
            )
            got = result_json(
                await client.call_tool("memory_get", {"ids": [ids["editor"], ids["writer"]]})
            )
            counted = result_json(await client.call_tool("memory_explore", {"facet": "kind"}))
            answer = result_json(
                await client.call_tool("memory_recall", {"question": "editor private checklist"})
            )
            forgot = result_json(await client.call_tool("memory_forget", {"ids": [ids["editor"]]}))
            return listed_, fetched, got, counted, answer, forgot

    listed_, fetched, got, counted, answer, forgot = run_async(scenario)
    assert sorted(item["id"] for item in listed_["items"]) == sorted(
        [ids["root"], ids["team"], ids["writer"]]
    )
    assert ids["editor"] not in [hit["id"] for hit in fetched["hits"]]
    assert [item["id"] for item in got["items"]] == [ids["writer"]]
    assert got["missing"] == [ids["editor"]]
    assert counted["total"] == 3
    assert ids["editor"] not in [citation["id"] for citation in answer["citations"]]
    assert forgot == {"forgotten": 0, "skipped": [ids["editor"]]}
    assert ids["editor"] in [item["id"] for item in home.json("list", "--at", EDITOR)["items"]]


def test_reach_exact_reads_only_the_own_node_and_subtree_reads_below(home: Home) -> None:
    ids = seed_siblings(home)

    async def scenario() -> Any:
        async with home.session("--at", WRITER, "--reach", "exact") as client:
            exact = result_json(await client.call_tool("memory_list", {}))
        async with home.session("--at", "team:acme", "--reach", "subtree", "--read-only") as client:
            subtree = result_json(await client.call_tool("memory_list", {}))
        return exact, subtree

    exact, subtree = run_async(scenario)
    assert [item["id"] for item in exact["items"]] == [ids["writer"]]
    assert sorted(item["id"] for item in subtree["items"]) == sorted(
        [ids["team"], ids["writer"], ids["editor"]]
    )


BAD_ARGUMENTS = [
    ("memory_list", {"limt": 3}, "`limt` is not an argument of this tool"),
    ("memory_list", {"limit": 51}, "`limit` must be an integer from 1 to 50"),
    ("memory_recall", {"question": " "}, "`question` is required and must not be blank"),
    (
        "memory_store",
        {"learning": {"text": "a"}, "document": {"text": "b"}},
        "pass exactly one of `learning`, `document` or `conversation`",
    ),
    (
        "memory_store",
        {"learning": {"text": "a", "confidence": 2}},
        "`learning.confidence` must be a number from 0 to 1",
    ),
    ("memory_forget", {}, "pass exactly one of `ids` or `filter`"),
    (
        "memory_forget",
        {"filter": {}},
        "`filter` must set at least one field; an empty filter would mean everything",
    ),
]


def test_a_bad_argument_is_a_tool_error_with_the_contract_message_and_changes_nothing(
    home: Home,
) -> None:
    seed_siblings(home)
    before = home.exported()

    async def scenario() -> Any:
        async with home.session("--at", WRITER) as client:
            bad = [await client.call_tool(name, arguments) for name, arguments, _ in BAD_ARGUMENTS]
            return bad, await client.call_tool("memory_erase", {})

    bad, unknown = run_async(scenario)
    for (name, _, problem), result in zip(BAD_ARGUMENTS, bad, strict=True):
        assert result.is_error is True
        assert result_text(result) == f"invalid request: {name}: {problem}"
    assert unknown.is_error is True
    assert result_text(unknown).startswith("invalid request: unknown memory tool `memory_erase`")
    assert "Traceback" not in home.server_log()
    assert home.exported() == before


# --- read-only ---------------------------------------------------------------------------------


def test_a_read_only_server_hides_and_refuses_the_writes(home: Home) -> None:
    ids = seed_siblings(home)
    before = home.exported()

    async def scenario() -> Any:
        async with home.session("--at", WRITER, "--read-only") as client:
            tools = (await client.list_tools()).tools
            refused = [
                await client.call_tool("memory_store", {"learning": {"text": "new"}}),
                await client.call_tool("memory_forget", {"ids": [ids["writer"]]}),
            ]
            read = result_json(await client.call_tool("memory_get", {"ids": [ids["writer"]]}))
            return tools, refused, read, client.instructions

    tools, refused, read, instructions = run_async(scenario)
    assert instructions.startswith("Long-term memory, read only.")
    assert "forget" not in instructions
    assert listed(tools) == home.json("tools", "--read-only")
    assert [tool.name for tool in tools] == READS
    for name, result in zip(WRITES, refused, strict=True):
        assert result.is_error is True
        assert result_text(result) == (
            f"unsupported: {name} is not offered: these memory tools are read-only"
        )
    assert [item["id"] for item in read["items"]] == [ids["writer"]]
    assert home.exported() == before


# --- the workspace ---------------------------------------------------------------------------


def test_a_workspace_server_stores_into_it_and_reads_only_it(home: Home) -> None:
    outside, loose = home.seed(
        ("a fact of another project", None, "beta"), ("a fact of no project", None, None)
    )

    async def scenario() -> Any:
        async with home.session("--workspace", "acme") as client:
            stored = result_json(
                await client.call_tool("memory_store", {"learning": {"text": "acme uses tabs"}})
            )
            listed_ = result_json(await client.call_tool("memory_list", {}))
            got = result_json(await client.call_tool("memory_get", {"ids": [outside, loose]}))
            other = await client.call_tool("memory_list", {"filter": {"workspace": "beta"}})
            forgot = result_json(await client.call_tool("memory_forget", {"ids": [outside]}))
            return stored, listed_, got, other, forgot

    stored, listed_, got, other, forgot = run_async(scenario)
    assert [item["id"] for item in listed_["items"]] == [stored["id"]]
    assert got == {"items": [], "missing": [outside, loose]}
    assert other.is_error is True
    assert "`filter.workspace` is fixed by the host" in result_text(other)
    assert forgot == {"forgotten": 0, "skipped": [outside]}
    (item,) = home.json("get", stored["id"])["items"]
    assert item["meta"]["workspace"] == "acme"
    assert len(home.json("list")["items"]) == 3


# --- context.md --------------------------------------------------------------------------------


def without_timestamp(markdown: str) -> str:
    return "\n".join(line for line in markdown.splitlines() if not line.startswith("generated_at"))


def test_context_md_is_a_resource_and_a_prompt_compiled_for_the_scope(home: Home) -> None:
    seed_siblings(home)

    async def scenario() -> Any:
        async with home.session("--at", WRITER) as client:
            resources = (await client.list_resources()).resources
            read = await client.read_resource("tinymemory://context.md")
            prompts = (await client.list_prompts()).prompts
            prompt = await client.get_prompt("memory_context")
            with pytest.raises(MCPError, match="no resource"):
                await client.read_resource("tinymemory://other.md")
            with pytest.raises(MCPError, match="no prompt"):
                await client.get_prompt("other")
            return resources, read, prompts, prompt

    resources, read, prompts, prompt = run_async(scenario)
    assert [(r.uri, r.name, r.mime_type) for r in resources] == [
        ("tinymemory://context.md", "context.md", "text/markdown")
    ]
    markdown = read.contents[0].text
    assert "writer rule" in markdown
    assert "editor rule" not in markdown
    cli = home.run("context", "--at", WRITER)
    assert without_timestamp(markdown) == without_timestamp(cli.stdout)
    assert [p.name for p in prompts] == ["memory_context"]
    (message,) = prompt.messages
    assert message.role == "user"
    assert without_timestamp(message.content.text) == without_timestamp(markdown)
