"""Choosing and building an engine: ``list_engines``, ``build_engine`` and ``MemoryConfig``.

``build_engine`` sees exactly the engines of the installed plugins and refuses,
as ``ConfigError``, an unknown id, a missing endpoint or key, and a
credential sent in cleartext to another machine. ``MemoryConfig`` reads which
engine to use from a TOML file and the environment.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import attrs

from tinymemory.engine import EngineDescriptor, MemoryEngine
from tinymemory.errors import ConfigError, TinyMemoryError
from tinymemory.plugins import engine_factories, scrubbers
from tinymemory.scrubbing import ScrubbingEngine
from tinymemory.settings import (
    EngineCredential,
    EngineSettings,
    is_loopback_host,
    is_secret_name,
    redact_url,
    redact_values,
    url_secrets,
)

#: The engine used when the configuration names none: the embedded one.
DEFAULT_ENGINE = "sqlite"
#: Environment variables read by :meth:`MemoryConfig.load`.
CONFIG_VARIABLE = "TINYMEMORY_CONFIG"
ENGINE_VARIABLE = "TINYMEMORY_ENGINE"
ENDPOINT_VARIABLE = "TINYMEMORY_ENDPOINT"
_SETTINGS_KEYS = ("endpoint", "scope_root", "tenant_root", "headers")


def list_engines() -> list[EngineDescriptor]:
    """The descriptors of every installed engine, built-ins first."""
    return [factory.descriptor for factory in engine_factories().values()]


def build_engine(
    engine_id: str,
    settings: EngineSettings | None = None,
    credential: EngineCredential | None = None,
) -> MemoryEngine:
    """Build the installed engine ``engine_id`` with its settings and credential.

    Refused as ``ConfigError``: an unknown id (the message lists what is
    installed), a missing endpoint or key the engine needs, and a credential
    over cleartext ``http`` to a host other than this machine.
    """
    settings = settings or EngineSettings()
    credential = credential or EngineCredential.none()
    factories = engine_factories()
    factory = factories.get(engine_id)
    if factory is None:
        installed = ", ".join(sorted(factories)) or "none"
        hint = " (pip install tinymemory-sqlite)" if engine_id == DEFAULT_ENGINE else ""
        raise ConfigError(f"unknown engine `{engine_id}`{hint}; installed engines: {installed}")
    descriptor = factory.descriptor
    endpoint = settings.endpoint or descriptor.default_endpoint
    if descriptor.needs_endpoint and not endpoint:
        raise ConfigError(f"engine `{engine_id}` needs an endpoint: set `endpoint` in its settings")
    if descriptor.needs_key and credential.is_none:
        raise ConfigError(
            f"engine `{engine_id}` needs a key: pass a credential or set TINYMEMORY_API_KEY"
        )
    if endpoint:
        _check_endpoint(engine_id, endpoint, credentialed=not credential.is_none)
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


def _check_endpoint(engine_id: str, endpoint: str, *, credentialed: bool) -> None:
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        credentialed = credentialed or parts.password is not None
    except ValueError:
        raise ConfigError(f"engine `{engine_id}` endpoint is not a url") from None
    if parts.scheme not in ("http", "https") or not host:
        raise ConfigError(
            f"engine `{engine_id}` endpoint `{redact_url(endpoint)}` must be an http or https url"
        )
    if credentialed and parts.scheme == "http" and not is_loopback_host(host):
        raise ConfigError(
            f"engine `{engine_id}` would send its credential in cleartext to `{host}`; "
            "use https (plain http is allowed only to this machine)"
        )


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


@attrs.frozen(kw_only=True)
class MemoryConfig:
    """Which engine to use, and the settings of each engine by id.

    ``MemoryConfig.load()`` reads it from a TOML file and the environment;
    ``build()`` makes the engine, wrapped so installed scrubbers see every
    stored item.
    """

    engine: str = DEFAULT_ENGINE
    engines: Mapping[str, EngineSettings] = attrs.field(factory=dict, converter=_engine_table)

    def settings_for(self, engine_id: str) -> EngineSettings:
        """The settings of ``engine_id`` (empty when the configuration has none)."""
        return self.engines.get(engine_id) or EngineSettings()

    def build(self, credential: EngineCredential | None = None) -> MemoryEngine:
        """Build the configured engine; installed scrubbers wrap its every store."""
        engine = build_engine(self.engine, self.settings_for(self.engine), credential)
        installed = scrubbers()
        return ScrubbingEngine(engine, installed) if installed else engine

    @classmethod
    def from_toml(cls, text: str, *, source: str = "configuration") -> MemoryConfig:
        """Read a configuration from TOML text.

        ``engine = "id"`` picks the engine; each ``[engines.<id>]`` table holds
        ``endpoint``, ``scope_root``, ``tenant_root``, a ``headers`` table, and
        any engine options (such as ``path``).
        """
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{source} is not valid toml: {error}") from None
        unknown = set(data) - {"engine", "engines"}
        if unknown:
            raise ConfigError(
                f"{source}: unknown key `{sorted(unknown)[0]}` (expected engine, engines)"
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
        explicit = path or env.get(CONFIG_VARIABLE)
        file = config_path(path, env)
        if file.is_file():
            try:
                text = file.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as error:
                raise ConfigError(f"configuration file `{file}` cannot be read: {error}") from None
            config = cls.from_toml(text, source=str(file))
        elif explicit:
            raise ConfigError(f"configuration file `{file}` does not exist")
        else:
            config = cls()
        engine = env.get(ENGINE_VARIABLE, "").strip() or config.engine
        engines = dict(config.engines)
        endpoint = env.get(ENDPOINT_VARIABLE, "").strip()
        if endpoint:
            engines[engine] = attrs.evolve(config.settings_for(engine), endpoint=endpoint)
        return cls(engine=engine, engines=engines)


def config_path(
    path: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None
) -> Path:
    """The file :meth:`MemoryConfig.load` reads: ``path``, ``$TINYMEMORY_CONFIG`` or the default."""
    env = os.environ if environ is None else environ
    explicit = path or env.get(CONFIG_VARIABLE)
    return Path(explicit) if explicit else default_config_path(env)


def default_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/tinymemory/config.toml`` (``~/.config`` when unset)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tinymemory" / "config.toml"
