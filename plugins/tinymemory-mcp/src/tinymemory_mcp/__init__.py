"""TinyMemory's memory tools over the Model Context Protocol.

The command ``tinymemory mcp`` (added by this plugin) serves the seven memory
tools to any MCP host over stdio, on the configured engine, under a scope its
options fix. From Python, serve tools of your own::

    import tinymemory as tm
    from tinymemory_mcp import MemoryServer

    tools = tm.MemoryTools(tm.build_engine()).placed_at("agent:writer")
    MemoryServer(tools).serve_stdio()  # blocks until the client hangs up

Importing this package loads no MCP code; :class:`MemoryServer` loads the SDK
on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tinymemory_mcp.server import CONTEXT_PROMPT, CONTEXT_URI, MemoryServer
    from tinymemory_mcp.workspace import WorkspaceEngine

__all__ = ["CONTEXT_PROMPT", "CONTEXT_URI", "MemoryServer", "WorkspaceEngine"]

_HOMES = {
    "CONTEXT_PROMPT": "tinymemory_mcp.server",
    "CONTEXT_URI": "tinymemory_mcp.server",
    "MemoryServer": "tinymemory_mcp.server",
    "WorkspaceEngine": "tinymemory_mcp.workspace",
}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'tinymemory_mcp' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_HOMES[name]), name)
    globals()[name] = value
    return value
