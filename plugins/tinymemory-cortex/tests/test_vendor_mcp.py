"""The vendor's MCP server, ``cortexdb-mcp`` 0.8.0, drives the double through every tool.

The server is run over stdio, as an MCP host runs it, and driven by the
official ``mcp`` client; it talks to the double on loopback with
``httpx`` (``Authorization: Bearer`` and ``X-Cortex-Actor``). Each tool
whose route the double serves is called and judged on its text and on what
the double holds afterwards; the tools on routes the engine never calls are
called too, and the double refuses them as an unknown route (404) (listed
in docs/engines/cortexdb.md with the reason).

cortexdb-mcp 0.8.0 needs ``mcp<2`` and this repository's own MCP server
``mcp>=2.3``: the vendor's server runs from a folder of its own
(``--cortexdb-mcp-path``, which the cortex tox env fills with ``pip install
--target``), while this test's client is the environment's ``mcp``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from tinymemory_cortex.testing import CortexDouble, DoubleServer

TOKEN = "mcp-judge-key-0001"
ACTOR = "user:judge"
SCOPE = "user:judge/app:notes"
#: Tools on routes the engine never calls, with the route each reaches.
OUTSIDE: dict[str, tuple[dict[str, Any], str]] = {
    "memory_status": ({"event_id": "evt_1"}, "v1/experience/status"),
    "forget_preview": ({"query": "x"}, "v1/forget/preview"),
    "entity_list": ({}, "v1/facts"),
    "belief_declare": ({"statement": "judge likes tea"}, "v1/beliefs"),
    "list_conflicts": ({}, "v1/conflicts"),
    "claim_history": ({"subject": "user:judge", "predicate": "likes"}, "v1/claims/history"),
}


def server_path(config: pytest.Config) -> str:
    """Where cortexdb-mcp 0.8.0 (with mcp<2) is installed, checked before any test runs."""
    given = config.getoption("--cortexdb-mcp-path")
    path = str(given) if given else ""
    done = subprocess.run(
        [sys.executable, "-c", "import cortexdb_mcp.server"],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, (
        "cortexdb-mcp 0.8.0 cannot be imported with this environment's mcp; install it apart "
        "(pip install --target DIR cortexdb-mcp==0.8.0 'mcp>=1,<2') and pass "
        f"--cortexdb-mcp-path=DIR: {done.stderr[-500:]}"
    )
    return path


class Mcp:
    """Calls the vendor's MCP server's tools, one session per call, against one double."""

    def __init__(self, server: DoubleServer, home: Path, path: str) -> None:
        self.server = server
        self.env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "PYTHONPATH": path,
            "CORTEXDB_URL": server.url,
            "CORTEXDB_API_KEY": TOKEN,
            "CORTEXDB_ACTOR": ACTOR,
            "CORTEXDB_SCOPE": SCOPE,
        }
        self.log = home / "server.log"

    def calls(self, *calls: tuple[str, dict[str, Any]]) -> list[tuple[bool, str]]:
        """Each call's ``(is_error, text)``, in one session of the server."""
        params = StdioServerParameters(
            command=sys.executable,
            args=["-c", "from cortexdb_mcp.server import main; main()"],
            env=self.env,
        )

        async def scenario() -> list[tuple[bool, str]]:
            answers = []
            with self.log.open("a", encoding="utf-8") as log:
                async with Client(stdio_client(params, errlog=log), mode="legacy") as client:
                    for name, arguments in calls:
                        result = await client.call_tool(name, arguments)
                        text = "".join(getattr(block, "text", "") for block in result.content)
                        answers.append((bool(result.is_error), text))
            return answers

        return anyio.run(scenario)

    def text(self, name: str, **arguments: Any) -> str:
        [(failed, text)] = self.calls((name, arguments))
        assert not failed, text
        return text

    def held(self, scope: str = SCOPE) -> list[str]:
        tenant = self.server.double.tenants.get(TOKEN)
        logs = tenant.logs.get(scope, []) if tenant is not None else []
        return [event.body["content"]["text"] for event in logs]


@pytest.fixture(scope="module")
def installed(pytestconfig: pytest.Config) -> str:
    return server_path(pytestconfig)


@pytest.fixture
def judge(tmp_path: Path, installed: str) -> Iterator[Mcp]:
    with DoubleServer(CortexDouble({TOKEN: ACTOR}, require_actor=True)) as server:
        yield Mcp(server, tmp_path, installed)


def test_store_search_context_list_get_and_delete_in_one_session(judge: Mcp) -> None:
    answers = judge.calls(
        ("health_check", {}),
        ("get_usage", {}),
        ("memory_store", {"content": "the refund window is 30 days", "source": "policy"}),
        ("memory_store", {"content": "standup is at nine", "tags": ["topic:meetings"]}),
        (
            "entity_link",
            {"source_entity_id": "acme", "target_entity_id": "bob", "relationship": "employs"},
        ),
        ("memory_search", {"query": "refund"}),
        ("get_context", {"topic": "refund"}),
        ("advanced_search", {"query": "refund", "source": "policy"}),
        ("memory_list", {"limit": 10}),
    )
    assert not [text for failed, text in answers if failed], answers
    health, usage, stored, _, linked, search, context, advanced, listed = (
        text for _, text in answers
    )
    assert '"caller": "user:judge"' in health
    assert "Caller: user:judge" in usage
    assert "Event ID: evt_" in stored
    assert "Event ID: evt_" in linked
    assert "the refund window is 30 days" in search
    assert "standup" not in search
    assert "the refund window is 30 days" in context
    assert "the refund window is 30 days" in advanced
    assert "standup" not in advanced
    assert listed.startswith("Showing 3 event(s)")
    assert judge.held() == [
        "the refund window is 30 days",
        "standup is at nine",
        "acme employs bob",
    ]
    first = judge.server.double.tenants[TOKEN].logs[SCOPE][0]
    got = judge.text("memory_get", episode_id=first.id)
    assert "Content:\nthe refund window is 30 days" in got
    assert "source:policy" in got
    assert judge.text("memory_delete", episode_id=first.id).startswith("Deleted 0 event(s)")
    # cascade derived_only: the event stays, what was derived from it goes (§4.5).
    assert len(judge.held()) == 3


def test_a_namespace_is_an_ns_scope_below_the_default(judge: Mcp) -> None:
    judge.text("memory_store", content="in a namespace", namespace="drafts")
    assert judge.held(f"{SCOPE}/ns:drafts") == ["in a namespace"]


def test_forget_by_subject_and_the_whole_scope(judge: Mcp) -> None:
    judge.text("memory_store", content="kept for now")
    assert judge.text("memory_forget", reason="judge", query="user:alice").startswith(
        "Forgotten. 0 event(s)"
    )
    assert judge.text("memory_bulk_delete", query="user:alice", reason="judge").startswith(
        "Bulk delete complete."
    )
    assert judge.text("memory_forget", reason="judge").startswith("Forgotten.")  # confirm_all
    assert judge.held() == ["kept for now"]  # derived_only keeps the events (§4.5)


def test_a_search_with_nothing_stored_says_so(judge: Mcp) -> None:
    assert judge.text("memory_search", query="refund") == "No results found."


@pytest.mark.parametrize("tool", sorted(OUTSIDE))
def test_tools_on_routes_outside_the_engines_use_are_refused_as_unknown(
    judge: Mcp, tool: str
) -> None:
    arguments, route = OUTSIDE[tool]
    [(_, text)] = judge.calls((tool, arguments))
    assert "404" in text or "not found" in text.lower(), text
    assert judge.server.double.count(route) == 1
