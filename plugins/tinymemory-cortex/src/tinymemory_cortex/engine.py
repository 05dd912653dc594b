"""The CortexDB engine: TinyMemory's operations over CortexDB's event logs.

Store writes each item as the events of :mod:`.envelope` into its kind scope
(:mod:`.layout`), paying per batch: one id lookup per kind scope, the missing
events of the whole batch in one ordered bulk append (on the hosted wire,
which has no bulk route: one claimed request per event), one listing wait
per scope for its last event and one ranked-recall wait for the final event.
Reads decode the events back (v3 and v2, ignoring anybody else's), apply the
whole filter on the page, and reassemble conversations and chunked
documents; recall builds one pack per scope concurrently (a thread pool
inside the call) and asks for one answer.
"""

from __future__ import annotations

import builtins
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs

from tinymemory import (
    Citation,
    EngineCredential,
    EngineDescriptor,
    EngineError,
    EngineHealth,
    EraseReport,
    EraseRequest,
    Exported,
    ExportPage,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ItemKind,
    ListPage,
    ListRequest,
    MetaFilter,
    Namespace,
    NotFound,
    Reach,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
    TinyMemoryError,
    Unavailable,
    Unsupported,
)
from tinymemory.plugin import MemoryEngine, json_and_id
from tinymemory.retrieval import unknown_cursor

from . import cursors
from .clock import SYSTEM_CLOCK, Clock
from .connection import Connection
from .decoding import Decoded, decode_event, filter_admits, piece_tags, read_meta, rebuild
from .descriptor import DESCRIPTOR, HOSTED_DESCRIPTOR
from .envelope import Event, EventWriter, PathBook, digest16
from .layout import KIND_ORDER, Layout, Scope
from .log import EventLog, event_id_of, forget_events, with_attempts
from .pacing import Pacer
from .registration import RootRegistration
from .transport import Transport, code_of
from .wire import DIRECT, Wire

#: Packs built at once by fetch and recall.
PACK_THREADS = 4
#: One token per byte of the largest event written, capped (the wire reference's §4.3).
_TOKENS_PER_ITEM = 786432
_MAX_TOKENS = 8388608
_UNSCOPED = Reach.subtree(Namespace.ROOT)


def _max_tokens(items: int) -> int:
    return min(max(items, 1) * _TOKENS_PER_ITEM, _MAX_TOKENS)


def narrowing_labels(request: MetaFilter) -> list[str]:
    """One label group CortexDB can filter on: the first set field, else the source kinds."""
    for prefix, value in (
        ("tm:t:", request.thread_id),
        ("tm:s:", request.source_id),
        ("tm:r:", request.repo),
        ("tm:w:", request.workspace),
        ("tm:a:", request.agent_id),
        ("tm:l:", request.language),
    ):
        if value is not None:
            return [prefix + digest16(value)]
    return ["tm:k:" + digest16(kind.value) for kind in request.sources]


@attrs.frozen
class _Entry:
    """A listed item: its id, and the item (None when a piece of it is missing)."""

    item_id: str
    item: StoreItem | None
    tags: tuple[str, ...] = ()


class CortexEngine(MemoryEngine):
    """TinyMemory over CortexDB: the Direct wire by default, or ``wire=HOSTED``.

    ``scope_root`` lays memory out in layout v3 below that root (such as
    ``org:42``); without it the legacy layout under ``app:tinymemory`` is
    used. ``scope_owner`` (an actor such as ``user:42``) is registered as the
    root's owner before the first write. ``poll_interval``, ``wait_budget``
    and ``settle_budget`` (seconds) pace the visibility waits after a write.
    ``rate_limit`` requests per ``rate_window`` seconds pace every request
    (default: the wire's own limit, 300 a minute on the hosted wire).
    ``connection`` carries the requests (default: ``requests``; a test passes
    :class:`tinymemory_cortex.testing.InMemoryConnection`); ``clock`` is what every
    wait reads and sleeps on (a test passes :class:`tinymemory_cortex.testing.ManualClock`).
    """

    def __init__(
        self,
        endpoint: str,
        credential: EngineCredential,
        *,
        wire: Wire = DIRECT,
        scope_root: str | None = None,
        scope_owner: str | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 60.0,
        poll_interval: float = 0.25,
        wait_budget: float = 30.0,
        settle_budget: float = 10.0,
        backoff: float = 0.25,
        rate_limit: int | None = None,
        rate_window: float = 60.0,
        descriptor: EngineDescriptor | None = None,
        connection: Connection | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._descriptor = descriptor or (DESCRIPTOR if wire is DIRECT else HOSTED_DESCRIPTOR)
        self.layout = Layout(scope_root)
        self._cursors = cursors.cursor_codec(self._descriptor.id, endpoint, credential)
        limit = rate_limit or wire.rate_limit
        self.transport = Transport(
            endpoint,
            credential,
            wire,
            headers=headers,
            timeout=timeout,
            backoff=backoff,
            pacer=None if limit is None else Pacer(limit, rate_window, clock),
            connection=connection,
            clock=clock,
        )
        self.log = EventLog(
            self.transport,
            self.layout,
            poll_interval=poll_interval,
            wait_budget=wait_budget,
            settle_budget=settle_budget,
        )
        self.paths = PathBook()
        self.writer = EventWriter(self.paths)
        self._closed = False
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        self.registration = RootRegistration(self.transport, self.layout.root, scope_owner)

    @property
    def descriptor(self) -> EngineDescriptor:
        return self._descriptor

    # --- life -------------------------------------------------------------------

    def _open(self) -> None:
        if self._closed:
            raise EngineError(f"engine `{self.descriptor.id}` is closed")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.transport.close()
        if self._pool is not None:
            self._pool.shutdown(wait=True)

    def _threads(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(
                    PACK_THREADS, thread_name_prefix="tinymemory-cortex"
                )
            return self._pool

    def health(self) -> EngineHealth:
        if self._closed:
            return EngineHealth.down(f"engine `{self.descriptor.id}` is closed")
        route, params = self.transport.wire.health
        try:
            self.transport.get(route, dict(params), retry=False)
        except Unavailable as error:
            return EngineHealth.degraded(_withheld(error))
        except TinyMemoryError as error:
            return EngineHealth.down(_withheld(error))
        return EngineHealth.ok()

    # --- store ------------------------------------------------------------------

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return self.handle_store_many([item])[0]

    def handle_store_many(self, items: builtins.list[StoreItem]) -> builtins.list[StoreReceipt]:
        self._open()
        planned: list[tuple[str, Scope, list[Event]]] = []
        for item in items:
            self.layout.check_node(item.meta.namespace)
            item_id = json_and_id(item)[1]
            scope = self.layout.scope(item.item_kind, item.meta.namespace)
            # Every event of the batch is built (and checked against the cap) first.
            planned.append((item_id, scope, self.writer.events(item, item_id, scope)))
        self.registration.ensure()
        held = self._held_parts(planned)
        to_write: list[Event] = []
        owners: list[int] = []
        seen: set[str] = set()
        for position, (item_id, _, events) in enumerate(planned):
            if item_id in seen:
                continue  # a repeat in the batch is a replay of its first copy
            seen.add(item_id)
            have = held.get(item_id, set())
            for event in events:
                if event.part not in have:
                    to_write.append(event)
                    owners.append(position)
        results = self.log.append(to_write) if to_write else []
        replayed_by_server: dict[int, bool] = {}
        last_in_scope: dict[str, tuple[str, str, str]] = {}
        for event, position, (event_id, replayed) in zip(to_write, owners, results, strict=True):
            replayed_by_server[position] = replayed_by_server.get(position, True) and replayed
            if replayed:
                continue  # written, and waited for, by an earlier store
            item_id, scope, _ = planned[position]
            last_in_scope.pop(scope.path, None)  # so the last scope written ends the dict
            last_in_scope[scope.path] = (event_id, item_id, event.body["content"]["text"])
        self._wait_visible(last_in_scope)
        return [
            StoreReceipt(item_id, replayed_by_server.get(position, True))
            for position, (item_id, _, _) in enumerate(planned)
        ]

    def _held_parts(
        self, planned: Sequence[tuple[str, Scope, list[Event]]]
    ) -> dict[str, set[int | None]]:
        """One lookup per kind scope: which turns or pieces of each item CortexDB holds."""
        by_scope: dict[str, list[str]] = {}
        for item_id, scope, _ in planned:
            by_scope.setdefault(scope.path, []).append(item_id)
        held: dict[str, set[int | None]] = {}
        for path, ids in by_scope.items():
            for item_id, found in self.log.lookup(path, ids).items():
                held[item_id] = {None if event.part is None else event.part[0] for event in found}
        return held

    def _wait_visible(self, last_in_scope: dict[str, tuple[str, str, str]]) -> None:
        """A listing wait per scope for its last event, then the ranked wait for the final one."""
        for path, (event_id, item_id, _) in last_in_scope.items():
            self.log.wait_listed(path, event_id, item_id)
        if last_in_scope:
            path, (event_id, _, text) = list(last_in_scope.items())[-1]
            self.log.wait_ranked(path, event_id, text)

    # --- which scopes a read touches ---------------------------------------------

    def _kinds(self, request: MetaFilter) -> list[ItemKind]:
        return [kind for kind in KIND_ORDER if not request.kinds or kind in request.kinds]

    def _read_scopes(self, reach: Reach | None, kinds: Sequence[ItemKind]) -> list[Scope]:
        """Each admitted kind at each node the reach reads; nodes below it are discovered."""
        if not kinds:
            return []
        effective = reach or _UNSCOPED
        # The nodes a reach names are known: their scopes are read without asking
        # which exist (an empty one lists empty), so a write is readable as soon as
        # its events are. Only nodes below a subtree reach are discovered, from the
        # scope listing.
        found = {self.layout.scope(kind, node) for kind in kinds for node in effective.nodes()}
        if effective.descendants:
            found.update(
                scope
                for prefix in self.layout.discovery_prefixes(effective.at)
                for scope in self.log.scopes_under(prefix, complete=False)
                if scope.kind in kinds and effective.admits(scope.namespace)
            )
        return sorted(found)

    def _held_scopes(self) -> list[Scope]:
        """Every kind scope of this layout, sandboxes included (a complete listing)."""
        return sorted(set(self.log.scopes_under(self.layout.base, complete=True)))

    # --- list and export --------------------------------------------------------

    def handle_list(self, request: ListRequest) -> ListPage:
        self._open()
        entries, following = self._walk(request, keep_incomplete=False)
        hits = [Hit.of_item(entry.item_id, entry.item) for entry in entries if entry.item]
        return ListPage(items=hits, next_cursor=following)

    def handle_export(self, request: ListRequest) -> ExportPage:
        self._open()
        entries, following = self._walk(request, keep_incomplete=True)
        return ExportPage(
            items=[Exported(id=entry.item_id, item=entry.item) for entry in entries if entry.item],
            incomplete=[entry.item_id for entry in entries if entry.item is None],
            next_cursor=following,
        )

    def _walk(
        self, request: ListRequest, *, keep_incomplete: bool
    ) -> tuple[list[_Entry], str | None]:
        read = cursors.list_read(request)
        start = (
            cursors.ListCursor()
            if request.cursor is None
            else cursors.ListCursor.decode(self._cursors, read, request.cursor)
        )
        scopes = self._read_scopes(request.filter.reach, self._kinds(request.filter))
        index = 0
        if start.scope is not None:
            resumed = self.layout.parse(start.scope)
            if resumed is None:
                raise unknown_cursor(request.cursor or "")
            index = next(
                (number for number, scope in enumerate(scopes) if scope >= resumed), len(scopes)
            )
            if index < len(scopes) and scopes[index].path != start.scope:
                start = cursors.ListCursor()
        labels = narrowing_labels(request.filter)
        entries: list[_Entry] = []
        # The page ends at the limit-th entry; one more admitted entry is looked for
        # first, so a cursor is returned only when the listing really goes on.
        resume: cursors.ListCursor | None = None
        engine_cursor, offset, last = start.engine, start.offset, start.last
        for scope in scopes[index:]:
            for _ in range(500):
                if start.scope is not None:  # the cursor's own page, found again
                    engine_cursor, offset, items, following = self._resumed(scope, start, labels)
                    start = cursors.ListCursor()
                else:
                    items, following = self.log.page(scope.path, engine_cursor, labels)
                decoded: list[tuple[int, Decoded]] = []
                for number in range(offset, len(items)):
                    raw_id = event_id_of(items[number])
                    if raw_id is not None and raw_id == last:
                        continue  # the listing's second copy: not decoded again
                    last = raw_id if raw_id is not None else last
                    event = decode_event(items[number])
                    if event is not None:
                        decoded.append((number, event))
                parts = self._assemble(scope, decoded)
                for number, event in decoded:
                    entry = self._entry(scope, event, parts, request.filter)
                    if entry is None or (entry.item is None and not keep_incomplete):
                        continue
                    if resume is not None:
                        return entries, resume.encode(self._cursors, read)
                    entries.append(entry)
                    if len(entries) == request.limit:
                        resume = cursors.ListCursor(
                            scope.path, engine_cursor, number + 1, event.event_id
                        )
                if following is None:
                    break
                engine_cursor, offset = following, 0
            else:
                raise EngineError(f"scope {scope.path} has more than 500 pages")
            engine_cursor, offset, last = None, 0, None
        return entries, None

    def _resumed(
        self, scope: Scope, start: cursors.ListCursor, labels: Sequence[str]
    ) -> tuple[str | None, int, list[Any], str | None]:
        """The page a list cursor resumes on: its engine cursor, the position after the
        cursor's last event, the raw events and the next page's cursor.

        CortexDB lists newest first, so an event written meanwhile (by anyone,
        anywhere in the scope) shifts every older event further down the
        listing: the last event is looked for on the cursor's page and on the
        pages after it. Only when it is gone (forgotten) does the cursor's
        offset stand.
        """
        engine_cursor = start.engine
        for _ in range(500):
            items, following = self.log.page(scope.path, engine_cursor, labels)
            ids = [event_id_of(raw) for raw in items]
            if start.last is not None and start.last in ids:
                return engine_cursor, ids.index(start.last) + 1, items, following
            if following is None:
                break
            engine_cursor = following
        items, following = self.log.page(scope.path, start.engine, labels)
        return start.engine, start.offset, items, following

    def _assemble(
        self, scope: Scope, decoded: Sequence[tuple[int, Decoded]]
    ) -> dict[str, list[Decoded]]:
        """The events of each multi-part item with a part on the page, newest first (one lookup)."""
        wanted = [
            event.item_id for _, event in decoded if event.part is not None and event.part[1] > 1
        ]
        return self.log.lookup(scope.path, wanted) if wanted else {}

    def _entry(
        self, scope: Scope, event: Decoded, parts: dict[str, list[Decoded]], request: MetaFilter
    ) -> _Entry | None:
        if event.kind is not scope.kind:
            return None
        events = [event]
        if event.part is not None and event.part[1] > 1:
            # A turn or piece stands for its item at the item's newest event only, so
            # the item is listed once, wherever the page boundaries fall, and even when
            # a piece is missing (export names it incomplete).
            events = parts.get(event.item_id, [event])
            if events[0].event_id != event.event_id:
                return None
        meta = read_meta(event.envelope, self.paths)
        if meta.namespace != scope.namespace or not filter_admits(
            request, event.kind, meta, event.envelope
        ):
            return None
        return _Entry(event.item_id, rebuild(events, self.paths))

    # --- get --------------------------------------------------------------------

    def handle_get(self, request: GetRequest) -> builtins.list[Hit]:
        self._open()
        wanted = list(dict.fromkeys(request.ids))
        found: dict[str, Hit] = {}
        for scope in self._read_scopes(request.reach, KIND_ORDER):
            missing = [item_id for item_id in wanted if item_id not in found]
            if not missing:
                break
            for item_id, events in self.log.lookup(scope.path, missing).items():
                item = rebuild(events, self.paths)
                if (
                    item is not None
                    and Reach.admitted_by(request.reach, item.meta.namespace)
                    and item.meta.namespace == scope.namespace
                    and item.item_kind is scope.kind
                ):
                    found[item_id] = Hit.of_item(item_id, item)
        return [found[item_id] for item_id in wanted if item_id in found]

    # --- fetch ------------------------------------------------------------------

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        self._open()
        read = cursors.fetch_read(request)
        offset = cursors.fetch_offset(self._cursors, read, request.cursor)
        scopes = self._read_scopes(request.filter.reach, self._kinds(request.filter))
        budget = min((offset + request.limit + 1) * 3, 1000)
        packs = self._packs(scopes, request.query, request.filter, {"events": budget}, budget)
        merged = self._merge(scopes, [events for _, events in packs], request.filter)
        page = merged[offset : offset + request.limit]
        hits = []
        for rank, (scope, event) in enumerate(page, start=offset):
            hit = self._ranked_hit(scope, event, 1.0 / (1.0 + rank))
            if hit is not None:
                hits.append(hit)
        following = None
        if len(merged) > offset + request.limit:
            following = cursors.fetch_cursor(self._cursors, read, offset + request.limit)
        return FetchPage(hits=hits, next_cursor=following)

    def _packs(
        self,
        scopes: Sequence[Scope],
        query: str,
        request: MetaFilter,
        limits: dict[str, int],
        items: int,
    ) -> list[tuple[str | None, list[Decoded]]]:
        """One pack per scope, built concurrently: its id and its decoded events, in rank order.

        ``limits`` are the per-layer limits (their layers are what is included,
        events first); ``items`` sizes the token budget.
        """
        labels = narrowing_labels(request)

        def pack(scope: Scope) -> tuple[str | None, list[Decoded]]:
            body: dict[str, Any] = {
                "scope": scope.path,
                "query": query,
                "view": "granular",
                "include": list(limits),
                "budgets": {"max_tokens": _max_tokens(items), "per_layer_limits": limits},
                **self.transport.wire.recall_fields,
            }
            if labels:
                body["filters"] = {"metadata": {"labels": labels}}
            answer = self.transport.post("recall", body, retry=True)
            if not isinstance(answer, dict):
                raise EngineError(f"memory API recall on {self.transport.host} answered no pack")
            events = (answer.get("layers") or {}).get("events") or []
            pack_id = answer.get("pack_id")
            return (pack_id if isinstance(pack_id, str) else None), self._whole(scope, events)

        if not scopes:
            return []
        return list(self._threads().map(pack, scopes))

    def _whole(self, scope: Scope, events: Sequence[object]) -> list[Decoded]:
        """A pack's events decoded, a budget excerpt replaced by its whole event.

        CortexDB serves an event longer than the pack's room as an excerpt
        (``content._partial``, ``_partial_reason: "budget_excerpt"``); its text
        is never passed off as the item's. The whole events come from the
        scope's listing (their item labels, on both wires); an excerpt whose
        whole event is not listed is left out of the ranking.
        """
        decoded: list[Decoded] = []
        excerpts: set[str] = set()
        for raw in events:
            event = decode_event(raw)
            if event is None:
                continue
            decoded.append(event)
            content = raw.get("content") if isinstance(raw, dict) else None
            if isinstance(content, dict) and content.get("_partial") is True:
                excerpts.add(event.event_id)
        if not excerpts:
            return decoded
        items = {event.item_id for event in decoded if event.event_id in excerpts}
        listed = self.log.lookup(scope.path, items)
        whole = {event.event_id: event for found in listed.values() for event in found}
        return [
            whole[event.event_id] if event.event_id in excerpts else event
            for event in decoded
            if event.event_id not in excerpts or event.event_id in whole
        ]

    def _merge(
        self, scopes: Sequence[Scope], packs: Sequence[list[Decoded]], request: MetaFilter
    ) -> list[tuple[Scope, Decoded]]:
        """Each admitted item once at its best rank, scopes interleaved rank by rank."""
        ranked: list[list[Decoded]] = []
        for scope, events in zip(scopes, packs, strict=True):
            kept: dict[str, Decoded] = {}
            for event in events:
                if event.kind is not scope.kind or event.item_id in kept:
                    continue
                meta = read_meta(event.envelope, self.paths)
                if meta.namespace == scope.namespace and filter_admits(
                    request, event.kind, meta, event.envelope
                ):
                    kept[event.item_id] = event
            ranked.append(list(kept.values()))
        merged: list[tuple[Scope, Decoded]] = []
        seen: set[str] = set()
        for rank in range(max((len(events) for events in ranked), default=0)):
            for scope, events in zip(scopes, ranked, strict=True):
                if rank < len(events) and events[rank].item_id not in seen:
                    seen.add(events[rank].item_id)
                    merged.append((scope, events[rank]))
        return merged

    def _ranked_hit(self, scope: Scope, event: Decoded, score: float) -> Hit | None:
        """The hit of a ranked event: a document's piece with its tags, other items whole."""
        meta = read_meta(event.envelope, self.paths)
        if event.kind is ItemKind.DOCUMENT and event.part is not None:
            tagged = attrs.evolve(meta, tags=(*meta.tags, *piece_tags(event)))
            return Hit(id=event.item_id, kind=event.kind, text=event.text, meta=tagged, score=score)
        events = [event]
        if event.part is not None and event.part[1] > 1:
            events = self.log.lookup(scope.path, [event.item_id]).get(event.item_id, [])
        item = rebuild(events, self.paths) if events else None
        if item is None:
            return None
        return Hit.of_item(event.item_id, item, score)

    # --- recall -----------------------------------------------------------------

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        self._open()
        scopes = self._read_scopes(request.filter.reach, self._kinds(request.filter))
        if not scopes:
            return RecallAnswer(answer="")
        # Twice the limit of events, and the limit split over the derived layers.
        share, extra = divmod(request.limit, 4)
        limits = {"events": 2 * request.limit}
        for number, layer in enumerate(("facts", "beliefs", "episodes", "understanding")):
            limits[layer] = share + (1 if number < extra else 0)
        for _ in range(3):
            packs = self._packs(scopes, request.question, request.filter, limits, 3 * request.limit)
            admitted = [
                [event for _, event in self._merge([scope], [events], request.filter)]
                for scope, (_, events) in zip(scopes, packs, strict=True)
            ]
            citations = self._citations(scopes, admitted, request.limit)
            best = max(
                range(len(scopes)),
                key=lambda number: (len(admitted[number]), scopes[number].namespace.depth),
            )
            if not admitted[best]:
                return RecallAnswer(answer="Nothing in memory matches the question.")
            pack_id = packs[best][0]
            if pack_id is None:
                raise EngineError(
                    f"memory API recall on {self.transport.host} answered without a pack id"
                )
            # As the SDK builds it: instructions only when given (never a null), no
            # `include_context` (the engine reads only the answer and its model).
            body: dict[str, Any] = {
                "scope": scopes[best].path,
                "question": request.question,
                "use_pack_id": pack_id,
                "cite_sources": True,
                **self.transport.wire.answer_fields,
            }
            if request.instructions is not None:
                body["answer_instructions"] = request.instructions
            try:
                answer = self.transport.post("answer", body)
            except NotFound:
                continue
            text = answer.get("answer") if isinstance(answer, dict) else None
            if not isinstance(text, str):
                raise EngineError(f"memory API answer on {self.transport.host} answered no text")
            model = (answer.get("diagnostics") or {}).get("answer_model")
            return RecallAnswer(
                answer=text, citations=citations, model=model if isinstance(model, str) else None
            )
        raise NotFound("the recall pack expired three times; try again")

    def _citations(
        self, scopes: Sequence[Scope], admitted: Sequence[list[Decoded]], limit: int
    ) -> list[Citation]:
        order = sorted(range(len(scopes)), key=lambda number: -scopes[number].namespace.depth)
        citations: list[Citation] = []
        seen: set[str] = set()
        for rank in range(max((len(events) for events in admitted), default=0)):
            for number in order:
                events = admitted[number]
                if rank >= len(events) or events[rank].item_id in seen:
                    continue
                event = events[rank]
                seen.add(event.item_id)
                citations.append(
                    Citation(
                        id=event.item_id,
                        kind=event.kind,
                        snippet=event.text,
                        meta=read_meta(event.envelope, self.paths),
                    )
                )
                if len(citations) == limit:
                    return citations
        return citations

    # --- forget -----------------------------------------------------------------

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        self._open()
        if target.ids is not None:
            return self._forget_ids(target.ids)
        assert target.filter is not None
        request = target.filter
        labels = narrowing_labels(request)
        forgotten: set[str] = set()
        for scope in self._read_scopes(request.reach, self._kinds(request)):
            doomed: list[str] = []
            for event in self.log.walk(scope.path, labels):
                meta = read_meta(event.envelope, self.paths)
                if (
                    event.kind is scope.kind
                    and meta.namespace == scope.namespace
                    and filter_admits(request, event.kind, meta, event.envelope)
                ):
                    doomed.append(event.event_id)
                    forgotten.add(event.item_id)
            if doomed:
                forget_events(self.transport, scope.path, doomed)
        return ForgetReport(len(forgotten))

    def _forget_ids(self, ids: Sequence[str]) -> ForgetReport:
        wanted = list(dict.fromkeys(ids))
        forgotten: set[str] = set()
        for scope in self._held_scopes():
            found = self.log.lookup(scope.path, wanted)
            doomed = [event.event_id for events in found.values() for event in events]
            if doomed:
                forget_events(self.transport, scope.path, doomed)
                forgotten.update(found)
        return ForgetReport(len(forgotten))

    # --- erase ------------------------------------------------------------------

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        self._open()
        if request.whole_tree and self.transport.wire.claims:
            return self._erase_hosted_memory()
        prefixes = self.layout.discovery_prefixes(request.reach.at)
        found: set[Scope] = set()
        for prefix in prefixes:
            found.update(self.log.scopes_under(prefix, complete=True))
        doomed = sorted(
            (scope for scope in found if request.erases(scope.kind, scope.namespace)),
            key=lambda scope: (-scope.depth, scope.path),
        )
        if self.transport.wire.claims:
            receipts = [receipt for scope in doomed for receipt in self._erase_hosted(scope.path)]
        else:
            receipts = [self._erase_scope(scope.path) for scope in doomed]
        return EraseReport(erased_scopes=len(doomed), receipts=receipts)

    def _erase_hosted(self, path: str) -> list[str]:
        """``memory/v1/erasures`` (a passthrough, answered bare): the scope and all below it.

        A 502 ``ERASURE_INCOMPLETE`` is retried, 3 attempts in all, each with a
        new claim; a 404 (a backend without the route) is ``Unsupported``.
        """
        host = self.transport.host

        def send(_: int) -> object:
            try:
                return self.transport.post(
                    "erasures", {"scope": path, "audit_note": "tinymemory: erase"}, claim=True
                )
            except NotFound:
                raise Unsupported(f"memory API on {host} has no per-scope erasure") from None

        answer = with_attempts(
            self.transport, send, lambda error: code_of(error) == "ERASURE_INCOMPLETE"
        )
        fields = answer if isinstance(answer, dict) else {}
        scopes, ids = fields.get("scopes"), fields.get("erasure_ids") or []
        if (
            fields.get("erased") is not True
            or isinstance(scopes, bool)
            or not isinstance(scopes, int)
            or scopes < 0
            or not isinstance(ids, list)
            or not all(isinstance(erasure, str) for erasure in ids)
            or (scopes > 0 and not ids)
        ):
            raise EngineError(f"memory API erasures on {host} answered no complete erasure")
        return list(ids)

    def _erase_hosted_memory(self) -> EraseReport:
        """The whole tree: ``DELETE memory``, sent once; no receipts."""
        try:
            answer = self.transport.request("DELETE", "erase_all", retry=False)
        except NotFound:
            raise Unsupported(
                f"memory API on {self.transport.host} cannot erase the whole memory"
            ) from None
        scopes = answer.get("scopes") if isinstance(answer, dict) else None
        if (
            not isinstance(answer, dict)
            or answer.get("erased") is not True
            or isinstance(scopes, bool)
            or not isinstance(scopes, int)
        ):
            raise EngineError(f"memory API memory on {self.transport.host} answered no erasure")
        return EraseReport(erased_scopes=scopes, receipts=[])

    def _erase_scope(self, path: str) -> str:
        body = {"scope": path, "confirm_all": True, "audit_note": "tinymemory: erase"}
        answer = self.transport.post("erasures", body)
        erasure_id = answer.get("erasure_id") if isinstance(answer, dict) else None
        if not isinstance(erasure_id, str):
            raise EngineError(
                f"memory API erasures on {self.transport.host} answered no erasure id"
            )
        status = answer.get("status", "completed")
        gap, waited = 0.25, 0.0
        while status in ("running", "pending", "queued", "accepted"):
            if waited >= 300:
                raise Unavailable(f"erasure {erasure_id} of {path} is still pending")
            threading.Event().wait(gap)
            waited += gap
            gap = min(gap * 2, 2.0)
            try:
                polled = self.transport.request("GET", "erasures", suffix=(erasure_id,))
            except NotFound:
                # No client of the vendor reads a status route; a server without one has
                # accepted the erasure (the SDK's 202), and its id is the receipt.
                return erasure_id
            status = polled.get("status") if isinstance(polled, dict) else None
            if not isinstance(status, str):
                raise EngineError(
                    f"memory API erasures on {self.transport.host} answered no status"
                )
        if status != "completed":
            raise EngineError(f"erasure {erasure_id} of {path} ended `{status}`")
        return erasure_id


def _withheld(error: TinyMemoryError) -> str:
    head = error.message.split(" — ", 1)[0]
    return f"{head} (detail withheld)"
