"""The engine ``postgres``: the whole contract over one schema of a PostgreSQL database.

Filters, reaches, explore and paging run in SQL. Keyword fetch ranks by
BM25 over ``tsvector`` matches (a GIN index finds them) with the statistics
of what the read admits, a keyword page in one statement; vector fetch is
exact, over every piece's vector held in the client and kept in step with
the server (:mod:`~tinymemory_postgres.vector_cache`); hybrid adds the two
rankings' scores, as the sqlite engine does. Recall hands the best hybrid hits
to its answerer, as the sqlite engine does (by default the sentences that bear
on the question, each cited: :func:`tinymemory.retrieval.extractive_answer`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
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
from tinymemory import retrieval as kit
from tinymemory.plugin import (
    Answerer,
    Embedder,
    ReindexReport,
    default_embedder,
    embedder_identity,
    engine_answerer,
    item_from_json,
    memory_embedder,
)

from . import reindex
from .connections import Connection, Server
from .descriptor import DESCRIPTOR
from .dialect import POSTGRES
from .item_rows import checked, existing, write
from .ranking import highest_admitted, keyword_page, keyword_ranking, ranked_hits
from .settings import ServerSettings
from .vector_cache import VectorCache


class PostgresEngine(MemoryEngine):
    """The engine over one schema of a PostgreSQL database, shared by every process using it.

    ``settings`` say where the server is and which schema holds the memory
    (:class:`~tinymemory_postgres.settings.ServerSettings`); ``credential``'s
    key is the password. ``embedder`` makes the vectors (by default the one an
    installed plugin names, else ``hashing``; a schema filled by another
    installed embedder keeps it until :meth:`reindex`, said once with a
    ``KeptEmbedderWarning``); a schema records the
    identity of the embedder it was first written with, and an engine opened
    with another refuses what would mix their vectors (store, vector and
    hybrid fetch, recall) until :meth:`reindex` re-embeds the schema; keyword
    fetch, list, get, export, forget and erase still work. ``answerer`` writes
    recall's answers (:class:`ExtractiveAnswerer` by default). Safe to share
    between threads.
    """

    def __init__(
        self,
        settings: ServerSettings,
        credential: EngineCredential,
        *,
        embedder: Embedder | None = None,
        answerer: Answerer | None = None,
    ) -> None:
        self.settings = settings
        self._server = Server(settings, credential)
        try:
            self.embedder = embedder or self._kept_embedder()
            self.answerer = engine_answerer(answerer, self.embedder)
            self._identity = embedder_identity(self.embedder)
            secret = self._server.run(self._claim_memory, write=True)
        except BaseException:
            self._server.close()
            raise
        self._cursors = kit.CursorCodec(secret, engine="postgres")
        self._vectors = VectorCache()

    @property
    def descriptor(self) -> EngineDescriptor:
        return DESCRIPTOR

    def health(self) -> EngineHealth:
        """Ok when the server answers, down when it does not (an ok health has no reason, so
        the descriptor is where the engine says how it ranks vectors)."""
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

    def _kept_embedder(self) -> Embedder:
        """The embedder when none is given: the default, or the installed one that filled the
        schema when that is another (it keeps answering until a reindex; said once)."""
        identity = self._server.run(_filled_by)
        if identity is None:
            return default_embedder()
        where = f"the postgres memory at {self.settings.where}"
        return memory_embedder(identity.split(":")[0], identity, where)

    def _claim_memory(self, connection: Connection) -> bytes:
        """Record the embedder on a new schema, or one holding no vectors; the schema's cursor
        secret (made with it, or now for an older one). A schema of another embedder is left
        as it is: :meth:`_same_embedder` refuses what would mix them.

        The record is the embedder's identity, ``name:dimensions`` for one without an
        identity: what schemas recorded before identities were, so those are adopted as
        they are.
        """
        connection.execute(
            "INSERT INTO settings(key, value) VALUES ('cursor_secret', %s) "
            "ON CONFLICT (key) DO NOTHING",
            (kit.new_secret().hex(),),
        )
        held = dict(connection.execute("SELECT key, value FROM settings").fetchall())
        empty = connection.execute("SELECT NOT EXISTS (SELECT 1 FROM pieces)").fetchone()
        if held.get("embedder") is None or (
            held["embedder"] != self._identity and empty and empty[0]
        ):
            connection.execute(
                "INSERT INTO settings(key, value) VALUES ('embedder', %s) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (self._identity,),
            )
        return bytes.fromhex(held["cursor_secret"])

    def _same_embedder(self, connection: Connection) -> None:
        """``ConfigError`` unless the schema's vectors are this engine's embedder's (read in the
        transaction about to use them, so a reindex by another process is seen)."""
        self._refuse_another_embedder(connection.execute(_RECORDED_EMBEDDER).fetchone())

    def _refuse_another_embedder(self, row: tuple[Any, ...] | None) -> None:
        """``ConfigError`` unless ``row``, the schema's recorded embedder, is this engine's."""
        if row is None or row[0] == self._identity:
            return
        raise ConfigError(
            f"the postgres schema `{self.settings.schema}` holds vectors from embedder "
            f"`{row[0]}`, not `{self._identity}`; run `tinymemory reindex` to re-embed it "
            f'with `{self.embedder.name}`, or open it with embedder = "{row[0].split(":")[0]}"'
        )

    # --- store --------------------------------------------------------------

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        return self._store([item])[0]

    def handle_store_many(self, items: list[StoreItem]) -> list[StoreReceipt]:
        return self._store(items)

    def _store(self, items: Sequence[StoreItem]) -> list[StoreReceipt]:
        prepared = [checked(item) for item in items]
        firsts = kit.first_copies(prepared)
        ids = [entry.id for entry in firsts]
        stored = self._server.run(lambda connection: existing(connection, ids))
        # Embedding runs before the write transaction, which it would hold up.
        vectors = kit.piece_vectors(self.embedder, [e for e in firsts if e.id not in stored])

        def work(connection: Connection) -> set[str]:
            # Under the write lock: what is stored now is final until this commits. Both
            # questions go in one round trip (with BEGIN and the lock: the write is pipelined).
            recorded = connection.execute(_RECORDED_EMBEDDER)
            held = existing(connection, ids)
            self._refuse_another_embedder(recorded.fetchone())
            fresh = [entry for entry in firsts if entry.id not in held]
            # Forgotten by another writer since the first look, so not embedded yet.
            late = [entry for entry in fresh if entry.id not in vectors]
            vectors.update(kit.piece_vectors(self.embedder, late))
            if fresh:
                write(connection, fresh, vectors)
            return {entry.id for entry in fresh}

        return kit.receipts(prepared, self._server.run(work, write=True))

    # --- reads without ranking ------------------------------------------------

    def handle_list(self, request: ListRequest) -> ListPage:
        page, next_cursor = self._page(request)
        hits = [Hit.of_item(row[1], item_from_json(row[2])) for row in page]
        return ListPage(items=hits, next_cursor=next_cursor)

    def handle_export(self, request: ListRequest) -> ExportPage:
        page, next_cursor = self._page(request)
        entries = [Exported(id=row[1], item=item_from_json(row[2])) for row in page]
        return ExportPage(items=entries, next_cursor=next_cursor)

    def _page(self, request: ListRequest) -> tuple[Sequence[tuple[int, str, str]], str | None]:
        paging = kit.ListPaging.of(request, self._cursors)
        clause = kit.filter_clause(request.filter, POSTGRES)
        statement = (
            f"SELECT i.seq, i.id, i.body FROM items i WHERE i.seq > %s AND {clause.sql} "
            "ORDER BY i.seq LIMIT %s"
        )
        params = (paging.after, *clause.params, paging.limit + 1)
        rows = self._server.run(lambda c: c.execute(statement, params).fetchall())
        return paging.page(rows, lambda row: int(row[0]), self._cursors)

    def handle_get(self, request: GetRequest) -> list[Hit]:
        ids = list(dict.fromkeys(request.ids))
        clause = kit.reach_clause(request.reach, POSTGRES)
        statement = f"SELECT i.id, i.body FROM items i WHERE i.id = ANY(%s) AND {clause.sql}"
        rows = self._server.run(lambda c: c.execute(statement, (ids, *clause.params)).fetchall())
        found = dict(rows)
        return [Hit.of_item(one, item_from_json(found[one])) for one in ids if one in found]

    def handle_explore(self, request: ExploreRequest) -> ExplorePage:
        clause = kit.filter_clause(request.filter, POSTGRES)
        grouped, counted = kit.explore_queries(clause, request.facet, request.scan_limit, "%s")

        def work(connection: Connection) -> tuple[list[tuple[Any, int]], int]:
            groups = connection.execute(grouped.sql, grouped.params).fetchall()
            # A count without GROUP BY answers one row, always.
            [(total,)] = connection.execute(counted.sql, counted.params).fetchall()
            return groups, int(total)

        return kit.explore_page(request, *self._server.run(work, snapshot=True))

    # --- forget and erase -----------------------------------------------------

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        clause = (
            kit.Clause("i.id = ANY(%s)", (list(target.ids),))
            if target.ids is not None
            else kit.filter_clause(target.filter or MetaFilter(), POSTGRES)
        )
        return ForgetReport(len(self._delete(clause)))

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        reach = request.reach
        clause = kit.erase_clause(reach.at, reach.descendants, POSTGRES)
        if request.kinds:
            clause = clause & kit.kinds_clause(request.kinds, POSTGRES)
        return EraseReport(erased_scopes=len(set(self._delete(clause))))

    def _delete(self, clause: kit.Clause) -> list[tuple[str, int]]:
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
            # The items, and their tags, pieces and vectors, in one statement.
            rows = connection.execute(
                f"WITH gone AS (DELETE FROM items i WHERE {clause.sql} "
                "RETURNING i.seq, i.kind, i.node), "
                "gone_tags AS (DELETE FROM item_tags t USING gone WHERE t.item = gone.seq), "
                "gone_pieces AS (DELETE FROM pieces p USING gone WHERE p.item = gone.seq "
                "RETURNING p.id), "
                "gone_vectors AS (DELETE FROM vectors v USING gone_pieces g WHERE v.piece = g.id) "
                "SELECT kind, node FROM gone",
                clause.params,
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
        paging = kit.RankedPaging.of(request, self._cursors)
        # A first page admits all its snapshot holds: the bound, the highest seq it admits,
        # is looked up only for a cursor to the next page.
        bound = kit.LARGEST_POSITION if paging.bound is None else paging.bound
        scope = kit.Scope.of(request.filter, bound, POSTGRES)
        if request.mode is FetchMode.KEYWORD:
            # One statement, one snapshot: ranking, hits and the bound at once.
            ranked, hits, highest = self._server.run(
                lambda c: keyword_page(c, request.query, scope, paging.offset, paging.depth)
            )
            bound = highest if paging.bound is None else bound
            return FetchPage(
                hits=hits, next_cursor=paging.next_cursor(self._cursors, bound, ranked)
            )
        # Embedded before the read transaction, which a slow embedder would hold open.
        vector = self._embed_query(request.query)

        def work(connection: Connection) -> tuple[int, int, list[Hit]]:
            self._same_embedder(connection)
            ranking = kit.ranked_by_mode(
                request.mode,
                partial(keyword_ranking, connection, request.query, scope),
                partial(self._vectors.ranking, connection, vector, scope),
                paging.depth + 1,
            )
            found = bound
            if paging.bound is None and len(ranking) > paging.depth:
                found = highest_admitted(connection, scope)
            chosen = ranking[paging.offset : paging.depth]
            return found, len(ranking), ranked_hits(connection, chosen)

        found, ranked, hits = self._server.run(work, snapshot=True)
        return FetchPage(hits=hits, next_cursor=paging.next_cursor(self._cursors, found, ranked))

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        vector = self._embed_query(request.question)
        limit = kit.most_rows(request.limit)

        def work(connection: Connection) -> tuple[list[kit.Ranked], list[kit.Ranked], list[Hit]]:
            scope = kit.Scope.of(request.filter, kit.LARGEST_POSITION, POSTGRES)
            self._same_embedder(connection)
            matched = keyword_ranking(connection, request.question, scope, limit)
            similar = self._vectors.ranking(connection, vector, scope, limit)
            return matched, similar, ranked_hits(connection, [*matched, *similar])

        matched, similar, found = self._server.run(work, snapshot=True)
        # Relevance embeds (the background once, windows of long pieces) outside the read.
        hits = kit.recall_hits(self.embedder, vector, matched, similar, found, limit)
        return self.answerer.answer(request, hits)

    def _embed_query(self, text: str) -> Any:
        return kit.embedding_matrix(self.embedder, [text])[0]

    # --- reindex ----------------------------------------------------------------

    def reindex(
        self,
        embedder: Embedder,
        *,
        batch_size: int = 256,
        progress: Callable[[int, int], None] | None = None,
    ) -> ReindexReport:
        """Re-embed every item with ``embedder`` (about ``batch_size`` pieces a batch) and use
        it from then on: :class:`~tinymemory.plugin.Reindexer`, the steps :mod:`.reindex`'s."""
        identity = embedder_identity(embedder)
        run = self._server.run
        report = kit.reindex_in_batches(
            embedder,
            begin=lambda: run(partial(reindex.begin, identity=identity), write=True),
            counts=lambda through: run(partial(reindex.counts, through=through)),
            next_pieces=lambda through: run(
                partial(reindex.next_pieces, through=through, batch_size=batch_size)
            ),
            commit=lambda rows, vectors: run(
                partial(reindex.commit_batch, identity=identity, rows=rows, vectors=vectors),
                write=True,
            ),
            finish=lambda: run(partial(reindex.finish, identity=identity), write=True),
            progress=progress,
        )
        self.embedder, self._identity = embedder, identity
        self.answerer = engine_answerer(self.answerer, embedder)
        return report


#: The identity of the embedder a schema's vectors are from.
_RECORDED_EMBEDDER = "SELECT value FROM settings WHERE key = 'embedder'"


def _filled_by(connection: Connection) -> str | None:
    """The identity of the embedder the schema's vectors are from; None while it has none."""
    row = connection.execute(
        f"SELECT ({_RECORDED_EMBEDDER}) WHERE EXISTS (SELECT 1 FROM pieces)"
    ).fetchone()
    return None if row is None else row[0]


def _server_version(connection: Connection) -> int:
    return int(connection.info.server_version)
