"""A v1 workspace opened for reading, and the stream of items it holds."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Generator
from types import TracebackType

import attrs

from tinymemory import InvalidRequest, StoreItem

from . import sections
from .checkpoint import SECTIONS, Checkpoint
from .detection import Layout, detect
from .mapping import Origin

#: The items of a workspace, as ``items`` and ``items_from`` yield them (``close()`` ends one).
Stream = Generator["ImportedItem", None, None]

#: How many keys each section reads from SQLite at a time (any size gives the same items).
PAGE_SIZE = 256


@attrs.frozen(kw_only=True)
class ImportedItem:
    """One item of the stream: its section, the item, and the checkpoint covering it and all
    before it.
    """

    section: str
    item: StoreItem
    checkpoint: Checkpoint


class LegacyWorkspace:
    """A v1 TinyCortex workspace, opened read-only. Close it (or use ``with``) when done."""

    def __init__(self, layout: Layout) -> None:
        self._layout = layout
        self._origin = Origin(workspace=str(layout.root))

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> LegacyWorkspace:
        """Open the workspace at ``path``.

        ``NotFound`` when nothing is there; :class:`NotLegacy` (an
        ``InvalidRequest``) naming what is missing when it is no v1
        workspace; :class:`LegacyReadError` when a database cannot be read.
        """
        if not isinstance(path, (str, os.PathLike)):
            raise InvalidRequest(f"a workspace is a path, not {type(path).__name__}")
        return cls(detect(os.fspath(path)))

    @property
    def path(self) -> str:
        """The canonical path, stamped on every item as ``meta.workspace`` (trap T13)."""
        return str(self._layout.root)

    @property
    def has_memory_db(self) -> bool:
        """Whether ``memory/memory.db`` is there (documents, conversations, learnings, profile)."""
        return self._layout.memory is not None

    @property
    def has_chunk_store(self) -> bool:
        """Whether a usable ``memory_tree/chunks.db`` is present (section chunks)."""
        return self._layout.chunks is not None

    def items(self) -> Stream:
        """Every item, section by section, from the start."""
        return self.items_from(None)

    def items_from(self, checkpoint: Checkpoint | None, *, page_size: int = PAGE_SIZE) -> Stream:
        """The items after ``checkpoint``: each section from strictly after its own key.

        Provided the workspace did not change, this yields exactly what
        :meth:`items` yields after the item ``checkpoint`` came with. A
        :class:`LegacyReadError` ends the stream; resume from the last
        checkpoint stored.
        """
        if checkpoint is not None and not isinstance(checkpoint, Checkpoint):
            raise InvalidRequest("`checkpoint` must be a Checkpoint or None")
        if isinstance(page_size, bool) or not isinstance(page_size, int) or page_size < 1:
            raise InvalidRequest("`page_size` must be a positive integer")
        return self._walk(checkpoint or Checkpoint(), page_size)

    def _walk(self, checkpoint: Checkpoint, page: int) -> Stream:
        memory, chunk_store, origin = self._layout.memory, self._layout.chunks, self._origin
        if memory is not None:
            for key, item in sections.documents(memory, origin, checkpoint.documents, page):
                checkpoint = attrs.evolve(checkpoint, documents=key)
                yield ImportedItem(section="documents", item=item, checkpoint=checkpoint)
        if chunk_store is not None:
            found = sections.chunks(chunk_store, self._layout.root, origin, checkpoint.chunks, page)
            for cursor, item in found:
                checkpoint = attrs.evolve(checkpoint, chunks=cursor)
                yield ImportedItem(section="chunks", item=item, checkpoint=checkpoint)
        if memory is None:
            return
        for key, item in sections.conversations(memory, origin, checkpoint.conversations, page):
            checkpoint = attrs.evolve(checkpoint, conversations=key)
            yield ImportedItem(section="conversations", item=item, checkpoint=checkpoint)
        for key, item in sections.learnings(memory, origin, checkpoint.learnings, page):
            checkpoint = attrs.evolve(checkpoint, learnings=key)
            yield ImportedItem(section="learnings", item=item, checkpoint=checkpoint)
        for key, item in sections.profile(memory, origin, checkpoint.profile, page):
            checkpoint = attrs.evolve(checkpoint, profile=key)
            yield ImportedItem(section="profile", item=item, checkpoint=checkpoint)

    def count(self, checkpoint: Checkpoint | None = None) -> dict[str, int]:
        """How many items each section yields after ``checkpoint``, every section named in order."""
        counts = Counter(imported.section for imported in self.items_from(checkpoint))
        return {section: counts[section] for section in SECTIONS}

    def close(self) -> None:
        """Close the workspace's databases."""
        self._layout.close()

    def __enter__(self) -> LegacyWorkspace:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"LegacyWorkspace({self.path!r})"
