"""The engine ``postgres``: the whole contract over one schema of a PostgreSQL database.

Filters, reaches, explore and paging run in SQL. Keyword fetch ranks by
BM25 over ``tsvector`` matches (a GIN index finds them) with the statistics
of what the read admits; vector fetch is an exact scan of the admitted
pieces' vectors; hybrid fuses the two by reciprocal rank, as the sqlite
engine does. Recall answers, as the sqlite engine does, with the sentences of
the best relevant hybrid hits that bear on the question, each cited
(:func:`tinymemory.plugin.extractive_answer`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from tinymemory import (
    ConfigError,
    EngineCredential,
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
from tinymemory.plugin import (
    Embedder,
    build_explore_page,
    extractive_answer,
    item_from_json,
    to_json,
)

from . import cursors
from .connections import Connection, Server
from .descriptor import DESCRIPTOR
from .filters import Clause, erase_clause, filter_clause, kinds_clause, reach_clause
from .item_rows import Prepared, existing, first_copies, prepare, write
from .ranking import (
    Ranked,
    Scope,
    fused,
    keyword_ranking,
    query_words,
    ranked_hits,
    vector_ranking,
)
from .settings import ServerSettings
from .vectors import embed

#: Hybrid fuses at least this many hits of each ranking (more for deep pages).
FUSION_DEPTH = 50
#: For recall, a hit holding none of the question's words is relevant from this similarity up.
RECALL_SIMILARITY = 0.35
#: The most rows one read asks for (a limit may be any usize; ``bigint`` stops at 2^63 - 1).
MOST_ROWS = 2**62

_FACET_COLUMNS = {
    Facet.KIND: "s.kind",
    Facet.SOURCE: "s.source_kind",
    Facet.SOURCE_ID: "s.source_id",
    Facet.WORKSPACE: "s.workspace",
    Facet.FOLDER: "s.folder",
    Facet.FILE_PATH: "s.file_path",
    Facet.LANGUAGE: "s.language",
    Facet.REPO: "s.repo",
    Facet.URL: "s.url",
    Facet.THREAD: "s.thread_id",
    Facet.AGENT: "s.agent_id",
    Facet.TOOL_CALL: "s.tool_call",
    Facet.NAMESPACE: "(SELECT path FROM nodes WHERE id = s.node)",
}


def _rows(limit: int) -> int:
    return min(limit, MOST_ROWS)


class PostgresEngine(MemoryEngine):
    """The engine over one schema of a PostgreSQL database, shared by every process using it.

    ``settings`` say where the server is and which schema holds the memory
    (:class:`~tinymemory_postgres.settings.ServerSettings`); ``credential``'s
    key is the password. ``embedder`` makes the vectors; a schema keeps the
    embedder it was first written with. Safe to share between threads.
    """

    def __init__(
        self, settings: ServerSettings, credential: EngineCredential, *, embedder: Embedder
    ) -> None:
        self.settings = settings
        self.embedder = embedder
        self._server = Server(settings, credential)
        try:
            self._server.run(self._claim_embedder, write=True)
        except BaseException:
            self._server.close()
            raise

    @property
    def descriptor(self) -> EngineDescriptor:
        return DESCRIPTOR

    def health(self) -> EngineHealth:
        """Ok when the server answers, down when it does not (an ok health has no reason, so
        the descriptor is where the engine says vectors are ranked by an exact scan)."""
        if self._server.closed:
            return EngineHealth.down("the postgres engine is closed")
        try:
            version = self._server.run(_server_version, retry=False)
        except Exception as error:  # health reports, it never raises
            return EngineHealth.down(str(error))
        if version < 150000:
            # Not tested below 15; `starts_with` needs 11 and unnest(tsvector) 9.6.
            return EngineHealth.degraded(f"PostgreSQL {version} is older than 15, the one tested")
        return EngineHealth.ok()

    def close(self) -> None:
        self._server.close()

    def __repr__(self) -> str:
        return f"<PostgresEngine {self.settings.where}>"

    def _claim_embedder(self, connection: Connection) -> None:
        """Record the embedder on a new schema; refuse a different one where vectors are."""
        mine = f"{self.embedder.name}:{self.embedder.dimensions}"
        row = connection.execute("SELECT value FROM settings WHERE key = 'embedder'").fetchone()
        if row is not None and row[0] == mine:
            return
        empty = connection.execute("SELECT NOT EXISTS (SELECT 1 FROM pieces)").fetchone()
        if row is None or (empty and empty[0]):
            connection.execute(
                "INSERT INTO settings(key, value) VALUES ('embedder', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (mine,),
            )
            return
        name, _, dimensions = row[0].rpartition(":")
        raise ConfigError(
            f"the postgres schema `{self.settings.schema}` holds vectors from embedder `{name}` "
            f'({dimensions} dimensions), not `{self.embedder.name}`; use embedder = "{name}"'
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
        stored = self._server.run(lambda connection: existing(connection, ids))
        # Embedding runs before the write transaction, which it would hold up.
        vectors = self._embed(entry for entry in firsts if entry.id not in stored)

        def work(connection: Connection) -> set[str]:
            # Under the write lock: what is stored now is final until this commits.
            held = existing(connection, ids)
            fresh = [entry for entry in firsts if entry.id not in held]
            if fresh:
                # Forgotten by another writer since the first look, so not embedded yet.
                vectors.update(self._embed(e for e in fresh if e.id not in vectors))
                write(connection, fresh, vectors)
            return {entry.id for entry in fresh}

        written = self._server.run(work, write=True)
        receipts = []
        for entry in prepared:
            receipts.append(StoreReceipt(entry.id, replayed=entry.id not in written))
            written.discard(entry.id)
        return receipts

    def _embed(self, entries: Iterable[Prepared]) -> dict[str, Any]:
        chosen = list(entries)
        texts = [piece.text for entry in chosen for piece in entry.pieces]
        matrix = embed(self.embedder, texts)
        vectors: dict[str, Any] = {}
        row = 0
        for entry in chosen:
            vectors[entry.id] = matrix[row : row + len(entry.pieces)]
            row += len(entry.pieces)
        return vectors

    # --- reads without ranking ------------------------------------------------

    def handle_list(self, request: ListRequest) -> ListPage:
        rows, next_cursor = self._page(request)
        return ListPage(
            items=[Hit.of_item(item_id, item_from_json(body)) for item_id, body in rows],
            next_cursor=next_cursor,
        )

    def handle_export(self, request: ListRequest) -> ExportPage:
        rows, next_cursor = self._page(request)
        return ExportPage(
            items=[Exported(id=item_id, item=item_from_json(body)) for item_id, body in rows],
            next_cursor=next_cursor,
        )

    def _page(self, request: ListRequest) -> tuple[list[tuple[str, str]], str | None]:
        after = cursors.decode_list(request.cursor)
        clause = filter_clause(request.filter)
        limit = _rows(request.limit)
        rows = self._server.run(
            lambda connection: connection.execute(
                f"SELECT i.seq, i.id, i.body FROM items i WHERE i.seq > %s AND {clause.sql} "
                "ORDER BY i.seq LIMIT %s",
                (after, *clause.params, limit + 1),
            ).fetchall()
        )
        page = [(item_id, body) for _, item_id, body in rows[:limit]]
        if len(rows) <= limit:
            return page, None
        return page, cursors.encode_list(rows[limit - 1][0])

    def handle_get(self, request: GetRequest) -> list[Hit]:
        ids = list(dict.fromkeys(request.ids))
        clause = reach_clause(request.reach)
        rows = self._server.run(
            lambda connection: connection.execute(
                f"SELECT i.id, i.body FROM items i WHERE i.id = ANY(%s) AND {clause.sql}",
                (ids, *clause.params),
            ).fetchall()
        )
        found = dict(rows)
        return [
            Hit.of_item(item_id, item_from_json(found[item_id]))
            for item_id in ids
            if item_id in found
        ]

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        clause = filter_clause(request.filter)
        scanned = (
            "WITH scanned AS MATERIALIZED "
            f"(SELECT i.* FROM items i WHERE {clause.sql} ORDER BY i.seq LIMIT %s)"
        )
        if request.facet is Facet.TAG:
            grouped = (
                f"{scanned} SELECT t.tag, count(*) FROM scanned s "
                "LEFT JOIN item_tags t ON t.item = s.seq GROUP BY t.tag"
            )
        else:
            column = _FACET_COLUMNS[request.facet]
            grouped = f"{scanned} SELECT {column}, count(*) FROM scanned s GROUP BY 1"
        params = (*clause.params, request.scan_limit)

        def work(connection: Connection) -> tuple[list[tuple[Any, int]], int]:
            groups = connection.execute(grouped, params).fetchall()
            row = connection.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM items i WHERE {clause.sql} LIMIT %s) AS a",
                (*clause.params, request.scan_limit + 1),
            ).fetchone()
            return groups, int(row[0]) if row else 0

        groups, admitted = self._server.run(work, snapshot=True)
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
            clause = Clause("i.id = ANY(%s)", (list(target.ids),))
        else:
            clause = filter_clause(target.filter or MetaFilter())
        return ForgetReport(len(self._delete(clause)))

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        clause = erase_clause(request.reach.at, request.reach.descendants)
        if request.kinds:
            clause = clause & kinds_clause(request.kinds)
        return EraseReport(erased_scopes=len(set(self._delete(clause))))

    def _delete(self, clause: Clause) -> list[tuple[str, int]]:
        """Delete what ``clause`` admits (tags and pieces with it); each item's (kind, node)."""

        def work(connection: Connection) -> list[tuple[str, int]]:
            connection.execute(
                "UPDATE node_sizes n "
                "SET pieces = n.pieces - g.pieces, tokens = n.tokens - g.tokens "
                "FROM (SELECT i.node, i.kind, count(*) AS pieces, sum(p.tokens) AS tokens "
                f"FROM items i JOIN pieces p ON p.item = i.seq WHERE {clause.sql} "
                "GROUP BY i.node, i.kind) AS g WHERE n.node = g.node AND n.kind = g.kind",
                clause.params,
            )
            connection.execute("DELETE FROM node_sizes WHERE pieces = 0")
            rows = connection.execute(
                f"DELETE FROM items i WHERE {clause.sql} RETURNING i.kind, i.node", clause.params
            ).fetchall()
            if rows:
                connection.execute(
                    "DELETE FROM nodes n WHERE n.id = ANY(%s) "
                    "AND NOT EXISTS (SELECT 1 FROM items WHERE node = n.id)",
                    (list({node for _, node in rows}),),
                )
            return [(kind, node) for kind, node in rows]

        return self._server.run(work, write=True)

    # --- ranked reads -----------------------------------------------------------

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        digest = cursors.request_digest(
            "fetch", request.mode.value, request.query, to_json(request.filter)
        )
        cursor = cursors.decode_ranked(request.cursor, digest)
        offset = cursor[1] if cursor else 0
        depth = _rows(offset + request.limit)
        # Embedded before the read transaction, which a slow embedder would hold open.
        vector = None if request.mode is FetchMode.KEYWORD else self._embed_query(request.query)

        def work(connection: Connection) -> tuple[int, list[Ranked], list[Hit]]:
            bound = cursor[0] if cursor else _last_seq(connection)
            scope = Scope.of(request.filter, bound)
            words = query_words(connection, request.query)
            ranking = _ranking(connection, request.mode, words, vector, scope, depth + 1)
            return bound, ranking, ranked_hits(connection, ranking[offset:depth])

        bound, ranking, hits = self._server.run(work, snapshot=True)
        next_cursor = None
        if len(ranking) > depth:
            next_cursor = cursors.encode_ranked(bound, depth, digest)
        return FetchPage(hits=hits, next_cursor=next_cursor)

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        vector = self._embed_query(request.question)
        limit = _rows(request.limit)

        def work(connection: Connection) -> list[Hit]:
            scope = Scope.of(request.filter, _last_seq(connection))
            words = query_words(connection, request.question)
            matched = keyword_ranking(connection, words, scope, limit)
            similar = vector_ranking(connection, vector, scope, limit)
            # Relevant: holding a word of the question, or close to it in meaning.
            relevant = {entry.item for entry in matched}
            relevant |= {entry.item for entry in similar if entry.score >= RECALL_SIMILARITY}
            best = [entry for entry in fused([matched, similar], limit) if entry.item in relevant]
            return ranked_hits(connection, best)

        return extractive_answer(request.question, self._server.run(work, snapshot=True))

    def _embed_query(self, text: str) -> Any:
        return embed(self.embedder, [text])[0]


def _ranking(
    connection: Connection,
    mode: FetchMode,
    words: list[str],
    vector: Any,
    scope: Scope,
    depth: int,
) -> list[Ranked]:
    """The best ``depth`` items in ``mode`` (fewer when fewer match); no ``vector`` for keyword."""
    if vector is None:
        return keyword_ranking(connection, words, scope, depth)
    if mode is FetchMode.VECTOR:
        return vector_ranking(connection, vector, scope, depth)
    # Hybrid fuses a fixed depth of each ranking, so one request's pages agree; each
    # ranking holds admitted items only, so what a read does not admit never moves it.
    fusion = FUSION_DEPTH * 2 ** max(0, math.ceil(math.log2(depth / FUSION_DEPTH)))
    matched = keyword_ranking(connection, words, scope, fusion)
    similar = vector_ranking(connection, vector, scope, fusion)
    return fused([matched, similar], depth)


def _last_seq(connection: Connection) -> int:
    """The highest ``seq`` this snapshot holds (items committed later have higher ones)."""
    row = connection.execute("SELECT coalesce(max(seq), 0) FROM items").fetchone()
    return int(row[0]) if row else 0


def _server_version(connection: Connection) -> int:
    return int(connection.info.server_version)
