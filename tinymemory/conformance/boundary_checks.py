"""The suite's checks at the contract's edges: text kept byte for byte, time windows and
folder prefixes at their exact bounds, batch and request limits, and a closed engine.

Each builds the situation on the edge itself (a timestamp equal to a bound,
a folder that shares a prefix but not a path, a batch one over the maximum)
rather than hoping a random draw lands there.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial

from tinymemory._errors import TinyMemoryError, Unsupported
from tinymemory._items import (
    MAX_STORE_MANY,
    Conversation,
    Document,
    Learning,
    LearningKind,
    Role,
    StoreItem,
    Turn,
)
from tinymemory._meta import MetaFilter
from tinymemory._namespace import Namespace, Reach, Segment, SegmentKind
from tinymemory._operations import (
    MAX_BUCKETS,
    MAX_GET_IDS,
    EraseRequest,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    ListRequest,
    RecallRequest,
)
from tinymemory._wire import to_json

from .harness import Harness, Subject, describe_error
from .item_checks import expect_hit, expect_ranked_hit, store_new


def _edged(h: Harness) -> list[tuple[str, StoreItem]]:
    """Items whose text has edges a careless engine trims or normalises."""
    edged = f"  \t{h.marker} kept  as   written \n\n"
    return [
        (
            "edged document",
            Document(
                title="  Edged title ",
                body=f"\n{h.marker} first line\r\nsecond line\t \n",
                mime="text/plain",
                meta=h.meta(),
            ),
        ),
        (
            "edged conversation",
            Conversation(
                turns=[
                    Turn(role=Role.USER, text=edged),
                    Turn(role=Role.ASSISTANT, text=f"\n{h.marker}  reply\t "),
                ],
                meta=h.meta(),
            ),
        ),
        (
            "edged learning",
            Learning(text=edged, evidence="  said so  ", meta=h.meta()),
        ),
        # The same word composed and decomposed: two different items, each kept as written.
        ("composed learning", Learning(text=f"{h.marker} caf\u00e9", meta=h.meta())),
        ("decomposed learning", Learning(text=f"{h.marker} cafe\u0301", meta=h.meta())),
    ]


def check_text_preserved(subject: Subject) -> None:
    """Text with edges (spaces, tabs, CR LF, blank lines, composed and decomposed accents) comes
    back exactly as stored from list, get, fetch in every mode and export."""
    with subject.session("text_preserved") as h:
        stored = store_new(h, _edged(h))
        run = h.run_filter()
        listed = {hit.id: hit for hit in h.listed(run)}
        for item_id, item in stored.items():
            hit = listed.get(item_id)
            if hit is None:
                h.fail(
                    f"list {to_json(run)}", f"{h.names([item_id])} listed", h.hits(listed.values())
                )
            expect_hit(h, f"list {to_json(run)}", hit, item)
        ids = list(stored)
        got = h.get(ids)
        call = f"get({h.names(ids)})"
        h.expect([hit.id for hit in got] == ids, call, h.names(ids), h.hits(got))
        for hit in got:
            expect_hit(h, call, hit, stored[hit.id])
        for mode in h.engine.descriptor.fetch_modes:
            request = FetchRequest(query=h.marker, mode=mode, filter=run, limit=50)
            hits = h.fetch(request)
            found = sorted(hit.id for hit in hits)
            call = f"fetch {to_json(request)}"
            h.expect(found == sorted(ids), call, h.names(sorted(ids)), h.hits(hits))
            for hit in hits:
                expect_ranked_hit(h, call, hit, stored[hit.id])
        exported = h.exported(run)
        if exported is not None:
            call = f"export {to_json(run)}"
            got_ids = sorted(entry.id for entry in exported)
            h.expect(got_ids == sorted(ids), call, h.names(sorted(ids)), h.names(got_ids))
            for entry in exported:
                wanted = stored[entry.id]
                h.expect(entry.item == wanted, call, to_json(wanted), to_json(entry.item))


def check_filter_bounds(subject: Subject) -> None:
    """A time window admits ``after <= observed_at < before`` exactly, and folder and file path
    filters match whole path segments (``a/b`` admits ``a/b/c``, never ``a/bc``), in list,
    every fetch mode, explore and forget."""
    with subject.session("filter_bounds") as h:
        m = h.marker
        after, before = datetime(2020, 1, 1, tzinfo=UTC), datetime(2021, 1, 1, tzinfo=UTC)
        second = timedelta(seconds=1)
        places: list[tuple[str, dict[str, object]]] = [
            ("a second before the window", {"observed_at": after - second}),
            ("at the window's start", {"observed_at": after}),
            ("a second before the window's end", {"observed_at": before - second}),
            ("at the window's end", {"observed_at": before}),
            ("with no time", {}),
            ("in folder a/b", {"folder": f"{m}/a/b"}),
            ("in folder a/b/c", {"folder": f"{m}/a/b/c"}),
            ("in folder a/bc", {"folder": f"{m}/a/bc"}),
            ("at file lib/x.py", {"file_path": f"{m}/lib/x.py"}),
            ("at file lib.py", {"file_path": f"{m}/lib.py"}),
            ("at file library/x.py", {"file_path": f"{m}/library/x.py"}),
        ]
        items = [
            (name, Document(body=f"{m} placed {name}", meta=h.meta(**fields)))
            for name, fields in places
        ]
        stored = store_new(h, items)
        by_name = {name: item.fingerprint() for name, item in items}
        window = ["at the window's start", "a second before the window's end"]
        filters: list[tuple[MetaFilter, list[str]]] = [
            (h.run_filter(observed_after=after, observed_before=before), window),
            (h.run_filter(folder=f"{m}/a/b"), ["in folder a/b", "in folder a/b/c"]),
            (h.run_filter(folder=f"{m}/a/b/"), ["in folder a/b", "in folder a/b/c"]),
            (h.run_filter(file_path=f"{m}/lib"), ["at file lib/x.py"]),
        ]
        for filter, names in filters:
            wanted = sorted(by_name[name] for name in names)
            listed = sorted(h.listed_ids(filter))
            h.expect(listed == wanted, f"list {to_json(filter)}", h.names(wanted), h.names(listed))
            for mode in h.engine.descriptor.fetch_modes:
                hits = h.fetch_marker(mode, filter)
                got = sorted(hit.id for hit in hits)
                call = f"fetch {mode.value} of the marker under {to_json(filter)}"
                h.expect(got == wanted, call, h.names(wanted), h.names(got))
            request = ExploreRequest(facet=Facet.KIND, filter=filter)
            total = h.explore(request).total
            call = f"explore {to_json(request)}"
            h.expect(total == len(wanted), call, f"total {len(wanted)}", total)
        doomed = filters[0][0]
        forgotten = h.forget(ForgetTarget.by_filter(doomed))
        h.expect(forgotten == 2, f"forget {to_json(doomed)}", "2 forgotten", forgotten)
        left = sorted(h.listed_ids(h.run_filter()))
        kept = sorted(set(stored) - {by_name[name] for name in window})
        h.expect(left == kept, "list after forgetting the window", h.names(kept), h.names(left))


def check_store_many_limits(subject: Subject) -> None:
    """A batch of exactly 100 items is stored; one of 101, or one holding an invalid item, is
    refused with InvalidRequest and stores nothing at all."""
    with subject.session("store_many_limits") as h:

        def batch(label: str, count: int) -> list[StoreItem]:
            return [
                Document(body=f"{h.marker} {label} item {n}", meta=h.meta()) for n in range(count)
            ]

        over = batch("over", MAX_STORE_MANY + 1)
        h.refuses(f"store_many({MAX_STORE_MANY + 1} items)", partial(h.engine.store_many, over))
        blank = Learning(text="   ", meta=h.meta())
        mixed = [*batch("mixed", 2), blank, *batch("mixed tail", 1)]
        h.refuses(
            "store_many([2 valid documents, a blank learning, 1 valid document])",
            partial(h.engine.store_many, mixed),
        )
        left = h.listed_ids(h.run_filter())
        h.expect(not left, "list after the refused batches", "nothing stored", h.names(left))
        full = batch("full", MAX_STORE_MANY)
        receipts = h.store_many(full)
        call = f"store_many({MAX_STORE_MANY} items)"
        h.expect(len(receipts) == MAX_STORE_MANY, call, f"{MAX_STORE_MANY} receipts", len(receipts))
        replays = sum(receipt.replayed for receipt in receipts)
        h.expect(replays == 0, call, "no replays", f"{replays} replays")
        listed = len(h.listed(h.run_filter(), page=50))
        h.expect(listed == MAX_STORE_MANY, f"list after {call}", f"{MAX_STORE_MANY} items", listed)


def check_refusals(subject: Subject) -> None:
    """Every request the contract calls invalid is refused with InvalidRequest, storing nothing:
    blank questions and queries, zero limits, too many ids or buckets, invalid items."""
    with subject.session("refusals") as h:
        e = h.engine
        run = h.run_filter()
        modes = e.descriptor.fetch_modes
        mode = modes[0] if modes else FetchMode.HYBRID
        requests: list[tuple[str, Callable[[], object]]] = [
            ("recall with a blank question", partial(e.recall, RecallRequest(question=" \t"))),
            ("recall with limit 0", partial(e.recall, RecallRequest(question=h.marker, limit=0))),
            ("list with limit 0", partial(e.list, ListRequest(filter=run, limit=0))),
            ("get of no ids", partial(e.get, GetRequest(ids=()))),
            ("get of a blank id", partial(e.get, GetRequest(ids=(" ",)))),
            (
                f"get of {MAX_GET_IDS + 1} ids",
                # refused when the request is built (cap-get-ids), so it is built in the call
                lambda: e.get(GetRequest(ids=[f"{h.marker}-{n}" for n in range(MAX_GET_IDS + 1)])),
            ),
            (
                "explore with limit 0",
                partial(e.explore, ExploreRequest(facet=Facet.KIND, filter=run, limit=0)),
            ),
            (
                f"explore with limit {MAX_BUCKETS + 1}",
                partial(
                    e.explore, ExploreRequest(facet=Facet.KIND, filter=run, limit=MAX_BUCKETS + 1)
                ),
            ),
            (
                "explore with scan_limit 0",
                partial(e.explore, ExploreRequest(facet=Facet.KIND, filter=run, scan_limit=0)),
            ),
            (
                "explore with scan_limit 50001",
                partial(e.explore, ExploreRequest(facet=Facet.KIND, filter=run, scan_limit=50_001)),
            ),
            ("store of a blank document", partial(e.store, Document(body=" \n", meta=h.meta()))),
            ("store of a conversation with no turns", partial(e.store, Conversation(turns=[]))),
            ("store of a blank learning", partial(e.store, Learning(text="  ", meta=h.meta()))),
            (
                "store of a learning with confidence 1.5",
                partial(
                    e.store,
                    Learning(text=f"{h.marker} sure", kind=LearningKind.FACT, confidence=1.5),
                ),
            ),
        ]
        if modes:
            requests += [
                (
                    "fetch with a blank query",
                    partial(e.fetch, FetchRequest(query="  ", mode=mode, filter=run)),
                ),
                (
                    "fetch with limit 0",
                    partial(e.fetch, FetchRequest(query=h.marker, mode=mode, filter=run, limit=0)),
                ),
            ]
        if h.exports(run):
            requests.append(
                ("export with limit 0", partial(e.export, ListRequest(filter=run, limit=0)))
            )
        for label, request in requests:
            h.refuses(label, request)
        left = h.listed_ids(MetaFilter(workspace=h.workspace))
        h.expect(not left, "list after the refused requests", "nothing stored", h.names(left))


def check_close(subject: Subject) -> None:
    """``close()`` releases the engine: afterwards health is not serving and every operation
    (store_many, export, erase and forget_within among them) raises one of the contract's
    errors, not transient unless it is ``Unavailable``; closing again is harmless."""
    engine = subject.build("close")
    h = Harness("close", engine)
    try:
        store_new(h, [("document", Document(body=f"{h.marker} before close", meta=h.meta()))])
    except BaseException:
        h.clean_up(verify=False)
        engine.close()
        raise
    # What was stored is forgotten before the close, so nothing of the run outlives it.
    h.clean_up(verify=True)
    h.call("close()", engine.close)
    h.call("close() again", engine.close)
    health = h.call("health() after close()", engine.health)
    h.expect(not health.serving, "health() after close()", "down", health.state.value)
    run = h.run_filter()
    node = Namespace([Segment(SegmentKind.AGENT, f"{h.marker}-closed")])
    operations: list[tuple[str, Callable[[], object]]] = [
        ("list", partial(engine.list, ListRequest(filter=run))),
        ("get", partial(engine.get, GetRequest(ids=("x" * 40,)))),
        ("recall", partial(engine.recall, RecallRequest(question=h.marker, filter=run))),
        ("explore", partial(engine.explore, ExploreRequest(facet=Facet.KIND, filter=run))),
        ("forget", partial(engine.forget, ForgetTarget.by_filter(run))),
        *(
            (
                f"fetch {mode.value}",
                partial(engine.fetch, FetchRequest(query=h.marker, mode=mode, filter=run)),
            )
            for mode in engine.descriptor.fetch_modes
        ),
        (
            "get with a reach",
            partial(engine.get, GetRequest(ids=("x" * 40,), reach=Reach.of(node))),
        ),
        ("forget_within", partial(engine.forget_within, ["x" * 40], Reach.exact(node))),
        ("export", partial(engine.export, ListRequest(filter=run))),
        ("erase", partial(engine.erase, EraseRequest(reach=Reach.subtree(node)))),
        # Last, and forgotten again if it was served: a closed engine must not keep them.
        ("store", partial(engine.store, Document(body=f"{h.marker} after close", meta=h.meta()))),
        (
            "store_many",
            partial(engine.store_many, [Learning(text=f"{h.marker} after close", meta=h.meta())]),
        ),
    ]
    for operation, call in operations:
        label = f"{operation} after close()"
        try:
            answer = call()
        except Unsupported:  # export and erase are optional: refusing them is fine here too
            continue
        except TinyMemoryError as error:
            h.expect_transient_only_if_unavailable(label, error)
            continue
        except Exception as error:
            h.fail(label, "one of the contract's errors", describe_error(error))
        h.clean_up(verify=False)
        h.fail(
            label, "one of the contract's errors (the engine is closed)", f"an answer: {answer!r}"
        )
