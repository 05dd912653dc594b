"""JSON-RPC 2.0 to the letter: the specification's examples (section 7), and ids of every type.

Driven as a host drives ``tinymemory mcp``: raw lines on its stdin, replies read
from its stdout, one process for every case. Where the specification would
run the requests of a batch, this server (speaking MCP 2025-06-18 and later,
which has no batches) answers each request in it with an Invalid Request
error carrying its id; everything else is the specification's answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import Wire

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601

#: Each single message and the (code, id) of the one error that must answer it.
ANSWERED: dict[str, tuple[bytes, int, Any]] = {
    # The specification's examples.
    "call of a method that does not exist": (
        b'{"jsonrpc": "2.0", "method": "foobar", "id": "1"}',
        METHOD_NOT_FOUND,
        "1",
    ),
    "call with invalid JSON": (
        b'{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]',
        PARSE_ERROR,
        None,
    ),
    "call with an invalid request object": (
        b'{"jsonrpc": "2.0", "method": 1, "params": "bar"}',
        INVALID_REQUEST,
        None,
    ),
    "batch call with invalid JSON": (
        b'[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},'
        b'{"jsonrpc": "2.0", "method"]',
        PARSE_ERROR,
        None,
    ),
    "call with an empty array": (b"[]", INVALID_REQUEST, None),
    # An id of a type JSON-RPC (or MCP, which narrows it to a string or an integer) refuses.
    **{
        f"an id that is {shown}": (
            b'{"jsonrpc": "2.0", "id": ' + value + b', "method": "ping"}',
            INVALID_REQUEST,
            None,
        )
        for shown, value in {
            "an object": b"{}",
            "an object with a key": b'{"a": 1}',
            "an empty array": b"[]",
            "an array": b"[1]",
            "true": b"true",
            "false": b"false",
            "a fraction": b"1.5",
            "a whole float": b"1.0",
            "an exponent": b"1e3",
            "null": b"null",
        }.items()
    },
    # The other parts of a request object.
    'jsonrpc "1.0"': (b'{"jsonrpc": "1.0", "id": 3, "method": "ping"}', INVALID_REQUEST, 3),
    "no jsonrpc": (b'{"id": 3, "method": "ping"}', INVALID_REQUEST, 3),
    "params that are a string": (
        b'{"jsonrpc": "2.0", "id": 4, "method": "ping", "params": "bar"}',
        INVALID_REQUEST,
        4,
    ),
    "neither a request nor a response": (b'{"jsonrpc": "2.0", "id": 5}', INVALID_REQUEST, 5),
    "a response holding both result and error": (
        b'{"jsonrpc": "2.0", "id": 6, "result": {}, "error": {"code": 1, "message": "x"}}',
        INVALID_REQUEST,
        6,
    ),
}

#: Each batch, and the (code, id) of each error the array answering it must hold, in order.
BATCHES: dict[str, tuple[bytes, list[tuple[int, Any]]]] = {
    "an invalid batch, but not empty": (b"[1]", [(INVALID_REQUEST, None)]),
    "an invalid batch": (b"[1,2,3]", [(INVALID_REQUEST, None)] * 3),
    "a batch of requests, a notification and an invalid object": (
        b'[{"jsonrpc": "2.0", "method": "sum", "params": [1,2,4], "id": "1"},'
        b'{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]},'
        b'{"jsonrpc": "2.0", "method": "subtract", "params": [42,23], "id": "2"},'
        b'{"foo": "boo"},'
        b'{"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},'
        b'{"jsonrpc": "2.0", "method": "get_data", "id": "9"}]',
        [
            (INVALID_REQUEST, "1"),
            (INVALID_REQUEST, "2"),
            (INVALID_REQUEST, None),
            (INVALID_REQUEST, "5"),
            (INVALID_REQUEST, "9"),
        ],
    ),
    "a batch with an id of the wrong type": (
        b'[{"jsonrpc": "2.0", "method": "ping", "id": {}},'
        b'{"jsonrpc": "2.0", "method": "ping", "id": 7}]',
        [(INVALID_REQUEST, None), (INVALID_REQUEST, 7)],
    ),
}

#: Messages that must get no answer at all.
UNANSWERED: dict[str, bytes] = {
    "a notification": b'{"jsonrpc": "2.0", "method": "update", "params": [1,2,3,4,5]}',
    "a notification without params": b'{"jsonrpc": "2.0", "method": "foobar"}',
    "a batch of notifications": (
        b'[{"jsonrpc": "2.0", "method": "notify_sum", "params": [1,2,4]},'
        b'{"jsonrpc": "2.0", "method": "notify_hello", "params": [7]}]'
    ),
}


@pytest.mark.parametrize("name", list(ANSWERED))
def test_a_message_is_answered_as_the_specification_says(wire: Wire, name: str) -> None:
    line, code, request_id = ANSWERED[name]
    wire.send(line)
    error = wire.reply()
    assert error["jsonrpc"] == "2.0"
    assert "id" in error
    assert error["id"] == request_id
    assert error["error"]["code"] == code, error
    assert error["error"]["message"]
    assert "result" not in error
    assert wire.request("ping")["result"] == {}


@pytest.mark.parametrize("name", list(BATCHES))
def test_a_batch_is_answered_with_one_array(wire: Wire, name: str) -> None:
    line, wanted = BATCHES[name]
    wire.send(line)
    answer = wire.answer()
    assert isinstance(answer, list)
    assert [(entry["error"]["code"], entry["id"]) for entry in answer] == wanted
    assert all(entry["jsonrpc"] == "2.0" for entry in answer)
    assert wire.request("ping")["result"] == {}


@pytest.mark.parametrize("name", list(UNANSWERED))
def test_a_notification_gets_no_answer(wire: Wire, name: str) -> None:
    wire.unanswered(UNANSWERED[name])


@pytest.mark.parametrize("request_id", ["abc", "", 0, -5, 2**53, "1"])
def test_an_id_of_a_right_type_is_answered_under_it(wire: Wire, request_id: Any) -> None:
    wire.send(json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "ping"}).encode())
    assert wire.reply() == {"jsonrpc": "2.0", "id": request_id, "result": {}}
