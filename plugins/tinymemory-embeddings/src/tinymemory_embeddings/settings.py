"""An embedder's table in the configuration file: ``[plugins.embeddings.<name>]``.

Read when the embedder is first used (never when plugins are listed), so a
change to the file is seen by the next process. Each embedder names the keys
it takes; anything else is ``ConfigError`` naming them.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tinymemory import ConfigError
from tinymemory.plugin import plugin_settings

#: This plugin's table under ``[plugins]``.
TABLE = "embeddings"


def embedder_table(
    name: str, keys: Mapping[str, type], environ: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """``[plugins.embeddings.<name>]``, checked against ``keys`` (key: type); {} if absent."""
    table = plugin_settings(TABLE, environ).get(name, {})
    where = f"[plugins.{TABLE}.{name}]"
    if not isinstance(table, Mapping):
        raise ConfigError(f"{where} must be a table")
    for key, value in table.items():
        if key not in keys:
            raise ConfigError(f"{where} has no key `{key}` (keys: {', '.join(keys)})")
        wanted = keys[key]
        if not isinstance(value, wanted) or isinstance(value, bool) is not (wanted is bool):
            raise ConfigError(f"{where} `{key}` must be a {wanted.__name__}")
    return dict(table)


def local_folder(model: str) -> Path | None:
    """The folder ``model`` names when it is written as a path (``/``, ``.``, ``~`` first, or an
    existing folder), else None: a model id for the library's own loader to fetch.

    A path whose folder is missing is ``ConfigError``, never sent to a hub as an id.
    """
    path = Path(model).expanduser()
    if path.is_dir():
        return path
    if model.startswith(("/", ".", "~")) or "\\" in model:
        raise ConfigError(f"no model folder at `{model}`")
    return None
