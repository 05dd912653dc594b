"""The plugin's hooks: the engine ``sqlite`` and the command ``tinymemory sqlite``.

Engine options (``[engines.sqlite]`` in the configuration, or
``EngineSettings(options=...)``): ``path`` (the database file, or
``:memory:``), ``embedder`` (the name of any installed embedder; ``hashing``
by default), ``answerer`` (the name of any installed answerer; ``extractive``
by default) and ``synchronous`` (``normal`` or ``full``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from tinymemory import ConfigError, EngineCredential, EngineSettings, MemoryEngine
from tinymemory.plugin import Answerer, Embedder, EngineFactory, answerer_named, embedders, hookimpl

from .descriptor import DESCRIPTOR
from .location import IN_MEMORY, database_path

OPTIONS = ("path", "embedder", "answerer", "synchronous")


def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    """The engine for these settings; unknown options and embedders are ``ConfigError``."""
    unknown = sorted(set(settings.options) - set(OPTIONS))
    if unknown:
        raise ConfigError(
            f"engine `sqlite` has no option `{unknown[0]}` (options: {', '.join(OPTIONS)})"
        )
    synchronous = settings.options.get("synchronous", "normal")
    if not isinstance(synchronous, str):
        raise ConfigError("the sqlite engine's `synchronous` must be `normal` or `full`")
    # Loaded with the first engine, so listing plugins or engines never loads numpy.
    from .engine import SqliteEngine

    return SqliteEngine(
        settings.options.get("path"),
        embedder=_embedder(settings.options.get("embedder")),
        answerer=_answerer(settings.options.get("answerer")),
        synchronous=synchronous,
    )


def _embedder(name: object) -> Embedder | None:
    if name is None:
        return None
    if not isinstance(name, str):
        raise ConfigError("the sqlite engine's `embedder` must be an embedder's name")
    installed = embedders()
    if name not in installed:
        names = ", ".join(sorted(installed)) or "none"
        raise ConfigError(f"no embedder named `{name}` is installed (installed: {names})")
    return installed[name]


def _answerer(name: object) -> Answerer | None:
    return None if name is None else answerer_named(name)


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
