"""A held-out set of broken engines: scored, never used to shape a check.

Each breaks one sentence of docs/contract.md. They were written before the
rule table's checks (``tinymemory.conformance.field_checks`` and
``contract_checks``), from the contract alone, and no check was changed to
catch one of them: ``tests/score_broken_engines.py`` prints how many the
suite catches, beside the development set of ``tests/broken_engines.py``.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import attrs

from tinymemory import (
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
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
    MemoryMeta,
    MetaFilter,
    ReferenceEngine,
    StoreReceipt,
)
from tinymemory._cursors import CursorCodec, new_secret, read_key
from tinymemory._engine import EngineWrapper, explore_by_listing
from tinymemory._items import StoreItem
from tinymemory._limits import USIZE_MAX
from tinymemory._wire import to_json
from tinymemory.retrieval import cut_pieces


class Heldout(EngineWrapper):
    """The reference engine behind a wrapper."""

    def __init__(self) -> None:
        super().__init__(ReferenceEngine())


class Rematched(Heldout):
    """Reads whose admission a subclass bends: the inner engine reads a looser filter,
    and ``admits`` decides. Pages are this wrapper's own, with sealed offsets."""

    def __init__(self) -> None:
        super().__init__()
        self._codec = CursorCodec(new_secret(), engine="heldout")

    def loosen(self, filter: MetaFilter) -> MetaFilter:
        return filter

    def admits(self, kind: ItemKind, meta: MemoryMeta, filter: MetaFilter) -> bool:
        return filter.matches(kind, meta)

    def _page(
        self, key: str, entries: list[Hit], request: ListRequest | FetchRequest
    ) -> tuple[list[Hit], str | None]:
        positions = self._codec.decode(key, request.cursor, 1)
        start = positions[0] if positions else 0
        end = start + request.limit
        cursor = self._codec.encode(key, end) if end < len(entries) else None
        return entries[start:end], cursor

    def _admitted(self, filter: MetaFilter) -> list[Hit]:
        page = self.inner.list(ListRequest(filter=self.loosen(filter), limit=USIZE_MAX))
        return [hit for hit in page.items if self.admits(hit.kind, hit.meta, filter)]

    def handle_list(self, request: ListRequest) -> ListPage:
        key = read_key("list", to_json(request.filter))
        items, cursor = self._page(key, self._admitted(request.filter), request)
        return ListPage(items=items, next_cursor=cursor)

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        loose = attrs.evolve(request, filter=self.loosen(request.filter), limit=USIZE_MAX)
        hits = [
            hit
            for hit in self.inner.fetch(attrs.evolve(loose, cursor=None)).hits
            if self.admits(hit.kind, hit.meta, request.filter)
        ]
        key = read_key("fetch", request.mode.value, request.query, to_json(request.filter))
        page, cursor = self._page(key, hits, request)
        return FetchPage(hits=page, next_cursor=cursor)

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        return explore_by_listing(self, request)

    def handle_export(self, request: ListRequest) -> ExportPage:
        key = read_key("list", to_json(request.filter))
        hits, cursor = self._page(key, self._admitted(request.filter), request)
        wanted = {hit.id for hit in hits}
        loose = ListRequest(filter=self.loosen(request.filter), limit=USIZE_MAX)
        items = [entry for entry in self.inner.export(loose).items if entry.id in wanted]
        order = {hit.id: n for n, hit in enumerate(hits)}
        items.sort(key=lambda entry: order[entry.id])
        return ExportPage(items=items, next_cursor=cursor)

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        if target.filter is None:
            return self.inner.forget(target)
        ids = [hit.id for hit in self._admitted(target.filter)]
        return self.inner.forget(ForgetTarget.by_ids(ids)) if ids else ForgetReport(0)


def _dropping(*fields: str) -> Callable[[MetaFilter], MetaFilter]:
    empty = MetaFilter()
    return lambda filter: attrs.evolve(filter, **{f: getattr(empty, f) for f in fields})


class TagsMatchIgnoringCase(Rematched):
    """``tags_any`` compares tags case-insensitively (the contract: strings match exactly)."""

    def loosen(self, filter: MetaFilter) -> MetaFilter:
        return _dropping("tags_any")(filter)

    def admits(self, kind: ItemKind, meta: MemoryMeta, filter: MetaFilter) -> bool:
        rest = _dropping("tags_any")(filter).matches(kind, meta)
        if not filter.tags_any:
            return rest
        wanted = {tag.casefold() for tag in filter.tags_any}
        return rest and bool(wanted & {tag.casefold() for tag in meta.tags})


class RepoMatchesTrimmed(Rematched):
    """``repo`` compares values with surrounding white space trimmed."""

    def loosen(self, filter: MetaFilter) -> MetaFilter:
        return _dropping("repo")(filter)

    def admits(self, kind: ItemKind, meta: MemoryMeta, filter: MetaFilter) -> bool:
        rest = _dropping("repo")(filter).matches(kind, meta)
        if filter.repo is None:
            return rest
        return rest and meta.repo is not None and meta.repo.strip() == filter.repo.strip()


class ThreadMatchesNormalised(Rematched):
    """``thread_id`` compares NFC forms (the contract: strings match exactly)."""

    def loosen(self, filter: MetaFilter) -> MetaFilter:
        return _dropping("thread_id")(filter)

    def admits(self, kind: ItemKind, meta: MemoryMeta, filter: MetaFilter) -> bool:
        rest = _dropping("thread_id")(filter).matches(kind, meta)
        if filter.thread_id is None:
            return rest
        nfc = unicodedata.normalize
        return (
            rest
            and meta.thread_id is not None
            and nfc("NFC", meta.thread_id) == nfc("NFC", filter.thread_id)
        )


class SourceIdByPrefix(Rematched):
    """``source_id`` admits a stored id that starts with the value asked."""

    def loosen(self, filter: MetaFilter) -> MetaFilter:
        return _dropping("source_id")(filter)

    def admits(self, kind: ItemKind, meta: MemoryMeta, filter: MetaFilter) -> bool:
        rest = _dropping("source_id")(filter).matches(kind, meta)
        if filter.source_id is None:
            return rest
        stored = meta.source.id
        return rest and stored is not None and stored.startswith(filter.source_id)


class TurnsByOverlap(Rematched):
    """A ``turns`` filter admits any conversation whose range overlaps it (the contract:
    the whole range, exactly)."""

    def loosen(self, filter: MetaFilter) -> MetaFilter:
        return _dropping("turns")(filter)

    def admits(self, kind: ItemKind, meta: MemoryMeta, filter: MetaFilter) -> bool:
        rest = _dropping("turns")(filter).matches(kind, meta)
        if filter.turns is None:
            return rest
        got = meta.turns
        return (
            rest
            and got is not None
            and got.first <= filter.turns.last
            and filter.turns.first <= got.last
        )


class WindowStartExclusive(Rematched):
    """``observed_after`` is read as exclusive (the contract: inclusive)."""

    def admits(self, kind: ItemKind, meta: MemoryMeta, filter: MetaFilter) -> bool:
        if filter.observed_after is not None and meta.observed_at == filter.observed_after:
            return False
        return filter.matches(kind, meta)


class FileFilterIgnoresTrailingSlashOnlyOnFolder(Rematched):
    """A ``file_path`` filter with a trailing ``/`` admits nothing (the contract: ignored)."""

    def admits(self, kind: ItemKind, meta: MemoryMeta, filter: MetaFilter) -> bool:
        if filter.file_path is not None and filter.file_path.endswith("/"):
            return False
        return filter.matches(kind, meta)


class _OffsetCursors(Heldout):
    """Own paging with cursors that name no read: any cursor this engine issued is taken."""

    def __init__(self) -> None:
        super().__init__()
        self._codec = CursorCodec(new_secret(), engine="heldout")

    def _slice(
        self, entries: list[Hit], cursor: str | None, limit: int
    ) -> tuple[list[Hit], str | None]:
        positions = self._codec.decode("any read", cursor, 1)
        start = positions[0] if positions else 0
        end = start + limit
        return entries[start:end], self._codec.encode("any read", end) if end < len(
            entries
        ) else None


class CursorOfAnotherFilterTaken(_OffsetCursors):
    """A list cursor is taken by a list under another filter (an offset into that read)."""

    def handle_list(self, request: ListRequest) -> ListPage:
        every = self.inner.list(ListRequest(filter=request.filter, limit=USIZE_MAX)).items
        items, cursor = self._slice(list(every), request.cursor, request.limit)
        return ListPage(items=items, next_cursor=cursor)


class CursorOfAnotherModeTaken(_OffsetCursors):
    """A fetch cursor is taken by a fetch in another mode or of another query."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        whole = attrs.evolve(request, cursor=None, limit=USIZE_MAX)
        hits, cursor = self._slice(
            list(self.inner.fetch(whole).hits), request.cursor, request.limit
        )
        return FetchPage(hits=hits, next_cursor=cursor)


class ListCursorAfterLastFullPage(Heldout):
    """A list page that ends exactly at the last item still carries a cursor (to an empty
    page)."""

    def __init__(self) -> None:
        super().__init__()
        self._codec = CursorCodec(new_secret(), engine="heldout")

    def handle_list(self, request: ListRequest) -> ListPage:
        key = read_key("list", to_json(request.filter))
        every = self.inner.list(ListRequest(filter=request.filter, limit=USIZE_MAX)).items
        positions = self._codec.decode(key, request.cursor, 1)
        start = positions[0] if positions else 0
        end = start + request.limit
        page = every[start:end]
        cursor = self._codec.encode(key, end) if end <= len(every) and page else None
        return ListPage(items=page, next_cursor=cursor)


class GetNamesEveryCopy(Heldout):
    """``get`` of an id named twice returns it twice."""

    def handle_get(self, request: GetRequest) -> list[Hit]:
        found = {hit.id: hit for hit in self.inner.get(request)}
        return [found[item_id] for item_id in request.ids if item_id in found]


class ReplayRefreshesObservedAt(Heldout):
    """A replay stores the later ``observed_at`` over the first copy's."""

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        receipt = self.inner.store(item)
        if receipt.replayed:
            self.inner.forget(ForgetTarget.by_ids([receipt.id]))
            self.inner.store(item)
        return receipt

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return [self.handle_store(item) for item in items]


class EraseCountsNodes(Heldout):
    """``erased_scopes`` counts the nodes erased, not each node's kinds."""

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        before = {
            hit.meta.namespace
            for hit in self.inner.list(ListRequest(filter=MetaFilter(), limit=USIZE_MAX)).items
            if request.erases(hit.kind, hit.meta.namespace)
        }
        report = self.inner.erase(request)
        return attrs.evolve(report, erased_scopes=len(before))


class KeywordFetchStopsAt25(Heldout):
    """Keyword fetch serves, over all its pages, the 25 best matches and no more."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.fetch(request)
        if request.mode.value != "keyword":
            return page
        whole = self.inner.fetch(attrs.evolve(request, cursor=None, limit=USIZE_MAX)).hits
        best = {hit.id for hit in whole[:25]}
        return attrs.evolve(page, hits=[hit for hit in page.hits if hit.id in best])


def _pieced(hit: Hit, query: str, tags: Callable[[tuple[str, ...]], tuple[str, ...]]) -> Hit:
    if hit.kind is not ItemKind.DOCUMENT or len(hit.text) <= 400:
        return hit
    pieces = cut_pieces(hit.text, 400)
    words = set(query.lower().split())
    best = next((piece for piece in pieces if words & set(piece.text.lower().split())), pieces[0])
    meta = attrs.evolve(hit.meta, tags=[*hit.meta.tags, *tags(best.tags())])
    return attrs.evolve(hit, text=best.text, meta=meta)


class PieceSectionLowercased(Heldout):
    """A long document's hit carries its best piece with the section tag lowercased."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.fetch(request)

        def lowered(tags: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(tag.lower() if tag.startswith("section:") else tag for tag in tags)

        hits = [_pieced(hit, request.query, lowered) for hit in page.hits]
        return attrs.evolve(page, hits=hits)


class PieceWithoutPageTag(Heldout):
    """A long document's hit carries its best piece but no ``page:`` tag."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.fetch(request)

        def no_page(tags: tuple[str, ...]) -> tuple[str, ...]:
            return tuple(tag for tag in tags if not tag.startswith("page:"))

        hits = [_pieced(hit, request.query, no_page) for hit in page.hits]
        return attrs.evolve(page, hits=hits)


class EveryPieceAHit(Heldout):
    """A long document matched in several pieces gives one hit per piece."""

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        page = self.inner.fetch(request)
        hits: list[Hit] = []
        for hit in page.hits:
            if hit.kind is not ItemKind.DOCUMENT or len(hit.text) <= 400:
                hits.append(hit)
                continue
            words = set(request.query.lower().split())
            for piece in cut_pieces(hit.text, 400):
                if words & set(piece.text.lower().split()):
                    meta = attrs.evolve(hit.meta, tags=[*hit.meta.tags, *piece.tags()])
                    hits.append(attrs.evolve(hit, text=piece.text, meta=meta))
        return attrs.evolve(page, hits=hits[: request.limit])


class ExploreCountsOnlyFirstTag(Heldout):
    """The tag facet counts an item under its first tag only (the contract: once per tag)."""

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        if request.facet.value != "tag":
            return self.inner.explore(request)

        class FirstTagOnly(EngineWrapper):
            def handle_list(self, request: ListRequest) -> ListPage:
                page = self.inner.list(request)
                items = [
                    attrs.evolve(hit, meta=attrs.evolve(hit.meta, tags=hit.meta.tags[:1]))
                    for hit in page.items
                ]
                return attrs.evolve(page, items=items)

        return explore_by_listing(FirstTagOnly(self.inner), request)


#: Every held-out engine, and the contract sentence it breaks (for the score's report).
HELDOUT: dict[type[Heldout], str] = {
    TagsMatchIgnoringCase: "strings match exactly (tags_any)",
    RepoMatchesTrimmed: "strings match exactly (repo, white space)",
    ThreadMatchesNormalised: "strings match exactly (thread_id, NFC/NFD)",
    SourceIdByPrefix: "strings match exactly (source_id, prefix)",
    TurnsByOverlap: "turns: the whole range",
    WindowStartExclusive: "observed_after inclusive",
    FileFilterIgnoresTrailingSlashOnlyOnFolder: "a trailing / is ignored (file_path)",
    CursorOfAnotherFilterTaken: "a cursor of another read is refused (filter)",
    CursorOfAnotherModeTaken: "a cursor of another read is refused (mode, query)",
    ListCursorAfterLastFullPage: "a full last page carries no cursor",
    GetNamesEveryCopy: "get returns an id named twice once",
    ReplayRefreshesObservedAt: "a replay keeps the first copy's observed_at",
    EraseCountsNodes: "erased_scopes counts (node, kind) scopes",
    KeywordFetchStopsAt25: "keyword fetch serves every admitted match",
    PieceSectionLowercased: "section: tag as cut (exactly)",
    PieceWithoutPageTag: "page: tag of a paged document's piece",
    EveryPieceAHit: "one hit per document",
    ExploreCountsOnlyFirstTag: "an item counts once per tag",
}
