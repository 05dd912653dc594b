"""The plugin's hook: the command ``tinymemory ui``."""

from __future__ import annotations

import click

from tinymemory.plugin import hookimpl

from .command import ui_command


@hookimpl
def tinymemory_register_commands(cli: click.Group) -> None:
    """``tinymemory ui``: a local web view of memory."""
    cli.add_command(ui_command)
