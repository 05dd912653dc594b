"""docs/mcp.md as written: its Python session prints what it shows, its host snippet serves."""

from __future__ import annotations

import json
import os
import re
import sys
import sysconfig
from typing import Any

import pytest
from conftest import REPO, Home, result_json, run_async
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tinymemory.testing import Example, examples

PAGE = REPO / "docs" / "mcp.md"
SCRIPTS = sysconfig.get_path("scripts")


@pytest.fixture
def in_home(home: Home, monkeypatch: pytest.MonkeyPatch) -> Home:
    """This process in ``home``, with ``tinymemory`` on the PATH, as a host would run."""
    for name, value in home.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PATH", SCRIPTS + os.pathsep + os.environ.get("PATH", ""))
    return home


def session_examples() -> list[Example]:
    """The page's ```py blocks that show their output (the core's run of every docs page has
    no plugin, so the page marks them ```py); its server script, which shows none, is run as a
    server by ``test_the_pages_own_server_script_serves_its_tools``."""
    return [case for case in examples(PAGE, language="py") if case.expected is not None]


@pytest.mark.parametrize("example", session_examples(), ids=lambda example: example.name)
def test_the_pages_python_runs_and_prints_what_it_shows(in_home: Home, example: Example) -> None:
    assert example.run() == example.expected


def test_the_host_snippet_starts_a_server_with_that_scope(in_home: Home) -> None:
    (snippet,) = re.findall(r"```json\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    entry = json.loads(snippet)["mcpServers"]["memory"]
    params = StdioServerParameters(
        command=entry["command"], args=entry["args"], env={**in_home.env, **entry["env"]}
    )
    params.env["PATH"] = os.environ["PATH"]  # type: ignore[index]

    async def scenario() -> Any:
        with (in_home.root / "server.log").open("w", encoding="utf-8") as log:
            async with Client(stdio_client(params, errlog=log)) as client:
                tools = (await client.list_tools()).tools
                stored = await client.call_tool("memory_store", {"learning": {"text": "noted"}})
                return [tool.name for tool in tools], result_json(stored)["id"]

    names, stored = run_async(scenario)
    assert names == [spec["name"] for spec in in_home.json("tools")]
    listed = in_home.json("list", "--at", "user:ada/agent:desktop", "--reach", "exact")
    assert [item["id"] for item in listed["items"]] == [stored]
    assert "writes at user:ada/agent:desktop" in in_home.server_log()


def test_the_pages_own_server_script_serves_its_tools(in_home: Home) -> None:
    blocks = re.findall(r"```py\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    (script,) = [block for block in blocks if "MemoryServer" in block]
    params = StdioServerParameters(command=sys.executable, args=["-c", script], env=in_home.env)

    async def scenario() -> Any:
        with (in_home.root / "server.log").open("w", encoding="utf-8") as log:
            async with Client(stdio_client(params, errlog=log)) as client:
                stored = await client.call_tool("memory_store", {"learning": {"text": "noted"}})
                context = await client.read_resource("tinymemory://context.md")
                return result_json(stored)["id"], context.contents[0].text

    stored, context = run_async(scenario)
    listed = in_home.json("list", "--at", "team:acme/agent:writer", "--reach", "exact")
    assert [item["id"] for item in listed["items"]] == [stored]
    assert "noted" in context
