"""Rankings in the server: keyword by BM25 over what a read admits, exact vectors, their fusion.

A ranking is a list of :class:`Ranked` entries, one per item (its best
piece), best first. Every statistic a keyword score uses (how many pieces,
their average length, how many hold each word) is counted over the pieces
the read admits, never over the whole table, so a score tells a reader
nothing of memory it cannot read (a piece's own figures, how often it holds
a word and its length, are its own). The query's words are PostgreSQL's:
``to_tsvector('simple', ...)`` of the query, as the pieces were indexed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from tinymemory import Hit, Learning, MetaFilter
from tinymemory.plugin import Piece, item_from_json

from .filters import Clause, filter_clause, kinds_clause, reach_clause

if TYPE_CHECKING:
    import numpy as np

    from .connections import Connection

#: The constant of reciprocal-rank fusion (the sqlite engine's): rank r adds 1 / (RRF_K + r).
RRF_K = 60
#: BM25's constants: term-frequency saturation and length normalisation.
K1 = 1.2
B = 0.75
#: The most distinct words of a query that are searched for.
MAX_QUERY_WORDS = 32


@attrs.frozen
class Ranked:
    """An item's place in a ranking: its ``seq``, its best piece and a score (higher is better)."""

    item: int
    piece: int
    score: float


@attrs.frozen
class Scope:
    """What a ranked read admits: the items ``clause`` admits, stored up to ``bound``.

    ``sizes`` is the same test over ``node_sizes AS i``, when the filter's
    reach and kinds alone decide (``None`` otherwise).
    """

    clause: Clause
    bound: int
    sizes: Clause | None

    @classmethod
    def of(cls, filter: MetaFilter, bound: int) -> Scope:
        """The scope of a read with ``filter`` up to ``bound``."""
        sizes = None
        if attrs.evolve(filter, reach=None, kinds=()).is_empty():
            sizes = reach_clause(filter.reach)
            if filter.kinds:
                sizes &= kinds_clause(filter.kinds)
        return cls(filter_clause(filter), bound, sizes)

    @property
    def sql(self) -> str:
        return f"i.seq <= %s AND ({self.clause.sql})"

    @property
    def params(self) -> tuple[Any, ...]:
        return (self.bound, *self.clause.params)


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
    CROSS JOIN LATERAL unnest(p.words) AS u
    WHERE u.lexeme = ANY(%s)
), sizes AS (
    SELECT %s::float8 AS pieces, %s::float8 AS average
), holding AS (
    SELECT lexeme, count(*)::float8 AS pieces FROM matched GROUP BY lexeme
), scored AS (
    SELECT m.item, m.id, count(*) AS held, sum(
        ln(1 + (s.pieces - h.pieces + 0.5) / (h.pieces + 0.5))
        * m.frequency * %s / (m.frequency + %s * (1 - %s + %s * m.tokens / s.average))
        ORDER BY m.lexeme
    ) AS score
    FROM matched m JOIN holding h USING (lexeme) CROSS JOIN sizes s GROUP BY m.item, m.id
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
    statement = _KEYWORD.format(scope=scope.sql)
    limit = depth + 16
    while True:
        params = (any_of(words), *scope.params, words, pieces, average,
                  K1 + 1, K1, B, B, len(words), limit)  # fmt: skip
        rows = connection.execute(statement, params).fetchall()
        ranked = _best_pieces(rows, depth)
        if len(ranked) >= depth or len(rows) < limit:
            return ranked
        limit *= 4


def admitted_sizes(connection: Connection, scope: Scope) -> tuple[int, int]:
    """How many pieces ``scope`` admits and their total length in tokens.

    From ``node_sizes`` when the reach and kinds alone decide, less what was
    stored after the read's bound; else counted over the admitted items.
    """
    if scope.sizes is None:
        row = connection.execute(
            "SELECT count(*), coalesce(sum(p.tokens), 0) FROM pieces p "
            f"JOIN items i ON i.seq = p.item WHERE {scope.sql}",
            scope.params,
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


def _best_pieces(rows: Iterable[tuple[int, int, float, bool]], depth: int) -> list[Ranked]:
    """The first ``depth`` items, each by its first piece, from ``(item, piece, score, every)``."""
    ranked: dict[int, Ranked] = {}
    for item, piece, strength, every in rows:
        if len(ranked) == depth:
            break
        if item not in ranked:
            strength = max(0.0, float(strength))
            ranked[item] = Ranked(
                item, piece, (1.0 if every else 0.0) + strength / (1.0 + strength)
            )
    return list(ranked.values())


def vector_ranking(
    connection: Connection, vector: np.ndarray[Any, Any], scope: Scope, depth: int
) -> list[Ranked]:
    """The best ``depth`` admitted items by cosine, exactly: every admitted piece's vector.

    The server holds no ``vector`` extension here, so the admitted pieces'
    vectors (float32, unit length) are read in binary and multiplied here.
    """
    import numpy as np

    if depth < 1:
        return []
    with connection.cursor(binary=True) as cursor:
        cursor.execute(
            f"SELECT p.item, p.id, p.vector FROM pieces p JOIN items i ON i.seq = p.item "
            f"WHERE {scope.sql}",
            scope.params,
        )
        rows = cursor.fetchall()
    if not rows:
        return []
    matrix = np.frombuffer(b"".join(row[2] for row in rows), dtype=np.float32)
    scores = matrix.reshape(len(rows), -1) @ vector
    # Best first; ties by piece id, so the order never depends on the scan.
    order = np.lexsort((np.array([row[1] for row in rows]), -scores))
    ranked: dict[int, Ranked] = {}
    for index in order:
        item, piece = rows[index][0], rows[index][1]
        if item not in ranked:
            ranked[item] = Ranked(item, piece, float(scores[index]))
            if len(ranked) == depth:
                break
    return list(ranked.values())


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
        pages = (first, last) if first else None
        tags = Piece(text=text, start=start, pages=pages, section=section).tags()
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
