"""Keyword ranking by BM25 over what a read admits, and the hits of ranked entries.

A ranking is a list of the kit's :class:`~tinymemory.retrieval.Ranked`
entries keyed by ``seq`` and piece id, one per item (its best piece), best
first; the vector ranking is the engine's, over its matrix.
"""

from __future__ import annotations

import json
import math
import sqlite3

from tinymemory import Hit
from tinymemory.plugin import item_from_json
from tinymemory.retrieval import Clause, Piece, Ranked, Scope, best_pieces, bound_query, piece_hit

from . import bm25, keyword

#: A scope admitting fewer pieces than this many times a word's matches in the whole
#: file lists its pieces once, rather than reading the item of every match (each
#: costs about ten times as much as a piece listed).
SMALL_SCOPE = 8


def read_bound(connection: sqlite3.Connection, scope: Scope) -> int:
    """The highest ``seq`` the read admits (0 for none): a ranked read's first bound.

    When the reach and kinds alone decide (``scope.sizes``), it is the
    largest of each admitted node and kind's last item, one seek of the
    ``(node, kind)`` index each, rather than a pass over every admitted item
    (which grows with the memory: at 10,000 items it took longer than the
    keyword search itself); otherwise it is counted over the admitted items.
    """
    if scope.sizes is None:
        counted = bound_query(scope.clause)
        return int(connection.execute(counted.sql, counted.params).fetchone()[0])
    return bm25.last_admitted(connection, scope.sizes)


def keyword_ranking(
    connection: sqlite3.Connection, words: list[str], scope: Scope, depth: int
) -> list[Ranked]:
    """Items holding every word first, then items holding any (stop words aside), by BM25.

    Each piece is scored by BM25 over the query's words (stop words aside,
    unless it has only those), with statistics of the pieces ``scope``
    admits. A score is ``s / (1 + s)`` of the BM25 score ``s``, plus 1 for
    items holding every word, so scores fall as the ranking goes on.
    """
    if not words:
        return []
    admitted_sizes = bm25.admitted(connection, scope)
    if not admitted_sizes.pieces:
        return []
    if admitted_sizes == bm25.whole(connection):
        # The read admits every piece: FTS5's own statistics are the read's.
        return _ranked_by_fts5(connection, words, depth)
    return _ranked_in_scope(connection, words, scope, admitted_sizes, depth)


def _ranked_by_fts5(connection: sqlite3.Connection, words: list[str], depth: int) -> list[Ranked]:
    """The best ``depth`` items by FTS5's ``bm25()``, in one statement.

    The pieces holding every word come first; those holding only some are
    asked for only when the first do not fill the limit (the compound
    ``LIMIT`` stops before its second part). Both parts score the same
    phrases, the content words, so a piece's score is the same in either.
    When the pieces are fewer items than asked for (a document has several),
    four times as many are asked for.
    """
    content = keyword.content_words(words)
    every = "pieces_fts MATCH ?"
    every_params: tuple[str, ...] = (keyword.all_of(content),)
    if content != words:
        every += " AND rowid IN (SELECT rowid FROM pieces_fts WHERE pieces_fts MATCH ?)"
        every_params += (keyword.all_of(words),)
    sql = (
        "SELECT rowid, bm25(pieces_fts) AS score, 1 AS every FROM pieces_fts "
        f"WHERE {every} ORDER BY score, rowid LIMIT ?"
    )
    if len(words) > 1:
        sql = (
            f"SELECT * FROM ({sql}) UNION ALL SELECT * FROM ("
            "SELECT rowid, bm25(pieces_fts) AS score, 0 FROM pieces_fts "
            "WHERE pieces_fts MATCH ? AND rowid NOT IN "
            f"(SELECT rowid FROM pieces_fts WHERE {every}) "
            "ORDER BY score, rowid LIMIT ?) LIMIT ?"
        )
    limit = depth + 16
    while True:
        params: tuple[object, ...] = (*every_params, limit)
        if len(words) > 1:
            params += (keyword.any_of(content), *every_params, limit, limit)
        rows = connection.execute(
            f"SELECT p.item, m.rowid, m.score, m.every FROM ({sql}) AS m "
            "JOIN pieces p ON p.id = m.rowid ORDER BY m.every DESC, m.score, m.rowid",
            params,
        ).fetchall()
        best = ((item, piece, -score, every) for item, piece, score, every in rows)
        ranked = best_pieces(best, depth)
        if len(ranked) >= depth or len(rows) < limit:
            return ranked
        limit *= 4


def _ranked_in_scope(
    connection: sqlite3.Connection,
    words: list[str],
    scope: Scope,
    sizes: bm25.Sizes,
    depth: int,
) -> list[Ranked]:
    """The best ``depth`` items by BM25 with the statistics of what ``scope`` admits.

    Each content word is matched alone: its admitted matches give its count,
    and FTS5's score of each gives the piece's frequency of it (FTS5 scored
    it with the whole file's statistics, read here too).
    """
    content = keyword.content_words(words)
    whole = bm25.whole(connection)
    clause = scope.clause
    totals: dict[int, float] = {}
    items: dict[int, int] = {}
    held: dict[int, int] = {}
    for word in content:
        match = keyword.phrase(word)
        holding = connection.execute(
            "SELECT count(*) FROM pieces_fts WHERE pieces_fts MATCH ?", (match,)
        ).fetchone()[0]
        if sizes.pieces < SMALL_SCOPE * holding:
            # Few admitted pieces among many matches: each match is looked up in them.
            admitted = (
                "SELECT m.rowid, p.item, p.tokens, m.score FROM ("
                "SELECT rowid, bm25(pieces_fts) AS score FROM pieces_fts WHERE pieces_fts MATCH ? "
                "AND +rowid IN (SELECT p.id FROM items i JOIN pieces p ON p.item = i.seq "
                f"WHERE i.seq <= ? AND {clause.sql})) AS m JOIN pieces p ON p.id = m.rowid"
            )
        else:
            # Each match's item is read and tested.
            admitted = (
                "SELECT m.rowid, p.item, p.tokens, m.score FROM ("
                "SELECT rowid, bm25(pieces_fts) AS score FROM pieces_fts WHERE pieces_fts MATCH ?"
                ") AS m JOIN pieces p ON p.id = m.rowid JOIN items i ON i.seq = p.item "
                f"WHERE i.seq <= ? AND {clause.sql}"
            )
        rows = connection.execute(admitted, (match, scope.bound, *clause.params)).fetchall()
        whole_idf = bm25.idf(whole, holding)
        scope_idf = bm25.idf(sizes, len(rows))
        for piece, item, length, score in rows:
            frequency = bm25.frequency(score, whole_idf, length, whole.average)
            weight = scope_idf * bm25.weight(frequency, length, sizes.average)
            totals[piece] = totals.get(piece, 0.0) + weight
            items[piece] = item
            held[piece] = held.get(piece, 0) + 1
    if content == words:
        every = {piece for piece, count in held.items() if count == len(content)}
    else:
        every = {
            row[0]
            for row in connection.execute(
                "SELECT rowid FROM pieces_fts WHERE pieces_fts MATCH ?", (keyword.all_of(words),)
            )
        }
    order = sorted(totals, key=lambda piece: (piece not in every, -totals[piece], piece))
    best = ((items[piece], piece, totals[piece], piece in every) for piece in order)
    return best_pieces(best, depth)


#: Listing an admitted item (an SQL row) costs about as much as scoring this many pieces'
#: vectors in the whole scan (0.7 µs against 22 ns at a million pieces here).
LISTED_PER_SCANNED = 32


def few_admitted(
    connection: sqlite3.Connection, scope: Scope, depth: int, indexed: int
) -> list[int] | None:
    """The items ``scope`` admits, ascending, when they are few enough that listing them
    and scoring just their vectors beats scanning all ``indexed``; else None.

    Where the reach and kinds alone decide, the admitted nodes and kinds' pieces are
    summed from ``node_sizes`` (one row each; items stored after the bound count too,
    so it is an upper bound) and listed while at most ``indexed / LISTED_PER_SCANNED``:
    at a million pieces, a node of 3,000 items is read in 3 ms of CPU against the
    scan's 25. Other filters cannot be counted without reading the items: they are
    listed while the scan would test more of the best than they hold (about ``depth *
    indexed / admitted``, so ``admitted ** 2 <= depth * indexed``), which bounds what
    a filter admitting many wastes on the attempt to a few thousand rows.
    """
    if scope.sizes is not None:
        most = indexed // LISTED_PER_SCANNED
        held = connection.execute(
            f"SELECT coalesce(sum(pieces), 0) FROM node_sizes i WHERE {scope.sizes.sql}",
            scope.sizes.params,
        ).fetchone()[0]
        if held > most:
            return None
    else:
        most = math.isqrt(depth * indexed)
    clause = scope.clause
    seqs = [
        seq
        for (seq,) in connection.execute(
            f"SELECT i.seq FROM items i WHERE i.seq <= ? AND {clause.sql} LIMIT ?",
            (scope.bound, *clause.params, most + 1),
        )
    ]
    return sorted(seqs) if len(seqs) <= most else None


def admitted(connection: sqlite3.Connection, ranked: list[Ranked], clause: Clause) -> list[Ranked]:
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


def ranked_hits(connection: sqlite3.Connection, ranked: list[Ranked]) -> list[Hit]:
    """Hits for ranked entries: the item's id and meta, the piece's text and tags."""
    if not ranked:
        return []
    rows = connection.execute(
        "SELECT p.id, i.id, i.body, p.text, p.first_page, p.last_page, p.section "
        "FROM piece_texts p JOIN items i ON i.seq = p.item "
        "WHERE p.id IN (SELECT value FROM json_each(?))",
        (json.dumps([entry.piece for entry in ranked]),),
    ).fetchall()
    found = {row[0]: row[1:] for row in rows}
    hits = []
    for entry in ranked:
        item_id, body, text, first, last, section = found[entry.piece]
        pages = (first, last) if first else None
        piece = Piece(text=text, start=0, pages=pages, section=section)
        hits.append(piece_hit(item_id, item_from_json(body), piece, entry.score))
    return hits
