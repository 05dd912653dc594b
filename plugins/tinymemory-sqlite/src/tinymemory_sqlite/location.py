"""Where the database file lives when the settings do not say."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from tinymemory import ConfigError

#: The environment variable naming the database file (after the ``path`` option).
PATH_VARIABLE = "TINYMEMORY_SQLITE_PATH"
#: The path that keeps the database in memory, gone with the engine.
IN_MEMORY = ":memory:"


def default_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/tinymemory/memory.db`` (``~/.local/share`` when unset)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tinymemory" / "memory.db"


def database_path(option: object, environ: Mapping[str, str] | None = None) -> str:
    """The file to open: the ``path`` option, else ``$TINYMEMORY_SQLITE_PATH``, else the default.

    ``:memory:`` is kept as it is; ``~`` is expanded.
    """
    env = os.environ if environ is None else environ
    chosen = option if option is not None else (env.get(PATH_VARIABLE, "").strip() or None)
    if chosen is None:
        return str(default_path(env))
    if not isinstance(chosen, (str, os.PathLike)) or not str(chosen).strip():
        raise ConfigError("the sqlite engine's `path` must be a file path or `:memory:`")
    text = os.fspath(chosen)
    return text if text == IN_MEMORY else str(Path(text).expanduser())
