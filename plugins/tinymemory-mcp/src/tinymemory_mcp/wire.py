"""The server's stdin: every line answered, parsed or not.

The SDK's own stdio reader drops a line it cannot parse (a JSON-escaped
lone surrogate, nesting too deep for its parser, bytes that are not UTF-8)
without a reply, so the client waits out its own timeout. :class:`StdinLines`
reads stdin in its place: each line is read to a bound
(:func:`tinymemory.files.read_line`, at the longest line a stored item can
take) and checked as the SDK would parse it. A line that passes goes on to
the SDK; any other is answered at once with a JSON-RPC error, carrying the
request's ``id`` when one can be read from it, and the server reads on.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp.types as types
from anyio.abc import ObjectSendStream
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import INVALID_REQUEST, PARSE_ERROR

from tinymemory.files import LineTooLong, read_line
from tinymemory.jsonl import max_line_bytes

__all__ = ["StdinLines", "refusal"]


class StdinLines:
    """The lines of ``stream`` the SDK can parse, as text; the others answered on ``replies``.

    Hand it to the SDK's ``stdio_server`` as its ``stdin``, then :meth:`answer_on`
    the write stream it yields.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._replies: ObjectSendStream[SessionMessage] | None = None
        self._ready = anyio.Event()

    def answer_on(self, replies: ObjectSendStream[SessionMessage]) -> None:
        """Send the errors for unparseable lines on ``replies`` (the server's write stream)."""
        self._replies = replies
        self._ready.set()

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        bound = max_line_bytes()
        while True:
            try:
                line = await anyio.to_thread.run_sync(
                    read_line, self._stream, bound, abandon_on_cancel=True
                )
            except LineTooLong:
                await self._answer(
                    refusal(None, INVALID_REQUEST, f"the message is over {bound:,} bytes")
                )
                continue
            if not line:
                return
            if not line.strip():
                continue
            text, error = check_line(line)
            if error is not None:
                await self._answer(error)
                continue
            yield text

    async def _answer(self, error: types.JSONRPCError) -> None:
        await self._ready.wait()
        assert self._replies is not None
        await self._replies.send(SessionMessage(error))


def refusal(request_id: str | int | None, code: int, message: str) -> types.JSONRPCError:
    """A JSON-RPC error answering the request ``request_id`` (None: not known)."""
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


def check_line(line: bytes) -> tuple[str, types.JSONRPCError | None]:
    """The line as text, and the error answering it when it is no message the SDK can take."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        return "", refusal(None, PARSE_ERROR, f"the message is not UTF-8 text ({error.reason})")
    try:
        data = json.loads(text)
    except RecursionError:
        return "", refusal(None, PARSE_ERROR, "the message is not JSON: it nests too deeply")
    except ValueError as error:
        return "", refusal(None, PARSE_ERROR, f"the message is not JSON: {error}")
    request_id = _request_id(data)
    if not isinstance(data, dict):
        return "", refusal(None, INVALID_REQUEST, "a message must be a JSON object")
    if _has_lone_surrogate(data):
        return "", refusal(
            request_id, INVALID_REQUEST, "the message holds a lone surrogate (\\ud800 to \\udfff)"
        )
    try:
        types.jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValueError as error:
        # The first line of pydantic's report says what failed, without the input.
        reason = str(error).splitlines()[1:2] or ["not a JSON-RPC message"]
        return "", refusal(
            request_id, INVALID_REQUEST, f"not a JSON-RPC message: {reason[0].strip()}"
        )
    return text, None


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
