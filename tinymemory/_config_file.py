"""Where the configuration file is, and its TOML read into plain tables.

Below both the registry (which builds engines from the file's ``engine`` and
``engines``) and the plugin manager (which reads its ``plugins`` table before
any plugin loads), so neither imports the other to find the file.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tinymemory._errors import ConfigError

#: The environment variable naming the configuration file.
CONFIG_VARIABLE = "TINYMEMORY_CONFIG"


def config_path(
    path: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The file the configuration is read from: ``path``, ``$TINYMEMORY_CONFIG`` or the default."""
    env = os.environ if environ is None else environ
    explicit = path or env.get(CONFIG_VARIABLE)
    return Path(explicit) if explicit else default_config_path(env)


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/tinymemory/config.toml`` (``~/.config`` when unset)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tinymemory" / "config.toml"


def read_config_text(
    path: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> tuple[str | None, str]:
    """The file's text (``None`` when the default file is missing) and its path.

    A file named by ``path`` or ``$TINYMEMORY_CONFIG`` that does not exist, a
    folder where the file should be, or a file that cannot be read, is
    ``ConfigError``.
    """
    env = os.environ if environ is None else environ
    file = config_path(path, env)
    if file.is_dir():
        raise ConfigError(f"configuration file `{file}` is a folder, not a file")
    if file.is_file():
        try:
            return file.read_text(encoding="utf-8"), str(file)
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"configuration file `{file}` cannot be read: {error}") from None
    if path or env.get(CONFIG_VARIABLE):
        raise ConfigError(f"configuration file `{file}` does not exist")
    return None, str(file)


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """The TOML text as tables; ``ConfigError`` naming ``source`` when it is not TOML."""
    import tomllib  # here: a process that reads no configuration never imports it

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{source} is not valid toml: {error}") from None


def plugins_table(data: Mapping[str, Any], source: str) -> dict[str, bool]:
    """The ``plugins`` table: plugin names to whether they load.

    A name maps to ``true``, ``false`` (turned off) or a table of the plugin's
    own settings (``[plugins.safety]``), which loads it.
    """
    table = data.get("plugins", {})
    if not isinstance(table, Mapping) or not all(
        isinstance(value, bool | Mapping) for value in table.values()
    ):
        raise ConfigError(
            f"{source}: `plugins` must be a table of plugin names to true, false "
            "or a table of the plugin's settings"
        )
    return {name: value is not False for name, value in table.items()}


def plugin_settings(name: str, environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The configuration file's ``[plugins.<name>]`` table (empty when it has none).

    Read from the file :func:`config_path` names, each call; the plugin
    validates what it finds. ``ConfigError`` when the file cannot be read or
    is not TOML, or its ``plugins`` table is malformed.
    """
    text, source = read_config_text(environ=environ)
    if text is None:
        return {}
    data = parse_toml(text, source)
    plugins_table(data, source)
    table = data.get("plugins", {}).get(name)
    return dict(table) if isinstance(table, Mapping) else {}
