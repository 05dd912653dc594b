"""The plugin's hook: the command ``tinymemory mcp``."""

from __future__ import annotations

import click

from tinymemory.plugin import hookimpl

from .command import mcp_command


@hookimpl
def tinymemory_register_commands(cli: click.Group) -> None:
    """``tinymemory mcp``: the memory tools as a stdio MCP server."""
    cli.add_command(mcp_command)
