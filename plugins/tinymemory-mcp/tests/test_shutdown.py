"""Stopping ``tinymemory mcp``: on end of input and on SIGTERM, cleanly, with nothing lost."""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

from conftest import TINYMEMORY, Home, result_json, run_async
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

WRITER = "team:acme/agent:writer"


def test_closing_the_session_stops_the_server_with_status_0_and_keeps_every_store(
    home: Home,
) -> None:
    status = home.root / "status"
    # A shell between the client and the server records the server's exit status.
    params = StdioServerParameters(
        command="sh",
        args=["-c", '"$@"; echo $? > "$0"', str(status), TINYMEMORY, "mcp", "--at", WRITER],
        env=home.env,
    )

    async def scenario() -> list[str]:
        with (home.root / "server.log").open("w", encoding="utf-8") as log:
            async with Client(stdio_client(params, errlog=log)) as client:
                return [
                    result_json(
                        await client.call_tool(
                            "memory_store", {"learning": {"text": f"fact number {n}"}}
                        )
                    )["id"]
                    for n in range(20)
                ]

    ids = run_async(scenario)
    assert status.read_text().strip() == "0"
    log = home.server_log()
    assert "stopped: the client closed the connection" in log
    assert "Traceback" not in log
    listed = home.json("list", "--at", WRITER, "--reach", "exact", "--limit", "50")["items"]
    assert sorted(item["id"] for item in listed) == sorted(ids)


def send(process: subprocess.Popen, message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()


def answer(process: subprocess.Popen, request_id: int) -> dict[str, Any]:
    assert process.stdout is not None
    while True:
        line = process.stdout.readline()
        assert line, "the server closed stdout before answering"
        message = json.loads(line)
        if message.get("id") == request_id:
            return dict(message)


def test_sigterm_stops_the_server_cleanly_after_what_it_answered(home: Home) -> None:
    # Plain JSON-RPC lines, the initialize handshake as a host speaks it, so the
    # signal can be sent while the connection is still open.
    process = subprocess.Popen(
        [TINYMEMORY, "mcp"],
        env=home.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        send(
            process,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "0"},
                },
            },
        )
        assert answer(process, 1)["result"]["serverInfo"]["name"] == "tinymemory"
        send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        send(
            process,
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "memory_store", "arguments": {"learning": {"text": "kept"}}},
            },
        )
        result = answer(process, 2)["result"]
        assert result["isError"] is False
        stored = json.loads(result["content"][0]["text"])["id"]
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0
    assert "stopped: SIGTERM" in stderr
    assert "Traceback" not in stderr
    assert [item["id"] for item in home.json("list")["items"]] == [stored]


def test_a_bad_command_line_fails_before_serving_and_writes_nothing_on_the_wire(
    home: Home,
) -> None:
    unknown = home.run("mcp", "--engine", "nope")
    assert unknown.returncode == 1
    assert unknown.stdout == ""
    assert unknown.stderr.startswith("tinymemory: configuration error: unknown engine `nope`")
    for bad in (["--at", "team acme"], ["--workspace", " "], ["--reach", "everything"]):
        refused = home.run("mcp", *bad)
        assert refused.returncode == 2, refused.stderr
        assert refused.stdout == ""
    assert not Path(home.env["XDG_DATA_HOME"], "tinymemory").exists()
