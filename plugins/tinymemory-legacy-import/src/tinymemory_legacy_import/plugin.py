"""The plugin's hook: the ``tinymemory import-v1`` command."""

from __future__ import annotations

import click

from tinymemory.plugin import hookimpl


@hookimpl
def tinymemory_register_commands(cli: click.Group) -> None:
    """``tinymemory import-v1``: migrate a v1 workspace into the configured engine."""
    # Imported here, so loading the plugin to list it reads no more than this module.
    from .commands import import_v1_command

    cli.add_command(import_v1_command)
