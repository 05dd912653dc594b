"""Choosing and building an engine: ``list_engines``, ``build_engine`` and ``MemoryConfig``.

``build_engine`` sees exactly the engines of the installed plugins and refuses,
as ``ConfigError``, an unknown id, a missing endpoint or key, and a
credential sent in cleartext to another machine. ``MemoryConfig`` reads which
engine to use from a TOML file and the environment.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from tinymemory._config_file import (
    CONFIG_VARIABLE,
    config_path,
    default_config_path,
    parse_toml,
    plugins_table,
    read_config_text,
)
from tinymemory._engine import EngineDescriptor, MemoryEngine
from tinymemory._errors import ConfigError, TinyMemoryError
from tinymemory._plugin_manager import engine_factories, list_plugins, may_offer
from tinymemory._scrubbing import ScrubbingEngine
from tinymemory._settings import (
    EngineCredential,
    EngineSettings,
    check_endpoint,
    is_secret_name,
    redact_values,
    url_secrets,
)

#: The engine used when the configuration names none: the embedded one.
DEFAULT_ENGINE = "sqlite"
#: How the default engine's plugin is installed until it is published (from a clone).
SQLITE_INSTALL = "pip install plugins/tinymemory-sqlite from the repository"
#: Environment variables read by :meth:`MemoryConfig.load`.
ENGINE_VARIABLE = "TINYMEMORY_ENGINE"
ENDPOINT_VARIABLE = "TINYMEMORY_ENDPOINT"
_SETTINGS_KEYS = ("endpoint", "scope_root", "tenant_root", "headers")

__all__ = [
    "CONFIG_VARIABLE",
    "DEFAULT_ENGINE",
    "ENDPOINT_VARIABLE",
    "ENGINE_VARIABLE",
    "MemoryConfig",
    "build_engine",
    "config_path",
    "default_config_path",
    "list_engines",
    "settings_from_json",
    "settings_from_table",
    "unknown_engine",
]


def list_engines() -> list[EngineDescriptor]:
    """The descriptors of every installed engine, built-ins first."""
    return [factory.descriptor for factory in engine_factories().values()]


def build_engine(
    engine_id: str | None = None,
    settings: EngineSettings | None = None,
    credential: EngineCredential | None = None,
    *,
    scrub: bool = True,
) -> MemoryEngine:
    """Build the installed engine ``engine_id`` with its settings and credential.

    With no ``engine_id`` it builds the configured engine (the configuration
    file and environment, see :meth:`MemoryConfig.load`; ``sqlite`` when
    nothing is configured) with the configured settings unless ``settings``
    are given. Only the plugins that may offer ``engine_id`` are imported.
    When scrubber plugins are installed the engine comes wrapped in a
    :class:`~tinymemory.ScrubbingEngine`, so every item it stores is scrubbed
    first; the scrubbers load with the first store, so an engine that only
    reads never imports them. ``scrub=False`` hands out the bare engine, for
    a host that really wants no scrubbing (or a test of the engine itself).

    Refused as ``ConfigError``: an unknown id (the message lists what is
    installed), a missing endpoint or key the engine needs, and a credential
    over cleartext ``http`` to a host other than this machine.
    """
    if engine_id is None:
        config = MemoryConfig.load()
        engine_id = config.engine
        settings = settings or config.settings_for(engine_id)
    engine = _build_bare(engine_id, settings, credential)
    return ScrubbingEngine(engine) if scrub and may_offer("tinymemory_scrubbers") else engine


def unknown_engine(engine_id: str, installed: Iterable[str]) -> ConfigError:
    """The error for an engine id no installed plugin offers, naming what is installed.

    A plugin that is installed but failed to load is named with its reason, so
    its engine never reads as if it were not installed.
    """
    names = ", ".join(sorted(installed)) or "none"
    hint = f" (install the plugin: {SQLITE_INSTALL})" if engine_id == DEFAULT_ENGINE else ""
    broken = [f"`{info.name}` ({info.error})" for info in list_plugins() if info.error]
    failed = f"; plugins that failed to load: {', '.join(broken)}" if broken else ""
    return ConfigError(f"unknown engine `{engine_id}`{hint}; installed engines: {names}{failed}")


def _build_bare(
    engine_id: str, settings: EngineSettings | None, credential: EngineCredential | None
) -> MemoryEngine:
    settings = settings or EngineSettings()
    credential = credential or EngineCredential.none()
    # Only the plugins that may offer this engine are imported.
    factory = engine_factories(engine_id).get(engine_id)
    if factory is None:
        raise unknown_engine(engine_id, engine_factories())
    descriptor = factory.descriptor
    endpoint = settings.endpoint or descriptor.default_endpoint
    if descriptor.needs_endpoint and not endpoint:
        raise ConfigError(f"engine `{engine_id}` needs an endpoint: set `endpoint` in its settings")
    if descriptor.needs_key and credential.is_none:
        raise ConfigError(
            f"engine `{engine_id}` needs a key: pass a credential or set TINYMEMORY_API_KEY"
        )
    if endpoint:
        check_endpoint(f"engine `{engine_id}`", endpoint, credentialed=not credential.is_none)
    try:
        return factory.build(settings, credential)
    except TinyMemoryError as error:
        kind, message = type(error), _redact(error.message, credential, settings)
    except Exception as error:
        detail = _redact(f"{type(error).__name__}: {error}", credential, settings)
        kind, message = ConfigError, f"engine `{engine_id}` could not be built: {detail}"
    # Always a new error, made and raised outside the handler: the original's
    # cause and context (`from None` keeps the context reachable) may hold a secret.
    try:
        failure = kind(message)
    except Exception:  # a plugin's error class that takes other arguments
        failure = ConfigError(message)
    raise failure


def _redact(text: str, credential: EngineCredential, settings: EngineSettings) -> str:
    """``text`` without any credential: the key, tokens handed out, url secrets, header values."""
    secrets = list(settings.headers.values())
    secrets += [
        value
        for name, value in settings.options.items()
        if isinstance(value, str) and is_secret_name(name)
    ]
    if settings.endpoint:
        secrets += url_secrets(settings.endpoint)
    return redact_values(credential.redact(text), secrets)


def settings_from_table(engine_id: str, table: Mapping[str, Any], source: str) -> EngineSettings:
    """Settings from a config table: the known keys, every other key an engine option."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{source}: `engines.{engine_id}` must be a table")
    known = {key: table[key] for key in _SETTINGS_KEYS if key in table}
    options = {key: value for key, value in table.items() if key not in _SETTINGS_KEYS}
    try:
        return EngineSettings(**known, options=options)
    except ConfigError as error:
        message = error.message
    raise ConfigError(f"{source}: `engines.{engine_id}`: {message}")


def settings_from_json(engine_id: str, text: str, source: str) -> EngineSettings:
    """Settings from a JSON object shaped like the engine's config table (command-line options)."""
    try:
        table: Any = json.loads(text)
    except ValueError as error:
        raise ConfigError(f"{source} is not valid JSON: {error}") from None
    if not isinstance(table, dict):
        raise ConfigError(f"{source} must be a JSON object")
    return settings_from_table(engine_id, table, source)


def _engine_table(value: Mapping[str, EngineSettings]) -> dict[str, EngineSettings]:
    table = dict(value)
    for engine_id, settings in table.items():
        if not isinstance(settings, EngineSettings):
            raise ConfigError(f"the settings of engine `{engine_id}` must be EngineSettings")
    return table


def _plugin_flags(value: Mapping[str, bool]) -> dict[str, bool]:
    return dict(value)


@attrs.frozen(kw_only=True)
class MemoryConfig:
    """Which engine to use, and the settings of each engine by id.

    ``MemoryConfig.load()`` reads it from a TOML file and the environment;
    ``build()`` makes the engine, wrapped so installed scrubbers see every
    stored item. ``plugins`` is the file's ``plugins`` table (plugin names to
    whether they load), which the plugin manager reads before loading any.
    """

    engine: str = DEFAULT_ENGINE
    engines: Mapping[str, EngineSettings] = attrs.field(factory=dict, converter=_engine_table)
    plugins: Mapping[str, bool] = attrs.field(factory=dict, converter=_plugin_flags)

    def settings_for(self, engine_id: str) -> EngineSettings:
        """The settings of ``engine_id`` (empty when the configuration has none)."""
        return self.engines.get(engine_id) or EngineSettings()

    def build(self, credential: EngineCredential | None = None) -> MemoryEngine:
        """Build the configured engine with :func:`build_engine`; installed scrubbers wrap it."""
        return build_engine(self.engine, self.settings_for(self.engine), credential)

    @classmethod
    def from_toml(cls, text: str, *, source: str = "configuration") -> MemoryConfig:
        """Read a configuration from TOML text.

        ``engine = "id"`` picks the engine; each ``[engines.<id>]`` table holds
        ``endpoint``, ``scope_root``, ``tenant_root``, a ``headers`` table, and
        any engine options (such as ``path``).
        """
        data = parse_toml(text, source)
        unknown = set(data) - {"engine", "engines", "plugins"}
        if unknown:
            raise ConfigError(
                f"{source}: unknown key `{sorted(unknown)[0]}` (expected engine, engines, plugins)"
            )
        engine = data.get("engine", DEFAULT_ENGINE)
        tables = data.get("engines", {})
        if not isinstance(engine, str) or not engine:
            raise ConfigError(f"{source}: `engine` must be an engine id")
        if not isinstance(tables, Mapping):
            raise ConfigError(f"{source}: `engines` must be a table of engine tables")
        return cls(
            engine=engine,
            engines={
                engine_id: settings_from_table(engine_id, table, source)
                for engine_id, table in tables.items()
            },
            plugins=plugins_table(data, source),
        )

    @classmethod
    def load(
        cls, path: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
    ) -> MemoryConfig:
        """The configuration from a file, then the environment.

        The file is ``path``, else ``$TINYMEMORY_CONFIG``, else
        ``config.toml`` in the user's config folder (``$XDG_CONFIG_HOME``,
        default ``~/.config``) under ``tinymemory/``; a missing default file
        means defaults. ``TINYMEMORY_ENGINE`` overrides the engine and
        ``TINYMEMORY_ENDPOINT`` that engine's endpoint.
        """
        env = os.environ if environ is None else environ
        text, source = read_config_text(path, env)
        config = cls() if text is None else cls.from_toml(text, source=source)
        engine = env.get(ENGINE_VARIABLE, "").strip() or config.engine
        engines = dict(config.engines)
        endpoint = env.get(ENDPOINT_VARIABLE, "").strip()
        if endpoint:
            engines[engine] = attrs.evolve(config.settings_for(engine), endpoint=endpoint)
        return cls(engine=engine, engines=engines, plugins=config.plugins)
