"""The plugin's command: ``tinymemory sqlite``, where the memory lives and what it holds.

It opens the file read-only rather than as an engine, so looking never
creates, migrates or changes anything. ``tinymemory sqlite purge`` finishes
a purge a reader held up.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import attrs
import click

from tinymemory import ConfigError, EngineCredential, MemoryConfig, Unavailable
from tinymemory.plugin import canonical_json

from .connections import read_only_uri
from .location import IN_MEMORY, database_path
from .purge import pending_purges
from .schema import VERSION

#: How often ``purge --wait`` tries again, in seconds.
PURGE_RETRY = 0.2


def _configured_path() -> str:
    return database_path(MemoryConfig.load().settings_for("sqlite").options.get("path"))


@click.group("sqlite", invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.pass_context
def sqlite_command(ctx: click.Context, as_json: bool) -> None:
    """Show the sqlite engine's database file: where it is, its size and what it holds."""
    if ctx.invoked_subcommand is not None:
        return
    facts = describe(_configured_path())
    if as_json:
        click.echo(canonical_json(facts))
        return
    width = max(map(len, facts))
    for name, value in facts.items():
        shown = "-" if value is None else str(value)
        click.echo(f"{name:<{width}}  {shown}")


def describe(path: str) -> dict[str, Any]:
    """What the file at ``path`` is: whether it exists, its bytes, schema, embedder and counts.

    ``pending_purge`` counts forgets and erases whose text is still in the
    file's bytes, because a reader held an old snapshot when they ran.
    """
    facts: dict[str, Any] = {"path": path, "exists": False, "bytes": None, "schema": None}
    facts.update({"embedder": None, "items": None, "pieces": None, "pending_purge": None})
    if path != IN_MEMORY and Path(path).is_dir():
        raise ConfigError(f"the sqlite database path `{path}` is a folder, not a database file")
    if path == IN_MEMORY or not Path(path).is_file():
        return facts
    wal = Path(f"{path}-wal")
    facts["exists"] = True
    facts["bytes"] = Path(path).stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    connection = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        facts["schema"] = connection.execute("PRAGMA user_version").fetchone()[0]
        if facts["schema"] == VERSION:
            row = connection.execute("SELECT value FROM settings WHERE key = 'embedder'").fetchone()
            facts["embedder"] = json.loads(row[0])["name"] if row else None
            facts["items"] = connection.execute("SELECT count(*) FROM items").fetchone()[0]
            facts["pieces"] = connection.execute("SELECT count(*) FROM pieces").fetchone()[0]
            facts["pending_purge"] = pending_purges(connection)
    except sqlite3.Error as error:
        raise ConfigError(f"`{path}` cannot be read as a database: {error}") from None
    finally:
        connection.close()
    return facts


@sqlite_command.command("purge")
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    metavar="SECONDS",
    help="Keep trying this long for the reader holding up the purge to let go.",
)
def purge_command(wait: float) -> None:
    """Finish a pending purge: forgotten and erased text out of every byte of the file.

    A forget or erase while another connection holds a read leaves the text in
    the file's bytes (``pending_purge``) until that reader lets go. This
    finishes the purge once it has; exits 1 while it still holds on.
    """
    config = MemoryConfig.load()
    path = database_path(config.settings_for("sqlite").options.get("path"))
    if path == IN_MEMORY or not Path(path).is_file():
        click.echo("purged: there is no database file")
        return
    deadline = time.monotonic() + wait
    while True:
        # An engine opening the file finishes a pending purge, and tries again at close.
        with attrs.evolve(config, engine="sqlite").build(EngineCredential.none()):
            pass
        pending = _pending(path)
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(PURGE_RETRY)
    if pending:
        raise Unavailable(
            f"pending_purge {pending}: another connection still holds an old snapshot of the "
            "file; run `tinymemory sqlite purge` again once it is gone (--wait SECONDS waits "
            "for it)"
        )
    click.echo("purged: no forgotten or erased text is left in the file's bytes")


def _pending(path: str) -> int:
    """The file's ``pending_purge`` count, read through a read-only connection."""
    connection = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        return pending_purges(connection)
    finally:
        connection.close()
