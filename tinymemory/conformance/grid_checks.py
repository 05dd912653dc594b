"""The suite's generated fixed checks: each walks a small grid of sizes, depths, positions
and values, and compares every read with the reference engine given the same writes.

A check of one situation lets an engine that differs from it in any small
way walk past; these build every point of a grid instead (every level of a
namespace tree four deep, every page size from 1 to the largest, an invalid
item at every position of a batch, path filters from a hostile alphabet,
time bounds with fractions of a second), and read through :class:`~.oracle.Twin`,
which compares each read in full with the reference engine's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import attrs

from tinymemory._errors import InvalidRequest, Unsupported
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
from tinymemory._limits import USIZE_MAX, item_limits
from tinymemory._meta import ItemKind, MetaFilter, SourceKind, SourceRef, ToolCallRef, TurnRange
from tinymemory._namespace import Namespace, Reach, Segment, SegmentKind
from tinymemory._operations import (
    EraseRequest,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
)

from .harness import Call, Harness, Subject
from .oracle import Twin

_ROOT = Namespace.ROOT


def _tree(h: Harness) -> dict[str, Namespace]:
    """A namespace tree four levels deep, named for the run: a chain with a sibling at the
    top (with a node two levels below it) and at the third level, and a ``service:``
    sandbox at the third and the fourth."""
    top = Namespace([Segment(SegmentKind.PROJECT, f"{h.marker}-top")])
    b = top.child(Segment(SegmentKind.AGENT, "b"))
    c = b.child(Segment(SegmentKind.AGENT, "c"))
    sibling = Namespace([Segment(SegmentKind.AGENT, f"{h.marker}-sibling")])
    return {
        "root": _ROOT,
        "top": top,
        "b": b,
        "c": c,
        "d": c.child(Segment(SegmentKind.USER, "d")),
        "cousin": b.child(Segment(SegmentKind.AGENT, "c2")),
        "job": b.child(Segment(SegmentKind.SERVICE, "job")),
        "deep job": c.child(Segment(SegmentKind.SERVICE, "job")),
        "sibling": sibling,
        "sibling deep": sibling.child(Segment(SegmentKind.AGENT, "x")).child(
            Segment(SegmentKind.AGENT, "y")
        ),
    }


def _tree_items(
    h: Harness, tree: dict[str, Namespace], round: int = 0
) -> list[tuple[str, StoreItem]]:
    """A learning and a document at every node of ``tree``."""
    items: list[tuple[str, StoreItem]] = []
    for name, node in tree.items():
        meta = h.meta(namespace=node, tags=(f"round{round}",))
        items.append(
            (f"learning at {name}", Learning(text=f"{h.marker} {name} {round}", meta=meta))
        )
        items.append(
            (f"document at {name}", Document(body=f"{h.marker} document {name} {round}", meta=meta))
        )
    return items


def _reaches(node: Namespace) -> list[Reach]:
    return [
        Reach.of(node),
        Reach.exact(node),
        Reach.subtree(node),
        Reach(node, inherit=True, descendants=True),
    ]


def check_deep_reach(subject: Subject) -> None:
    """Every reach at every node of a tree four levels deep lists, gets and counts what the
    reference does (ids outside the reach left out of get); each namespace bucket narrows
    back to exactly its node; a forget by a filter holding only a reach removes what it sees."""
    with subject.session("deep_reach") as h:
        twin = Twin(h)
        tree = _tree(h)
        ids = twin.store_many(_tree_items(h, tree))
        asked = [*ids[::-1], f"{h.marker}-unknown"]
        reaches: list[Reach | None] = [None]
        for node in tree.values():
            reaches.extend(_reaches(node))
        for reach in reaches:
            filter = h.run_filter(reach=reach)
            twin.lists(filter, 5)
            twin.gets(asked, reach)
            request = ExploreRequest(facet=Facet.NAMESPACE, filter=filter, limit=500)
            twin.explores(request)
        for reach in (None, Reach.of(tree["deep job"])):
            filter = h.run_filter(reach=reach)
            for bucket in h.explore(ExploreRequest(facet=Facet.NAMESPACE, filter=filter)).buckets:
                twin.lists(Facet.NAMESPACE.narrow(filter, bucket.value), 10)
        # A filter holding only a reach is a valid forget: everything that reach reads.
        for reach in (Reach.exact(tree["d"]), Reach.subtree(tree["c"])):
            twin.forget(ForgetTarget.by_filter(MetaFilter(reach=reach)))
            for node in tree.values():
                twin.lists(h.run_filter(reach=Reach.exact(node)), 10)


#: Every way of asking for the whole tree: erased only with ``whole_tree``.
def _whole_tree_requests() -> list[EraseRequest]:
    every_kind = list(ItemKind)
    return [
        EraseRequest(reach=reach, kinds=kinds)
        for reach in (
            Reach.subtree(_ROOT),
            Reach(_ROOT, inherit=True, descendants=True),
        )
        for kinds in ([], every_kind, every_kind[::-1])
    ]


def check_erase_levels(subject: Subject) -> None:
    """Erase at every level of a tree four deep, with and without descendants, of every kind
    and of some, leaves what the reference leaves (ancestors never touched, even with an
    inheriting reach); every request meaning the whole tree is refused without its interlock."""
    with subject.session("erase_levels") as h:
        twin = Twin(h)
        tree = _tree(h)
        twin.store_many(_tree_items(h, tree))
        nodes = [h.run_filter(reach=Reach.exact(node)) for node in tree.values()]

        def state_agrees() -> None:
            for filter in nodes:
                twin.lists(filter, 10)

        for request in _whole_tree_requests():
            h.refuses(
                f"erase {request} without whole_tree",
                partial(h.engine.erase, request),
                (InvalidRequest, Unsupported),
            )
        state_agrees()
        grid = [
            (name, descendants, kinds)
            for name in ("top", "b", "c", "d")
            for descendants, kinds in ((False, []), (True, []), (True, [ItemKind.LEARNING]))
        ]
        for round, (name, descendants, kinds) in enumerate(grid, 1):
            request = EraseRequest(
                reach=Reach(tree[name], inherit=True, descendants=descendants), kinds=kinds
            )
            if not twin.erase(request):
                h.skip("the engine refuses erase with Unsupported")
            state_agrees()
            twin.store_many(_tree_items(h, tree, round))


#: Page sizes: one, a few, around the number of matches, above 100, and the largest.
_LIMITS = (1, 2, 3, 12, 13, 14, 100, 200, USIZE_MAX)
#: How many items the check stores for pages above 100, and the page sizes it reads them in.
_BULK = 150
_BULK_LIMITS = (1, 7, 99, 100, 101, 149, 150, 151, 200, USIZE_MAX)


def check_page_sizes(subject: Subject) -> None:
    """List, export and fetch in every mode, under a filter, in pages of every size from 1 to
    the largest, and list and export of 150 items in pages around 100 and of 200: every
    page, first and later, holds only what the filter admits, and together all of it."""
    with subject.session("page_sizes") as h:
        twin = Twin(h)
        kinds: list[Callable[[str, tuple[str, ...]], StoreItem]] = [
            lambda text, tags: Document(body=text, meta=h.meta(tags=tags)),
            lambda text, tags: Learning(text=text, meta=h.meta(tags=tags)),
            lambda text, tags: Conversation(
                turns=[Turn(role=Role.USER, text=text)], meta=h.meta(tags=tags)
            ),
        ]
        for n in range(19):
            inside = n % 3 != 2  # 13 inside, 6 outside, interleaved
            tags = ("inside",) if inside else ("outside",)
            text = f"{h.marker} paged {' '.join(['lantern'] * (n % 5 + 1))} {n}"
            twin.store(kinds[n % 3](text, tags), f"{'inside' if inside else 'outside'} {n}")
        filter = h.run_filter(tags_any=["inside"])
        for limit in _LIMITS:
            twin.lists(filter, limit)
            twin.exports(filter, limit)
            twin.fetches(FetchRequest(query=h.marker, filter=filter, limit=limit), True)
        # More than 100 items, for pages above 100 (the command line exports by 200).
        bulk = [
            (f"bulk {n}", Learning(text=f"{h.marker} bulk {n}", meta=h.meta(tags=("bulk",))))
            for n in range(_BULK)
        ]
        for start in range(0, _BULK, MAX_STORE_MANY):
            twin.store_many(bulk[start : start + MAX_STORE_MANY])
        filter = h.run_filter(tags_any=["bulk"])
        for limit in _BULK_LIMITS:
            twin.lists(filter, limit)
            twin.exports(filter, limit)


def check_explore_cuts(subject: Subject) -> None:
    """Explore by tag, folder and kind at every limit from 1 past the number of buckets, the
    cut buckets holding several items each: buckets, order and ``more_buckets`` as the
    reference counts them, and each bucket narrowed lists exactly its items; a scan limit
    one below the item count says ``truncated``, one at it or above does not."""
    with subject.session("explore_cuts") as h:
        twin = Twin(h)
        counts = {"t-a": 5, "t-b": 4, "t-c": 3, "t-d": 3, "t-e": 2, "t-f": 1}
        items: list[tuple[str, StoreItem]] = []
        for n in range(6):
            tags = tuple(tag for tag, count in counts.items() if n < count)
            folder = f"{h.marker}/f{n % 3}" if n % 4 else None
            item: StoreItem = (
                Learning(text=f"{h.marker} cut {n}", meta=h.meta(tags=tags, folder=folder))
                if n % 2
                else Document(body=f"{h.marker} cut {n}", meta=h.meta(tags=tags, folder=folder))
            )
            items.append((f"item {n}", item))
        twin.store_many(items)
        run = h.run_filter()
        for facet in (Facet.TAG, Facet.FOLDER, Facet.KIND):
            for limit in range(1, 8):
                twin.explores(ExploreRequest(facet=facet, filter=run, limit=limit))
            for bucket in h.explore(ExploreRequest(facet=facet, filter=run)).buckets:
                twin.lists(facet.narrow(run, bucket.value), 2)
        # A scan limit at the number of items counts everything; one below must say so.
        for scan_limit in (len(items) - 1, len(items), len(items) + 1):
            request = ExploreRequest(facet=Facet.KIND, filter=run, scan_limit=scan_limit)
            wanted = twin.reference.explore(request)
            got = h.explore(request)
            shape = (got.truncated, got.total)
            h.expect(
                shape == (wanted.truncated, wanted.total),
                Call("explore", request),
                f"truncated, total = {(wanted.truncated, wanted.total)}",
                repr(shape),
            )


def check_batch_positions(subject: Subject) -> None:
    """A batch of 1, 2, 5 or 100 items holding one invalid item (blank, over the text cap or
    over the tag cap) at its first, a middle or its last position is refused with
    InvalidRequest and stores nothing; so is each invalid item stored alone."""
    with subject.session("batch_positions") as h:
        limits = item_limits()
        too_long = "x" * (limits.max_item_bytes + 1)
        invalid: list[tuple[str, StoreItem]] = [
            ("a blank learning", Learning(text=" \n", meta=h.meta())),
            (
                "a conversation with a blank turn",
                Conversation(turns=[Turn(role=Role.USER, text=" ")], meta=h.meta()),
            ),
            ("a document over the text cap", Document(body=too_long, meta=h.meta())),
            (
                "a learning over the tag cap",
                Learning(
                    text=f"{h.marker} tagged",
                    meta=h.meta(tags=tuple(f"t{n}" for n in range(limits.max_tags + 1))),
                ),
            ),
        ]
        for label, item in invalid:
            h.refuses(f"store({label})", partial(h.engine.store, item))
            for size in (1, 2, 5, MAX_STORE_MANY):
                for position in sorted({0, size // 2, size - 1}):
                    batch: list[StoreItem] = [
                        Document(body=f"{h.marker} batch {size} item {n}", meta=h.meta())
                        for n in range(size - 1)
                    ]
                    batch.insert(position, item)
                    h.refuses(
                        f"store_many({size} items, {label} at position {position})",
                        partial(h.engine.store_many, batch),
                    )
        left = h.listed_ids(h.run_filter())
        h.expect(not left, "list after the refused batches", "nothing stored", h.names(left))


def check_long_text(subject: Subject) -> None:
    """Documents, learnings and conversations with text just under and over 64 KiB (in
    characters of one to four bytes), of 1 MiB, and a document within a byte of the text cap,
    read back whole from list, get and export; a keyword fetch finds each of the 64 KiB ones
    (a document's hit a verbatim piece)."""
    with subject.session("long_text") as h:
        twin = Twin(h)
        fetched = f"{h.marker}/fetched"
        sizes = [(size, char) for size in (64 * 1024 - 1, 64 * 1024 + 1) for char in "aé日😀"]
        cap = item_limits().max_item_bytes
        for size, char in [*sizes, (1024 * 1024, "é")]:
            unit = f"{char * 7} "
            text = f"{h.marker} {unit * (size // len(unit) + 1)}"[:size]
            if len(text.encode("utf-8")) + len(h.workspace) + 100 > cap:
                continue  # a host with lower caps in force
            label = f"{size} characters of {char!r}"
            meta = h.meta(folder=fetched if size < 1024 * 1024 else None)
            twin.store(Document(title="Long", body=text, meta=meta), f"document of {label}")
            twin.store(Learning(text=text, meta=meta), f"learning of {label}")
            turns = [Turn(role=Role.USER, text=text), Turn(role=Role.ASSISTANT, text="ok")]
            twin.store(Conversation(turns=turns, meta=meta), f"conversation of {label}")
        capped = Document(body="", meta=h.meta())
        room = cap - len(h.workspace.encode("utf-8"))
        capped = attrs.evolve(capped, body=f"{h.marker} " + "é" * ((room - len(h.marker) - 1) // 2))
        twin.store(capped, "document of the cap in bytes")
        run = h.run_filter()
        twin.reads_agree(run, (2, 200))
        twin.gets(sorted(twin.items), None)
        only_fetched = h.run_filter(folder=fetched)
        # Keyword only (where declared): ranking 64 KiB texts by meaning is slow in the
        # reference engine, and a text's nearness in meaning to one word is the engine's own.
        request = FetchRequest(query=h.marker, filter=only_fetched, limit=50)
        twin.fetches(request, True, [FetchMode.KEYWORD])


def _variants(h: Harness) -> list[tuple[str, StoreItem]]:
    """Items differing from a base item in one field each."""
    at = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    meta = h.meta(
        folder=f"{h.marker}/docs",
        file_path=f"{h.marker}/docs/a.md",
        language="en",
        repo="acme/app",
        commit="abc123",
        url="https://example.com/a",
        thread_id="thread-1",
        turns=TurnRange(first=0, last=1),
        agent_id="scout",
        tool_call=ToolCallRef(name="search", id="call-1"),
        source=SourceRef(kind=SourceKind.FILE, id="source-1"),
        tags=("alpha", "beta"),
        observed_at=at,
    )
    turns = [
        Turn(role=Role.USER, text=f"{h.marker} find it", at=at),
        Turn(
            role=Role.ASSISTANT,
            text=f"{h.marker} found",
            tool_calls=[ToolCallRef(name="search", id="call-1")],
        ),
    ]
    conversation = Conversation(turns=turns, meta=meta)
    learning = Learning(
        text=f"{h.marker} single field",
        kind=LearningKind.FACT,
        confidence=0.1,
        evidence="seen",
        meta=meta,
    )
    document = Document(title="Base", body=f"{h.marker} single field", mime="text/plain", meta=meta)
    changes: dict[str, Any] = {
        "tool call id": ToolCallRef(name="search", id="call-2"),
        "tool call without id": ToolCallRef(name="search"),
        "tool call name": ToolCallRef(name="lookup", id="call-1"),
        "one tag": ("alpha", "gamma"),
        "a tag more": ("alpha", "beta", "gamma"),
        "tag order": ("beta", "alpha"),
        "folder": f"{h.marker}/docs2",
        "file_path": f"{h.marker}/docs/b.md",
        "language": "fr",
        "repo": "acme/App",
        "commit": "abc124",
        "url": "https://example.com/b",
        "thread_id": "thread-2",
        "turns": TurnRange(first=0, last=2),
        "agent_id": "Scout",
        "source": SourceRef(kind=SourceKind.FILE, id="source-2"),
        "source kind": SourceRef(kind=SourceKind.LINK, id="source-1"),
        "namespace": Namespace([Segment(SegmentKind.AGENT, f"{h.marker}-other")]),
        "observed_at": at + timedelta(microseconds=1),
        "derive": True,
        "derive false": False,
    }
    fields = {
        "tool call id": "tool_call",
        "tool call without id": "tool_call",
        "tool call name": "tool_call",
        "one tag": "tags",
        "a tag more": "tags",
        "tag order": "tags",
        "source kind": "source",
        "derive false": "derive",
    }
    items: list[tuple[str, StoreItem]] = [
        ("base conversation", conversation),
        ("base learning", learning),
        ("base document", document),
    ]
    for name, value in changes.items():
        changed = attrs.evolve(meta, **{fields.get(name, name): value})
        items.append((f"conversation, other {name}", conversation.with_meta(changed)))
    later_turn = attrs.evolve(turns[1], tool_calls=[ToolCallRef(name="search", id="call-9")])
    two_calls = [ToolCallRef(name="search", id="call-1"), ToolCallRef(name="open")]
    items.append(
        (
            "conversation, a turn with a second tool call",
            Conversation(turns=[turns[0], attrs.evolve(turns[1], tool_calls=two_calls)], meta=meta),
        )
    )
    items.append(
        (
            "conversation, other turn tool call id",
            Conversation(turns=[turns[0], later_turn], meta=meta),
        )
    )
    items.append(
        (
            "conversation, other turn time",
            Conversation(
                turns=[attrs.evolve(turns[0], at=at + timedelta(microseconds=1)), turns[1]],
                meta=meta,
            ),
        )
    )
    for name, later in (
        ("a millisecond", timedelta(milliseconds=1)),
        ("a quarter second", timedelta(milliseconds=250)),
    ):
        moved = attrs.evolve(turns[0], at=at + later)
        items.append(
            (
                f"conversation, turn time {name} later",
                Conversation(turns=[moved, turns[1]], meta=meta),
            )
        )
    # Confidences that an f32 does not keep as written, and their neighbours.
    for confidence in (0.1 + 1e-9, 1 / 3, 0.3333333, 0.7, 0.9999999, 1e-7, 0.30000001192092896):
        items.append(
            (f"learning, confidence {confidence!r}", attrs.evolve(learning, confidence=confidence))
        )
    items.append(("learning, other kind", attrs.evolve(learning, kind=LearningKind.PREFERENCE)))
    items.append(("learning, other evidence", attrs.evolve(learning, evidence="seen twice")))
    items.append(("learning, no evidence", attrs.evolve(learning, evidence=None)))
    items.append(("document, other title", attrs.evolve(document, title="Base ")))
    items.append(("document, no title", attrs.evolve(document, title=None)))
    items.append(("document, other mime", attrs.evolve(document, mime="text/markdown")))
    return items


def check_single_field(subject: Subject) -> None:
    """Items differing from a stored one in a single field (a tool call id, one tag, each meta
    field, a confidence an f32 rounds) are new items or replays exactly as the reference
    says, through store and through store_many in either order, and read back whole."""
    with subject.session("single_field") as h:
        twin = Twin(h)
        variants = _variants(h)
        nodes = {item.meta.namespace for _, item in variants}
        everywhere = [h.run_filter(reach=Reach.exact(node)) for node in sorted(nodes, key=str)]

        def reads_agree() -> None:
            for filter in everywhere:
                twin.reads_agree(filter, (50,))
            twin.gets(sorted(twin.items), None)

        def forget_all() -> None:
            for filter in everywhere:
                twin.forget(ForgetTarget.by_filter(filter))

        for label, item in variants:
            twin.store(item, label)
        reads_agree()
        forget_all()
        twin.store_many(variants)
        reads_agree()
        forget_all()
        twin.store_many(variants[::-1])
        reads_agree()


#: Names a path filter must match as written: SQL wildcards, case, accents, scripts.
HOSTILE_NAMES = (
    "a",
    "aX",
    "a_b",
    "aXb",
    "a%b",
    "aZZb",
    "A_B",
    "Docs",
    "docs",
    "DOCS",
    "café",
    "cafe\u0301",
    "CAFÉ",
    "naïve",
    "日本",
    "a b",
    "a\\b",
    "a*b",
    "a[b]",
)


def check_hostile_paths(subject: Subject) -> None:
    """Folder, file path and exact-field filters whose values hold ``_``, ``%``, capitals,
    accents and other scripts admit what the reference admits, in list, explore and fetch."""
    with subject.session("hostile_paths") as h:
        twin = Twin(h)
        m = h.marker
        items: list[tuple[str, StoreItem]] = []
        for name in HOSTILE_NAMES:
            for where, fields in (
                ("folder", {"folder": f"{m}/{name}"}),
                ("folder below", {"folder": f"{m}/{name}/sub"}),
                ("file", {"file_path": f"{m}/{name}.py"}),
                ("file below", {"file_path": f"{m}/{name}/x.py"}),
                ("exact fields", {"repo": name, "agent_id": name, "language": name}),
            ):
                items.append(
                    (f"{where} {name!r}", Learning(text=f"{m} {where}", meta=h.meta(**fields)))
                )
        # Absolute paths, for a filter of "/" alone.
        for where, fields in (
            ("folder", {"folder": f"/{m}/abs"}),
            ("file", {"file_path": f"/{m}.py"}),
        ):
            items.append(
                (f"{where} at an absolute path", Learning(text=f"{m} abs", meta=h.meta(**fields)))
            )
        for start in range(0, len(items), MAX_STORE_MANY):
            twin.store_many(items[start : start + MAX_STORE_MANY])
        filters: list[MetaFilter] = [h.run_filter(folder="/"), h.run_filter(file_path="/")]
        for name in (*HOSTILE_NAMES, "a_", "a%", "%", "_"):
            filters += [
                h.run_filter(folder=f"{m}/{name}"),
                h.run_filter(folder=f"{m}/{name}/"),
                h.run_filter(file_path=f"{m}/{name}"),
                h.run_filter(repo=name),
                h.run_filter(agent_id=name),
                h.run_filter(language=name),
            ]
        for filter in filters:
            twin.lists(filter, 50)
            twin.explores(ExploreRequest(facet=Facet.FOLDER, filter=filter, limit=500))
        for filter in filters[:: len(filters) // 12]:
            twin.fetches(FetchRequest(query=m, filter=filter, limit=50), True)


def check_time_bounds(subject: Subject) -> None:
    """Items observed at, a microsecond around, and a fraction of a second around window
    bounds that carry fractions of a second: every window admits what the reference admits
    (``after <= observed_at < before``) in list, explore, fetch and forget."""
    with subject.session("time_bounds") as h:
        twin = Twin(h)
        start = datetime(2024, 5, 6, 7, 8, 9, 123456, tzinfo=UTC)
        end = datetime(2024, 5, 6, 7, 8, 11, 654321, tzinfo=UTC)
        tick = timedelta(microseconds=1)
        points: dict[str, datetime | None] = {"none": None}
        for name, bound in (("start", start), ("end", end)):
            whole = bound.replace(microsecond=0)
            for offset_name, offset in (
                ("a microsecond before", -tick),
                ("at", timedelta()),
                ("a microsecond after", tick),
                ("half a second before", timedelta(microseconds=-500_000)),
            ):
                points[f"{offset_name} {name}"] = bound + offset
            points[f"the whole second of {name}"] = whole
            points[f"the next whole second after {name}"] = whole + timedelta(seconds=1)
            points[f"whole milliseconds into the second of {name}"] = whole + timedelta(
                milliseconds=250
            )
        items = [
            (
                f"observed {name}",
                Document(body=f"{h.marker} observed {name}", meta=h.meta(observed_at=at)),
            )
            for name, at in points.items()
        ]
        twin.store_many(items)
        whole_start = start.replace(microsecond=0)
        windows = [
            (start, end),
            (start, None),
            (None, end),
            (start, start + tick),
            (start, start),
            (whole_start, whole_start + timedelta(seconds=1)),
            (start - tick, end + tick),
            (whole_start + timedelta(milliseconds=250), end),
        ]
        filters = [
            h.run_filter(observed_after=after, observed_before=before) for after, before in windows
        ]
        for filter in filters:
            twin.lists(filter, 3)
            twin.explores(ExploreRequest(facet=Facet.KIND, filter=filter, limit=500))
            twin.fetches(FetchRequest(query=h.marker, filter=filter, limit=50), True)
        for filter in [*filters[3:5], filters[-1], filters[0]]:
            twin.forget(ForgetTarget.by_filter(filter))
            twin.lists(h.run_filter(), 50)


#: Threads run at once by the thread check, and the items each stores.
THREADS = 4
PER_THREAD = 6


def check_threads(subject: Subject) -> None:
    """Several threads storing, reading and forgetting on one engine at once end where the
    same calls made one after another end, and each thread reads what it would alone."""
    with subject.session("threads") as h:
        twin = Twin(h)
        barrier = threading.Barrier(THREADS)
        errors: list[BaseException] = []

        def batch(worker: int) -> list[tuple[str, StoreItem]]:
            folder = f"{h.marker}/thread{worker}"
            return [
                (
                    f"thread {worker} item {n}",
                    Learning(
                        text=f"{h.marker} thread {worker} item {n}", meta=h.meta(folder=folder)
                    ),
                )
                for n in range(PER_THREAD)
            ]

        def work(worker: int) -> None:
            mine = batch(worker)
            try:
                barrier.wait(timeout=30)
                for label, item in mine[:2]:
                    h.store(item, label)
                h.store_many([item for _, item in mine[2:]])
                own = h.run_filter(folder=f"{h.marker}/thread{worker}")
                listed = sorted(h.listed_ids(own))
                wanted = sorted(item.fingerprint() for _, item in mine)
                h.expect(
                    listed == wanted,
                    f"thread {worker}: list its folder",
                    h.names(wanted),
                    h.names(listed),
                )
                h.forget(ForgetTarget.by_ids([mine[0][1].fingerprint()]))
            except BaseException as error:  # re-raised in the check's own thread
                errors.append(error)

        threads = [threading.Thread(target=work, args=(worker,)) for worker in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        if errors:
            raise errors[0]
        for worker in range(THREADS):
            mine = batch(worker)
            for label, item in mine:
                h.name(item.fingerprint(), label)
                twin.reference.store(item)
                twin.items[item.fingerprint()] = item
            twin.reference.forget(ForgetTarget.by_ids([mine[0][1].fingerprint()]))
        twin.reads_agree(h.run_filter(), (5,))
        twin.explores(ExploreRequest(facet=Facet.FOLDER, filter=h.run_filter(), limit=500))
