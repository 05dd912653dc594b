"""The suite's checks of paged reads: limits, each item once, ranking order, and cursors.

``list``, ``export`` and ``fetch`` in every declared mode are read in pages
smaller than what matches, so a page over its limit, an item served on two
pages, a hit ranked below a worse one, or a cursor that is not the engine's
own read as "start over" shows in a fixed situation.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from tinymemory._items import Conversation, Document, Learning, LearningKind, Role, StoreItem, Turn
from tinymemory._operations import FetchMode, FetchRequest, ListRequest
from tinymemory._wire import to_json

from .harness import Harness, Subject
from .item_checks import expect_ranked_hit, store_new

#: How many items of each kind the paging checks store: more than a page.
_EACH = 3
#: The page size the paging checks read with.
_PAGE = 2


def _matching(h: Harness) -> list[tuple[str, StoreItem]]:
    """Items of every kind holding the marker, texts of growing length so that scores differ."""
    items: list[tuple[str, StoreItem]] = []
    for n in range(1, _EACH + 1):
        filler = " ".join(["lantern"] * n)
        items.append((f"document {n}", Document(body=f"{h.marker} {filler}", meta=h.meta())))
        turns = [Turn(role=Role.USER, text=f"{h.marker} asked {filler}")]
        items.append((f"conversation {n}", Conversation(turns=turns, meta=h.meta())))
        learning = Learning(
            text=f"{h.marker} learned {filler}",
            kind=LearningKind.FACT,
            confidence=round(0.25 * n, 2),
            meta=h.meta(),
        )
        items.append((f"learning {n}", learning))
    return items


def check_paging(subject: Subject) -> None:
    """List, export and fetch in every mode, in pages of 2 over 9 matches: each page within its
    limit, every item once, all of them, and fetch hits best first across pages, each whole."""
    with subject.session("paging") as h:
        stored = store_new(h, _matching(h))
        run = h.run_filter()
        everything = sorted(stored)
        listed = sorted(hit.id for hit in h.listed(run, page=_PAGE))
        call = f"list {to_json(run)} in pages of {_PAGE}"
        h.expect(listed == everything, call, h.names(everything), h.names(listed))
        exported = h.exported(run)
        if exported is not None:
            got = sorted(entry.id for entry in exported)
            call = f"export {to_json(run)} in pages of 2"
            h.expect(got == everything, call, h.names(everything), h.names(got))
        for mode in h.engine.descriptor.fetch_modes:
            request = FetchRequest(query=h.marker, mode=mode, filter=run, limit=_PAGE)
            hits = h.fetched(request)
            call = f"fetch {to_json(request)}, every page"
            got = sorted(hit.id for hit in hits)
            h.expect(got == everything, call, h.names(everything), h.names(got))
            scores = [hit.score for hit in hits]
            h.expect(
                scores == sorted(scores, reverse=True),
                call,
                "hits best first, within and across pages",
                f"scores {scores} for {h.hits(hits)}",
            )
            for hit in hits:
                expect_ranked_hit(h, call, hit, stored[hit.id])


def check_cursors(subject: Subject) -> None:
    """A cursor the engine never issued (foreign, or one of its own tampered with) is refused
    with InvalidRequest by list, export and fetch in every mode, never read as "start over"."""
    with subject.session("cursors") as h:
        store_new(h, _matching(h)[:3])
        run = h.run_filter()

        def listing(cursor: str | None) -> str | None:
            return h.engine.list(ListRequest(filter=run, limit=1, cursor=cursor)).next_cursor

        def exporting(cursor: str | None) -> str | None:
            return h.engine.export(ListRequest(filter=run, limit=1, cursor=cursor)).next_cursor

        def fetching(mode: FetchMode) -> Callable[[str | None], str | None]:
            def read(cursor: str | None) -> str | None:
                request = FetchRequest(
                    query=h.marker, mode=mode, filter=run, limit=1, cursor=cursor
                )
                return h.engine.fetch(request).next_cursor

            return read

        reads: list[tuple[str, Callable[[str | None], str | None]]] = [("list", listing)]
        if h.exports(run):
            reads.append(("export", exporting))
        modes = h.engine.descriptor.fetch_modes
        reads.extend((f"fetch {mode.value}", fetching(mode)) for mode in modes)
        for operation, read in reads:
            first = f"{operation} of 3 matches with limit 1"
            cursor = h.call(first, partial(read, None))
            if cursor is None:
                h.fail(first, "a next cursor", "none")
            for label, bad in (
                ("a foreign cursor", f"{h.marker}-foreign-cursor"),
                ("its own cursor with a character added", f"{cursor}~"),
            ):
                h.refuses(f"{operation} with {label} {bad!r}", partial(read, bad))
