"""The engine's settings: where the server is, how to reach it, and which schema is the memory.

Options (``[engines.postgres]`` in the configuration, or
``EngineSettings(options=...)``): ``conninfo`` (a libpq connection string or
``postgresql://`` URL) and/or its parts ``host``, ``port``, ``dbname``,
``user``; TLS: ``sslmode``, ``sslrootcert``, ``sslcert``, ``sslkey``;
``connect_timeout`` (seconds); ``pool_size`` (most connections held, 4 by
default); ``schema`` (the schema holding this memory, ``tinymemory`` by
default, so several memories share one database), ``embedder`` (an
installed embedder's name; by default the one an installed plugin names, else
``hashing``) and ``answerer`` (an
installed answerer's name, ``extractive`` by default; the plugin looks it
up). The password is the
engine's credential (a static key), never an option, so it is never printed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs
import psycopg.conninfo

from tinymemory import ConfigError, EngineCredential

PARTS = ("host", "port", "dbname", "user")
TLS = ("sslmode", "sslrootcert", "sslcert", "sslkey")
OPTIONS = (
    "conninfo",
    *PARTS,
    *TLS,
    "connect_timeout",
    "pool_size",
    "schema",
    "embedder",
    "answerer",
)
SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
DEFAULT_SCHEMA = "tinymemory"
DEFAULT_POOL_SIZE = 4
#: A schema name as written unquoted: lower-case letters, digits and ``_``.
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


@attrs.frozen(repr=False)
class ServerSettings:
    """How to reach the server (the password aside) and which schema holds the memory."""

    parts: Mapping[str, str]
    schema: str = DEFAULT_SCHEMA
    pool_size: int = DEFAULT_POOL_SIZE
    embedder: str | None = None

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> ServerSettings:
        """The settings ``options`` give; anything unknown or malformed is ``ConfigError``."""
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ConfigError(
                f"engine `postgres` has no option `{unknown[0]}` (options: {', '.join(OPTIONS)})"
            )
        parts: dict[str, str] = {}
        conninfo = options.get("conninfo")
        if conninfo is not None:
            if not isinstance(conninfo, str):
                raise ConfigError("the postgres engine's `conninfo` must be a connection string")
            try:
                parsed = psycopg.conninfo.conninfo_to_dict(conninfo)
            except psycopg.ProgrammingError:
                # libpq's message may quote the string, password and all: say nothing of it.
                raise ConfigError(
                    "the postgres engine's `conninfo` is not a valid libpq connection string"
                ) from None
            if "password" in parsed:
                raise ConfigError(
                    "the postgres engine's `conninfo` holds a password; give it as the "
                    "engine's credential (TINYMEMORY_API_KEY) instead"
                )
            parts.update({key: str(value) for key, value in parsed.items() if value is not None})
        for name in (*PARTS, *TLS, "connect_timeout"):
            value = options.get(name)
            if value is None:
                continue
            if name in ("port", "connect_timeout"):
                if isinstance(value, bool) or not isinstance(value, int | str):
                    raise ConfigError(f"the postgres engine's `{name}` must be a whole number")
                if not str(value).isdigit():
                    raise ConfigError(f"the postgres engine's `{name}` must be a whole number")
            elif not isinstance(value, str) or not value:
                raise ConfigError(f"the postgres engine's `{name}` must be non-empty text")
            parts[name] = str(value)
        if "sslmode" in parts and parts["sslmode"] not in SSL_MODES:
            raise ConfigError(
                f"the postgres engine's `sslmode` must be one of {', '.join(SSL_MODES)}"
            )
        parts.setdefault("connect_timeout", "10")
        schema = options.get("schema", DEFAULT_SCHEMA)
        if not isinstance(schema, str) or not _SCHEMA_NAME.fullmatch(schema):
            raise ConfigError(
                "the postgres engine's `schema` must be 1 to 63 lower-case letters, digits or "
                "`_`, not starting with a digit"
            )
        if schema.startswith("pg_"):
            raise ConfigError("the postgres engine's `schema` must not start with `pg_`")
        pool_size = options.get("pool_size", DEFAULT_POOL_SIZE)
        if (
            isinstance(pool_size, bool)
            or not isinstance(pool_size, int)
            or not 1 <= pool_size <= 100
        ):
            raise ConfigError("the postgres engine's `pool_size` must be a whole number, 1 to 100")
        embedder = options.get("embedder")
        if embedder is not None and (not isinstance(embedder, str) or not embedder):
            raise ConfigError("the postgres engine's `embedder` must be an embedder's name")
        return cls(parts=parts, schema=schema, pool_size=pool_size, embedder=embedder)

    def conninfo(self, credential: EngineCredential) -> str:
        """The libpq connection string, with the credential's key as the password."""
        parts = dict(self.parts)
        password = credential.bearer()
        if password:
            parts["password"] = password
        # What is not given here is libpq's default (its PG* variables and ~/.pgpass included).
        return psycopg.conninfo.make_conninfo("", **parts)

    @property
    def where(self) -> str:
        """The server and database, for messages: never a password."""
        host = self.parts.get("host", "the default host")
        port = self.parts.get("port", "5432")
        dbname = self.parts.get("dbname", self.parts.get("user", "the default database"))
        return f"{host}:{port}/{dbname} schema {self.schema}"

    def __repr__(self) -> str:
        return f"<ServerSettings {self.where} pool_size={self.pool_size}>"
