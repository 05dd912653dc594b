"""The plugin's hooks: the engine ``sqlite`` and the command ``tinymemory sqlite``.

Engine options (``[engines.sqlite]`` in the configuration, or
``EngineSettings(options=...)``): ``path`` (the database file, or
``:memory:``), ``embedder`` (the name of any installed embedder; by default
the one an installed plugin names, else ``hashing``), ``answerer`` (the name of
any installed answerer; ``extractive`` by default) and ``synchronous``
(``normal`` or ``full``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinymemory import ConfigError, EngineCredential, EngineSettings, MemoryEngine
from tinymemory.plugin import EngineFactory, answerer_named, embedder_named, hookimpl

from .descriptor import DESCRIPTOR
from .location import IN_MEMORY, database_path

if TYPE_CHECKING:  # click loads with the command line, not with a read that builds the engine
    import click

OPTIONS = ("path", "embedder", "answerer", "synchronous")


def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    """The engine for these settings; an unknown option, embedder or answerer is ``ConfigError``."""
    unknown = sorted(set(settings.options) - set(OPTIONS))
    if unknown:
        raise ConfigError(
            f"engine `sqlite` has no option `{unknown[0]}` (options: {', '.join(OPTIONS)})"
        )
    embedder = settings.options.get("embedder")
    answerer = settings.options.get("answerer")
    synchronous = settings.options.get("synchronous", "normal")
    if not isinstance(synchronous, str):
        raise ConfigError("the sqlite engine's `synchronous` must be `normal` or `full`")
    # Loaded with the first engine, so listing plugins or engines never loads numpy.
    from .engine import SqliteEngine, kept_embedder

    path = database_path(settings.options.get("path"))
    return SqliteEngine(
        path,
        embedder=kept_embedder(path) if embedder is None else embedder_named(embedder),
        answerer=None if answerer is None else answerer_named(answerer),
        synchronous=synchronous,
    )


def test_settings(folder: Path) -> EngineSettings:
    """Throwaway settings for tests: a database file of its own in ``folder``."""
    options: dict[str, Any] = {"path": str(folder / "memory.db")}
    return EngineSettings(options=options)


def storage(settings: EngineSettings) -> tuple[Path, ...]:
    """The database file these settings open (none for ``:memory:``), created by nothing here."""
    path = database_path(settings.options.get("path"))
    return () if path == IN_MEMORY else (Path(path),)


@hookimpl
def tinymemory_engines() -> list[EngineFactory]:
    """The embedded engine ``sqlite``."""
    return [
        EngineFactory(
            descriptor=DESCRIPTOR, build=build, test_settings=test_settings, storage=storage
        )
    ]


@hookimpl
def tinymemory_register_commands(cli: click.Group) -> None:
    """``tinymemory sqlite``: where the database file is and what it holds."""
    # Imported here, so a read that loads the plugin for its engine reads no more.
    from .commands import sqlite_command

    cli.add_command(sqlite_command)
