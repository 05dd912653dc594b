"""Scrubbing on every store: an engine wrapper that passes items through scrubbers.

``build_engine`` (and so ``MemoryConfig.build()``, the memory tools, ``sync``
and the CLI) wraps the engine it hands out in a :class:`ScrubbingEngine`
whenever scrubber plugins are installed, so no path into memory (``store``
or ``store_many``) skips them. :func:`map_texts` lets a scrubber change every
text an item holds without forgetting one kind.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from tinymemory._engine import EngineWrapper, MemoryEngine
from tinymemory._errors import EngineError
from tinymemory._hookspecs import Scrubber
from tinymemory._items import (
    STORE_ITEM_TYPES,
    Conversation,
    Document,
    DocumentBody,
    StoreItem,
    StoreReceipt,
)


def map_texts(item: StoreItem, change: Callable[[str], str]) -> StoreItem:
    """``item`` with ``change`` applied to every text it holds.

    Those are a document's title and body (its text, or its uri), each turn's
    text, a learning's text and evidence, and ``meta.url``; ids, names and
    other metadata are left as they are.
    """
    meta = item.meta
    if meta.url is not None:
        meta = attrs.evolve(meta, url=change(meta.url))
    if isinstance(item, Document):
        body = item.body
        if body.text is not None:
            body = DocumentBody(text=change(body.text))
        elif body.uri is not None:
            body = DocumentBody(uri=change(body.uri))
        title = None if item.title is None else change(item.title)
        return attrs.evolve(item, title=title, body=body, meta=meta)
    if isinstance(item, Conversation):
        turns = [attrs.evolve(turn, text=change(turn.text)) for turn in item.turns]
        return attrs.evolve(item, turns=turns, meta=meta)
    evidence = None if item.evidence is None else change(item.evidence)
    return attrs.evolve(item, text=change(item.text), evidence=evidence, meta=meta)


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
