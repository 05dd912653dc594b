"""BM25 as FTS5's ``bm25()`` computes it, over the pieces a read admits.

FTS5 scores with statistics of its whole index: how many rows it holds,
their average length and how many hold each phrase. Those count items a
read does not admit, so a score would tell a reader how much a sibling's
memory holds a word. Here the same formula takes them from the admitted
pieces alone: ``sizes`` (their number and total length) from ``node_sizes``
or the items a filter admits, and a phrase's count from its admitted
matches. A piece's own figures (how often it holds a phrase, its length)
are FTS5's: its stored length, and the frequency read back from FTS5's
one-phrase score. Every operation is FTS5's, in its order, so where the
read admits every piece both give the same floating-point score.
"""

from __future__ import annotations

import math
import sqlite3

import attrs

from tinymemory import EngineError, ItemKind
from tinymemory.retrieval import Clause, Scope

#: BM25's constants, FTS5's: term-frequency saturation and length normalisation.
K1 = 1.2
B = 0.75
#: FTS5's floor for an IDF, for a phrase that more than half the rows hold.
MIN_IDF = 1e-6


@attrs.frozen
class Sizes:
    """How many pieces a set holds and their total length in tokens."""

    pieces: int
    tokens: int

    @property
    def average(self) -> float:
        return self.tokens / self.pieces


def idf(sizes: Sizes, holding: int) -> float:
    """The inverse document frequency of a phrase ``holding`` of the pieces hold."""
    value = math.log((sizes.pieces - holding + 0.5) / (holding + 0.5))
    return value if value > 0.0 else MIN_IDF


def weight(frequency: float, length: int, average: float) -> float:
    """A phrase's saturated frequency in a piece of ``length`` tokens."""
    return (frequency * (K1 + 1.0)) / (frequency + K1 * (1 - B + B * length / average))


def frequency(score: float, phrase_idf: float, length: int, average: float) -> float:
    """How often a piece holds a phrase, from FTS5's score of the phrase alone.

    ``score`` is ``bm25()`` of a one-phrase query, ``-idf * weight``; the weight
    is solved for the frequency, a whole number.
    """
    saturated = -score / phrase_idf
    room = K1 + 1.0 - saturated
    if room <= 0.0:
        raise EngineError("sqlite: the keyword index and the recorded sizes of its pieces disagree")
    return float(round(saturated * K1 * (1 - B + B * length / average) / room))


def whole(connection: sqlite3.Connection) -> Sizes:
    """The sizes of every piece in the file: those FTS5's own statistics count."""
    pieces, tokens = connection.execute(
        "SELECT coalesce(sum(pieces), 0), coalesce(sum(tokens), 0) FROM node_sizes"
    ).fetchone()
    return Sizes(pieces, tokens)


#: Every (node, kind) pair, standing as ``i`` for a reach and kinds test.
_GROUPS = (
    "(SELECT n.id AS node, k.kind AS kind FROM nodes n CROSS JOIN ("
    + " UNION ALL ".join(f"SELECT '{kind.value}' AS kind" for kind in ItemKind)
    + ") AS k) AS i"
)


def last_admitted(connection: sqlite3.Connection, sizes: Clause) -> int:
    """The highest ``seq`` of the nodes and kinds ``sizes`` (a reach and kinds test over
    ``i.node`` and ``i.kind``) admits, 0 for none: one seek of the ``(node, kind)`` index
    per admitted pair."""
    last = (
        "SELECT coalesce(max((SELECT max(x.seq) FROM items x "
        f"WHERE x.node = i.node AND x.kind = i.kind)), 0) FROM {_GROUPS} WHERE {sizes.sql}"
    )
    return int(connection.execute(last, sizes.params).fetchone()[0])


def admitted(connection: sqlite3.Connection, scope: Scope) -> Sizes:
    """The sizes of the pieces ``scope`` admits.

    From ``node_sizes`` when the reach and kinds alone decide, less the admitted items
    stored after the read's bound (none when the admitted nodes' last item is at most
    the bound, as on a first page); else counted over the admitted items.
    """
    clause = scope.clause
    if scope.sizes is None:
        pieces, tokens = connection.execute(
            "SELECT count(*), coalesce(sum(p.tokens), 0) FROM items i "
            f"JOIN pieces p ON p.item = i.seq WHERE i.seq <= ? AND {clause.sql}",
            (scope.bound, *clause.params),
        ).fetchone()
        return Sizes(pieces, tokens)
    pieces, tokens = connection.execute(
        "SELECT coalesce(sum(pieces), 0), coalesce(sum(tokens), 0) "
        f"FROM node_sizes i WHERE {scope.sizes.sql}",
        scope.sizes.params,
    ).fetchone()
    if last_admitted(connection, scope.sizes) <= scope.bound:
        return Sizes(pieces, tokens)
    # The items past the bound, found by seq first (LIMIT -1 keeps them a subquery), with
    # the only columns a reach and kinds test: their bodies cost a keyword read in a node
    # of 10 among a million 70 ms of CPU, 24 without.
    later, later_tokens = connection.execute(
        "SELECT count(*), coalesce(sum(p.tokens), 0) "
        "FROM (SELECT seq, node, kind FROM items WHERE seq > ? LIMIT -1) AS i "
        f"JOIN pieces p ON p.item = i.seq WHERE {clause.sql}",
        (scope.bound, *clause.params),
    ).fetchone()
    return Sizes(pieces - later, tokens - later_tokens)
