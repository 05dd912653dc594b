"""TinyMemory's embedded default engine ``sqlite``: persistent, searchable memory in one file.

Installed, it is found through the ``tinymemory`` entry points, so
``tinymemory.build_engine("sqlite")`` and ``MemoryConfig().build()`` use it.
Build one directly with :class:`SqliteEngine`.
"""

from .embedding import HashingEmbedder
from .engine import SqliteEngine
from .location import PATH_VARIABLE, default_path

__all__ = ["PATH_VARIABLE", "HashingEmbedder", "SqliteEngine", "default_path"]
