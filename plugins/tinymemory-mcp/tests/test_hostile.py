"""Hostile shapes sent to ``tinymemory mcp``: each answered within two seconds, the server still
answering after it.

The time is measured around the one request alone, from its last byte
written to its answer read, on the same process for every shape: two seconds
is generous for a refusal that parses the line once and reads no more of
what a cap refuses than the cap.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from conftest import Wire

INVALID_REQUEST = -32600
#: The most seconds one hostile request may take to be answered.
ANSWER_SECONDS = 2.0


def tool_call(request_id: int, name: str, arguments: dict[str, Any]) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    return json.dumps(message).encode()


HOSTILE: dict[str, tuple[bytes, str]] = {
    "a 50 MB question": (
        tool_call(1, "memory_recall", {"question": "q" * (50 * 1024 * 1024)}),
        "cap-question-length",
    ),
    "a 1 MB question": (
        tool_call(2, "memory_recall", {"question": "q" * (1024 * 1024)}),
        "cap-question-length",
    ),
    "a 1 MB query": (
        tool_call(3, "memory_fetch", {"query": "q" * (1024 * 1024)}),
        "cap-query-length",
    ),
    "1,000,000 tags": (
        tool_call(
            4,
            "memory_list",
            {"filter": {"tags_any": [f"t{n}" for n in range(1_000_000)]}},
        ),
        "cap-tags-any",
    ),
    "a 1 MB tag": (
        tool_call(5, "memory_list", {"filter": {"tags_any": ["t" * (1024 * 1024)]}}),
        "cap-filter-value-length",
    ),
    "1,000,000 ids to get": (
        tool_call(6, "memory_get", {"ids": [f"{n:040x}" for n in range(1_000_000)]}),
        "must list from 1 to 200 ids",
    ),
    "a 1 MB cursor": (
        tool_call(7, "memory_list", {"cursor": "A" * (1024 * 1024)}),
        "cap-cursor-length",
    ),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_request_is_answered_at_once(wire: Wire, name: str) -> None:
    line, rule = HOSTILE[name]
    wire.send(line)
    started = time.perf_counter()  # from the last byte sent: the transfer is the pipe's
    answer = wire.reply()
    elapsed = time.perf_counter() - started
    assert elapsed < ANSWER_SECONDS, f"{name}: answered in {elapsed:.2f} s"
    result = answer["result"]
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert rule in text
    assert len(text) < 1_000, "the refused input came back"
    assert wire.request("ping")["result"] == {}
