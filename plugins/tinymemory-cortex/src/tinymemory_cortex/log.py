"""Reading and writing a scope's event log: pages, label lookups, appends, waits, scopes.

CortexDB lists a scope newest first and emits every event twice (consecutive
copies, counted by ``limit``); a reader drops the repeat by event id. Label
lookups send at most 50 labels per request and re-check every hit against
the envelope's real id (a label is only 64 bits).

On the hosted wire every event is its own request under one
``Idempotency-Key`` claim, retried with that claim on a transient failure;
a 409 on a retry means an earlier attempt landed, and the event is found by
its text and labels (the wire reference's §9.2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from tinymemory import Conflict, EngineError, NotFound, TinyMemoryError, Unavailable

from .decoding import Decoded, decode_event
from .envelope import Event, item_label
from .layout import Layout, Scope, below
from .transport import MAX_PAUSE, Transport, asked_wait, new_claim

_T = TypeVar("_T")
#: Attempts of a hosted write on a transient failure (sleeping 250 ms, then 500 ms).
HOSTED_ATTEMPTS = 3
PAGE_LIMIT = 200
MAX_PAGES = 500
MAX_LABELS = 50
MAX_BULK_EVENTS = 1000
#: The most bytes of event bodies sent in one bulk append.
MAX_BULK_BYTES = 16 * 1024 * 1024
SCOPES_LIMIT = 1000


class EventLog:
    """The engine's view of CortexDB's logs, over one transport."""

    def __init__(
        self,
        transport: Transport,
        layout: Layout,
        *,
        poll_interval: float = 0.25,
        wait_budget: float = 30.0,
        settle_budget: float = 10.0,
    ) -> None:
        self.transport = transport
        self.layout = layout
        self.poll_interval = poll_interval
        self.wait_budget = wait_budget
        self.settle_budget = settle_budget

    # --- pages ------------------------------------------------------------------

    def page(
        self, scope: str, cursor: str | None, labels: Sequence[str] = ()
    ) -> tuple[list[Any], str | None]:
        """One raw page of ``scope`` and the cursor of the next (None at the end)."""
        params = {"scope": scope, "limit": str(PAGE_LIMIT)}
        if labels:
            params["labels"] = ",".join(labels)
        if cursor is not None:
            params["cursor"] = cursor
        answer = self.transport.get("events", params)
        if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
            raise EngineError(f"memory API events on {self.transport.host} answered without items")
        following = answer.get("next_cursor")
        if answer.get("has_more") is not True or not isinstance(following, str):
            return answer["items"], None
        if following == cursor:
            raise EngineError(
                f"memory API events on {self.transport.host} "
                "returned a listing that does not advance"
            )
        return answer["items"], following

    def walk(self, scope: str, labels: Sequence[str] = ()) -> Iterator[Decoded]:
        """Every event of ours in ``scope`` (matching any of ``labels``), newest first, once."""
        cursor: str | None = None
        last: str | None = None
        for _ in range(MAX_PAGES):
            items, cursor = self.page(scope, cursor, labels)
            for raw in items:
                raw_id = event_id_of(raw)
                if raw_id is not None and raw_id == last:
                    continue  # the listing's second copy: not decoded again
                last = raw_id if raw_id is not None else last
                decoded = decode_event(raw)
                if decoded is not None:
                    yield decoded
            if cursor is None:
                return
        raise EngineError(
            f"scope {scope} has more than {MAX_PAGES} pages; "
            "refusing to answer from a truncated log"
        )

    def lookup(self, scope: str, item_ids: Iterable[str]) -> dict[str, list[Decoded]]:
        """The events of each of ``item_ids`` held in ``scope``, found by their item labels."""
        wanted = list(dict.fromkeys(item_ids))
        found: dict[str, dict[str, Decoded]] = {}
        for start in range(0, len(wanted), MAX_LABELS):
            batch = wanted[start : start + MAX_LABELS]
            ids = set(batch)
            labels = list(dict.fromkeys(item_label(item_id) for item_id in batch))
            for decoded in self.walk(scope, labels):
                if decoded.item_id in ids:
                    found.setdefault(decoded.item_id, {})[decoded.event_id] = decoded
        return {item_id: list(events.values()) for item_id, events in found.items()}

    # --- writes -----------------------------------------------------------------

    def append(self, events: Sequence[Event]) -> list[tuple[str, bool]]:
        """Write events in order: ``(event id, replayed)`` for each.

        One event goes to ``experience``, several to ``experience/bulk`` (at
        most 1000 or 16 MiB per request); each body carries its key, so a
        retried write is a replay rather than a duplicate.
        """
        wire = self.transport.wire
        params = {"wait": "indexed"} if wire.waits_indexed else {}
        if len(events) == 1 or not wire.bulk:
            return [self._one(event, params) for event in events]
        results: list[tuple[str, bool]] = []
        for batch in _bulk_batches(events):
            results.extend(self._bulk(batch, params))
        return results

    def _one(self, event: Event, params: dict[str, str]) -> tuple[str, bool]:
        if not self.transport.wire.claims:
            answer = self.transport.post("experience", event.body, params, retry=True)
            return self._result(answer, "experience")
        claim = new_claim()

        def send(attempt: int) -> tuple[str, bool]:
            try:
                answer = self.transport.post("experience", event.body, params, claim=claim)
            except Conflict:
                if attempt == 1:
                    raise  # the claim was fresh: somebody else's conflict
                return self._recover(event), False
            return self._result(answer, "experience")

        return with_attempts(self.transport, send)

    def _recover(self, event: Event) -> str:
        """The id of a claimed write that landed although its answer was lost (§9.2).

        The scope's first page, narrowed by the item label, is read until an
        event with the same text and exactly the same labels appears; a
        transient failure there means "not yet".
        """
        scope = event.body["scope"]
        text = event.body["content"]["text"]
        labels = event.body["context"]["labels"]
        deadline = self.transport.clock.now() + self.wait_budget
        while True:
            try:
                items, _ = self.page(scope, None, labels[:1])
            except TinyMemoryError as error:
                if not error.transient:
                    raise
                items = []
            for raw in items:
                if (
                    isinstance(raw, dict)
                    and isinstance(raw.get("id"), str)
                    and (raw.get("content") or {}).get("text") == text
                    and (raw.get("context") or {}).get("labels") == labels
                ):
                    return str(raw["id"])
            if self.transport.clock.now() >= deadline:
                raise Unavailable(
                    f"a write to {scope} was claimed but not found within "
                    f"{self.wait_budget:g} s; its outcome is unknown"
                )
            self.transport.clock.sleep(self.poll_interval)

    def _bulk(self, events: Sequence[Event], params: dict[str, str]) -> list[tuple[str, bool]]:
        # `ordering`: the Rust engine sends it to live servers (§4.1); the vendor's
        # CLI sends it too (`independent` by default), the SDK never.
        body = {"items": [event.body for event in events], "ordering": "strict_temporal"}
        answer = self.transport.post("bulk", body, params, retry=True)
        results = answer.get("results") if isinstance(answer, dict) else None
        if isinstance(answer, dict) and (answer.get("partial") is True or answer.get("failures")):
            raise self._partial(events, answer)
        if not isinstance(results, list) or len(results) != len(events):
            raise EngineError(
                f"memory API bulk on {self.transport.host} answered without one result per event"
            )
        return [self._result(result, "bulk") for result in results]

    def _partial(self, events: Sequence[Event], answer: dict[str, Any]) -> TinyMemoryError:
        """A 207 / ``partial`` bulk answer: which events landed and which was refused, and why.

        The events that landed are durable: storing again replays them and
        writes only what is missing.
        """
        failures = [f for f in answer.get("failures") or [] if isinstance(f, dict)]
        refused = sorted(
            {f["index"] for f in failures if isinstance(f.get("index"), int)}
            & set(range(len(events)))
        )
        first = failures[0] if failures else {}
        reason = " ".join(
            str(first.get(name)) for name in ("error_code", "error", "message") if first.get(name)
        )
        items = sorted({events[index].item_id for index in refused})
        message = (
            f"memory API bulk on {self.transport.host} wrote {len(events) - len(refused)} of "
            f"{len(events)} events; refused: events {refused} of items {items}"
        )
        if reason:
            message += " — " + self.transport.redact(reason)[:300]
        return EngineError(message)

    def _result(self, answer: object, route: str) -> tuple[str, bool]:
        event_id = answer.get("event_id") if isinstance(answer, dict) else None
        if not isinstance(event_id, str):
            raise EngineError(
                f"memory API {route} on {self.transport.host} answered without an event id"
            )
        assert isinstance(answer, dict)
        return event_id, answer.get("replayed_from_idempotency") is True

    def wait_listed(self, scope: str, event_id: str, item_id: str) -> None:
        """Poll the scope's first page (narrowed by the item's label) until the event is there."""
        hosted = self.transport.wire.claims
        deadline = self.transport.clock.now() + self.wait_budget
        polls = failed = 0
        gap = self.poll_interval
        while True:
            try:
                items, _ = self.page(scope, None, [item_label(item_id)])
                polls += 1
            except TinyMemoryError as error:
                if not (hosted and error.transient):
                    raise
                items, failed = [], failed + 1  # hosted: a 429 or 5xx here means "not yet"
            if any(isinstance(raw, dict) and raw.get("id") == event_id for raw in items):
                return
            if self.transport.clock.now() >= deadline:
                raise Unavailable(
                    f"event {event_id} in {scope} did not become readable "
                    f"({polls} polls answered without it, {failed} failed)"
                )
            self.transport.clock.sleep(gap)
            if hosted:
                gap = min(gap * 2, 2.0)  # hosted polls back off: they count against its limit

    def wait_ranked(self, scope: str, event_id: str, text: str) -> None:
        """Best effort: poll a settle probe until ranked recall holds the event."""
        deadline = self.transport.clock.now() + self.settle_budget
        probe = {
            "scope": scope,
            "query": text[:256],
            "view": "granular",
            "include": ["events"],
            **self.transport.wire.recall_fields,
        }
        while True:
            try:
                answer = self.transport.post("recall", probe, retry=False, claim=False)
            except TinyMemoryError:
                return
            events = (
                ((answer or {}).get("layers") or {}).get("events")
                if isinstance(answer, dict)
                else None
            )
            if isinstance(events, list) and any(
                isinstance(raw, dict) and raw.get("id") == event_id for raw in events
            ):
                return
            if self.transport.clock.now() >= deadline:
                return
            self.transport.clock.sleep(self.poll_interval)

    # --- scopes -------------------------------------------------------------------

    def scopes_under(self, prefix: str, *, complete: bool) -> list[Scope]:
        """The kind scopes of this layout registered at or below ``prefix``.

        ``complete`` (exports, forgets by id, erasures) refuses a listing that
        may have been cut at CortexDB's 1000-scope limit.
        """
        entries = self._scope_paths(prefix)
        if complete and len(entries) >= SCOPES_LIMIT:
            raise EngineError(
                f"more than {SCOPES_LIMIT} scopes under {prefix}; the engine cannot list them all"
            )
        return self._parsed(prefix, entries)

    def _scope_paths(self, prefix: str) -> list[object]:
        """The raw entries of one scope listing (404: a server without one, so none)."""
        try:
            answer = self.transport.get("scopes", {"prefix": prefix, "limit": str(SCOPES_LIMIT)})
        except NotFound:
            return []
        entries = answer  # a bare array, or `items` (Direct), or `scopes` (hosted)
        if isinstance(answer, dict):
            entries = (
                answer.get("items")
                if isinstance(answer.get("items"), list)
                else answer.get("scopes")
            )
        if not isinstance(entries, list):
            raise EngineError(f"memory API scopes on {self.transport.host} answered without scopes")
        return entries

    def _parsed(self, prefix: str, entries: list[object]) -> list[Scope]:
        found = []
        for entry in entries:
            # An entry is a path, or an object naming it `path` (or `scope`, as the CLI reads).
            path = (entry.get("path") or entry.get("scope")) if isinstance(entry, dict) else entry
            if not isinstance(path, str) or not below(prefix, path):
                continue
            scope = self.layout.parse(path)
            if scope is not None:
                found.append(scope)
        return found


def event_id_of(raw: object) -> str | None:
    """A listed event's id, None when it has none."""
    event_id = raw.get("id") if isinstance(raw, dict) else None
    return event_id if isinstance(event_id, str) else None


def _bulk_batches(events: Sequence[Event]) -> Iterator[list[Event]]:
    batch: list[Event] = []
    size = 0
    for event in events:
        if batch and (len(batch) >= MAX_BULK_EVENTS or size + event.size > MAX_BULK_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(event)
        size += event.size
    if batch:
        yield batch


def with_attempts(
    transport: Transport,
    send: Callable[[int], _T],
    retry_on: Callable[[TinyMemoryError], bool] = lambda error: error.transient,
) -> _T:
    """``send(attempt)`` up to 3 times while it fails as ``retry_on`` allows (hosted writes)."""
    attempt = 0
    while True:
        attempt += 1
        try:
            return send(attempt)
        except TinyMemoryError as error:
            over_cap = (asked_wait(error) or 0.0) > MAX_PAUSE
            if attempt >= HOSTED_ATTEMPTS or not retry_on(error) or over_cap:
                raise
        transport.clock.sleep(transport.backoff * 2 ** (attempt - 1))


def forget_events(transport: Transport, scope: str, event_ids: Sequence[str]) -> None:
    """Forget named events, at most 100 per request, removing the events themselves.

    Direct sends each request once. Hosted retries a transient failure with
    a new claim per attempt, and a 404 on a retry counts as done. The body is
    the SDK's (``layers``, ``selector.memory_ids``, ``cascade``) with the
    CLI's ``audit_note``; ``cascade: redact_events`` is one of the CLI's
    choices (CortexDB's default, ``derived_only``, keeps the events).
    """
    for start in range(0, len(event_ids), 100):
        body = {
            "scope": scope,
            "layers": ["events"],
            "selector": {"memory_ids": list(event_ids[start : start + 100])},
            "cascade": "redact_events",
            "audit_note": "tinymemory: forget",
        }
        if not transport.wire.claims:
            transport.post("forget", body)
            continue

        def send(attempt: int, body: dict[str, Any] = body) -> None:
            try:
                transport.post("forget", body, claim=True)
            except NotFound:
                if attempt == 1:
                    raise

        with_attempts(transport, send)
