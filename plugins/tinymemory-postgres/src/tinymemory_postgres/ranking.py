"""Keyword rankings in the server, by BM25 over what a read admits, and hits of rankings.

A ranking is a list of the kit's :class:`~tinymemory.retrieval.Ranked`
entries keyed by ``seq`` and piece id, one per item (its best piece), best
first; the kit fuses them. Every statistic a keyword score uses (how many pieces,
their average length, how many hold each word) is counted over the pieces
the read admits, never over the whole table, so a score tells a reader
nothing of memory it cannot read (a piece's own figures, how often it holds
a word and its length, are its own). The query's words are PostgreSQL's:
``to_tsvector('simple', ...)`` of the query, as the pieces were indexed.
Vector rankings are :mod:`~tinymemory_postgres.vector_cache`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinymemory import Hit
from tinymemory.plugin import item_from_json
from tinymemory.retrieval import (
    LARGEST_POSITION,
    Clause,
    Piece,
    Ranked,
    Scope,
    best_pieces,
    piece_hit,
)

if TYPE_CHECKING:
    from .connections import Connection

#: BM25's constants: term-frequency saturation and length normalisation.
K1 = 1.2
B = 0.75
#: The most distinct words of a query that are searched for.
MAX_QUERY_WORDS = 32


_KEYWORD = """
WITH query AS MATERIALIZED (
    -- The query's distinct lexemes, as the pieces were indexed, and a tsquery of any of them.
    SELECT words, array_to_string(array(
        SELECT $$'$$ || replace(replace(w, $$\\$$, $$\\\\$$), $$'$$, $$''$$) || $$'$$
        FROM unnest(words) AS w
    ), ' | ')::tsquery AS matching
    -- (OFFSET 0: the lexemes are computed once, not once for each use of them.)
    FROM (SELECT array(SELECT lexeme FROM unnest(to_tsvector('simple', %s))
                       ORDER BY lexeme LIMIT %s) AS words OFFSET 0) AS q
    WHERE cardinality(words) > 0
), sizes AS MATERIALIZED (
    {sizes}
), matched AS MATERIALIZED (
    SELECT id, item, tokens, (u).lexeme, cardinality((u).positions) AS frequency FROM (
        -- The matches first, from the GIN index (OFFSET 0 keeps the planner from
        -- scanning every admitted item instead), then those the read admits; of each,
        -- only the query's lexemes with their positions (weight A marks them for
        -- ts_filter), unnested in the select list (no function scan per match).
        SELECT p.id, p.item, p.tokens,
            unnest(ts_filter(setweight(p.words, 'A', q.words), '{{a}}')) AS u
        FROM query q
        CROSS JOIN LATERAL (
            {admitted_matches}
        ) AS p
    ) AS each_word
), holding AS (
    SELECT lexeme, count(*)::float8 AS pieces FROM matched GROUP BY lexeme
), terms AS (
    SELECT m.item, m.id, ln(1 + (s.pieces - h.pieces + 0.5) / (h.pieces + 0.5))
        * m.frequency * %s / (m.frequency + %s * (1 - %s + %s * m.tokens / s.average)) AS term
    FROM matched m JOIN holding h USING (lexeme) CROSS JOIN sizes s
    -- Each piece's terms summed in one order, so its score never depends on the plan.
    ORDER BY m.item, m.id, m.lexeme
), scored AS (
    SELECT t.item, t.id, sum(t.term) AS score, count(*) = cardinality(q.words) AS every
    FROM terms t CROSS JOIN query q GROUP BY t.item, t.id, q.words
), best AS (
    -- Each item by its best piece: holding every word first, then by score.
    SELECT item, id, score, every, row_number() OVER (
        PARTITION BY item ORDER BY every DESC, score DESC, id
    ) AS place FROM scored
), ranked AS (
    SELECT item, id, score, every, row_number() OVER (ORDER BY every DESC, score DESC, id) AS rank
    FROM best WHERE place = 1 ORDER BY every DESC, score DESC, id LIMIT %s
)
"""

#: The ranking alone, best first.
_RANKING = "SELECT item, id, score, every FROM ranked ORDER BY rank"

#: A page of the ranking: each entry's hit from rank ``offset`` to ``depth``, and the
#: highest ``seq`` the read admits (a next page's bound).
_PAGE = """
SELECT r.item, r.id, r.score, r.every, i.id, i.body, p.start, p.length, p.first_page,
    p.last_page, p.section, ({highest}) AS highest
FROM ranked r
LEFT JOIN pieces p ON p.id = r.id AND r.rank > %s
LEFT JOIN items i ON i.seq = r.item AND r.rank > %s AND r.rank <= %s
ORDER BY r.rank
"""


def _keyword(text: str, scope: Scope, depth: int) -> Clause:
    """The statement ranking the best ``depth`` items holding a word of ``text`` (its
    ``ranked`` CTE) by BM25 over what ``scope`` admits: the statistics counted in it too.

    Never prepared: a plan for any parameters reads far more than one for these.
    """
    sizes = _sizes(scope)
    matches = _admitted_matches(scope)
    statement = _KEYWORD.format(sizes=sizes.sql, admitted_matches=matches.sql)
    params = (text.replace("\x00", " "), MAX_QUERY_WORDS, *sizes.params, *matches.params,
              K1 + 1, K1, B, B, depth)  # fmt: skip
    return Clause(statement, params)


def _admitted_matches(scope: Scope) -> Clause:
    """The pieces matching ``q.matching`` that ``scope`` admits: ``id, item, tokens, words``.

    When the reach and kinds alone decide, each match is checked on its own row (a piece
    holds its item's node and kind); else its item is looked up by its key (OFFSET 0
    again: not one hash of every admitted item).
    """
    if scope.sizes is not None:
        # The sizes clause reads ``i.node`` and ``i.kind``, which a piece holds too.
        return Clause(
            "SELECT id, item, tokens, words FROM pieces i WHERE words @@ q.matching "
            f"AND i.item <= %s AND ({scope.sizes.sql}) OFFSET 0",
            (scope.bound, *scope.sizes.params),
        )
    admitted = scope.admitted
    return Clause(
        "SELECT p.id, p.item, p.tokens, p.words FROM "
        "(SELECT id, item, tokens, words FROM pieces WHERE words @@ q.matching OFFSET 0) AS p "
        f"CROSS JOIN LATERAL (SELECT 1 FROM items i WHERE i.seq = p.item AND {admitted.sql} "
        "OFFSET 0) AS i",
        admitted.params,
    )


def keyword_ranking(connection: Connection, text: str, scope: Scope, depth: int) -> list[Ranked]:
    """Items holding every word first, then items holding any, by BM25 over what is admitted.

    A score is ``s / (1 + s)`` of the BM25 score ``s``, plus 1 for items
    holding every word, so scores fall as the ranking goes on.
    """
    if depth < 1:
        return []
    ranking = _keyword(text, scope, depth)
    rows = connection.execute(ranking.sql + _RANKING, ranking.params, prepare=False).fetchall()
    return best_pieces(rows, depth)


def keyword_page(
    connection: Connection, text: str, scope: Scope, offset: int, depth: int
) -> tuple[int, list[Hit], int]:
    """A keyword read's page in one statement: how many items were ranked of ``depth + 1``
    (one more tells whether a next page exists), the hits of those from ``offset`` to
    ``depth``, and the highest ``seq`` the read admits."""
    ranking = _keyword(text, scope, depth + 1)
    highest = _highest(scope)
    statement = ranking.sql + _PAGE.format(highest=highest.sql)
    params = (*ranking.params, *highest.params, offset, offset, depth)
    found = connection.execute(statement, params, prepare=False).fetchall()
    ranked = best_pieces([row[:4] for row in found], depth + 1)
    hits = [
        _hit(entry, *row[4:11])
        for rank, (entry, row) in enumerate(zip(ranked, found, strict=True))
        if offset <= rank < depth
    ]
    return len(ranked), hits, int(found[0][11] or 0) if found else 0


def highest_admitted(connection: Connection, scope: Scope) -> int:
    """The highest ``seq`` ``scope`` admits (0 for none)."""
    highest = _highest(scope)
    row = connection.execute(highest.sql, highest.params).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def _highest(scope: Scope) -> Clause:
    """The highest ``seq`` ``scope`` admits (none for none): from the newest down, by the key."""
    admitted = scope.admitted
    return Clause(
        f"SELECT i.seq FROM items i WHERE {admitted.sql} ORDER BY i.seq DESC LIMIT 1",
        admitted.params,
    )


def _sizes(scope: Scope) -> Clause:
    """How many pieces ``scope`` admits and their average length (1 when none has one).

    From ``node_sizes`` when the reach and kinds alone decide, less what was
    stored after the read's bound; else counted over the admitted items.
    """
    average = (
        "SELECT pieces::float8 AS pieces, "
        "CASE WHEN tokens > 0 THEN tokens::float8 / pieces ELSE 1 END AS average FROM"
    )
    if scope.sizes is None:
        admitted = scope.admitted
        return Clause(
            f"{average} (SELECT count(*) AS pieces, coalesce(sum(p.tokens), 0) AS tokens "
            f"FROM pieces p JOIN items i ON i.seq = p.item WHERE {admitted.sql}) AS a",
            admitted.params,
        )
    if scope.bound >= LARGEST_POSITION:
        # A first page: nothing is stored after its bound, and nothing need be planned for it.
        return Clause(
            f"{average} (SELECT coalesce(sum(pieces), 0) AS pieces, "
            f"coalesce(sum(tokens), 0) AS tokens FROM node_sizes i WHERE {scope.sizes.sql}) AS a",
            scope.sizes.params,
        )
    later = (
        f"FROM pieces p JOIN items i ON i.seq = p.item WHERE i.seq > %s AND ({scope.clause.sql})"
    )
    return Clause(
        f"{average} (SELECT coalesce(sum(pieces), 0) - (SELECT count(*) {later}) AS pieces, "
        f"coalesce(sum(tokens), 0) - (SELECT coalesce(sum(p.tokens), 0) {later}) AS tokens "
        f"FROM node_sizes i WHERE {scope.sizes.sql}) AS a",
        (scope.bound, *scope.clause.params, scope.bound, *scope.clause.params,
         *scope.sizes.params),
    )  # fmt: skip


def ranked_hits(connection: Connection, ranked: list[Ranked]) -> list[Hit]:
    """Hits for ranked entries: the item's id and meta, the piece's text and tags."""
    if not ranked:
        return []
    rows = connection.execute(
        "SELECT p.id, i.id, i.body, p.start, p.length, p.first_page, p.last_page, p.section "
        "FROM pieces p JOIN items i ON i.seq = p.item WHERE p.id = ANY(%s)",
        ([entry.piece for entry in ranked],),
    ).fetchall()
    found = {row[0]: row[1:] for row in rows}
    return [_hit(entry, *found[entry.piece]) for entry in ranked]


def _hit(
    entry: Ranked,
    item_id: str,
    body: str,
    start: int,
    length: int,
    first: int | None,
    last: int,
    section: str | None,
) -> Hit:
    """The hit of a ranked entry from its item's row and its piece's."""
    item = item_from_json(body)
    # The item's own text (the piece's place in it).
    text = item.render_text()[start : start + length]
    piece = Piece(text=text, start=start, pages=(first, last) if first else None, section=section)
    return piece_hit(item_id, item, piece, entry.score)
