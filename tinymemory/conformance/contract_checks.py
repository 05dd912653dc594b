"""Checks of the rules docs/contract.md settles where the spec is open.

Each builds the fixed situation of one rule of "Pages, repeats and counts":
cursors of one read only (changed at the same length at every position, or
from another filter, mode, query, operation or memory), no cursor after a
full last page, ``get`` naming an id once, what ``erased_scopes`` counts, a
replay that changes nothing, keyword fetch finding every match, and paging
while another caller writes between pages. ``check_piece_hits`` holds a long
document's hits to the pieces :func:`tinymemory.retrieval.cut_pieces`
describes: one hit per document, its tags those of the span it carries.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial

from tinymemory._engine import MemoryEngine
from tinymemory._items import Document, Learning, StoreItem
from tinymemory._meta import ItemKind, MetaFilter
from tinymemory._namespace import Namespace, Reach
from tinymemory._operations import (
    EraseRequest,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    Hit,
    ListRequest,
)
from tinymemory._wire import to_json

from .harness import Harness, Subject
from .item_checks import expect_ranked_hit, store_new

#: A paged read: the next cursor it answers for a cursor it is given.
Read = Callable[[str | None], str | None]


def _learnings(h: Harness, count: int, word: str = "lantern") -> list[tuple[str, StoreItem]]:
    return [
        (f"learning {n}", Learning(text=f"{h.marker} {word} {n}", meta=h.meta()))
        for n in range(1, count + 1)
    ]


def _reads(h: Harness, engine: MemoryEngine, filter: MetaFilter, query: str) -> dict[str, Read]:
    """``list``, ``export`` (when served) and ``fetch`` in every mode, one item a page."""

    def listing(cursor: str | None) -> str | None:
        return engine.list(ListRequest(filter=filter, limit=1, cursor=cursor)).next_cursor

    def exporting(cursor: str | None) -> str | None:
        return engine.export(ListRequest(filter=filter, limit=1, cursor=cursor)).next_cursor

    def fetching(mode: FetchMode, cursor: str | None) -> str | None:
        request = FetchRequest(query=query, mode=mode, filter=filter, limit=1, cursor=cursor)
        return engine.fetch(request).next_cursor

    reads: dict[str, Read] = {"list": listing}
    if h.exports(filter):
        reads["export"] = exporting
    for mode in engine.descriptor.fetch_modes:
        reads[f"fetch {mode.value}"] = partial(fetching, mode)
    return reads


def _changed(cursor: str, position: int) -> str:
    """``cursor`` with the character at ``position`` changed to another of its alphabet."""
    old = cursor[position]
    alphabet = "AaB0b1_-" if old.isascii() else "A"
    new = next(char for char in alphabet if char != old)
    return cursor[:position] + new + cursor[position + 1 :]


def check_cursor_reads(subject: Subject) -> None:
    """A cursor is refused when changed at the same length, at every position, and when it
    is another read's: another filter, mode, query or operation, or another memory's."""
    with subject.session("cursor_reads") as h:
        store_new(h, _learnings(h, 3))
        run = h.run_filter()
        narrower = h.run_filter(kinds=(ItemKind.LEARNING,))
        reads = _reads(h, h.engine, run, h.marker)
        others = _reads(h, h.engine, narrower, h.marker)
        requeried = _reads(h, h.engine, run, f"{h.marker} lantern")
        issued: dict[str, str] = {}
        for name, read in reads.items():
            cursor = h.call(f"{name} of 3 matches, limit 1", partial(read, None))
            if cursor is None:
                h.fail(f"{name} of 3 matches, limit 1", "a next cursor", "none")
            issued[name] = cursor
        for name, cursor in issued.items():
            for position in range(len(cursor)):
                bad = _changed(cursor, position)
                label = f"{name} with its cursor changed at position {position}: {bad!r}"
                h.refuses(label, partial(reads[name], bad))
            h.refuses(f"{name} under another filter with its cursor", partial(others[name], cursor))
            if name.startswith("fetch"):
                h.refuses(
                    f"{name} of another query with its cursor", partial(requeried[name], cursor)
                )
            for other, read in reads.items():
                shared = {name, other} == {"list", "export"}
                if other != name and not shared:
                    h.refuses(f"{other} with the cursor of {name}", partial(read, cursor))
        stranger = subject.build("cursor_reads")
        try:
            same_memory = stranger.list(ListRequest(filter=run, limit=1)).items
            if same_memory:  # built alike, it reads this memory: its cursors may be this one's
                return
            foreign = _reads(h, stranger, run, h.marker)
            for name, cursor in issued.items():
                if name in foreign:
                    h.refuses(
                        f"{name} on another memory with this one's cursor",
                        partial(foreign[name], cursor),
                    )
        finally:
            stranger.close()


def check_page_ends(subject: Subject) -> None:
    """A page that ends at the last admitted item carries no cursor (list, export, fetch)."""
    with subject.session("page_ends") as h:
        store_new(h, _learnings(h, 4))
        run = h.run_filter()

        def listing(request: ListRequest) -> tuple[int, str | None]:
            page = h.engine.list(request)
            return len(page.items), page.next_cursor

        def exporting(request: ListRequest) -> tuple[int, str | None]:
            page = h.engine.export(request)
            return len(page.items), page.next_cursor

        operations = [("list", listing)]
        if h.exports(run):
            operations.append(("export", exporting))
        for limit in (2, 4):
            for operation, read in operations:
                first = ListRequest(filter=run, limit=limit)
                _, cursor = h.call(f"{operation} {to_json(first)}", partial(read, first))
                pages = 1
                while cursor is not None and pages < 4:
                    following = ListRequest(filter=run, limit=limit, cursor=cursor)
                    count, cursor = h.call(
                        f"{operation} {to_json(following)}", partial(read, following)
                    )
                    pages += 1
                    h.expect(
                        count > 0,
                        f"{operation} {to_json(following)}",
                        "no cursor leading to an empty page",
                        "an empty page",
                    )
                h.expect(
                    pages == 4 // limit,
                    f"{operation} of 4 items in pages of {limit}",
                    f"{4 // limit} pages, the last without a cursor",
                    f"{pages} pages",
                )
        for mode in h.engine.descriptor.fetch_modes:
            every = h.fetched(FetchRequest(query=h.marker, mode=mode, filter=run, limit=50))
            if not every:
                continue
            whole = FetchRequest(query=h.marker, mode=mode, filter=run, limit=len(every))
            answer = h.call(f"fetch {to_json(whole)}", partial(h.engine.fetch, whole))
            h.expect(
                answer.next_cursor is None,
                f"fetch {to_json(whole)} (all {len(every)} hits)",
                "no cursor after the last hit",
                answer.next_cursor,
            )


def check_get_once(subject: Subject) -> None:
    """``get`` of an id named twice returns it once, where it was first named."""
    with subject.session("get_once") as h:
        ids = list(store_new(h, _learnings(h, 2)))
        first, second = ids
        for asked, expected in (
            ([first, first], [first]),
            ([first, second, first], [first, second]),
            ([second, first, second, first], [second, first]),
        ):
            got = [hit.id for hit in h.get(asked)]
            h.expect(got == expected, f"get {h.names(asked)}", h.names(expected), h.names(got))


def check_erase_count(subject: Subject) -> None:
    """``erased_scopes`` counts the (node, kind) pairs that held an erased item."""
    with subject.session("erase_count") as h:
        top = Namespace.parse(f"project:erase{h.nonce}")
        child = Namespace.parse(f"{top}/agent:one")
        sibling = Namespace.parse(f"{top}/agent:two")
        items: list[tuple[str, StoreItem]] = [
            ("document at the top", Document(body=f"{h.marker} a", meta=h.meta(namespace=top))),
            ("learning at the top", Learning(text=f"{h.marker} b", meta=h.meta(namespace=top))),
            ("learning below", Learning(text=f"{h.marker} c", meta=h.meta(namespace=child))),
            ("second learning below", Learning(text=f"{h.marker} d", meta=h.meta(namespace=child))),
            ("learning beside", Learning(text=f"{h.marker} e", meta=h.meta(namespace=sibling))),
        ]
        store_new(h, items)
        for request, expected in (
            (EraseRequest(reach=Reach.exact(Namespace.parse(f"{top}/agent:none"))), 0),
            (EraseRequest(reach=Reach.exact(child), kinds=[ItemKind.DOCUMENT]), 0),
            (EraseRequest(reach=Reach.exact(top)), 2),
            (EraseRequest(reach=Reach.subtree(top), kinds=[ItemKind.LEARNING]), 2),
        ):
            report = h.erase(request)
            if report is None:
                h.skip("the engine does not erase")
            h.expect(
                report.erased_scopes == expected,
                f"erase {to_json(request)}",
                f"erased_scopes {expected}",
                report.erased_scopes,
            )


def check_replay_keeps_first(subject: Subject) -> None:
    """A replay keeps the first copy as stored, its ``observed_at`` included."""
    with subject.session("replay_keeps_first") as h:
        first_seen = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)
        later = first_seen + timedelta(days=30)
        item = Learning(text=f"{h.marker} replayed", meta=h.meta(observed_at=first_seen))
        receipt = h.store(item, "learning")
        again = h.store(item.with_meta(h.meta(observed_at=later)), "learning seen later")
        h.expect(again.replayed, "store(learning seen later)", "a replay", "a first store")
        for label, hits in (
            ("list", h.listed(h.run_filter())),
            ("get", h.get([receipt.id])),
        ):
            times = [hit.meta.observed_at for hit in hits]
            h.expect(
                times == [first_seen],
                f"{label} after the replay",
                f"observed_at {first_seen.isoformat()}",
                times,
            )
        for start, expected in ((first_seen, [receipt.id]), (later, [])):
            window = h.run_filter(
                observed_after=start, observed_before=start + timedelta(seconds=1)
            )
            got = h.listed_ids(window)
            h.expect(got == expected, f"list {to_json(window)}", h.names(expected), h.names(got))


#: How many items hold the keyword: more than any page or cap an engine might pick.
_MATCHES = 130


def check_keyword_matches(subject: Subject) -> None:
    """Keyword fetch serves, over its pages, every admitted item holding the query word and
    no other, each hit scoring above 0.

    The decoys the filter admits hold longer words that begin with the query word, or its
    letters spread over two words: an engine that ranks keyword fetch by trigram or vector
    similarity, or by prefix, serves them.
    """
    with subject.session("keyword_matches") as h:
        if FetchMode.KEYWORD not in h.engine.descriptor.fetch_modes:
            h.skip("the engine does not declare keyword fetch")
        word = f"kw{h.nonce}"
        spellings = (word, word.upper(), word.capitalize())
        matches = [
            Learning(text=f"{h.marker} note {n}: {spellings[n % 3]}.", meta=h.meta(tags=("in",)))
            for n in range(_MATCHES)
        ]
        outside = [
            Learning(text=f"{h.marker} {word} outside {n}", meta=h.meta(tags=("out",)))
            for n in range(10)
        ]
        expected: set[str] = set()
        for start in range(0, len(matches), 100):
            batch = matches[start : start + 100]
            h.store_many(batch)
            expected.update(item.fingerprint() for item in batch)
        decoys = [
            Learning(text=f"{h.marker} near {n}: {text}", meta=h.meta(tags=("in",)))
            for n, text in enumerate(
                (f"{word}{n}z", f"{word[:3]} {word[3:]}{n}", f"{word}s{n}x")[n % 3]
                for n in range(10)
            )
        ]
        h.store_many([*outside, *decoys])
        for item in matches:
            h.name(item.fingerprint(), "a match")
        for item in outside:
            h.name(item.fingerprint(), "a match outside the filter")
        for item in decoys:
            h.name(item.fingerprint(), "a decoy without the word")
        filter = h.run_filter(tags_any=("in",))
        for limit in (7, 50):
            request = FetchRequest(query=word, mode=FetchMode.KEYWORD, filter=filter, limit=limit)
            hits = h.fetched(request)
            got = {hit.id for hit in hits}
            missing = expected - got
            stray = got - expected
            h.expect(
                not missing and not stray,
                f"fetch {to_json(request)}, every page",
                f"all {len(expected)} admitted matches and nothing else",
                f"{len(got & expected)} of them, {len(stray)} others: {h.names(sorted(stray))}",
            )
            unscored = [hit.id for hit in hits if not hit.score > 0]
            h.expect(
                not unscored,
                f"fetch {to_json(request)}, every page",
                "every hit scoring above 0",
                f"{len(unscored)} scoring 0 or less: {h.names(unscored[:3])}",
            )


def _order(
    h: Harness,
    request: ListRequest,
    serve: Callable[[ListRequest], tuple[list[str], str | None]],
    write: Callable[[list[str]], None],
) -> list[str]:
    """Page through ``request``; after the first page, ``write`` runs once."""
    served: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        current = ListRequest(filter=request.filter, limit=request.limit, cursor=cursor)
        ids, cursor = h.call(f"list {to_json(current)}", partial(serve, current))
        served.extend(ids)
        pages += 1
        if pages == 1:
            write(served)
        if cursor is None or pages > 50:
            return served


def check_paging_under_writes(subject: Subject) -> None:
    """Between pages, stores and forgets happen: the cursor stays valid, nothing comes twice,
    every item present throughout comes once (list, export); fetch pages stay admitted."""
    with subject.session("paging_under_writes") as h:
        run = h.run_filter()

        def listing(request: ListRequest) -> tuple[list[str], str | None]:
            page = h.engine.list(request)
            return [hit.id for hit in page.items], page.next_cursor

        def exporting(request: ListRequest) -> tuple[list[str], str | None]:
            page = h.engine.export(request)
            return [entry.id for entry in page.items], page.next_cursor

        operations = [("list", listing)]
        if h.exports(run):
            operations.append(("export", exporting))
        for round_, (operation, serve) in enumerate(operations):
            stored = list(store_new(h, _learnings(h, 8, word=f"{operation}page")))
            gone: list[str] = []

            def write(
                served: list[str],
                stored: list[str] = stored,
                gone: list[str] = gone,
                round_: int = round_,
            ) -> None:
                unserved = [item_id for item_id in stored if item_id not in served]
                gone.extend([served[0], unserved[-1]])
                h.forget(ForgetTarget.by_ids(gone))
                fresh = Learning(text=f"{h.marker} written between pages {round_}", meta=h.meta())
                h.store(fresh, "an item stored between pages")

            request = ListRequest(filter=run, limit=3)
            served = _order(h, request, serve, write)
            twice = sorted({item_id for item_id in served if served.count(item_id) > 1})
            h.expect(
                not twice,
                f"{operation} in pages of 3 with writes between pages",
                "each item once",
                f"{h.names(twice)} twice",
            )
            throughout = [item_id for item_id in stored if item_id not in gone]
            missing = [item_id for item_id in throughout if item_id not in served]
            h.expect(
                not missing,
                f"{operation} in pages of 3 with writes between pages",
                "every item stored before and kept after",
                f"without {h.names(missing)}",
            )
            h.forget(ForgetTarget.by_filter(run))
        store_new(h, _learnings(h, 6, word="fetchpage"))
        for mode in h.engine.descriptor.fetch_modes:
            opening = FetchRequest(query=h.marker, mode=mode, filter=run, limit=2)
            page = h.call(f"fetch {to_json(opening)}", partial(h.engine.fetch, opening))
            if page.next_cursor is None:
                continue
            outsider = Learning(
                text=f"{h.marker} another workspace", meta=h.meta(workspace=h.probe_workspace)
            )
            h.store(outsider, "an item of another workspace stored between pages")
            following = FetchRequest(
                query=h.marker, mode=mode, filter=run, limit=2, cursor=page.next_cursor
            )
            hits: list[Hit] = h.fetch(following)
            stray = [hit.id for hit in hits if hit.meta.workspace != h.workspace]
            h.expect(
                not stray, f"fetch {to_json(following)}", "only admitted items", h.names(stray)
            )
            h.forget(ForgetTarget.by_filter(MetaFilter(workspace=h.probe_workspace)))


def _long_document(h: Harness, word: str, everywhere: str) -> str:
    """Six pages of three sections each; ``word`` in one section, ``everywhere`` in all."""
    pages = []
    for page in range(1, 7):
        sections = []
        for section in range(1, 4):
            filler = " ".join(f"filler{page}{section}{n}" for n in range(60))
            sections.append(f"## Part {page}.{section}\n\n{everywhere} {filler}\n")
        pages.append("\n".join(sections))
    pages[4] = pages[4].replace("filler5230", f"{word} filler5230")
    return f"{h.marker} handbook\n" + "\f".join(pages)


def check_piece_hits(subject: Subject) -> None:
    """A long document matched in one piece or in all gives one hit, its best piece, with the
    ``page:``/``section:`` tags of exactly that span; list and get keep the stored tags."""
    with subject.session("piece_hits") as h:
        word = f"pc{h.nonce}"
        everywhere = f"ev{h.nonce}"
        body = _long_document(h, word, everywhere)
        paged = Document(title="Handbook", body=body, meta=h.meta(tags=("manual",)))
        flat = Document(title="Flat", body=body.replace("\f", "\n"), meta=h.meta(tags=("flat",)))
        stored = store_new(h, [("paged handbook", paged), ("flat handbook", flat)])
        for mode in h.engine.descriptor.fetch_modes:
            for query in (word, everywhere, h.marker):
                request = FetchRequest(query=query, mode=mode, filter=h.run_filter(), limit=5)
                hits = h.fetched(request)
                call = f"fetch {to_json(request)}"
                ids = [hit.id for hit in hits]
                twice = sorted({item_id for item_id in ids if ids.count(item_id) > 1})
                h.expect(not twice, call, "one hit per document", f"{h.names(twice)} again")
                for hit in hits:
                    expect_ranked_hit(h, call, hit, stored[hit.id])
                    if mode is FetchMode.KEYWORD and query == word:
                        h.expect(
                            word in hit.text,
                            call,
                            f"the best piece: the one holding {word}",
                            f"{hit.text[:80]!r}…",
                        )
        listed = {hit.id: hit.meta.tags for hit in h.listed(h.run_filter())}
        for item_id, item in stored.items():
            h.expect(
                listed.get(item_id) == item.meta.tags,
                f"list {to_json(h.run_filter())}",
                f"{h.names([item_id])} with the stored tags {item.meta.tags}",
                listed.get(item_id),
            )
