"""The MCP server: one ``MemoryTools``' tools, and context.md as a resource and a prompt.

:class:`MemoryServer` serves, over this process's stdin and stdout, exactly
the tools ``tools.specs()`` describes (names, descriptions and JSON Schemas
as they are, never re-derived), runs each call with ``tools.call`` and hands
back its compact JSON, or, for a refused call, an MCP tool error carrying the
contract's message. The scope is the ``MemoryTools``' own: nothing a client
sends can change it.

The SDK's asyncio stays in here: :meth:`MemoryServer.serve_stdio` is a
blocking call. Engine work runs on a worker thread, one call at a time, so
the event loop keeps answering while a call runs and the engine never sees
two calls at once. A call is checked (its arguments and the contract's caps
on a request) before it waits for the engine, so a refused call is answered
at once, whatever call the engine is busy with; a valid call waits its turn.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar, cast

import anyio
import anyio.to_thread
import attrs
import mcp.types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS

import tinymemory as tm

from .wire import StdinMessages

__all__ = ["CONTEXT_PROMPT", "CONTEXT_URI", "MemoryServer"]

T = TypeVar("T")
Context = ServerRequestContext[Any]

#: The resource holding context.md, compiled afresh on every read.
CONTEXT_URI = "tinymemory://context.md"
#: The prompt that hands context.md to the model as a user message.
CONTEXT_PROMPT = "memory_context"
CONTEXT_DESCRIPTION = (
    "What memory holds for this session: short briefs about the user, their active work, "
    "their preferences and recent events, then the latest learnings, compiled now from "
    "memory within a token budget."
)
EMPTY_CONTEXT = "Memory holds nothing for this session yet."

logger = logging.getLogger("tinymemory_mcp")


def instructions(writes: bool) -> str:
    """What the server tells a client (and, through many hosts, the model) it is for."""
    looks = "the other memory_* tools look through it"
    if writes:
        looks += ", keep what is worth keeping and forget what is wrong or outdated"
    return (
        f"Long-term memory{'' if writes else ', read only'}. memory_recall answers a question "
        f"from memory with citations; {looks}. Whose memory these tools touch is fixed by "
        "the host: arguments cannot choose a namespace or a reach. A refused call says what "
        "to fix."
    )


def _annotations(name: str) -> types.ToolAnnotations:
    """Hints for a host (say, to let reads run without asking); the tool contract is unchanged."""
    if name == "memory_store":
        return types.ToolAnnotations(
            read_only_hint=False,
            destructive_hint=False,
            idempotent_hint=True,
            open_world_hint=False,
        )
    if name == "memory_forget":
        return types.ToolAnnotations(
            read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
        )
    return types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


class MemoryServer:
    """An MCP server offering ``tools`` over stdio, with context.md as a resource and a prompt.

    ``context`` sets the document's budget and briefs; its reach is always the
    tools' own (``tools.scope.reach``), so the document never reads wider than
    the tools do. The server owns the engine from here on: :meth:`close`
    (called when :meth:`serve_stdio` returns) waits for a call in flight, then
    closes it.
    """

    def __init__(self, tools: tm.MemoryTools, *, context: tm.ContextSpec | None = None) -> None:
        if not isinstance(tools, tm.MemoryTools):
            raise tm.InvalidRequest(
                f"a memory server needs MemoryTools, not {type(tools).__name__}"
            )
        if context is not None and not isinstance(context, tm.ContextSpec):
            raise tm.InvalidRequest(
                f"`context` must be a ContextSpec, not {type(context).__name__}"
            )
        self.tools = tools
        self.context = attrs.evolve(context or tm.ContextSpec(), reach=tools.scope.reach)
        self._specs = tools.specs()
        # Reentrant: a stop signal may arrive while the main thread is in close().
        self._gate = threading.RLock()
        self._closed = False

    # --- what a client is shown -------------------------------------------------------

    def tool_list(self) -> list[types.Tool]:
        """The tools, each with its frozen name, description and JSON Schema."""
        return [
            types.Tool(
                name=spec.name,
                description=spec.description,
                input_schema=copy.deepcopy(spec.parameters),
                annotations=_annotations(spec.name),
            )
            for spec in self._specs
        ]

    # --- running the engine -------------------------------------------------------------

    def _run_locked(self, work: Callable[[], T]) -> T:
        """Run ``work`` alone on the engine; ``Unavailable`` once the server is closed."""
        with self._gate:
            if self._closed:
                raise tm.Unavailable("the memory server is shutting down")
            return work()

    def call(self, name: str, arguments: dict[str, Any] | None) -> types.CallToolResult:
        """One tool call's MCP result: the tool's JSON, or a tool error with the contract's text."""
        prepared = self.checked(name, arguments)
        if isinstance(prepared, types.CallToolResult):
            return prepared
        return self.run(name, prepared)

    def checked(
        self, name: str, arguments: dict[str, Any] | None
    ) -> Callable[[], str] | types.CallToolResult:
        """The call checked without the engine: ready to :meth:`run`, or the tool error refusing it.

        Bad arguments and requests over the contract's caps are refused here,
        so the refusal never waits for the engine.
        """
        return self._guarded(name, lambda: self.tools.prepare(name, arguments))

    def run(self, name: str, work: Callable[[], str]) -> types.CallToolResult:
        """Run a checked call alone on the engine: its JSON, or a tool error."""
        text = self._guarded(name, lambda: self._run_locked(work))
        if isinstance(text, types.CallToolResult):
            return text
        return types.CallToolResult(
            content=[types.TextContent(text=text)], structured_content=json.loads(text)
        )

    def _guarded(self, name: str, step: Callable[[], T]) -> T | types.CallToolResult:
        try:
            return step()
        except tm.TinyMemoryError as error:
            return _tool_error(str(error))
        except Exception:
            # A bug in an engine or here: the traceback goes to the server's log
            # (stderr), never to the client.
            logger.exception("memory tool %s failed", name)
            return _tool_error(f"{name} failed inside the memory server; see the server's log")

    def context_markdown(self) -> str:
        """context.md for the tools' scope, compiled now (empty when memory has nothing)."""
        compiler = tm.ContextCompiler()
        return self._run_locked(lambda: compiler.compile(self.tools.engine, self.context)).markdown

    def close(self) -> None:
        """Wait for a call in flight, refuse any later one, and close the engine."""
        with self._gate:
            if self._closed:
                return
            self._closed = True
            self.tools.engine.close()

    # --- the protocol -------------------------------------------------------------------

    def sdk_server(self) -> Server[Any]:
        """The SDK's low-level server with this server's handlers."""
        limiter = _OneAtATime()

        async def blocking(work: Callable[[], T]) -> T:
            return await anyio.to_thread.run_sync(work, limiter=limiter.get())

        async def list_tools(
            ctx: Context, params: types.PaginatedRequestParams | None
        ) -> types.ListToolsResult:
            return types.ListToolsResult(tools=self.tool_list())

        async def call_tool(
            ctx: Context, params: types.CallToolRequestParams
        ) -> types.CallToolResult:
            # Checked on a thread of its own, not behind the call the engine is serving:
            # a refusal is answered at once.
            prepared = await anyio.to_thread.run_sync(
                lambda: self.checked(params.name, params.arguments)
            )
            if isinstance(prepared, types.CallToolResult):
                return prepared
            return await blocking(lambda: self.run(params.name, prepared))

        async def list_resources(
            ctx: Context, params: types.PaginatedRequestParams | None
        ) -> types.ListResourcesResult:
            resource = types.Resource(
                uri=CONTEXT_URI,
                name="context.md",
                description=CONTEXT_DESCRIPTION,
                mime_type="text/markdown",
            )
            return types.ListResourcesResult(resources=[resource])

        async def read_resource(
            ctx: Context, params: types.ReadResourceRequestParams
        ) -> types.ReadResourceResult:
            if params.uri != CONTEXT_URI:
                raise MCPError(
                    INVALID_PARAMS, f"no resource `{params.uri}`; this server offers {CONTEXT_URI}"
                )
            markdown = await blocking(self._context_or_error)
            contents = types.TextResourceContents(
                uri=CONTEXT_URI, mime_type="text/markdown", text=markdown
            )
            return types.ReadResourceResult(contents=[contents])

        async def list_prompts(
            ctx: Context, params: types.PaginatedRequestParams | None
        ) -> types.ListPromptsResult:
            prompt = types.Prompt(name=CONTEXT_PROMPT, description=CONTEXT_DESCRIPTION)
            return types.ListPromptsResult(prompts=[prompt])

        async def get_prompt(
            ctx: Context, params: types.GetPromptRequestParams
        ) -> types.GetPromptResult:
            if params.name != CONTEXT_PROMPT:
                raise MCPError(
                    INVALID_PARAMS,
                    f"no prompt `{params.name}`; this server offers {CONTEXT_PROMPT}",
                )
            if params.arguments:
                raise MCPError(INVALID_PARAMS, f"the prompt {CONTEXT_PROMPT} takes no arguments")
            markdown = await blocking(self._context_or_error) or EMPTY_CONTEXT
            message = types.PromptMessage(role="user", content=types.TextContent(text=markdown))
            return types.GetPromptResult(description=CONTEXT_DESCRIPTION, messages=[message])

        return Server(
            "tinymemory",
            version=_version(),
            instructions=instructions(self.tools.scope.writes),
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_list_resources=list_resources,
            on_read_resource=read_resource,
            on_list_prompts=list_prompts,
            on_get_prompt=get_prompt,
        )

    def _context_or_error(self) -> str:
        try:
            return self.context_markdown()
        except tm.TinyMemoryError as error:
            raise MCPError(INTERNAL_ERROR, str(error)) from None

    def serve_stdio(self, *, stop_on_signals: bool = True) -> None:
        """Serve over stdin and stdout until the client closes the connection; then :meth:`close`.

        Every line is answered: one that is no JSON-RPC message the SDK can
        parse (not UTF-8, not JSON, nested too deep, a lone surrogate, not an
        object, over the longest line an item can take) gets a JSON-RPC error,
        and the server reads on.

        Blocking: the SDK's event loop runs inside this call and ends with it.
        With ``stop_on_signals`` (call it from the main thread), SIGTERM and
        SIGINT stop the process cleanly too: the call in flight finishes, the
        engine is closed, and the process exits with status 0. Each stop is
        logged (logger ``tinymemory_mcp``) with its reason.
        """
        server = self.sdk_server()

        async def serve() -> None:
            # Stdin is read by StdinMessages, which parses each line once and answers a line
            # the SDK cannot take; the SDK's stdio transport writes stdout.
            stdin = StdinMessages(sys.stdin.buffer)
            async with stdio_server(stdin=cast("anyio.AsyncFile[str]", stdin)) as streams:
                _, write_stream = streams
                sent, received = anyio.create_memory_object_stream[SessionMessage | Exception](0)
                async with anyio.create_task_group() as group:
                    group.start_soon(stdin.serve, sent, write_stream)
                    await server.run(received, write_stream, server.create_initialization_options())

        if stop_on_signals:
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, self._stop_on_signal)
        try:
            anyio.run(serve)
        finally:
            self.close()
        logger.info("stopped: the client closed the connection")

    def _stop_on_signal(self, signum: int, frame: object) -> None:
        # The stdin reader is a thread blocked on a read no signal interrupts, so
        # the loop cannot be unwound; every answered call is already stored, so
        # close the engine after the call in flight and leave at once.
        self.close()
        logger.info("stopped: %s", signal.Signals(signum).name)
        sys.stderr.flush()
        os._exit(0)

    def __repr__(self) -> str:
        return f"<MemoryServer {self.tools!r}>"


class _OneAtATime:
    """A capacity limiter of one, made inside the event loop on first use."""

    def __init__(self) -> None:
        self._limiter: anyio.CapacityLimiter | None = None

    def get(self) -> anyio.CapacityLimiter:
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(1)
        return self._limiter


def _tool_error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=message)], is_error=True)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tinymemory-mcp")
    except PackageNotFoundError:  # pragma: no cover - a bare source tree
        return "0+unknown"
