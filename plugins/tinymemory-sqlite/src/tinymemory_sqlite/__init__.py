"""TinyMemory's embedded default engine ``sqlite``: persistent, searchable memory in one file.

Installed, it is found through the ``tinymemory`` entry points, so
``tinymemory.build_engine("sqlite")`` and ``MemoryConfig().build()`` use it.
Build one directly with :class:`SqliteEngine`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .location import PATH_VARIABLE, default_path

if TYPE_CHECKING:
    from .engine import SqliteEngine

__all__ = ["PATH_VARIABLE", "SqliteEngine", "default_path"]


def __getattr__(name: str) -> Any:
    # The engine (and numpy with it) loads on first use, not with the plugin's hooks.
    if name == "SqliteEngine":
        from .engine import SqliteEngine

        return SqliteEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
