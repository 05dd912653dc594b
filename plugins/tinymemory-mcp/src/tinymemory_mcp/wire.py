"""The server's stdin: every line answered, parsed or not.

The SDK's own stdio reader drops a line it cannot parse (a JSON-escaped
lone surrogate, nesting too deep for its parser, bytes that are not UTF-8)
without a reply, so the client waits out its own timeout. :class:`StdinLines`
reads stdin in its place: each line is read to a bound
(:func:`tinymemory.files.read_line`, at the longest line a stored item can
take) and checked against JSON-RPC 2.0 and as the SDK would parse it. A line
that passes goes on to the SDK; any other is answered at once as the JSON-RPC
specification says (:func:`check_line`), and the server reads on.
"""

from __future__ import annotations

import json
import re
from typing import Any, BinaryIO, cast

import anyio
import anyio.to_thread
import mcp.types as types
import pydantic
from anyio.abc import ObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import INVALID_REQUEST, PARSE_ERROR

from tinymemory.files import LineTooLong, read_line
from tinymemory.jsonl import max_line_bytes

__all__ = ["BatchReply", "StdinMessages", "check_line", "json_rpc_problem", "refusal"]

#: A JSON escape of a UTF-16 surrogate: without one, the text (valid UTF-8) holds no lone one.
_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


class StdinMessages:
    """The messages on ``stream``, each line read to a bound and parsed once, for the SDK's server.

    :meth:`serve` hands each message the SDK can take to the server and
    answers every other line at once. Give the object to the SDK's
    ``stdio_server`` as its ``stdin`` too: there it reads nothing, and ends
    when the input ends.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._ended = anyio.Event()

    async def serve(
        self,
        messages: ObjectSendStream[SessionMessage | Exception],
        replies: ObjectSendStream[SessionMessage],
    ) -> None:
        """Read to the end of the input: messages go to ``messages`` (closed at the end), and the
        answer to a line that is no message the SDK can take goes to ``replies``."""
        bound = max_line_bytes()
        async with messages:
            while True:
                try:
                    line = await anyio.to_thread.run_sync(
                        read_line, self._stream, bound, abandon_on_cancel=True
                    )
                except LineTooLong:
                    error = refusal(None, INVALID_REQUEST, f"the message is over {bound:,} bytes")
                    await replies.send(SessionMessage(error))
                    continue
                if not line:
                    break
                if not line.strip():
                    continue
                message, reply = check_line(line)
                if reply is not None:
                    # The SDK's stdout writer writes any message's model_dump_json as one
                    # line, so a batch's array goes out through it too, never interleaved.
                    await replies.send(SessionMessage(cast("types.JSONRPCMessage", reply)))
                if message is not None:
                    await messages.send(SessionMessage(message))
        self._ended.set()

    def __aiter__(self) -> StdinMessages:
        return self

    async def __anext__(self) -> str:
        await self._ended.wait()
        raise StopAsyncIteration


def refusal(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    """A JSON-RPC error answering the request ``request_id`` (None: not known)."""
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


#: What answers a batch's request: MCP (since protocol 2025-06-18, which this SDK speaks) has
#: no batches.
BATCH_REFUSED = (
    "batches are not served (MCP has none since protocol 2025-06-18): "
    "send each message on a line of its own"
)


class BatchReply(pydantic.RootModel[list[types.JSONRPCError]]):
    """The answer to a batch: one error for each request in it, as one JSON array."""


#: What answers a line: an error, the array answering a batch, or nothing.
Reply = types.JSONRPCError | BatchReply | None


def check_line(line: bytes) -> tuple[types.JSONRPCMessage | None, Reply]:
    """The message the line holds when it goes on to the SDK, and what answers it now.

    JSON-RPC 2.0 to the letter: a line that is not JSON is a parse error
    (-32700, id null); anything that is not a request, notification or
    response object is an invalid request (-32600), carrying the request's id
    when one of the right type (a string or an integer) can be read, else id
    null; a notification is never answered, not even when MCP cannot take it;
    an empty batch is one invalid request, and any other batch is answered
    with an array holding an error for each request in it (notifications and
    responses get none, and a batch of only those gets no answer at all).
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, refusal(None, PARSE_ERROR, f"the message is not UTF-8 text ({error.reason})")
    try:
        data = json.loads(text)
    except RecursionError:
        return None, refusal(None, PARSE_ERROR, "the message is not JSON: it nests too deeply")
    except ValueError as error:
        return None, refusal(None, PARSE_ERROR, f"the message is not JSON: {error}")
    if isinstance(data, list):
        return None, _batch(data)
    if not isinstance(data, dict):
        return None, refusal(None, INVALID_REQUEST, "a message must be a JSON object")
    request_id = _request_id(data)
    problem = json_rpc_problem(data)
    if problem is not None:
        return None, refusal(request_id, INVALID_REQUEST, problem)
    if _ESCAPED_SURROGATE.search(text) and _has_lone_surrogate(data):
        return None, refusal(
            request_id, INVALID_REQUEST, "the message holds a lone surrogate (\\ud800 to \\udfff)"
        )
    try:
        # From what json.loads made: the values are the same objects, not copied again.
        message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValueError as error:
        if "id" not in data and "method" in data:
            return None, None  # a notification MCP cannot take: never answered
        # The first line of pydantic's report says what failed, without the input.
        reason = str(error).splitlines()[1:2] or ["not a JSON-RPC message"]
        return None, refusal(
            request_id, INVALID_REQUEST, f"not a JSON-RPC message: {reason[0].strip()}"
        )
    return message, None


def json_rpc_problem(data: dict[str, Any]) -> str | None:
    """What makes ``data`` no JSON-RPC 2.0 request, notification or response (None: nothing).

    MCP narrows JSON-RPC's ids: a string or an integer, never null.
    """
    if data.get("jsonrpc") != "2.0":
        return 'a message must carry "jsonrpc": "2.0"'
    if "id" in data and _request_id(data) is None:
        return "an id must be a string or an integer"
    if "method" in data:
        if not isinstance(data["method"], str):
            return "`method` must be a string"
        if "params" in data and not isinstance(data["params"], (dict, list)):
            return "`params` must be an object or an array"
        return None
    if "id" not in data or ("result" in data) == ("error" in data):
        return "a message is a request (with `method`) or a response (`result` or `error`)"
    return None


def _batch(entries: list[Any]) -> Reply:
    if not entries:
        return refusal(None, INVALID_REQUEST, "an empty batch holds no request")
    errors = []
    for entry in entries:
        if not isinstance(entry, dict):
            errors.append(refusal(None, INVALID_REQUEST, "a batch entry must be a JSON object"))
            continue
        problem = json_rpc_problem(entry)
        if problem is not None:
            errors.append(refusal(_request_id(entry), INVALID_REQUEST, problem))
        elif "method" in entry and "id" in entry:
            errors.append(refusal(_request_id(entry), INVALID_REQUEST, BATCH_REFUSED))
    return BatchReply(errors) if errors else None


def _request_id(data: Any) -> str | int | None:
    """The message's ``id`` when it is one a reply can carry (a string or a whole number)."""
    found = data.get("id") if isinstance(data, dict) else None
    if isinstance(found, bool) or not isinstance(found, (str, int)):
        return None
    if isinstance(found, str) and _has_lone_surrogate(found):
        return None
    return found


def _has_lone_surrogate(data: Any) -> bool:
    """Whether a string anywhere in ``data`` (keys too) holds a lone UTF-16 surrogate."""
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
