"""The embedded engine ``sqlite``: the whole contract over one SQLite file.

Filters, reaches, explore and paging run in SQL. Keyword fetch ranks by
BM25 with the statistics of what the read admits (FTS5's own when it admits
everything); vector fetch is an exact product over every piece's vector;
hybrid fuses the two rankings by reciprocal rank. Recall answers from the
best hybrid hits with sentences taken from them, each cited.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinymemory import (
    ConfigError,
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
    ListPage,
    ListRequest,
    MemoryEngine,
    MetaFilter,
    RecallAnswer,
    RecallRequest,
    StoreItem,
    StoreReceipt,
)
from tinymemory.plugin import Embedder, build_explore_page, extractive_answer, to_json

from . import cursors, keyword
from .connections import Connections
from .descriptor import DESCRIPTOR
from .embedding import HashingEmbedder, as_matrix
from .filters import Clause, Scope, erase_clause, filter_clause, kinds_clause, reach_clause
from .item_rows import Prepared, existing, first_copies, last_seq, parse_item, prepare, write
from .location import database_path
from .purge import add_pending_purge, pending_purges
from .ranking import Ranked, admitted, fused, keyword_ranking, ranked_hits

if TYPE_CHECKING:
    import numpy as np

    from .vectors import Floats as Vector
    from .vectors import VectorIndex

#: Hybrid fuses at least this many hits of each ranking (more for deep pages).
FUSION_DEPTH = 50
#: For recall, a hit holding none of the question's words is relevant from this similarity up.
RECALL_SIMILARITY = 0.35
#: The most rows one read asks SQLite for. A limit may be any usize, but SQLite's
#: integers stop at 2^63 - 1; no table holds this many rows, so the answer is the same.
MOST_ROWS = 2**62


def _rows(limit: int) -> int:
    return min(limit, MOST_ROWS)


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
        # A purge another engine could not finish is finished by the first to open the file.
        self._purge_wanted = self.pending_purge > 0
        self._retry_purge()

    @cached_property
    def _vectors(self) -> VectorIndex:
        """The vector matrix, made on first use: numpy loads with the first vector read,
        embedding or delete, so a process that only reads by keyword never loads it."""
        from .vectors import VectorIndex

        return VectorIndex(self.embedder.dimensions)

    @property
    def descriptor(self) -> EngineDescriptor:
        return DESCRIPTOR

    def health(self) -> EngineHealth:
        """Ok; degraded while forgotten text waits to be purged (``pending_purge``); down unread."""
        try:
            pending = self.pending_purge
        except Exception as error:  # health reports, it never raises
            return EngineHealth.down(f"the sqlite database cannot be read: {error}")
        if pending:
            return EngineHealth.degraded(
                f"pending_purge {pending}: forgotten or erased text is still in the file's bytes "
                "while another connection holds an old snapshot; it is purged at the next write "
                "or close once that reader lets go, or by `tinymemory sqlite purge`"
            )
        return EngineHealth.ok()

    @property
    def pending_purge(self) -> int:
        """How many forgets and erases are deleted but not yet purged from the file's bytes."""
        with self._connections.reading() as connection:
            return pending_purges(connection)

    def close(self) -> None:
        """Finish a pending purge if the reader that held it up has gone, then close."""
        if not self._connections.closed:
            self._retry_purge()
        self._connections.close()

    def storage_paths(self) -> tuple[Path, ...]:
        """The database file and its ``-wal``, ``-shm`` and ``-journal`` (none for ``:memory:``)."""
        if self._connections.in_memory:
            return ()
        return tuple(Path(self.path + suffix) for suffix in ("", "-wal", "-shm", "-journal"))

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
        prepared = [prepare(item) for item in items]
        firsts = first_copies(prepared)
        ids = [entry.id for entry in firsts]
        with self._connections.reading() as connection:
            stored = existing(connection, ids)
        # Embedding runs before the write transaction (which it would hold up), for new items only.
        vectors = self._embed(entry for entry in firsts if entry.id not in stored)
        with self._connections.writing() as connection:
            stored = existing(connection, ids)
            fresh = [entry for entry in firsts if entry.id not in stored]
            if not fresh:
                return [StoreReceipt(entry.id, replayed=True) for entry in prepared]
            # Forgotten by another writer since the first look, so not embedded yet.
            vectors.update(self._embed(entry for entry in fresh if entry.id not in vectors))
            before = self._vectors.bump_generation(connection)
            added = write(connection, fresh, vectors)
        self._vectors.added(before, added.pieces, added.items, added.vectors)
        self._retry_purge()
        written = {entry.id for entry in fresh}
        receipts = []
        for entry in prepared:
            receipts.append(StoreReceipt(entry.id, replayed=entry.id not in written))
            written.discard(entry.id)
        return receipts

    def _embed(self, entries: Iterable[Prepared]) -> dict[str, np.ndarray[Any, Any]]:
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
            items=[Hit.of_item(item_id, parse_item(body)) for _, item_id, body in rows],
            next_cursor=next_cursor,
        )

    def handle_export(self, request: ListRequest) -> ExportPage:
        rows, next_cursor = self._page(request)
        return ExportPage(
            items=[Exported(id=item_id, item=parse_item(body)) for _, item_id, body in rows],
            next_cursor=next_cursor,
        )

    def _page(self, request: ListRequest) -> tuple[list[tuple[int, str, str]], str | None]:
        cursor = cursors.decode_list(request.cursor)
        clause = filter_clause(request.filter)
        after = cursor.after_seq if cursor else 0
        limit = _rows(request.limit)
        with self._connections.reading() as connection:
            rows = connection.execute(
                f"SELECT i.seq, i.id, i.body FROM items i WHERE i.seq > ? AND {clause.sql} "
                "ORDER BY i.seq LIMIT ?",
                (after, *clause.params, limit + 1),
            ).fetchall()
        if len(rows) <= limit:
            return rows, None
        rows = rows[:limit]
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
        return [
            Hit.of_item(item_id, parse_item(found[item_id])) for item_id in ids if item_id in found
        ]

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
        counts = {value: number for value, number in groups if value is not None}
        missing = sum(number for value, number in groups if value is None)
        return build_explore_page(
            request,
            counts,
            total=min(admitted, request.scan_limit),
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
            before = self._vectors.bump_generation(connection, removing=True)
            seqs = [seq for seq, _, _ in doomed]
            doomed_seqs = json.dumps(seqs)
            connection.execute(
                "INSERT INTO pieces_fts(pieces_fts, rowid, text) SELECT 'delete', id, text "
                "FROM pieces WHERE item IN (SELECT value FROM json_each(?))",
                (doomed_seqs,),
            )
            self._vectors.remove_from_blocks(connection, seqs)
            connection.execute(
                "UPDATE node_sizes SET pieces = node_sizes.pieces - d.pieces, "
                "tokens = node_sizes.tokens - d.tokens "
                "FROM (SELECT i.node, i.kind, count(*) AS pieces, sum(p.tokens) AS tokens "
                "FROM items i JOIN pieces p ON p.item = i.seq "
                "WHERE i.seq IN (SELECT value FROM json_each(?)) GROUP BY i.node, i.kind) AS d "
                "WHERE node_sizes.node = d.node AND node_sizes.kind = d.kind",
                (doomed_seqs,),
            )
            connection.execute("DELETE FROM node_sizes WHERE pieces = 0")
            connection.execute(
                "DELETE FROM items WHERE seq IN (SELECT value FROM json_each(?))", (doomed_seqs,)
            )
            connection.execute(
                "DELETE FROM nodes WHERE NOT EXISTS (SELECT 1 FROM items WHERE node = nodes.id)"
            )
            # Deleted words stay in old FTS5 segments until they are merged away.
            connection.execute("INSERT INTO pieces_fts(pieces_fts) VALUES ('optimize')")
            if not self._connections.in_memory:
                add_pending_purge(connection, 1)
        self._vectors.removed(before, seqs)
        self._purge()
        return [(kind, node) for _, kind, node in doomed]

    def _retry_purge(self) -> None:
        if self._purge_wanted:
            self._purge()

    def _purge(self) -> None:
        """Copy the WAL into the file and cut it to nothing, so deleted text leaves both.

        A reader holding an older snapshot keeps the checkpoint from
        completing; the purge then stays pending and is retried at the next
        write and at close.
        """
        if self._connections.in_memory:
            return
        with self._connections.reading() as connection:
            pending = pending_purges(connection)
        if not self._connections.checkpoint():
            self._purge_wanted = True
            return
        self._purge_wanted = False
        if pending:
            with self._connections.writing() as connection:
                add_pending_purge(connection, -pending)
            self._connections.checkpoint()  # leaves the WAL empty again; no deleted text is in it

    # --- ranked reads -----------------------------------------------------------

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        digest = cursors.request_digest(
            "fetch", request.mode.value, request.query, to_json(request.filter)
        )
        cursor = cursors.decode_ranked(request.cursor, digest)
        offset = cursor.offset if cursor else 0
        depth = _rows(offset + request.limit)
        # Embedded before the read transaction, which a slow embedder would hold open.
        vector = None if request.mode is FetchMode.KEYWORD else self._embed_query(request.query)
        with self._connections.snapshot() as connection:
            bound = cursor.bound_seq if cursor else last_seq(connection)
            ranking = self._ranking(
                connection, request.mode, request.query, vector, request.filter, bound, depth + 1
            )
            chosen = ranking[offset:depth]
            hits = ranked_hits(connection, chosen)
        next_cursor = None
        if len(ranking) > depth:
            next_cursor = cursors.encode(cursors.RankedCursor(bound, depth, digest))
        return FetchPage(hits=hits, next_cursor=next_cursor)

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        vector = self._embed_query(request.question)
        words = keyword.query_words(request.question)
        limit = _rows(request.limit)
        with self._connections.snapshot() as connection:
            bound = last_seq(connection)
            scope = Scope.of(request.filter, bound)
            matched = keyword_ranking(connection, words, scope, limit)
            similar = self._vector_ranking(connection, vector, scope, limit)
            # Relevant: holding a word of the question, or close to it in meaning.
            relevant = {entry.item for entry in matched}
            relevant |= {entry.item for entry in similar if entry.score >= RECALL_SIMILARITY}
            best = fused([matched, similar], limit)
            hits = ranked_hits(connection, [entry for entry in best if entry.item in relevant])
        return extractive_answer(request.question, hits)

    def _ranking(
        self,
        connection: sqlite3.Connection,
        mode: FetchMode,
        query: str,
        vector: Vector | None,
        filter: MetaFilter,
        bound: int,
        depth: int,
    ) -> list[Ranked]:
        """The best ``depth`` items for ``query`` in ``mode`` (fewer when fewer match).

        ``vector`` is the query's embedding (``None`` for keyword mode).
        """
        scope = Scope.of(filter, bound)
        words = keyword.query_words(query)
        if vector is None:
            return keyword_ranking(connection, words, scope, depth)
        if mode is FetchMode.VECTOR:
            return self._vector_ranking(connection, vector, scope, depth)
        # Hybrid fuses a fixed depth of each ranking, so one request's pages agree; each
        # ranking holds admitted items only, so what a read does not admit never moves it.
        fusion = FUSION_DEPTH * 2 ** max(0, math.ceil(math.log2(depth / FUSION_DEPTH)))
        matched = keyword_ranking(connection, words, scope, fusion)
        similar = self._vector_ranking(connection, vector, scope, fusion)
        return fused([matched, similar], depth)

    def _embed_query(self, text: str) -> Vector:
        vector: Vector = as_matrix(self.embedder, [text])[0]
        return vector

    def _vector_ranking(
        self, connection: sqlite3.Connection, vector: Vector, scope: Scope, depth: int
    ) -> list[Ranked]:
        """The best ``depth`` admitted items by cosine, which needs no corpus statistics."""
        clause, bound = scope.clause, scope.bound
        self._vectors.refresh(connection)
        ranked: list[Ranked] = []
        batch: list[Ranked] = []
        size = depth + 32
        for item, piece, score in self._vectors.ranked(vector, bound):
            batch.append(Ranked(item, piece, score))
            if len(batch) >= size:
                ranked += admitted(connection, batch, clause)
                if len(ranked) >= depth:
                    return ranked[:depth]
                batch, size = [], size * 8
        ranked += admitted(connection, batch, clause)
        return ranked[:depth]
