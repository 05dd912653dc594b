"""Every line a client sends is answered, even one the SDK cannot parse, and the server reads on.

Driven as a host drives ``tinymemory mcp``: raw lines on its stdin, replies
read from its stdout, the same process for every case.
"""

from __future__ import annotations

import pytest
from conftest import Wire

from tinymemory.jsonl import max_line_bytes

PARSE_ERROR = -32700
INVALID_REQUEST = -32600


def nested(depth: int) -> bytes:
    return b'{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"a": ' + (
        b"[" * depth + b"]" * depth + b"}}"
    )


def with_id(request_id: int, escape: str) -> bytes:
    """A tool call with a query holding ``escape`` as it is (JSON escapes left for the parser)."""
    head = f'{{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call", "params": '
    return (head + '{"name": "memory_fetch", "arguments": {"query": "' + escape + '"}}}').encode()


# Each line, and the code and id of the error that must answer it.
UNPARSEABLE: dict[str, tuple[bytes, int, int | None]] = {
    **{
        f"lone surrogate {escape}": (with_id(3, f"\\{escape}"), INVALID_REQUEST, 3)
        for escape in ("ud800", "udbff", "udc00", "udfff")
    },
    "lone surrogate in a key": (
        b'{"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"\\ud83d": 1}}',
        INVALID_REQUEST,
        4,
    ),
    "lone surrogate in the id": (
        b'{"jsonrpc": "2.0", "id": "\\udc00", "method": "ping"}',
        INVALID_REQUEST,
        None,
    ),
    **{f"nested {depth} deep": (nested(depth), PARSE_ERROR, None) for depth in (3_000, 100_000)},
    "array nested 3000 deep": (b"[" * 3_000 + b"]" * 3_000, PARSE_ERROR, None),
    **{
        f"invalid utf-8 {bad!r}": (
            b'{"jsonrpc": "2.0", "id": 5, "method": "' + bad + b'"}',
            PARSE_ERROR,
            None,
        )
        for bad in (b"\xff", b"\xc0\xaf", b"\xe2\x82", b"\xed\xa0\x80", b"\xf4\x90\x80\x80")
    },
    **{
        f"not an object: {value.decode()}": (value, INVALID_REQUEST, None)
        for value in (b"3", b'"ping"', b"null", b"true", b"[]")
    },
    "not json": (b'{"jsonrpc": "2.0", "id": 6,', PARSE_ERROR, None),
    "no method": (b'{"jsonrpc": "2.0", "id": 8}', INVALID_REQUEST, 8),
    "a method that is not text": (
        b'{"jsonrpc": "2.0", "id": 9, "method": 12}',
        INVALID_REQUEST,
        9,
    ),
}


@pytest.mark.parametrize("name", list(UNPARSEABLE))
def test_an_unparseable_line_gets_a_json_rpc_error_and_the_next_request_its_answer(
    wire: Wire, name: str
) -> None:
    line, code, request_id = UNPARSEABLE[name]
    wire.send(line)
    error = wire.reply()
    assert error["jsonrpc"] == "2.0"
    assert error["error"]["code"] == code, error
    assert error["error"]["message"]
    assert error.get("id") == request_id
    answer = wire.request("tools/list")
    assert answer["id"] == wire.next_id
    assert len(answer["result"]["tools"]) == 7


def test_a_line_over_the_bound_is_answered_without_being_held(wire: Wire) -> None:
    bound = max_line_bytes()
    wire.send(b'{"jsonrpc": "2.0", "id": 10, "method": "ping", "params": {"pad": "' + b"x" * bound)
    error = wire.reply()
    assert error["error"]["code"] == INVALID_REQUEST
    assert error["error"]["message"] == f"the message is over {bound:,} bytes"
    assert wire.request("ping")["result"] == {}


def test_blank_lines_are_passed_over(wire: Wire) -> None:
    wire.send(b"")
    wire.send(b"   \t")
    assert wire.request("ping")["result"] == {}


@pytest.mark.parametrize("depth", [300, 600])
def test_deep_nesting_json_can_read_is_a_request_like_any_other(wire: Wire, depth: int) -> None:
    wire.send(nested(depth))
    answer = wire.reply()
    assert answer["id"] == 7
    assert len(answer["result"]["tools"]) == 7
