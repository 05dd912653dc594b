"""Scrubbing on every store: an engine wrapper that passes items through scrubbers.

``MemoryConfig.build()`` wraps the engine it hands out in a
:class:`ScrubbingEngine` whenever scrubber plugins are installed, so no path
into memory (``store`` or ``store_many``) skips them.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinymemory.engine import EngineWrapper, MemoryEngine
from tinymemory.errors import EngineError
from tinymemory.hookspecs import Scrubber
from tinymemory.items import STORE_ITEM_TYPES, StoreItem, StoreReceipt


class ScrubbingEngine(EngineWrapper):
    """``inner`` with every stored item passed through ``scrubbers`` first, in order."""

    def __init__(self, inner: MemoryEngine, scrubbers: Sequence[Scrubber]) -> None:
        super().__init__(inner)
        self.scrubbers = tuple(scrubbers)

    def scrub(self, item: StoreItem) -> StoreItem:
        """The item after every scrubber."""
        for scrubber in self.scrubbers:
            item = scrubber.scrub(item)
            if not isinstance(item, STORE_ITEM_TYPES):
                raise EngineError(f"scrubber `{scrubber.name}` did not return an item")
        return item

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return self.inner.store(self.scrub(item))

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return self.inner.store_many([self.scrub(item) for item in items])

    def __repr__(self) -> str:
        names = ", ".join(scrubber.name for scrubber in self.scrubbers)
        return f"<ScrubbingEngine {self.descriptor.id!r} scrubbed by {names}>"
