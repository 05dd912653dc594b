"""``tinymemory mcp``: the memory tools as a stdio MCP server, under a scope the command fixes.

The options fix the scope exactly as ``MemoryTools`` builders do: ``--at``
is ``placed_at`` (writes there, reads ``Reach.of`` it), ``--reach`` then
replaces the reach (at ``--at``, else at the root), ``--read-only`` is
``read_only()``. With neither ``--at`` nor ``--reach`` the scope is the
default one: writes at the root, reads of every namespace but the
``service:`` sandboxes. ``--workspace`` confines the engine itself to one
workspace (see :mod:`tinymemory_mcp.workspace`).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

import attrs
import click

import tinymemory as tm

#: How far from ``--at`` the tools read, by ``--reach`` name.
REACHES: dict[str, Callable[[tm.Namespace], tm.Reach]] = {
    "of": tm.Reach.of,
    "exact": tm.Reach.exact,
    "subtree": tm.Reach.subtree,
}


def _namespace(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tm.Namespace | None:
    if value is None:
        return None
    try:
        return tm.Namespace.parse(value)
    except tm.TinyMemoryError as error:
        raise click.BadParameter(error.message) from None


def _workspace(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise click.BadParameter("must not be blank")
    return value


def scoped_tools(
    engine: tm.MemoryEngine,
    *,
    at: tm.Namespace | None = None,
    reach_kind: str | None = None,
    read_only: bool = False,
) -> tm.MemoryTools:
    """The tools over ``engine`` with the scope the command line names (see the module)."""
    tools = tm.MemoryTools(engine)
    if at is not None:
        tools = tools.placed_at(at)
    if reach_kind is not None:
        tools = tools.reach(REACHES[reach_kind](at or tm.Namespace.ROOT))
    return tools.read_only() if read_only else tools


def describe_scope(scope: tm.ToolScope) -> str:
    """The scope in a line for the server's log (the model is never shown a namespace)."""
    reach = scope.reach
    if reach is None:
        reads = "every namespace but the service sandboxes"
    else:
        reads = f"{reach.at}" + (" and below" if reach.descendants else "")
        if reach.inherit:
            reads += " and its ancestors"
    writes = f"writes at {scope.place}" if scope.writes else "read-only"
    return f"{writes}; reads {reads}"


@click.command("mcp")
@click.option(
    "--engine",
    "engine_id",
    metavar="ID",
    help="The engine to serve (default: the configured one, `sqlite` when none is).",
)
@click.option(
    "--at",
    "at",
    callback=_namespace,
    metavar="NAMESPACE",
    help="Whose memory: the node writes land at (team:acme/agent:writer); "
    "reads see it and its ancestors. Default: the root, reading every node.",
)
@click.option(
    "--reach",
    "reach_kind",
    type=click.Choice(sorted(REACHES)),
    help="How far from --at (or the root) reads go: of (it and its ancestors), "
    "exact (only it), subtree (it and below).",
)
@click.option(
    "--workspace",
    callback=_workspace,
    metavar="NAME",
    help="Keep this server's memory in one workspace: stored items get it, "
    "reads and forgets see only its items.",
)
@click.option("--read-only", is_flag=True, help="Offer only the read tools; refuse writes.")
def mcp_command(
    engine_id: str | None,
    at: tm.Namespace | None,
    reach_kind: str | None,
    workspace: str | None,
    read_only: bool,
) -> None:
    """Serve the memory tools to an MCP host over stdio (stdin/stdout).

    The host starts this command and speaks MCP on its stdin and stdout; the
    log goes to stderr. The model is offered the seven memory tools (the
    reads only with --read-only), context.md as the resource
    tinymemory://context.md and the prompt memory_context. Whose memory they
    touch is fixed here, never by the model. Stops when the host closes stdin,
    or on SIGTERM or SIGINT, after the call in flight.
    """
    from .server import MemoryServer
    from .workspace import WorkspaceEngine

    _log_to_stderr()
    config = tm.MemoryConfig.load()
    if engine_id is not None:
        config = attrs.evolve(config, engine=engine_id)
    engine = config.build(tm.EngineCredential.from_env())
    if workspace is not None:
        engine = WorkspaceEngine(engine, workspace)
    tools = scoped_tools(engine, at=at, reach_kind=reach_kind, read_only=read_only)
    server = MemoryServer(tools)
    logging.getLogger("tinymemory_mcp").info(
        "serving %d memory tools over engine `%s`; %s%s",
        len(server.tool_list()),
        engine.descriptor.id,
        describe_scope(tools.scope),
        f"; workspace {workspace}" if workspace is not None else "",
    )
    server.serve_stdio()


def _log_to_stderr() -> None:
    log = logging.getLogger("tinymemory_mcp")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("tinymemory mcp: %(message)s"))
        log.addHandler(handler)
    log.setLevel(logging.INFO)
