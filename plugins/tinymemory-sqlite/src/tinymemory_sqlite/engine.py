"""The embedded engine ``sqlite``: the whole contract over one SQLite file.

Filters, reaches, explore and paging run in SQL. Keyword fetch ranks by
BM25 with the statistics of what the read admits (FTS5's own when it admits
everything); vector fetch is an exact product over every piece's vector;
hybrid adds the two rankings' scores. Recall hands the best hybrid hits to its
answerer (by default sentences taken from them, each cited).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property, partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

import tinymemory as tm
from tinymemory.plugin import (
    default_embedder,
    embedder_identity,
    engine_answerer,
    item_from_json,
    memory_embedder,
)
from tinymemory.retrieval import (
    LARGEST_POSITION,
    Clause,
    CursorCodec,
    HashingEmbedder,
    ListPaging,
    Prepared,
    Ranked,
    RankedPaging,
    Scope,
    embedding_matrix,
    erase_clause,
    explore_page,
    explore_queries,
    filter_clause,
    first_copies,
    kinds_clause,
    most_rows,
    new_secret,
    piece_vectors,
    ranked_by_mode,
    reach_clause,
    recall_hits,
    receipts,
    reindex_in_batches,
)

from . import keyword, reindex
from .connections import Connections
from .descriptor import DESCRIPTOR
from .dialect import SQLITE
from .item_rows import existing, write
from .location import IN_MEMORY, database_path
from .purge import add_pending_purge, pending_purges
from .ranking import admitted, few_admitted, keyword_ranking, ranked_hits, read_bound

if TYPE_CHECKING:
    from tinymemory.plugin import Answerer, Embedder, ReindexReport

    from .vectors import Floats as Vector
    from .vectors import VectorIndex


T = TypeVar("T")


class SqliteEngine(tm.MemoryEngine):
    """The embedded engine over one SQLite file (``:memory:`` for a throwaway one).

    ``path`` defaults to ``$TINYMEMORY_SQLITE_PATH``, else
    ``$XDG_DATA_HOME/tinymemory/memory.db``. ``embedder`` makes the vectors
    (the dependency-free :class:`HashingEmbedder` when none is given: built
    through the registry, the engine is given :func:`kept_embedder`'s); a file records
    the embedder it was first written with (name, dimensions, identity), and
    an engine opened with another one refuses what would mix their vectors
    (store, vector and hybrid fetch, recall) until :meth:`reindex` re-embeds
    the file; keyword fetch, list, get, export, forget and erase still work.
    ``answerer`` writes recall's answers (:class:`ExtractiveAnswerer` by default).
    ``synchronous`` is ``normal``
    (survives an application crash) or ``full`` (also a power loss).
    Safe to share between threads; several processes may use one file.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        embedder: Embedder | None = None,
        answerer: Answerer | None = None,
        synchronous: str = "normal",
    ) -> None:
        self.path = database_path(path)
        self.embedder: Embedder = embedder or HashingEmbedder()
        self.answerer = engine_answerer(answerer, self.embedder)
        self._record = _record(self.embedder)
        self._connections = Connections(self.path, synchronous=synchronous)
        try:
            self._cursors = CursorCodec(self._claim_memory(), engine="sqlite")
        except BaseException:
            self._connections.close()
            raise
        # A purge another engine could not finish is finished by the first to open the file.
        self._purge_wanted = False
        self._retry_purge()

    @cached_property
    def _vectors(self) -> VectorIndex:
        """The vector matrix, made on first use: numpy loads with the first vector read,
        embedding or delete, so a process that only reads by keyword never loads it."""
        from .vectors import VectorIndex

        return VectorIndex(self.embedder.dimensions)

    @property
    def descriptor(self) -> tm.EngineDescriptor:
        return DESCRIPTOR

    def health(self) -> tm.EngineHealth:
        """Ok; degraded while forgotten text waits to be purged (``pending_purge``); down unread."""
        try:
            pending = self.pending_purge
        except Exception as error:  # health reports, it never raises
            return tm.EngineHealth.down(f"the sqlite database cannot be read: {error}")
        if pending:
            return tm.EngineHealth.degraded(
                f"pending_purge {pending}: forgotten or erased text is still in the file's bytes "
                "while another connection holds an old snapshot; it is purged at the next write "
                "or close once that reader lets go, or by `tinymemory sqlite purge`"
            )
        return tm.EngineHealth.ok()

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

    def _claim_memory(self) -> bytes:
        """Record the embedder on a new file, or an older one holding no record (or one
        without an identity) whose vectors are of its size; the file's cursor secret (made
        with the file, or now for an older one). A file of another embedder is left as it is:
        :meth:`_same_embedder` refuses what would mix them."""
        mine = self._record
        read = "SELECT key, value FROM settings WHERE key IN ('embedder', 'cursor_secret')"
        with self._connections.reading() as connection:
            held = dict(connection.execute(read).fetchall())
        if self._connections.read_only:
            # Nothing can be recorded in a file this process cannot write: a file made
            # before cursors were sealed has its reads sealed with this engine's own secret.
            return bytes.fromhex(held["cursor_secret"]) if "cursor_secret" in held else new_secret()
        if held.get("embedder") == mine and "cursor_secret" in held:
            return bytes.fromhex(held["cursor_secret"])
        with self._connections.writing() as connection:
            held = dict(connection.execute(read).fetchall())
            if "cursor_secret" not in held:
                held["cursor_secret"] = new_secret().hex()
                connection.execute(
                    "INSERT INTO settings(key, value) VALUES ('cursor_secret', ?)",
                    (held["cursor_secret"],),
                )
            if self._adopts(connection, held.get("embedder")):
                connection.execute(
                    "INSERT OR REPLACE INTO settings(key, value) VALUES ('embedder', ?)", (mine,)
                )
        return bytes.fromhex(held["cursor_secret"])

    def _adopts(self, connection: sqlite3.Connection, held: str | None) -> bool:
        """Whether this engine's embedder takes the record ``held`` over: none yet (a new file,
        or one made before embedders were recorded) when the file holds no vectors of another
        size, or the same name and size recorded without an identity (before identities were)."""
        if held is None:
            return _vector_size(connection) in (None, self.embedder.dimensions)
        return self._older_record_of_mine(held) or not _has_vectors(connection)

    def _older_record_of_mine(self, held: str) -> bool:
        """Whether ``held`` records this engine's embedder, as records did before identities."""
        recorded = json.loads(held)
        mine = (self.embedder.name, self.embedder.dimensions)
        return "identity" not in recorded and (recorded["name"], recorded["dimensions"]) == mine

    def _same_embedder(self, connection: sqlite3.Connection) -> None:
        """``ConfigError`` unless the file's vectors are this engine's embedder's (read in the
        transaction about to use them, so a reindex by another engine is seen)."""
        row = connection.execute("SELECT value FROM settings WHERE key = 'embedder'").fetchone()
        if row is None:
            # A file no embedder was recorded in (one this process may not write).
            size = _vector_size(connection)
            if size in (None, self.embedder.dimensions):
                return
            raise self._other_embedder(json.dumps({"name": "unrecorded", "dimensions": size}))
        if row[0] == self._record or self._older_record_of_mine(row[0]):
            return
        raise self._other_embedder(row[0])

    def _other_embedder(self, held: str) -> tm.ConfigError:
        """The error for a file whose vectors came from the embedder recorded as ``held``."""
        recorded = json.loads(held)
        theirs = recorded.get("identity", f"{recorded['name']}:{recorded['dimensions']}")
        return tm.ConfigError(
            f"the sqlite database `{self.path}` holds vectors from embedder "
            f"`{recorded['name']}` ({recorded['dimensions']} dimensions, {theirs}), not "
            f"`{self.embedder.name}` ({self.embedder.dimensions} dimensions, "
            f"{embedder_identity(self.embedder)}); run `tinymemory reindex` to re-embed it "
            f'with `{self.embedder.name}`, or open it with embedder = "{recorded["name"]}"'
        )

    # --- store --------------------------------------------------------------

    def handle_store(self, item: tm.StoreItem) -> tm.StoreReceipt:
        return self._store([item])[0]

    def handle_store_many(self, items: list[tm.StoreItem]) -> list[tm.StoreReceipt]:
        return self._store(items)

    def _store(self, items: Iterable[tm.StoreItem]) -> list[tm.StoreReceipt]:
        prepared = [Prepared.of(item) for item in items]
        firsts = first_copies(prepared)
        ids = [entry.id for entry in firsts]
        with self._connections.reading() as connection:
            stored = existing(connection, ids)
        # Embedding runs before the write transaction (which it would hold up), for new items only.
        vectors = piece_vectors(self.embedder, [e for e in firsts if e.id not in stored])
        with self._connections.writing() as connection:
            self._same_embedder(connection)
            stored = existing(connection, ids)
            fresh = [entry for entry in firsts if entry.id not in stored]
            if not fresh:
                return receipts(prepared, set())
            # Forgotten by another writer since the first look, so not embedded yet.
            late = [entry for entry in fresh if entry.id not in vectors]
            vectors.update(piece_vectors(self.embedder, late))
            before = self._vectors.bump_generation(connection)
            added = write(connection, fresh, vectors)
        self._vectors.added(before, added.pieces, added.items, added.vectors)
        self._retry_purge()
        return receipts(prepared, {entry.id for entry in fresh})

    # --- reads without ranking ------------------------------------------------

    def handle_list(self, request: tm.ListRequest) -> tm.ListPage:
        rows, next_cursor = self._page(request)
        items = [tm.Hit.of_item(item_id, item_from_json(body)) for _, item_id, body in rows]
        return tm.ListPage(items=items, next_cursor=next_cursor)

    def handle_export(self, request: tm.ListRequest) -> tm.ExportPage:
        rows, next_cursor = self._page(request)
        items = [tm.Exported(id=item_id, item=item_from_json(body)) for _, item_id, body in rows]
        return tm.ExportPage(items=items, next_cursor=next_cursor)

    def _page(self, request: tm.ListRequest) -> tuple[Sequence[tuple[int, str, str]], str | None]:
        paging = ListPaging.of(request, self._cursors)
        clause = filter_clause(request.filter, SQLITE)
        with self._connections.reading() as connection:
            rows = connection.execute(
                f"SELECT i.seq, i.id, i.body FROM items i WHERE i.seq > ? AND {clause.sql} "
                "ORDER BY i.seq LIMIT ?",
                (paging.after, *clause.params, paging.limit + 1),
            ).fetchall()
        return paging.page(rows, lambda row: int(row[0]), self._cursors)

    def handle_get(self, request: tm.GetRequest) -> list[tm.Hit]:
        ids = list(dict.fromkeys(request.ids))
        clause = reach_clause(request.reach, SQLITE)
        with self._connections.reading() as connection:
            found = dict(
                connection.execute(
                    "SELECT i.id, i.body FROM items i WHERE i.id IN "
                    f"(SELECT value FROM json_each(?)) AND {clause.sql}",
                    (json.dumps(ids), *clause.params),
                ).fetchall()
            )
        return [tm.Hit.of_item(i, item_from_json(found[i])) for i in ids if i in found]

    def handle_explore(self, request: tm.ExploreRequest) -> tm.ExplorePage:
        clause = filter_clause(request.filter, SQLITE)
        grouped, counted = explore_queries(clause, request.facet, request.scan_limit, "?")
        with self._connections.snapshot() as connection:
            groups = connection.execute(grouped.sql, grouped.params).fetchall()
            total = connection.execute(counted.sql, counted.params).fetchone()[0]
        return explore_page(request, groups, total)

    # --- forget and erase -----------------------------------------------------

    def handle_forget(self, target: tm.ForgetTarget) -> tm.ForgetReport:
        if target.ids is None:
            clause = filter_clause(target.filter or tm.MetaFilter(), SQLITE)
        else:
            ids = json.dumps(list(target.ids))
            clause = Clause("i.id IN (SELECT value FROM json_each(?))", (ids,))
        return tm.ForgetReport(len(self._delete(clause)))

    def handle_erase(self, request: tm.EraseRequest) -> tm.EraseReport:
        clause = erase_clause(request.reach.at, request.reach.descendants, SQLITE)
        if request.kinds:
            clause &= kinds_clause(request.kinds, SQLITE)
        return tm.EraseReport(erased_scopes=len(set(self._delete(clause))))

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
                "FROM piece_texts WHERE item IN (SELECT value FROM json_each(?))",
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
        """Finish a purge left pending by this engine or by any other on the file.

        The count is the file's (``pending_purge``), so the next writer, whichever
        process it is in, purges what a reader held up, once that reader is gone,
        however it went (a reader killed by SIGKILL lets go with its process).
        """
        if self._connections.in_memory or self._connections.read_only:
            return
        if self._purge_wanted or self.pending_purge > 0:
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

    def handle_fetch(self, request: tm.FetchRequest) -> tm.FetchPage:
        paging = RankedPaging.of(request, self._cursors)
        words = keyword.query_words(request.query)
        # Embedded before the read transaction, which a slow embedder would hold open.
        keyword_only = request.mode is tm.FetchMode.KEYWORD
        vector = None if keyword_only else self._embed_query(request.query)
        with self._connections.snapshot() as connection:
            scope = Scope.of(request.filter, LARGEST_POSITION, SQLITE)
            bound = read_bound(connection, scope) if paging.bound is None else paging.bound
            scope = attrs.evolve(scope, bound=bound)
            ranking = ranked_by_mode(
                request.mode,
                partial(keyword_ranking, connection, words, scope),
                partial(self._vector_ranking, connection, vector, scope),
                paging.depth + 1,
            )
            hits = ranked_hits(connection, ranking[paging.offset : paging.depth])
        return tm.FetchPage(
            hits=hits, next_cursor=paging.next_cursor(self._cursors, bound, len(ranking))
        )

    def handle_recall(self, request: tm.RecallRequest) -> tm.RecallAnswer:
        vector = self._embed_query(request.question)
        words = keyword.query_words(request.question)
        limit = most_rows(request.limit)
        with self._connections.snapshot() as connection:
            scope = Scope.of(request.filter, LARGEST_POSITION, SQLITE)
            matched = keyword_ranking(connection, words, scope, limit)
            similar = self._vector_ranking(connection, vector, scope, limit)
            found = ranked_hits(connection, [*matched, *similar])
        # Relevance embeds (the background once, windows of long pieces) outside the read.
        hits = recall_hits(self.embedder, vector, matched, similar, found, limit)
        return self.answerer.answer(request, hits)

    def _embed_query(self, text: str) -> Vector:
        vector: Vector = embedding_matrix(self.embedder, [text])[0]
        return vector

    def _vector_ranking(
        self, connection: sqlite3.Connection, vector: Vector | None, scope: Scope, depth: int
    ) -> list[Ranked]:
        """The best ``depth`` admitted items by cosine, which needs no corpus statistics."""
        assert vector is not None, "a keyword read ranks no vectors"
        self._same_embedder(connection)
        clause, bound = scope.clause, scope.bound
        self._vectors.refresh(connection)
        within = few_admitted(connection, scope, depth, self._vectors.size)
        ranked: list[Ranked] = []
        batch: list[Ranked] = []
        size = depth + 32
        for item, piece, score in self._vectors.ranked(vector, bound, within):
            batch.append(Ranked(item, piece, score))
            if len(batch) >= size:
                ranked += admitted(connection, batch, clause)
                if len(ranked) >= depth:
                    return ranked[:depth]
                batch, size = [], size * 8
        ranked += admitted(connection, batch, clause)
        return ranked[:depth]

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
        record = _record(embedder)
        report = reindex_in_batches(
            embedder,
            begin=lambda: self._writing(reindex.begin, record),
            counts=lambda through: self._reading(reindex.counts, through),
            next_pieces=lambda through: self._reading(reindex.next_pieces, through, batch_size),
            commit=lambda rows, vectors: self._writing(reindex.commit_batch, record, rows, vectors),
            finish=lambda: self._writing(self._finish_reindex, record),
            progress=progress,
        )
        self.embedder, self._record = embedder, record
        self.answerer = engine_answerer(self.answerer, embedder)
        self.__dict__.pop("_vectors", None)  # a matrix of the new size, read on first use
        self._retry_purge()
        return report

    def _finish_reindex(self, connection: sqlite3.Connection, record: str) -> bool:
        """The new vectors swapped in, and every engine on the file told to read them again."""
        if not reindex.finish(connection, record):
            return False
        self._vectors.bump_generation(connection, removing=True)
        return True

    def _reading(self, step: Callable[..., T], *args: Any) -> T:
        with self._connections.reading() as connection:
            return step(connection, *args)

    def _writing(self, step: Callable[..., T], *args: Any) -> T:
        with self._connections.writing() as connection:
            return step(connection, *args)


def _record(embedder: Embedder) -> str:
    """What a file records of the embedder that filled it."""
    return json.dumps(
        {
            "name": embedder.name,
            "dimensions": embedder.dimensions,
            "identity": embedder_identity(embedder),
        }
    )


def _vector_size(connection: sqlite3.Connection) -> int | None:
    """The size of the file's vectors (a byte code per entry beside int64 piece ids), None when
    it has none."""
    row = connection.execute(
        "SELECT length(vectors) * 8 / length(pieces) FROM vector_blocks LIMIT 1"
    ).fetchone()
    return None if row is None else int(row[0])


def kept_embedder(path: str) -> Embedder:
    """The embedder for the file at ``path`` (as :func:`database_path` gives it) when the
    settings name none: the default embedder, or the installed one that filled the file
    when that is another (it keeps answering until a reindex, and says so once).

    Chosen by the registry's build, not by :class:`SqliteEngine` itself, so an engine made
    directly for a keyword read loads no part of the plugin system."""
    recorded = None if path == IN_MEMORY else _filled_by(Path(path))
    if recorded is None:
        return default_embedder()
    identity = recorded.get("identity", f"{recorded['name']}:{recorded['dimensions']}")
    return memory_embedder(recorded["name"], identity, f"the sqlite database `{path}`")


def _filled_by(path: Path) -> dict[str, Any] | None:
    """The embedder record of the file at ``path`` when it holds vectors, read only."""
    if not path.is_file():
        return None
    read = "SELECT value FROM settings WHERE key = 'embedder'"
    try:
        uri = f"{path.resolve().as_uri()}?mode=ro"
        with contextlib.closing(sqlite3.connect(uri, uri=True)) as connection:
            row = connection.execute(read).fetchone()
            filled = row is not None and _has_vectors(connection)
    except sqlite3.Error:
        return None  # a file the engine migrates, or refuses, when it opens it
    return json.loads(row[0]) if filled else None


def _has_vectors(connection: sqlite3.Connection) -> bool:
    return connection.execute("SELECT 1 FROM vector_blocks LIMIT 1").fetchone() is not None
