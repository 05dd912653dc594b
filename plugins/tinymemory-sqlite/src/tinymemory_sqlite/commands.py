"""The plugin's command: ``tinymemory sqlite``, where the memory lives and what it holds.

It opens the file read-only rather than as an engine, so looking never
creates, migrates or changes anything.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import click

from tinymemory import MemoryConfig
from tinymemory.plugin import canonical_json

from .location import IN_MEMORY, database_path
from .purge import pending_purges
from .schema import VERSION


@click.command("sqlite")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def sqlite_command(as_json: bool) -> None:
    """Show the sqlite engine's database file: where it is, its size and what it holds."""
    path = database_path(MemoryConfig.load().settings_for("sqlite").options.get("path"))
    facts = describe(path)
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
    if path == IN_MEMORY or not Path(path).is_file():
        return facts
    wal = Path(f"{path}-wal")
    facts["exists"] = True
    facts["bytes"] = Path(path).stat().st_size + (wal.stat().st_size if wal.exists() else 0)
    connection = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)
    try:
        facts["schema"] = connection.execute("PRAGMA user_version").fetchone()[0]
        if facts["schema"] == VERSION:
            row = connection.execute("SELECT value FROM settings WHERE key = 'embedder'").fetchone()
            facts["embedder"] = json.loads(row[0])["name"] if row else None
            facts["items"] = connection.execute("SELECT count(*) FROM items").fetchone()[0]
            facts["pieces"] = connection.execute("SELECT count(*) FROM pieces").fetchone()[0]
            facts["pending_purge"] = pending_purges(connection)
    except sqlite3.Error as error:
        raise click.ClickException(f"`{path}` cannot be read as a database: {error}") from None
    finally:
        connection.close()
    return facts
