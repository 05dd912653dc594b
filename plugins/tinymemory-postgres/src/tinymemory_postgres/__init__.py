"""TinyMemory's PostgreSQL engine ``postgres``: one memory shared by many processes and hosts.

Installed, it is found through the ``tinymemory`` entry points, so
``tinymemory.build_engine("postgres", settings, credential)`` builds it from
the options :mod:`tinymemory_postgres.settings` describes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .settings import ServerSettings

if TYPE_CHECKING:
    from .engine import PostgresEngine

__all__ = ["PostgresEngine", "ServerSettings"]


def __getattr__(name: str) -> Any:
    # The engine (numpy and psycopg's pool with it) loads on first use, not with the hooks.
    if name == "PostgresEngine":
        from .engine import PostgresEngine

        return PostgresEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
