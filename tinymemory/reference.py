"""The reference engine ``reference``: the whole contract, in memory.

It exists to pin the contract down (the conformance suite compares every
engine with it) and to test code that uses memory without a database. It is
registered like any plugin's engine and is thread-safe; what it holds is gone
when the process ends.

Ranking is deliberately simple. Keyword: the share of the query's distinct
lowercase words the item's text holds (a hit above 0). Vector: cosine of
64-dimension hashed character-trigram vectors (a hit at 0.2 or more).
Hybrid: their mean, a hit when either is. Ties keep insertion order.

Recall answers plainly ("From N stored items: ..." quoting every hit), unless
the option ``answerer`` names an installed answerer (``extractive``, or one
from a plugin), which then writes the answer from the same hits.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from tinymemory._cursors import CursorCodec, new_secret, read_key
from tinymemory._engine import EngineDescriptor, EngineHealth, MemoryEngine
from tinymemory._errors import Unavailable
from tinymemory._hookspecs import Answerer, EngineFactory, hookimpl
from tinymemory._items import StoreItem, StoreReceipt
from tinymemory._meta import MetaFilter
from tinymemory._namespace import Reach
from tinymemory._operations import (
    Citation,
    EraseReport,
    EraseRequest,
    Exported,
    ExportPage,
    FetchMode,
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
from tinymemory._plugin_manager import answerer_named
from tinymemory._settings import EngineCredential, EngineSettings

DESCRIPTOR = EngineDescriptor(
    id="reference",
    label="Reference (in-memory)",
    description="The contract's reference engine: everything in memory, gone with the process.",
    fetch_modes=(FetchMode.KEYWORD, FetchMode.VECTOR, FetchMode.HYBRID),
)

_WORD = re.compile(r"[^\W_]+")
_DIMENSIONS = 64
_VECTOR_HIT = 0.2
_NOTHING = "Nothing stored answers this question."


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _trigram_vector(text: str) -> list[float]:
    text = text.lower()
    grams = [text[i : i + 3] for i in range(len(text) - 2)] or [text]
    vector = [0.0] * _DIMENSIONS
    for gram in grams:
        value = 0x811C9DC5
        for byte in gram.encode("utf-8"):
            value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
        vector[value % _DIMENSIONS] += 1.0
    return vector


def _cosine(a: list[float], b: list[float]) -> float:
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return sum(x * y for x, y in zip(a, b, strict=True)) / norm if norm else 0.0


def _scorer(query: str, mode: FetchMode) -> Callable[[str], float | None]:
    """A function giving a text's score for ``query``, or ``None`` when it is no hit."""
    query_words = _words(query)
    query_vector = _trigram_vector(query)

    def keyword(text: str) -> float:
        return len(query_words & _words(text)) / len(query_words) if query_words else 0.0

    def score(text: str) -> float | None:
        if mode is FetchMode.KEYWORD:
            value = keyword(text)
            return value if value > 0 else None
        similarity = _cosine(query_vector, _trigram_vector(text))
        if mode is FetchMode.VECTOR:
            return similarity if similarity >= _VECTOR_HIT else None
        value = keyword(text)
        return (value + similarity) / 2 if value > 0 or similarity >= _VECTOR_HIT else None

    return score


class _Positions:
    """A read's pages as positions, sealed by an engine's own codec.

    The read is named by ``parts`` and its filter's JSON form. A listing's
    position is the sequence number of the last item it handed out, so a write
    between pages moves no other item; a ranked read's is an offset.
    """

    def __init__(self, codec: CursorCodec, filter: MetaFilter, *parts: str) -> None:
        # The JSON converter loads with the first paged read, not with the plugin.
        from tinymemory._wire import to_json

        self._codec = codec
        self._key = read_key(*parts, to_json(filter))

    def start(self, cursor: str | None) -> int:
        positions = self._codec.decode(self._key, cursor, 1)
        return positions[0] if positions else 0

    def next_cursor(self, more: bool, position: int) -> str | None:
        return self._codec.encode(self._key, position) if more else None


class ReferenceEngine(MemoryEngine):
    """The in-memory reference engine; ids are fingerprints, cursors sealed positions.

    ``answerer``, when given, writes recall's answers from its hits.
    """

    def __init__(self, *, answerer: Answerer | None = None) -> None:
        self._answerer = answerer
        self._cursors = CursorCodec(new_secret(), engine="reference")
        self._items: dict[str, StoreItem] = {}
        #: Each item's sequence number, in store order (the order of ``_items``).
        self._seqs: dict[str, int] = {}
        self._last_seq = 0
        self._lock = threading.RLock()
        self._closed = False

    @property
    def descriptor(self) -> EngineDescriptor:
        return DESCRIPTOR

    def health(self) -> EngineHealth:
        return EngineHealth.down("the engine is closed") if self._closed else EngineHealth.ok()

    def close(self) -> None:
        """Drop every item; later calls raise ``Unavailable``, health reports down."""
        with self._lock:
            self._closed = True
            self._items.clear()
            self._seqs.clear()

    def _open_items(self) -> dict[str, StoreItem]:
        """The items, or ``Unavailable`` once the engine is closed."""
        if self._closed:
            raise Unavailable("the reference engine is closed")
        return self._items

    def _admitted(self, filter: MetaFilter) -> Iterator[tuple[str, StoreItem]]:
        for item_id, item in list(self._open_items().items()):
            if filter.matches(item.item_kind, item.meta):
                yield item_id, item

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        item_id = item.fingerprint()
        with self._lock:
            items = self._open_items()
            if item_id in items:
                return StoreReceipt(item_id, replayed=True)
            items[item_id] = item
            self._last_seq += 1
            self._seqs[item_id] = self._last_seq
            return StoreReceipt(item_id, replayed=False)

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        with self._lock:
            return [self.handle_store(item) for item in items]

    def _listed(self, request: ListRequest) -> tuple[list[tuple[str, StoreItem]], str | None]:
        """The items of one listing page, after its cursor's position, and the next cursor."""
        positions = _Positions(self._cursors, request.filter, "list")
        after = positions.start(request.cursor)
        with self._lock:
            admitted = [
                (self._seqs[item_id], item_id, item)
                for item_id, item in self._admitted(request.filter)
                if self._seqs[item_id] > after
            ]
        chosen = admitted[: request.limit]
        more = len(admitted) > request.limit
        last = chosen[-1][0] if chosen else after
        return [(item_id, item) for _, item_id, item in chosen], positions.next_cursor(more, last)

    def handle_list(self, request: ListRequest) -> ListPage:
        chosen, cursor = self._listed(request)
        return ListPage(
            items=[Hit.of_item(item_id, item) for item_id, item in chosen], next_cursor=cursor
        )

    def _ranked(self, query: str, mode: FetchMode, filter: MetaFilter) -> list[Hit]:
        score = _scorer(query, mode)
        with self._lock:
            admitted = list(self._admitted(filter))
        hits = []
        for item_id, item in admitted:
            value = score(item.render_text())
            if value is not None:
                hits.append(Hit.of_item(item_id, item, value))
        # sorted() is stable, so equal scores keep insertion order.
        return sorted(hits, key=lambda hit: -hit.score)

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        read = ("fetch", request.mode.value, request.query)
        positions = _Positions(self._cursors, request.filter, *read)
        start = positions.start(request.cursor)
        hits = self._ranked(request.query, request.mode, request.filter)
        end = start + request.limit
        return FetchPage(
            hits=hits[start:end], next_cursor=positions.next_cursor(end < len(hits), end)
        )

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        hits = self._ranked(request.question, FetchMode.HYBRID, request.filter)[: request.limit]
        if self._answerer is not None:
            return self._answerer.answer(request, hits)
        if not hits:
            return RecallAnswer(answer=_NOTHING, model="reference")
        citations = [
            Citation(id=hit.id, kind=hit.kind, snippet=hit.text, meta=hit.meta, score=hit.score)
            for hit in hits
        ]
        answer = f"From {len(hits)} stored items: " + " | ".join(hit.text for hit in hits)
        return RecallAnswer(answer=answer, citations=citations, model="reference")

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        with self._lock:
            items = self._open_items()
            if target.ids is not None:
                doomed = [item_id for item_id in dict.fromkeys(target.ids) if item_id in items]
            else:
                doomed = [item_id for item_id, _ in self._admitted(target.filter or MetaFilter())]
            for item_id in doomed:
                del items[item_id]
                del self._seqs[item_id]
        return ForgetReport(len(doomed))

    def handle_get(self, request: GetRequest) -> list[Hit]:
        hits = []
        with self._lock:
            items = self._open_items()
            for item_id in dict.fromkeys(request.ids):
                item = items.get(item_id)
                if item is not None and Reach.admitted_by(request.reach, item.meta.namespace):
                    hits.append(Hit.of_item(item_id, item))
        return hits

    def handle_export(self, request: ListRequest) -> ExportPage:
        chosen, cursor = self._listed(request)
        return ExportPage(
            items=[Exported(id=item_id, item=item) for item_id, item in chosen],
            next_cursor=cursor,
        )

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        with self._lock:
            items = self._open_items()
            doomed = [
                (item_id, item)
                for item_id, item in items.items()
                if request.erases(item.item_kind, item.meta.namespace)
            ]
            for item_id, _ in doomed:
                del items[item_id]
                del self._seqs[item_id]
        scopes = {(item.item_kind, item.meta.namespace) for _, item in doomed}
        return EraseReport(erased_scopes=len(scopes))


def _build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    name = settings.options.get("answerer")
    return ReferenceEngine(answerer=None if name is None else answerer_named(name))


def _test_settings(folder: Path) -> EngineSettings:
    # Every reference engine is a store of its own, in memory: nothing to place.
    return EngineSettings()


@hookimpl
def tinymemory_engines() -> list[EngineFactory]:
    """The reference engine, registered like any plugin's."""
    return [EngineFactory(descriptor=DESCRIPTOR, build=_build, test_settings=_test_settings)]
