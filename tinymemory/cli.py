"""The ``tinymemory`` command line.

Core commands list what is installed; plugins add their own commands through
the ``tinymemory_register_commands`` hook.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

import click

from tinymemory.errors import TinyMemoryError
from tinymemory.plugins import list_plugins, plugin_manager
from tinymemory.registry import (
    MemoryConfig,
    config_path,
    list_engines,
)
from tinymemory.settings import API_KEY_VARIABLE, redact_url
from tinymemory.wire import to_data


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [headers, *rows]
    ]
    return "\n".join(lines)


@click.group(name="tinymemory")
@click.version_option(package_name="tinymemory")
def cli() -> None:
    """TinyMemory: memory for AI agents."""


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def engines(as_json: bool) -> None:
    """List the installed engines."""
    descriptors = list_engines()
    if as_json:
        click.echo(json.dumps([to_data(descriptor) for descriptor in descriptors], indent=2))
        return
    rows = [
        (
            d.id,
            d.label,
            ", ".join(mode.value for mode in d.fetch_modes) or "-",
            "hosted" if d.hosted else "local",
            ", ".join(
                need for need, on in (("endpoint", d.needs_endpoint), ("key", d.needs_key)) if on
            )
            or "-",
        )
        for d in descriptors
    ]
    click.echo(_table(("ID", "LABEL", "FETCH MODES", "WHERE", "NEEDS"), rows))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def plugins(as_json: bool) -> None:
    """List the installed plugins, their versions and the hooks they implement."""
    infos = list_plugins()
    if as_json:
        click.echo(json.dumps([to_data(info) for info in infos], indent=2))
        return
    rows = [
        (
            info.name,
            info.distribution or "-",
            info.version or "-",
            f"failed to load: {info.error}" if info.error else ", ".join(info.hooks) or "-",
        )
        for info in infos
    ]
    click.echo(_table(("NAME", "DISTRIBUTION", "VERSION", "HOOKS"), rows))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def config(as_json: bool) -> None:
    """Show the configuration in force: its file, the engine and its settings.

    No key is shown: only whether TINYMEMORY_API_KEY is set.
    """
    path = config_path()
    loaded = MemoryConfig.load()
    settings = loaded.settings_for(loaded.engine)
    report = {
        "file": str(path),
        "file_exists": path.is_file(),
        "engine": loaded.engine,
        "endpoint": redact_url(settings.endpoint) if settings.endpoint else None,
        "scope_root": settings.scope_root,
        "tenant_root": settings.tenant_root,
        "headers": sorted(settings.headers),
        "options": sorted(settings.options),
        "api_key_set": bool(os.environ.get(API_KEY_VARIABLE, "").strip()),
    }
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    for key, value in report.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        click.echo(f"{key:<12} {'-' if shown in (None, '') else shown}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (with plugin commands added); returns the exit status."""
    try:
        plugin_manager().hook.tinymemory_register_commands(cli=cli)
        # Standalone mode shows click's own errors and ends every run with
        # SystemExit, which carries the status a command chose through
        # ctx.exit() or sys.exit(); non-standalone mode loses it.
        cli.main(args=list(argv) if argv is not None else None, prog_name="tinymemory")
    except SystemExit as done:
        return _status(done.code)
    except TinyMemoryError as error:
        click.echo(f"tinymemory: {error}", err=True)
        return 1


def _status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    click.echo(str(code), err=True)  # sys.exit("message") prints it and fails
    return 1


def run() -> None:
    """Entry point of the ``tinymemory`` console script."""
    sys.exit(main())
