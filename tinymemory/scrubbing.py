"""Scrubbing on every store: an engine wrapper that passes items through scrubbers.

``MemoryConfig.build()`` wraps the engine it hands out in a
:class:`ScrubbingEngine` whenever scrubber plugins are installed, so no path
into memory (``store`` or ``store_many``) skips them.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinymemory.engine import EngineDescriptor, EngineHealth, MemoryEngine
from tinymemory.errors import EngineError
from tinymemory.hookspecs import Scrubber
from tinymemory.items import STORE_ITEM_TYPES, StoreItem, StoreReceipt
from tinymemory.operations import (
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    ExportPage,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ListPage,
    ListRequest,
    RecallAnswer,
    RecallRequest,
)


class ScrubbingEngine(MemoryEngine):
    """``inner`` with every stored item passed through ``scrubbers`` first, in order."""

    def __init__(self, inner: MemoryEngine, scrubbers: Sequence[Scrubber]) -> None:
        self.inner = inner
        self.scrubbers = tuple(scrubbers)

    def scrub(self, item: StoreItem) -> StoreItem:
        """The item after every scrubber."""
        for scrubber in self.scrubbers:
            item = scrubber.scrub(item)
            if not isinstance(item, STORE_ITEM_TYPES):
                raise EngineError(f"scrubber `{scrubber.name}` did not return an item")
        return item

    @property
    def descriptor(self) -> EngineDescriptor:
        return self.inner.descriptor

    def health(self) -> EngineHealth:
        return self.inner.health()

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return self.inner.store(self.scrub(item))

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return self.inner.store_many([self.scrub(item) for item in items])

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        return self.inner.recall(request)

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        return self.inner.fetch(request)

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        return self.inner.forget(target)

    def handle_list(self, request: ListRequest) -> ListPage:
        return self.inner.list(request)

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        return self.inner.explore(request)

    def handle_get(self, request: GetRequest) -> list[Hit]:
        return self.inner.get(request)

    def handle_export(self, request: ListRequest) -> ExportPage:
        return self.inner.export(request)

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        return self.inner.erase(request)

    def close(self) -> None:
        self.inner.close()

    def __repr__(self) -> str:
        names = ", ".join(scrubber.name for scrubber in self.scrubbers)
        return f"<ScrubbingEngine {self.descriptor.id!r} scrubbed by {names}>"
