"""Rankings: keyword by FTS5's BM25, their fusion, and the hits a ranked read returns.

A ranking is a list of :class:`Ranked` entries, one per item (its best
piece), best first; the vector ranking is the engine's, over its matrix.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

import attrs

from tinymemory import Hit, Learning
from tinymemory.plugin import Piece

from . import keyword
from .filters import Clause
from .item_rows import parse_item

#: The constant of reciprocal-rank fusion: a hit at rank r adds 1 / (RRF_K + r).
RRF_K = 60


@attrs.frozen
class Ranked:
    """An item's place in a ranking: its ``seq``, its best piece and a score (higher is better)."""

    item: int
    piece: int
    score: float


def keyword_ranking(
    connection: sqlite3.Connection, words: list[str], clause: Clause, bound: int, depth: int
) -> list[Ranked]:
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
) -> list[Ranked]:
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
        ranked: dict[int, Ranked] = {}
        for item, piece, score, admitted in rows:
            if admitted and item not in ranked:
                strength = max(0.0, -score)
                ranked[item] = Ranked(item, piece, bonus + strength / (1.0 + strength))
        if len(ranked) >= depth or len(rows) < limit:
            return list(ranked.values())[:depth]
        limit *= 4


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


def fused(rankings: Sequence[list[Ranked]], depth: int) -> list[Ranked]:
    """Reciprocal-rank fusion; an item keeps the piece of the first ranking it is in."""
    scores: dict[int, float] = {}
    pieces: dict[int, int] = {}
    for ranking in rankings:
        for rank, entry in enumerate(ranking, start=1):
            scores[entry.item] = scores.get(entry.item, 0.0) + 1.0 / (RRF_K + rank)
            pieces.setdefault(entry.item, entry.piece)
    ordered = sorted(scores, key=lambda item: (-scores[item], item))[:depth]
    return [Ranked(item, pieces[item], scores[item]) for item in ordered]


def ranked_hits(connection: sqlite3.Connection, ranked: list[Ranked]) -> list[Hit]:
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
        item = parse_item(body)
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
