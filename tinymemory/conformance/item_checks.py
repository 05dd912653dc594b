"""The suite's checks of items: health, round trip, export, replay, explore, get,
store_many, fetch filtering, fetch modes, forget and recall.

Each check takes the :class:`~.harness.Subject`, works on a fresh engine in a
workspace of its own, and raises :class:`~.failures.CheckFailed` at the first
call that breaks the contract.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from functools import partial

import attrs

from tinymemory._document_pieces import _Cutter, utf8_size
from tinymemory._errors import Unsupported
from tinymemory._items import (
    Conversation,
    Document,
    Learning,
    LearningKind,
    Role,
    StoreItem,
    Turn,
)
from tinymemory._meta import (
    ItemKind,
    MetaFilter,
    SourceKind,
    SourceRef,
    ToolCallRef,
    TurnRange,
)
from tinymemory._operations import (
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    Hit,
    RecallRequest,
)
from tinymemory._wire import to_json

from .harness import Harness, Label, Subject

_TURNS_AT = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)


def three_kinds(h: Harness) -> list[tuple[str, StoreItem]]:
    """One item of each kind holding the run's marker, named, in the run's workspace."""
    document = Document(
        title="Round trip",
        body=f"{h.marker} round trip: the harbour cranes are inspected every spring",
        mime="text/markdown",
        meta=h.meta(tags=("roundtrip",)),
    )
    conversation = Conversation(
        turns=[
            Turn(role=Role.USER, text=f"{h.marker} where is the inspection plan?", at=_TURNS_AT),
            Turn(
                role=Role.ASSISTANT,
                text=f"{h.marker} it is in the plan file",
                at=_TURNS_AT,
                tool_calls=[ToolCallRef(name="read_plan", id="call-1")],
            ),
        ],
        meta=h.meta(source=SourceRef(kind=SourceKind.CONVERSATION, id=f"{h.marker}-thread")),
    )
    learning = Learning(
        text=f"{h.marker} the user prefers short answers",
        kind=LearningKind.PREFERENCE,
        confidence=0.75,
        evidence="they said so twice",
        meta=h.meta(),
    )
    return [("document", document), ("conversation", conversation), ("learning", learning)]


def store_new(h: Harness, items: Sequence[tuple[str, StoreItem]]) -> dict[str, StoreItem]:
    """Store named items one by one, each a first store; their ids to the items."""
    stored: dict[str, StoreItem] = {}
    for label, item in items:
        receipt = h.store(item, label)
        h.expect(not receipt.replayed, f"store({label})", "a first store", "a replay")
        stored[receipt.id] = item
    return stored


def expect_hit(h: Harness, call: Label, hit: Hit, item: StoreItem) -> None:
    """A read's hit must show the stored item: kind, meta, rendered text and confidence."""
    name = h.names([hit.id])
    h.expect(hit.kind is item.item_kind, call, f"{name} of kind {item.item_kind.value}", hit.kind)
    if hit.meta != item.meta:
        h.fail(call, f"{name} with meta {to_json(item.meta)}", to_json(hit.meta))
    h.expect(hit.text == item.render_text(), call, f"{name} text {item.render_text()!r}", hit.text)
    confidence = item.confidence if isinstance(item, Learning) else None
    h.expect(hit.confidence == confidence, call, f"{name} confidence {confidence}", hit.confidence)


def piece_tags(rendered: str, text: str) -> list[tuple[str, ...]]:
    """The tags a hit carrying ``text`` may append: those of each place ``text`` lies in
    ``rendered``, as :func:`tinymemory.retrieval.cut_pieces` names a piece there (spec: "a
    ranked read gives one hit per document, its best-ranked piece, with page:/section:
    tags")."""
    found: list[tuple[str, ...]] = []
    start = rendered.find(text)
    while start >= 0 and text:
        found.append(_Cutter(rendered, 1, utf8_size).piece(start, start + len(text)).tags())
        start = rendered.find(text, start + 1)
    return found


def expect_ranked_hit(h: Harness, call: Label, hit: Hit, item: StoreItem) -> None:
    """A fetch hit must show the stored item as ``expect_hit`` does, except that a document's
    hit may carry one piece of its text, verbatim, with the tags of exactly that span
    appended (or, carrying the whole text, none)."""
    if not isinstance(item, Document):
        expect_hit(h, call, hit, item)
        return
    name = h.names([hit.id])
    own = list(item.meta.tags)
    added = tuple(hit.meta.tags[len(own) :])
    meta = attrs.evolve(hit.meta, tags=hit.meta.tags[: len(own)])
    if meta != item.meta:
        h.fail(
            call,
            f"{name} with meta {to_json(item.meta)} (and page:/section: tags after its own)",
            to_json(hit.meta),
        )
    rendered = item.render_text()
    whole = hit.text == rendered and not added
    if not (hit.kind is item.item_kind and bool(hit.text.strip()) and whole):
        allowed = piece_tags(rendered, hit.text)
        h.expect(
            hit.kind is item.item_kind and bool(hit.text.strip()) and added in allowed,
            call,
            f"{name}: a document hit whose text is {rendered!r} or a piece of it, verbatim, "
            f"with the tags of that span ({allowed})",
            f"{hit.kind.value} {hit.text!r} with {added}",
        )
    h.expect(hit.confidence is None, call, f"{name} confidence None", hit.confidence)


def check_health(subject: Subject) -> None:
    """Health is serving: ok or degraded, not down."""
    with subject.session("health") as h:
        health = h.call("health()", h.engine.health)
        got = health.state.value + (f" ({health.reason})" if health.reason else "")
        h.expect(health.serving, "health()", "ok or degraded", got)


def check_round_trip(subject: Subject) -> None:
    """One item of each kind is listed once, whole, and by its kind."""
    with subject.session("round_trip") as h:
        stored = store_new(h, three_kinds(h))
        call = f"list {to_json(h.run_filter())}"
        listed = h.listed(h.run_filter())
        for item_id, item in stored.items():
            copies = [hit for hit in listed if hit.id == item_id]
            h.expect(len(copies) == 1, call, f"{h.names([item_id])} listed once", len(copies))
            expect_hit(h, call, copies[0], item)
        for kind in ItemKind:
            only = h.run_filter(kinds=[kind])
            ids = h.listed_ids(only)
            wanted = [item_id for item_id, item in stored.items() if item.item_kind is kind]
            h.expect(ids == wanted, f"list {to_json(only)}", h.names(wanted), h.names(ids))


def check_export(subject: Subject) -> None:
    """Export hands back exactly what was stored, under its fingerprint; re-storing replays."""
    with subject.session("export") as h:
        stored = store_new(h, three_kinds(h))
        exported = h.exported(h.run_filter())
        if exported is None:
            h.skip("the engine refuses export with Unsupported")
        call = f"export {to_json(h.run_filter())}"
        ids = [entry.id for entry in exported]
        h.expect(sorted(ids) == sorted(stored), call, h.names(stored), h.names(ids))
        for entry in exported:
            name = h.names([entry.id])
            h.expect(
                entry.id == entry.item.fingerprint(), call, f"{name} id = fingerprint", entry.id
            )
            wanted = stored[entry.id]
            h.expect(entry.item == wanted, call, to_json(wanted), to_json(entry.item))
            receipt = h.store(entry.item, f"exported {name}")
            h.expect(receipt.replayed, f"store(exported {name})", "a replay", "a first store")


def check_replay(subject: Subject) -> None:
    """Storing the same item again (``observed_at`` aside) is a replay with the same id."""
    with subject.session("replay") as h:
        first_seen = datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
        document = Document(
            title="Replay",
            body=f"{h.marker} a document stored twice",
            meta=h.meta(observed_at=first_seen),
        )
        first = h.store(document, "document")
        h.expect(not first.replayed, "store(document)", "a first store", "a replay")
        again = h.store(document, "document again")
        h.expect(again.replayed, "store(document again)", "a replay", "a first store")
        later = document.with_meta(h.meta(observed_at=datetime(2025, 1, 1, tzinfo=UTC)))
        seen_later = h.store(later, "document seen later")
        h.expect(seen_later.replayed, "store(document seen later)", "a replay", "a first store")
        ids = h.listed_ids(h.run_filter())
        h.expect(ids == [first.id], f"list {to_json(h.run_filter())}", "one copy", h.names(ids))


def check_explore(subject: Subject) -> None:
    """Explore counts what list lists, largest first, and each bucket narrows to its count."""
    with subject.session("explore") as h:
        extra = [
            (f"document {n}", Document(body=f"{h.marker} extra document {n}", meta=h.meta()))
            for n in (1, 2)
        ]
        store_new(h, [*three_kinds(h), *extra])
        run = h.run_filter()
        listed = h.listed(run)
        for facet in (Facet.KIND, Facet.TAG, Facet.SOURCE):
            request = ExploreRequest(facet=facet, filter=run, limit=50)
            call = f"explore {to_json(request)}"
            page = h.explore(request)
            counts = Counter(value for hit in listed for value in facet.values(hit.kind, hit.meta))
            missing = sum(1 for hit in listed if not facet.values(hit.kind, hit.meta))
            got = {bucket.value: bucket.count for bucket in page.buckets}
            h.expect(page.facet is facet, call, f"facet {facet.value} echoed", page.facet)
            h.expect(not page.truncated, call, "not truncated", "truncated")
            h.expect(page.total == len(listed), call, f"total {len(listed)}", page.total)
            h.expect(got == dict(counts), call, f"the listing's counts {dict(counts)}", got)
            h.expect(page.missing == missing, call, f"missing {missing}", page.missing)
            order = [(bucket.count, bucket.value) for bucket in page.buckets]
            wanted_order = sorted(order, key=lambda pair: (-pair[0], pair[1].encode("utf-8")))
            h.expect(
                order == wanted_order, call, f"largest first, ties by value: {wanted_order}", order
            )
            for bucket in page.buckets:
                narrowed = facet.narrow(run, bucket.value)
                count = len(h.listed(narrowed))
                h.expect(
                    count == bucket.count,
                    f"list {to_json(narrowed)}",
                    f"{bucket.count} items, as explore counted",
                    count,
                )
        kinds = Counter(hit.kind.value for hit in listed)
        top = sorted(kinds.items(), key=lambda pair: (-pair[1], pair[0]))
        request = ExploreRequest(facet=Facet.KIND, filter=run, limit=1)
        page = h.explore(request)
        got_top = [(bucket.value, bucket.count) for bucket in page.buckets]
        call = f"explore {to_json(request)}"
        h.expect(got_top == top[:1], call, f"only {top[:1]}", got_top)
        h.expect(
            page.more_buckets == len(top) - 1,
            call,
            f"more_buckets {len(top) - 1}",
            page.more_buckets,
        )
        request = ExploreRequest(facet=Facet.KIND, filter=run, limit=50, scan_limit=2)
        page = h.explore(request)
        call = f"explore {to_json(request)} over {len(listed)} items"
        scanned = {bucket.value: bucket.count for bucket in page.buckets}
        if page.truncated:
            low = all(count <= kinds[value] for value, count in scanned.items())
            h.expect(
                2 <= page.total <= len(listed) and low,
                call,
                "truncated counts no higher than the listing's, total at least the scan limit",
                f"total {page.total}, buckets {scanned}",
            )
        else:
            h.expect(
                page.total == len(listed) and scanned == dict(kinds),
                call,
                f"every item counted (total {len(listed)}, {dict(kinds)}) or truncated",
                f"total {page.total}, buckets {scanned}",
            )
        request = ExploreRequest(facet=Facet.WORKSPACE, filter=run, limit=50)
        page = h.explore(request)
        buckets = [(bucket.value, bucket.count) for bucket in page.buckets]
        one = [(h.workspace, len(listed))]
        h.expect(buckets == one, f"explore {to_json(request)}", repr(one), repr(buckets))
        h.expect(page.missing == 0, f"explore {to_json(request)}", "missing 0", page.missing)
        h.refuses(
            "explore with limit 0",
            lambda: h.engine.explore(ExploreRequest(facet=Facet.KIND, filter=run, limit=0)),
        )


def check_get(subject: Subject) -> None:
    """Get returns the known ids in the order named, each as listed; unknown ids are left out.

    The ids are asked in one order and then in the reverse one, so an engine
    that answers in an order of its own (insertion, id) fails either way.
    """
    with subject.session("get") as h:
        stored = store_new(h, three_kinds(h))
        listed = {hit.id: hit for hit in h.listed(h.run_filter())}
        for known in (list(stored)[::-1], list(stored)):
            asked = [known[0], f"{h.marker}-missing", *known[1:]]
            got = h.get(asked)
            call = f"get({h.names(asked)})"
            h.expect([hit.id for hit in got] == known, call, h.names(known), h.hits(got))
            for hit in got:
                expect_hit(h, call, hit, stored[hit.id])
                h.expect(hit == listed[hit.id], call, "the hit as listed", repr(hit))
        h.refuses("get([])", lambda: h.engine.get(GetRequest(ids=())))


def check_store_many(subject: Subject) -> None:
    """A batch answers one receipt per item, in order; again, all replays; empty is refused."""
    with subject.session("store_many") as h:
        batch: list[StoreItem] = [
            Document(title=f"Batch {n}", body=f"{h.marker} batch document {n}", meta=h.meta())
            for n in (1, 2, 3)
        ]
        wanted = [item.fingerprint() for item in batch]
        for n, item_id in enumerate(wanted, 1):
            h.name(item_id, f"batch document {n}")
        call = "store_many(batch documents 1, 2, 3)"
        receipts = h.store_many(batch)
        ids = [receipt.id for receipt in receipts]
        h.expect(ids == wanted, call, f"receipts {h.names(wanted)}", h.names(ids))
        fresh = [receipt.replayed for receipt in receipts]
        h.expect(not any(fresh), call, "no replays", fresh)
        listed_ids = set(h.listed_ids(h.run_filter()))
        h.expect(
            listed_ids == set(wanted),
            f"list {to_json(h.run_filter())}",
            h.names(wanted),
            h.names(listed_ids),
        )
        again = h.store_many(batch)
        replays = [receipt.replayed for receipt in again]
        h.expect(all(replays), f"{call} again", "all replays", replays)
        h.expect(
            [receipt.id for receipt in again] == wanted,
            f"{call} again",
            h.names(wanted),
            h.names(r.id for r in again),
        )
        twice = Document(body=f"{h.marker} a document named twice in one batch", meta=h.meta())
        receipts = h.store_many([twice, twice])
        pattern = [receipt.replayed for receipt in receipts]
        h.expect(
            pattern == [False, True],
            "store_many(one document twice)",
            "[first store, replay]",
            pattern,
        )
        h.refuses("store_many([])", lambda: h.engine.store_many([]))


def _probes(h: Harness) -> list[tuple[str, StoreItem, MetaFilter]]:
    """Items that each differ from the others in one field, with the filter admitting only it."""
    m = h.marker

    def document(field: str, **meta: object) -> StoreItem:
        return Document(body=f"{m} probe {field}", meta=h.meta(workspace=h.probe_workspace, **meta))

    def conversation(field: str, **meta: object) -> StoreItem:
        turns = [Turn(role=Role.USER, text=f"{m} probe {field}")]
        return Conversation(turns=turns, meta=h.meta(workspace=h.probe_workspace, **meta))

    probe_source = SourceRef(kind=SourceKind.AGENT, id=f"{m}-source")
    window: dict[str, object] = {
        "observed_after": datetime(2000, 1, 1, tzinfo=UTC),
        "observed_before": datetime(2002, 1, 1, tzinfo=UTC),
    }
    specs: list[tuple[str, StoreItem, dict[str, object]]] = [
        ("folder", document("folder", folder=f"{m}/notes/2024"), {"folder": f"{m}/notes"}),
        (
            "file_path",
            document("file_path", file_path=f"src/{m}/main.py"),
            {"file_path": f"src/{m}"},
        ),
        ("language", document("language", language="rust"), {"language": "rust"}),
        ("repo", document("repo", repo=f"acme/{m}"), {"repo": f"acme/{m}"}),
        ("commit", document("commit", commit="0a1b2c3d"), {"commit": "0a1b2c3d"}),
        (
            "url",
            document("url", url=f"https://example.com/{m}"),
            {"url": f"https://example.com/{m}"},
        ),
        (
            "thread_id",
            conversation("thread_id", thread_id=f"{m}-thread"),
            {"thread_id": f"{m}-thread"},
        ),
        ("turns", conversation("turns", turns=TurnRange(3, 4)), {"turns": TurnRange(3, 4)}),
        ("agent_id", document("agent_id", agent_id=f"{m}-agent"), {"agent_id": f"{m}-agent"}),
        (
            "tool_call",
            document("tool_call", tool_call=ToolCallRef(name="read_plan", id="call-1")),
            {"tool_call": "read_plan"},
        ),
        ("source_id", document("source_id", source=probe_source), {"source_id": f"{m}-source"}),
        (
            "sources",
            document("sources", source=SourceRef(kind=SourceKind.GITHUB)),
            {"sources": [SourceKind.GITHUB]},
        ),
        (
            "tags_any",
            document("tags_any", tags=(f"{m}-tag",)),
            {"tags_any": [f"{m}-decoy", f"{m}-tag"]},
        ),
        (
            "kinds",
            Learning(text=f"{m} probe kinds", meta=h.meta(workspace=h.probe_workspace)),
            {"kinds": [ItemKind.LEARNING]},
        ),
        (
            "observed_at",
            document("observed_at", observed_at=datetime(2001, 6, 1, tzinfo=UTC)),
            window,
        ),
    ]
    return [
        (f"probe {field}", item, h.run_filter(workspace=h.probe_workspace, **fields))
        for field, item, fields in specs
    ]


def check_fetch_filters(subject: Subject) -> None:
    """Every declared mode honours every filter field, and finds the marker in every kind."""
    with subject.session("fetch_filters") as h:
        probes = _probes(h)
        ids = [h.store(item, label).id for label, item, _ in probes]
        every_probe = MetaFilter(workspace=h.probe_workspace)
        for item_id, (label, _, filter) in zip(ids, probes, strict=True):
            listed = h.listed_ids(filter)
            h.expect(
                listed == [item_id], f"list {to_json(filter)}", f"only {label}", h.names(listed)
            )
            for mode in h.engine.descriptor.fetch_modes:
                hits = [hit.id for hit in h.fetch_marker(mode, filter)]
                call = f"fetch {mode.value} of the marker under {to_json(filter)}"
                h.expect(hits == [item_id], call, f"only {label}", h.names(hits))
        for mode in h.engine.descriptor.fetch_modes:
            found = {hit.id for hit in h.fetch_marker(mode, every_probe)}
            call = f"fetch {mode.value} of the marker under {to_json(every_probe)}"
            h.expect(found == set(ids), call, f"all {len(ids)} probes", h.names(found))


def check_unsupported_modes(subject: Subject) -> None:
    """A fetch mode the descriptor does not declare is refused with Unsupported."""
    with subject.session("unsupported_modes") as h:
        h.store(Document(body=f"{h.marker} a document for every mode", meta=h.meta()))
        declared = h.engine.descriptor.fetch_modes
        for mode in FetchMode:
            if mode not in declared:
                request = FetchRequest(query=h.marker, mode=mode, filter=h.run_filter())
                h.refuses(
                    f"fetch {to_json(request)} (undeclared)",
                    partial(h.engine.fetch, request),
                    (Unsupported,),
                )


def check_empty_forget(subject: Subject) -> None:
    """A forget of no ids or of an empty filter is refused and removes nothing."""
    with subject.session("empty_forget") as h:
        store_new(h, three_kinds(h))
        before = len(h.listed(h.run_filter()))
        h.refuses('forget {"ids":[]}', lambda: h.engine.forget(ForgetTarget.by_ids([])))
        h.refuses(
            'forget {"filter":{}}', lambda: h.engine.forget(ForgetTarget.by_filter(MetaFilter()))
        )
        after = len(h.listed(h.run_filter()))
        h.expect(after == before, "list after the refused forgets", f"{before} items", after)


def check_forget_by_id(subject: Subject) -> None:
    """Forgetting an id removes that item only; forgetting it again removes nothing."""
    with subject.session("forget_by_id") as h:
        kept = store_new(h, three_kinds(h))
        gone = h.store(
            Document(body=f"{h.marker} a document to forget", meta=h.meta()), "doomed document"
        ).id
        call = f"forget ids {h.names([gone])}"
        h.expect(h.forget(ForgetTarget.by_ids([gone])) == 1, call, "1 forgotten", "another count")
        left = set(h.listed_ids(h.run_filter()))
        h.expect(left == set(kept), f"list {to_json(h.run_filter())}", h.names(kept), h.names(left))
        h.expect(not h.get([gone]), f"get({h.names([gone])})", "nothing", "the forgotten item")
        again = h.forget(ForgetTarget.by_ids([gone]))
        h.expect(again == 0, f"{call} again", "0 forgotten", again)


def check_forget_by_filter(subject: Subject) -> None:
    """Forgetting by a filter removes exactly what it admits."""
    with subject.session("forget_by_filter") as h:
        kept = store_new(h, three_kinds(h))
        drop = f"{h.marker}-drop"
        for n in (1, 2):
            h.store(
                Document(body=f"{h.marker} droppable document {n}", meta=h.meta(tags=(drop,))),
                f"droppable {n}",
            )
        # A decoy in another workspace of the same engine, with the same tag: a forget
        # by filter must not cross into it.
        decoy = Document(
            body=f"{h.marker} droppable decoy elsewhere",
            meta=h.meta(workspace=h.probe_workspace, tags=(drop,)),
        )
        decoy_id = h.store(decoy, "decoy in another workspace").id
        doomed = h.run_filter(tags_any=[drop])
        forgotten = h.forget(ForgetTarget.by_filter(doomed))
        h.expect(forgotten == 2, f"forget {to_json(doomed)}", "2 forgotten", forgotten)
        left = set(h.listed_ids(h.run_filter()))
        h.expect(left == set(kept), f"list {to_json(h.run_filter())}", h.names(kept), h.names(left))
        elsewhere = h.run_filter(workspace=h.probe_workspace)
        still = h.listed_ids(elsewhere)
        h.expect(
            still == [decoy_id],
            f"list {to_json(elsewhere)} after forget {to_json(doomed)}",
            h.names([decoy_id]),
            h.names(still),
        )


def check_recall(subject: Subject) -> None:
    """Recall answers with 1 to ``limit`` citations, each a listed item of its kind, with more
    matches than the limit; a kinds filter is obeyed."""
    with subject.session("recall") as h:
        extra = [
            (f"document {n}", Document(body=f"{h.marker} more to recall {n}", meta=h.meta()))
            for n in range(1, 5)
        ]
        store_new(h, [*three_kinds(h), *extra])
        listed = {hit.id: hit for hit in h.listed(h.run_filter())}
        requests = [
            RecallRequest(question=h.marker, limit=5, filter=h.run_filter()),
            RecallRequest(question=h.marker, limit=2, filter=h.run_filter()),
            RecallRequest(
                question=h.marker, limit=5, filter=h.run_filter(kinds=[ItemKind.LEARNING])
            ),
        ]
        for request in requests:
            call = f"recall {to_json(request)} over {len(listed)} matching items"
            answer = h.recall(request)
            h.expect(bool(answer.answer.strip()), call, "a non-blank answer", repr(answer.answer))
            cited = [citation.id for citation in answer.citations]
            limit = request.limit
            h.expect(1 <= len(cited) <= limit, call, f"1 to {limit} citations", len(cited))
            for citation in answer.citations:
                hit = listed.get(citation.id)
                if hit is None:
                    h.fail(call, f"citations of listed items {h.names(listed)}", citation.id)
                h.expect(
                    citation.kind is hit.kind,
                    call,
                    f"{h.names([hit.id])} cited as {hit.kind.value}",
                    citation.kind,
                )
                kinds = request.filter.kinds
                h.expect(
                    not kinds or hit.kind in kinds,
                    call,
                    "citations only of the kinds the filter names",
                    f"{h.names([hit.id])} of kind {hit.kind.value}",
                )
