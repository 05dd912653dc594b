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
from tinymemory.retrieval import Piece, Ranked, Scope, best_pieces, piece_hit

if TYPE_CHECKING:
    from .connections import Connection

#: BM25's constants: term-frequency saturation and length normalisation.
K1 = 1.2
B = 0.75
#: The most distinct words of a query that are searched for.
MAX_QUERY_WORDS = 32


def query_words(connection: Connection, text: str) -> list[str]:
    """The query's distinct lexemes as the pieces were indexed, at most :data:`MAX_QUERY_WORDS`."""
    row = connection.execute(
        "SELECT array(SELECT lexeme FROM unnest(to_tsvector('simple', %s)) ORDER BY lexeme)",
        (text.replace("\x00", " "),),
    ).fetchone()
    words: list[str] = row[0] if row else []
    return words[:MAX_QUERY_WORDS]


def any_of(words: list[str]) -> str:
    """A ``tsquery`` (as text) matching pieces holding any of the lexemes ``words``."""
    return " | ".join("'" + word.replace("\\", "\\\\").replace("'", "''") + "'" for word in words)


_KEYWORD = """
WITH matched AS MATERIALIZED (
    SELECT p.id, p.item, p.tokens, u.lexeme, cardinality(u.positions) AS frequency
    -- The matches first, from the GIN index (OFFSET 0 keeps the planner from
    -- scanning every admitted item instead), then those the read admits.
    -- Each match's item is then looked up by its key (OFFSET 0 again: not one hash of
    -- every admitted item).
    FROM (SELECT id, item, tokens, words FROM pieces WHERE words @@ %s::tsquery OFFSET 0) AS p
    CROSS JOIN LATERAL (SELECT 1 FROM items i WHERE i.seq = p.item AND {scope} OFFSET 0) AS i
    -- Only the query's lexemes, with their positions (weight A marks them for ts_filter).
    CROSS JOIN LATERAL unnest(ts_filter(setweight(p.words, 'A', %s), '{{a}}')) AS u
), holding AS (
    SELECT lexeme, count(*)::float8 AS pieces FROM matched GROUP BY lexeme
), terms AS (
    SELECT m.item, m.id, ln(1 + (%s - h.pieces + 0.5) / (h.pieces + 0.5))
        * m.frequency * %s / (m.frequency + %s * (1 - %s + %s * m.tokens / %s)) AS term
    FROM matched m JOIN holding h USING (lexeme)
    -- Each piece's terms summed in one order, so its score never depends on the plan.
    ORDER BY m.item, m.id, m.lexeme
), scored AS (
    SELECT item, id, count(*) AS held, sum(term) AS score FROM terms GROUP BY item, id
)
SELECT item, id, score, held = %s AS every FROM scored
ORDER BY every DESC, score DESC, id LIMIT %s
"""


def keyword_ranking(
    connection: Connection, words: list[str], scope: Scope, depth: int
) -> list[Ranked]:
    """Items holding every word first, then items holding any, by BM25 over what is admitted.

    A score is ``s / (1 + s)`` of the BM25 score ``s``, plus 1 for items
    holding every word, so scores fall as the ranking goes on.
    """
    if not words or depth < 1:
        return []
    pieces, tokens = admitted_sizes(connection, scope)
    if not pieces:
        return []
    average = tokens / pieces or 1.0
    admitted = scope.admitted
    statement = _KEYWORD.format(scope=admitted.sql)
    limit = depth + 16
    while True:
        params = (any_of(words), *admitted.params, words, float(pieces),
                  K1 + 1, K1, B, B, average, len(words), limit)  # fmt: skip
        rows = connection.execute(statement, params).fetchall()
        ranked = best_pieces(rows, depth)
        if len(ranked) >= depth or len(rows) < limit:
            return ranked
        limit *= 4


def highest_admitted(connection: Connection, scope: Scope) -> int:
    """The highest ``seq`` ``scope`` admits (0 for none): from the newest down, by the key."""
    admitted = scope.admitted
    row = connection.execute(
        f"SELECT i.seq FROM items i WHERE {admitted.sql} ORDER BY i.seq DESC LIMIT 1",
        admitted.params,
    ).fetchone()
    return int(row[0]) if row else 0


def admitted_sizes(connection: Connection, scope: Scope) -> tuple[int, int]:
    """How many pieces ``scope`` admits and their total length in tokens.

    From ``node_sizes`` when the reach and kinds alone decide, less what was
    stored after the read's bound; else counted over the admitted items.
    """
    if scope.sizes is None:
        admitted = scope.admitted
        row = connection.execute(
            "SELECT count(*), coalesce(sum(p.tokens), 0) FROM pieces p "
            f"JOIN items i ON i.seq = p.item WHERE {admitted.sql}",
            admitted.params,
        ).fetchone()
    else:
        row = connection.execute(
            "SELECT coalesce(sum(pieces), 0) - (SELECT count(*) FROM pieces p JOIN items i "
            f"ON i.seq = p.item WHERE i.seq > %s AND ({scope.clause.sql})), "
            "coalesce(sum(tokens), 0) - (SELECT coalesce(sum(p.tokens), 0) FROM pieces p "
            f"JOIN items i ON i.seq = p.item WHERE i.seq > %s AND ({scope.clause.sql})) "
            f"FROM node_sizes i WHERE {scope.sizes.sql}",
            (
                scope.bound,
                *scope.clause.params,
                scope.bound,
                *scope.clause.params,
                *scope.sizes.params,
            ),
        ).fetchone()
    assert row is not None
    return int(row[0]), int(row[1])


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
    hits = []
    for entry in ranked:
        item_id, body, start, length, first, last, section = found[entry.piece]
        item = item_from_json(body)
        # The item's own text (a piece's indexed copy has any NUL replaced).
        text = item.render_text()[start : start + length]
        piece = Piece(
            text=text, start=start, pages=(first, last) if first else None, section=section
        )
        hits.append(piece_hit(item_id, item, piece, entry.score))
    return hits
