"""The embedded engine ``sqlite``: the whole contract over one SQLite file.

Filters, reaches, explore and paging run in SQL. Keyword fetch ranks with
FTS5's BM25; vector fetch is an exact product over every piece's vector;
hybrid fuses the two rankings by reciprocal rank. Recall answers from the
best hybrid hits with sentences taken from them, each cited.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import attrs
import numpy as np

from tinymemory import (
    Citation,
    EngineDescriptor,
    EngineHealth,
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    Exported,
    ExportPage,
    Facet,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    Learning,
    ListPage,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    Namespace,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
)
from tinymemory.engine import build_explore_page
from tinymemory.errors import ConfigError
from tinymemory.hookspecs import Embedder
from tinymemory.items import Document, fingerprint_json
from tinymemory.pieces import Piece, cut_pieces
from tinymemory.wire import from_json, to_json

from . import cursors, keyword
from .answer import extract_answer
from .connections import Connections
from .embedding import HashingEmbedder, as_matrix
from .filters import (
    Clause,
    erase_clause,
    filter_clause,
    kinds_clause,
    last_service,
    node_path,
    reach_clause,
    sortable_time,
    turns_text,
)
from .location import database_path
from .vectors import Floats as Vector
from .vectors import VectorIndex, bump_generation

DESCRIPTOR = EngineDescriptor(
    id="sqlite",
    label="SQLite (embedded)",
    description=(
        "One SQLite file on this machine: FTS5 keyword search, vectors from an embedder, "
        "hybrid fusion and extractive recall. No server, no key."
    ),
    fetch_modes=(FetchMode.KEYWORD, FetchMode.VECTOR, FetchMode.HYBRID),
)

#: Documents longer than this many bytes are ranked by pieces of about this size.
PIECE_TARGET = 2_000
#: The constant of reciprocal-rank fusion: a hit at rank r adds 1 / (RRF_K + r).
RRF_K = 60
#: Hybrid fuses at least this many hits of each ranking (more for deep pages).
FUSION_DEPTH = 50
#: For recall, a hit holding none of the question's words is relevant from this similarity up.
RECALL_SIMILARITY = 0.35
#: What recall answers when nothing stored is relevant.
NOTHING_RELEVANT = "Nothing stored answers this question."
MODEL = "extractive"

_FACET_COLUMNS = {
    Facet.KIND: "i.kind",
    Facet.SOURCE: "i.source_kind",
    Facet.SOURCE_ID: "i.source_id",
    Facet.WORKSPACE: "i.workspace",
    Facet.FOLDER: "i.folder",
    Facet.FILE_PATH: "i.file_path",
    Facet.LANGUAGE: "i.language",
    Facet.REPO: "i.repo",
    Facet.URL: "i.url",
    Facet.THREAD: "i.thread_id",
    Facet.AGENT: "i.agent_id",
    Facet.TOOL_CALL: "i.tool_call",
    Facet.NAMESPACE: "(SELECT path FROM nodes WHERE id = i.node)",
}


@attrs.frozen
class _Prepared:
    """An item ready to write: its id, its JSON form and the pieces its text is ranked by."""

    id: str
    item: StoreItem
    body: str
    pieces: tuple[Piece, ...]


@attrs.frozen
class _Ranked:
    """An item's place in a ranking: its ``seq``, its best piece and a score (higher is better)."""

    item: int
    piece: int
    score: float


class SqliteEngine(MemoryEngine):
    """The embedded engine over one SQLite file (``:memory:`` for a throwaway one).

    ``path`` defaults to ``$TINYMEMORY_SQLITE_PATH``, else
    ``$XDG_DATA_HOME/tinymemory/memory.db``. ``embedder`` makes the vectors
    (the dependency-free :class:`HashingEmbedder` by default); a file keeps
    the embedder it was first written with. ``synchronous`` is ``normal``
    (survives an application crash) or ``full`` (also a power loss).
    Safe to share between threads; several processes may use one file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        embedder: Embedder | None = None,
        synchronous: str = "normal",
    ) -> None:
        self.path = database_path(path)
        self.embedder: Embedder = embedder or HashingEmbedder()
        self._connections = Connections(self.path, synchronous=synchronous)
        try:
            self._claim_embedder()
        except BaseException:
            self._connections.close()
            raise
        self._vectors = VectorIndex(self.embedder.dimensions)

    @property
    def descriptor(self) -> EngineDescriptor:
        return DESCRIPTOR

    def health(self) -> EngineHealth:
        try:
            with self._connections.reading() as connection:
                connection.execute("SELECT count(*) FROM settings").fetchone()
        except Exception as error:  # health reports, it never raises
            return EngineHealth.down(f"the sqlite database cannot be read: {error}")
        return EngineHealth.ok()

    def close(self) -> None:
        self._connections.close()

    def __repr__(self) -> str:
        return f"<SqliteEngine {self.path!r}>"

    def _claim_embedder(self) -> None:
        """Record the embedder on a new file; refuse a different one on a file that has vectors."""
        mine = json.dumps({"name": self.embedder.name, "dimensions": self.embedder.dimensions})
        with self._connections.reading() as connection:
            row = connection.execute("SELECT value FROM settings WHERE key = 'embedder'").fetchone()
        if row is not None and row[0] == mine:
            return
        with self._connections.writing() as connection:
            row = connection.execute("SELECT value FROM settings WHERE key = 'embedder'").fetchone()
            empty = connection.execute("SELECT 1 FROM pieces LIMIT 1").fetchone() is None
            if row is None or empty:
                connection.execute(
                    "INSERT OR REPLACE INTO settings(key, value) VALUES ('embedder', ?)", (mine,)
                )
                return
            recorded = json.loads(row[0])
        raise ConfigError(
            f"the sqlite database `{self.path}` holds vectors from embedder "
            f"`{recorded['name']}` ({recorded['dimensions']} dimensions), not "
            f'`{self.embedder.name}`; open it with embedder = "{recorded["name"]}"'
        )

    # --- store --------------------------------------------------------------

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return self._store([item])[0]

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return self._store(items)

    def _store(self, items: Sequence[StoreItem]) -> list[StoreReceipt]:
        prepared = [_prepare(item) for item in items]
        ids = list(dict.fromkeys(entry.id for entry in prepared))
        with self._connections.reading() as connection:
            stored = _existing(connection, ids)
        # Embedding runs before the write transaction (which it would hold up), for new items only.
        vectors = self._embed(entry for entry in _first_copies(prepared) if entry.id not in stored)
        with self._connections.writing() as connection:
            stored = _existing(connection, ids)
            fresh = [entry for entry in _first_copies(prepared) if entry.id not in stored]
            if not fresh:
                return [StoreReceipt(entry.id, replayed=True) for entry in prepared]
            # Forgotten by another writer since the first look, so not embedded yet.
            vectors.update(self._embed(entry for entry in fresh if entry.id not in vectors))
            before = bump_generation(connection)
            added = _write(connection, fresh, vectors)
        self._vectors.added(before, added.pieces, added.items, added.vectors)
        written = {entry.id for entry in fresh}
        receipts = []
        for entry in prepared:
            receipts.append(StoreReceipt(entry.id, replayed=entry.id not in written))
            written.discard(entry.id)
        return receipts

    def _embed(self, entries: Iterable[_Prepared]) -> dict[str, np.ndarray[Any, Any]]:
        chosen = list(entries)
        texts = [piece.text for entry in chosen for piece in entry.pieces]
        if not texts:
            return {}
        matrix = as_matrix(self.embedder, texts)
        vectors: dict[str, np.ndarray[Any, Any]] = {}
        row = 0
        for entry in chosen:
            vectors[entry.id] = matrix[row : row + len(entry.pieces)]
            row += len(entry.pieces)
        return vectors

    # --- reads without ranking ------------------------------------------------

    def handle_list(self, request: ListRequest) -> ListPage:
        rows, next_cursor = self._page(request)
        return ListPage(
            items=[Hit.of_item(item_id, _item(body)) for _, item_id, body in rows],
            next_cursor=next_cursor,
        )

    def handle_export(self, request: ListRequest) -> ExportPage:
        rows, next_cursor = self._page(request)
        return ExportPage(
            items=[Exported(id=item_id, item=_item(body)) for _, item_id, body in rows],
            next_cursor=next_cursor,
        )

    def _page(self, request: ListRequest) -> tuple[list[tuple[int, str, str]], str | None]:
        cursor = cursors.decode_list(request.cursor)
        clause = filter_clause(request.filter)
        after = cursor.after_seq if cursor else 0
        with self._connections.reading() as connection:
            rows = connection.execute(
                f"SELECT i.seq, i.id, i.body FROM items i WHERE i.seq > ? AND {clause.sql} "
                "ORDER BY i.seq LIMIT ?",
                (after, *clause.params, request.limit + 1),
            ).fetchall()
        if len(rows) <= request.limit:
            return rows, None
        rows = rows[: request.limit]
        return rows, cursors.encode(cursors.ListCursor(rows[-1][0]))

    def handle_get(self, request: GetRequest) -> list[Hit]:
        ids = list(dict.fromkeys(request.ids))
        clause = reach_clause(request.reach)
        with self._connections.reading() as connection:
            rows = connection.execute(
                "SELECT i.id, i.body FROM items i WHERE i.id IN (SELECT value FROM json_each(?)) "
                f"AND {clause.sql}",
                (json.dumps(ids), *clause.params),
            ).fetchall()
        found = dict(rows)
        return [Hit.of_item(item_id, _item(found[item_id])) for item_id in ids if item_id in found]

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        clause = filter_clause(request.filter)
        scanned = (
            f"WITH scanned AS (SELECT i.* FROM items i WHERE {clause.sql} ORDER BY i.seq LIMIT ?)"
        )
        params = (*clause.params, request.scan_limit)
        if request.facet is Facet.TAG:
            grouped = (
                f"{scanned} SELECT t.tag, count(*) FROM scanned s "
                "LEFT JOIN item_tags t ON t.item = s.seq GROUP BY t.tag"
            )
        else:
            column = _FACET_COLUMNS[request.facet].replace("i.", "s.")
            grouped = f"{scanned} SELECT {column}, count(*) FROM scanned s GROUP BY 1"
        with self._connections.snapshot() as connection:
            groups = connection.execute(grouped, params).fetchall()
            admitted = connection.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM items i WHERE {clause.sql} LIMIT ?)",
                (*clause.params, request.scan_limit + 1),
            ).fetchone()[0]
            total = connection.execute(
                f"{scanned} SELECT count(*) FROM scanned", params
            ).fetchone()[0]
        counts = {value: number for value, number in groups if value is not None}
        missing = sum(number for value, number in groups if value is None)
        return build_explore_page(
            request,
            counts,
            total=total,
            missing=missing,
            truncated=admitted > request.scan_limit,
        )

    # --- forget and erase -----------------------------------------------------

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        if target.ids is not None:
            clause = Clause(
                "i.id IN (SELECT value FROM json_each(?))", (json.dumps(list(target.ids)),)
            )
        else:
            clause = filter_clause(target.filter or MetaFilter())
        return ForgetReport(len(self._delete(clause)))

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        clause = erase_clause(request.reach.at, request.reach.descendants)
        if request.kinds:
            clause = clause & kinds_clause(request.kinds)
        scopes = self._delete(clause)
        return EraseReport(erased_scopes=len(set(scopes)))

    def _delete(self, clause: Clause) -> list[tuple[str, int]]:
        """Delete what ``clause`` admits, for good; each deleted item's (kind, node)."""
        with self._connections.writing() as connection:
            doomed = connection.execute(
                f"SELECT i.seq, i.kind, i.node FROM items i WHERE {clause.sql}", clause.params
            ).fetchall()
            if not doomed:
                return []
            before = bump_generation(connection)
            seqs = [seq for seq, _, _ in doomed]
            doomed_seqs = json.dumps(seqs)
            connection.execute(
                "INSERT INTO pieces_fts(pieces_fts, rowid, text) SELECT 'delete', id, text "
                "FROM pieces WHERE item IN (SELECT value FROM json_each(?))",
                (doomed_seqs,),
            )
            connection.execute(
                "DELETE FROM items WHERE seq IN (SELECT value FROM json_each(?))", (doomed_seqs,)
            )
            connection.execute(
                "DELETE FROM nodes WHERE NOT EXISTS (SELECT 1 FROM items WHERE node = nodes.id)"
            )
            # Deleted words stay in old FTS5 segments until they are merged away.
            connection.execute("INSERT INTO pieces_fts(pieces_fts) VALUES ('optimize')")
        self._vectors.removed(before, seqs)
        self._checkpoint()
        return [(kind, node) for _, kind, node in doomed]

    def _checkpoint(self) -> None:
        """Copy the WAL into the file and cut it to nothing, so deleted text leaves the WAL too."""
        if self._connections.in_memory:
            return
        with self._connections.reading() as connection:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    # --- ranked reads -----------------------------------------------------------

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        digest = cursors.request_digest(
            "fetch", request.mode.value, request.query, to_json(request.filter)
        )
        cursor = cursors.decode_ranked(request.cursor, digest)
        offset = cursor.offset if cursor else 0
        depth = offset + request.limit
        # Embedded before the read transaction, which a slow embedder would hold open.
        vector = None if request.mode is FetchMode.KEYWORD else self._embed_query(request.query)
        with self._connections.snapshot() as connection:
            bound = cursor.bound_seq if cursor else _last_seq(connection)
            ranking = self._ranking(
                connection, request.mode, request.query, vector, request.filter, bound, depth + 1
            )
            chosen = ranking[offset:depth]
            hits = _hits(connection, chosen)
        next_cursor = None
        if len(ranking) > depth:
            next_cursor = cursors.encode(cursors.RankedCursor(bound, depth, digest))
        return FetchPage(hits=hits, next_cursor=next_cursor)

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        vector = self._embed_query(request.question)
        clause = filter_clause(request.filter)
        words = keyword.query_words(request.question)
        with self._connections.snapshot() as connection:
            bound = _last_seq(connection)
            matched = _keyword_ranking(connection, words, clause, bound, request.limit)
            similar = self._vector_ranking(connection, vector, clause, bound, request.limit)
            # Relevant: holding a word of the question, or close to it in meaning.
            relevant = {entry.item for entry in matched}
            relevant |= {entry.item for entry in similar if entry.score >= RECALL_SIMILARITY}
            fused = _fused([matched, similar], request.limit)
            hits = _hits(connection, [entry for entry in fused if entry.item in relevant])
        if not hits:
            return RecallAnswer(answer=NOTHING_RELEVANT, model=MODEL)
        extract = extract_answer(request.question, [hit.text for hit in hits])
        citations = [
            Citation(
                id=hits[index].id,
                kind=hits[index].kind,
                snippet=snippet,
                meta=hits[index].meta,
                score=hits[index].score,
            )
            for index, snippet in zip(extract.sources, extract.snippets, strict=True)
        ]
        return RecallAnswer(answer=extract.text, citations=citations, model=MODEL)

    def _ranking(
        self,
        connection: sqlite3.Connection,
        mode: FetchMode,
        query: str,
        vector: Vector | None,
        filter: MetaFilter,
        bound: int,
        depth: int,
    ) -> list[_Ranked]:
        """The best ``depth`` items for ``query`` in ``mode`` (fewer when fewer match).

        ``vector`` is the query's embedding (``None`` for keyword mode).
        """
        clause = filter_clause(filter)
        words = keyword.query_words(query)
        if vector is None:
            return _keyword_ranking(connection, words, clause, bound, depth)
        if mode is FetchMode.VECTOR:
            return self._vector_ranking(connection, vector, clause, bound, depth)
        # Hybrid fuses a fixed depth of each ranking, so one request's pages agree.
        fusion = FUSION_DEPTH * 2 ** max(0, math.ceil(math.log2(depth / FUSION_DEPTH)))
        matched = _keyword_ranking(connection, words, clause, bound, fusion)
        similar = self._vector_ranking(connection, vector, clause, bound, fusion)
        return _fused([matched, similar], depth)

    def _embed_query(self, text: str) -> Vector:
        vector: Vector = as_matrix(self.embedder, [text])[0]
        return vector

    def _vector_ranking(
        self, connection: sqlite3.Connection, vector: Vector, clause: Clause, bound: int, depth: int
    ) -> list[_Ranked]:
        self._vectors.refresh(connection)
        ranked: list[_Ranked] = []
        batch: list[_Ranked] = []
        size = depth + 32
        for item, piece, score in self._vectors.ranked(vector, bound):
            batch.append(_Ranked(item, piece, score))
            if len(batch) >= size:
                ranked += _admitted(connection, batch, clause)
                if len(ranked) >= depth:
                    return ranked[:depth]
                batch, size = [], size * 8
        ranked += _admitted(connection, batch, clause)
        return ranked[:depth]


# --- preparing and writing items ------------------------------------------------


def _prepare(item: StoreItem) -> _Prepared:
    """Everything a write needs from ``item``, computed before any I/O."""
    body = to_json(item)
    # The id is the digest of the JSON form with observed_at cleared: the same text when unset.
    item_id = item.fingerprint() if item.meta.observed_at is not None else fingerprint_json(body)
    text = item.render_text()
    if isinstance(item, Document):
        pieces = tuple(cut_pieces(text, PIECE_TARGET))
    else:
        pieces = (Piece(text=text, start=0),)
    return _Prepared(id=item_id, item=item, body=body, pieces=pieces)


def _first_copies(prepared: Sequence[_Prepared]) -> list[_Prepared]:
    """Each item once, at its first place in the batch (a later copy is a replay)."""
    firsts: dict[str, _Prepared] = {}
    for entry in prepared:
        firsts.setdefault(entry.id, entry)
    return list(firsts.values())


def _existing(connection: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    rows = connection.execute(
        "SELECT id FROM items WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),)
    )
    return {row[0] for row in rows}


@attrs.frozen
class _Added:
    """The pieces a write added: their ids, their items' ``seq`` and their vectors."""

    pieces: list[int]
    items: list[int]
    vectors: np.ndarray[Any, Any]


def _write(
    connection: sqlite3.Connection,
    entries: list[_Prepared],
    vectors: dict[str, np.ndarray[Any, Any]],
) -> _Added:
    """Write new items, their tags, pieces and index rows, a statement per table.

    Inside ``BEGIN IMMEDIATE`` no one else writes, so the ``seq`` and piece
    ids are counted on from the highest ever handed out.
    """
    seq = _last_seq(connection)
    piece_id = connection.execute("SELECT coalesce(max(id), 0) FROM pieces").fetchone()[0]
    nodes: dict[str, int] = {}
    items, tags, pieces = [], [], []
    added = _Added(pieces=[], items=[], vectors=np.concatenate([vectors[e.id] for e in entries]))
    for entry in entries:
        seq += 1
        items.append((seq, _node(connection, entry.item.meta.namespace, nodes), *_columns(entry)))
        tags += [(tag, seq) for tag in entry.item.meta.tags]
        for piece, vector in zip(entry.pieces, vectors[entry.id], strict=True):
            piece_id += 1
            first, last = piece.pages or (None, None)
            pieces.append(
                (
                    piece_id,
                    seq,
                    piece.start,
                    first,
                    last,
                    piece.section,
                    piece.text,
                    vector.tobytes(),
                )
            )
            added.pieces.append(piece_id)
            added.items.append(seq)
    connection.executemany(
        "INSERT INTO items(seq, node, id, kind, source_kind, source_id, workspace, folder, "
        "file_path, language, repo, commit_ref, url, thread_id, turns, agent_id, tool_call, "
        "observed_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        items,
    )
    connection.executemany("INSERT OR IGNORE INTO item_tags(tag, item) VALUES (?, ?)", tags)
    connection.executemany(
        "INSERT INTO pieces(id, item, ord, first_page, last_page, section, text, vector) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        pieces,
    )
    connection.executemany(
        "INSERT INTO pieces_fts(rowid, text) VALUES (?, ?)", [(row[0], row[6]) for row in pieces]
    )
    return added


def _node(connection: sqlite3.Connection, namespace: Namespace, nodes: dict[str, int]) -> int:
    """The node's id, its row added when it is new."""
    path = node_path(namespace)
    if path not in nodes:
        connection.execute(
            "INSERT OR IGNORE INTO nodes(path, depth, last_service) VALUES (?, ?, ?)",
            (path, namespace.depth, last_service(namespace)),
        )
        row = connection.execute("SELECT id FROM nodes WHERE path = ?", (path,)).fetchone()
        nodes[path] = int(row[0])
    return nodes[path]


def _columns(entry: _Prepared) -> tuple[object, ...]:
    """The item's row from ``id`` on: what filters read, then its JSON form."""
    item = entry.item
    meta = item.meta
    return (
        entry.id,
        item.item_kind.value,
        meta.source.kind.value,
        meta.source.id,
        meta.workspace,
        meta.folder,
        meta.file_path,
        meta.language,
        meta.repo,
        meta.commit,
        meta.url,
        meta.thread_id,
        turns_text(meta.turns.first, meta.turns.last) if meta.turns else None,
        meta.agent_id,
        meta.tool_call.name if meta.tool_call else None,
        sortable_time(meta.observed_at) if meta.observed_at else None,
        entry.body,
    )


def _item(body: str) -> StoreItem:
    return from_json(body, StoreItem)  # type: ignore[arg-type]


def _last_seq(connection: sqlite3.Connection) -> int:
    row = connection.execute("SELECT seq FROM sqlite_sequence WHERE name = 'items'").fetchone()
    return int(row[0]) if row else 0


# --- ranking -----------------------------------------------------------------------


def _keyword_ranking(
    connection: sqlite3.Connection, words: list[str], clause: Clause, bound: int, depth: int
) -> list[_Ranked]:
    """Items holding every word first, then items holding any (stop words aside), by BM25.

    A score is ``s / (1 + s)`` of the BM25 score ``s``, plus 1 for items
    holding every word, so scores fall as the ranking goes on.
    """
    if not words:
        return []
    ranked = _matches(connection, keyword.all_of(words), clause, bound, depth, bonus=1.0)
    if len(ranked) < depth and len(words) > 1:
        seen = {entry.item for entry in ranked}
        more = _matches(connection, keyword.any_of(words), clause, bound, depth + len(ranked))
        ranked += [entry for entry in more if entry.item not in seen]
    return ranked[:depth]


def _matches(
    connection: sqlite3.Connection,
    match: str,
    clause: Clause,
    bound: int,
    depth: int,
    *,
    bonus: float = 0.0,
) -> list[_Ranked]:
    """The best piece of the best ``depth`` items FTS5 matches, deduplicated by item.

    FTS5 ranks its matches alone first and only its best rows are joined to
    their items and filtered (joining every match first costs several times
    more); when too few are admitted, it is asked for four times as many.
    """
    limit = depth + 16
    while True:
        rows = connection.execute(
            f"SELECT p.item, m.rowid, m.score, i.seq <= ? AND {clause.sql} FROM ("
            "SELECT rowid, bm25(pieces_fts) AS score FROM pieces_fts WHERE pieces_fts MATCH ? "
            "ORDER BY score, rowid LIMIT ?) AS m "
            "JOIN pieces p ON p.id = m.rowid JOIN items i ON i.seq = p.item "
            "ORDER BY m.score, m.rowid",
            (bound, *clause.params, match, limit),
        ).fetchall()
        ranked: dict[int, _Ranked] = {}
        for item, piece, score, admitted in rows:
            if admitted and item not in ranked:
                strength = max(0.0, -score)
                ranked[item] = _Ranked(item, piece, bonus + strength / (1.0 + strength))
        if len(ranked) >= depth or len(rows) < limit:
            return list(ranked.values())[:depth]
        limit *= 4


def _admitted(
    connection: sqlite3.Connection, ranked: list[_Ranked], clause: Clause
) -> list[_Ranked]:
    """Those of ``ranked`` whose items ``clause`` admits, in order."""
    if not ranked:
        return []
    rows = connection.execute(
        f"SELECT i.seq FROM items i WHERE i.seq IN (SELECT value FROM json_each(?)) "
        f"AND {clause.sql}",
        (json.dumps([entry.item for entry in ranked]), *clause.params),
    )
    admitted = {row[0] for row in rows}
    return [entry for entry in ranked if entry.item in admitted]


def _fused(rankings: Sequence[list[_Ranked]], depth: int) -> list[_Ranked]:
    """Reciprocal-rank fusion; an item keeps the piece of the first ranking it is in."""
    scores: dict[int, float] = {}
    pieces: dict[int, int] = {}
    for ranking in rankings:
        for rank, entry in enumerate(ranking, start=1):
            scores[entry.item] = scores.get(entry.item, 0.0) + 1.0 / (RRF_K + rank)
            pieces.setdefault(entry.item, entry.piece)
    ordered = sorted(scores, key=lambda item: (-scores[item], item))[:depth]
    return [_Ranked(item, pieces[item], scores[item]) for item in ordered]


def _hits(connection: sqlite3.Connection, ranked: list[_Ranked]) -> list[Hit]:
    """Hits for ranked entries: the item's id and meta, the piece's text and tags."""
    if not ranked:
        return []
    rows = connection.execute(
        "SELECT p.id, i.id, i.body, p.text, p.first_page, p.last_page, p.section "
        "FROM pieces p JOIN items i ON i.seq = p.item "
        "WHERE p.id IN (SELECT value FROM json_each(?))",
        (json.dumps([entry.piece for entry in ranked]),),
    ).fetchall()
    found = {row[0]: row[1:] for row in rows}
    hits = []
    for entry in ranked:
        item_id, body, text, first, last, section = found[entry.piece]
        item = _item(body)
        pages = (first, last) if first else None
        tags = Piece(text=text, start=0, pages=pages, section=section).tags()
        meta = attrs.evolve(item.meta, tags=item.meta.tags + tags) if tags else item.meta
        hits.append(
            Hit(
                id=item_id,
                kind=item.item_kind,
                text=text,
                meta=meta,
                score=entry.score,
                confidence=item.confidence if isinstance(item, Learning) else None,
            )
        )
    return hits
