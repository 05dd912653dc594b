"""Scrubbing on every store: an engine wrapper that passes items through scrubbers.

``build_engine`` (and so ``MemoryConfig.build()``, the memory tools, ``sync``
and the CLI) wraps the engine it hands out in a :class:`ScrubbingEngine`
whenever scrubber plugins are installed, so no path into memory (``store``
or ``store_many``) skips them. The installed scrubbers are collected (their
plugins imported) at the first store, so an engine that only reads never
loads them. :func:`map_texts` lets a scrubber change every text an item holds
without forgetting one kind, and :func:`item_texts` reads them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import attrs

from tinymemory._engine import EngineWrapper, MemoryEngine
from tinymemory._errors import EngineError
from tinymemory._items import (
    STORE_ITEM_TYPES,
    Conversation,
    Document,
    DocumentBody,
    StoreItem,
    StoreReceipt,
    validate_item,
)

if TYPE_CHECKING:
    from tinymemory._hookspecs import Scrubber


def map_texts(item: StoreItem, change: Callable[[str], str]) -> StoreItem:
    """``item`` with ``change`` applied to every text it holds; ``item`` itself when
    ``change`` changed none.

    Those are a document's title and body (its text, or its uri), each turn's
    text, a learning's text and evidence, and ``meta.url``; ids, names and
    other metadata are left as they are.
    """
    changed = False

    def apply(text: str) -> str:
        nonlocal changed
        new = change(text)
        changed = changed or new != text
        return new

    meta = item.meta
    url = None if meta.url is None else apply(meta.url)
    if isinstance(item, Document):
        body = item.body
        if body.text is not None:
            body = DocumentBody(text=apply(body.text))
        elif body.uri is not None:
            body = DocumentBody(uri=apply(body.uri))
        title = None if item.title is None else apply(item.title)
        if not changed:
            return item
        return attrs.evolve(item, title=title, body=body, meta=attrs.evolve(meta, url=url))
    if isinstance(item, Conversation):
        texts = [apply(turn.text) for turn in item.turns]
        if not changed:
            return item
        turns = [
            attrs.evolve(turn, text=text) for turn, text in zip(item.turns, texts, strict=True)
        ]
        return attrs.evolve(item, turns=turns, meta=attrs.evolve(meta, url=url))
    evidence = None if item.evidence is None else apply(item.evidence)
    text = apply(item.text)
    if not changed:
        return item
    return attrs.evolve(item, text=text, evidence=evidence, meta=attrs.evolve(meta, url=url))


def item_texts(item: StoreItem) -> list[str]:
    """Every text :func:`map_texts` would pass to its ``change``, in the same order.

    A scrubber reads them to decide, cheaply and for a whole batch, which items
    it needs to change at all.
    """
    meta = item.meta
    texts = [] if meta.url is None else [meta.url]
    if isinstance(item, Document):
        texts.append(item.body.content)
        if item.title is not None:
            texts.append(item.title)
    elif isinstance(item, Conversation):
        texts += [turn.text for turn in item.turns]
    else:
        if item.evidence is not None:
            texts.append(item.evidence)
        texts.append(item.text)
    return texts


class ScrubbingEngine(EngineWrapper):
    """``inner`` with every stored item passed through ``scrubbers`` first, in order.

    ``scrubbers`` None means the installed ones, collected when first needed
    (the first store, or a look at :attr:`scrubbers`): a plugin's error there
    (two scrubbers of one name, say) is that store's ``ConfigError``.
    An item is checked once: ``store`` and ``store_many`` check what they are
    given, before any scrubbing or I/O; an item a scrubber changed is checked
    again before the inner engine gets it, one no scrubber changed (the same
    object back) is not. The inner engine's ``handle_*`` receive the items.
    """

    def __init__(self, inner: MemoryEngine, scrubbers: Sequence[Scrubber] | None = None) -> None:
        super().__init__(inner)
        self._scrubbers = None if scrubbers is None else tuple(scrubbers)
        self._collecting = threading.Lock()

    @property
    def scrubbers(self) -> tuple[Scrubber, ...]:
        """The scrubbers every stored item passes through, in the order they run."""
        with self._collecting:
            if self._scrubbers is None:
                from tinymemory._plugin_manager import scrubbers

                self._scrubbers = tuple(scrubbers())
            return self._scrubbers

    def scrub(self, item: StoreItem) -> StoreItem:
        """The item after every scrubber."""
        return self.scrub_many([item])[0]

    def scrub_many(self, items: Sequence[StoreItem]) -> list[StoreItem]:
        """The items after every scrubber, in order; a scrubber with ``scrub_many`` (see
        :class:`~tinymemory.plugin.Scrubber`) takes them all at once."""
        batch = list(items)
        for scrubber in self.scrubbers:
            many = getattr(scrubber, "scrub_many", None)
            batch = list(many(batch)) if callable(many) else [scrubber.scrub(i) for i in batch]
            if len(batch) != len(items) or not all(
                isinstance(item, STORE_ITEM_TYPES) for item in batch
            ):
                raise EngineError(f"scrubber `{scrubber.name}` did not return an item for each")
        return batch

    def _checked(self, items: list[StoreItem]) -> list[StoreItem]:
        """``items``, checked already, scrubbed; those a scrubber changed checked again."""
        scrubbed = self.scrub_many(items)
        return [
            new if new is old else validate_item(new)
            for new, old in zip(scrubbed, items, strict=True)
        ]

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return self.inner.handle_store(self._checked([item])[0])

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return self.inner.handle_store_many(self._checked(items))

    def __repr__(self) -> str:
        names = ", ".join(scrubber.name for scrubber in self.scrubbers)
        return f"<ScrubbingEngine {self.descriptor.id!r} scrubbed by {names}>"
