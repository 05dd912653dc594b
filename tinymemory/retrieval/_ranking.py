"""Rankings: an item's place, keyword scores squashed, rank fusion, and reads by mode.

A ranking is a list of :class:`Ranked` entries, one per item (its best
piece), best first. An engine computes its keyword and vector rankings over
what a read admits (never the whole store, so no score tells a reader about
memory it cannot read); the kit orders, squashes and fuses them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import attrs

from tinymemory._operations import FetchMode

#: The constant of reciprocal-rank fusion: a hit at rank r adds 1 / (RRF_K + r).
RRF_K = 60
#: Hybrid fuses at least this many hits of each ranking (more for deep pages).
FUSION_DEPTH = 50
#: For recall, a hit holding none of the question's words is relevant from this similarity up.
RECALL_SIMILARITY = 0.35


@attrs.frozen
class Ranked:
    """An item's place in a ranking: its key, its best piece's key, a score (higher is better)."""

    item: int
    piece: int
    score: float


def best_pieces(pieces: Iterable[tuple[int, int, float, bool]], depth: int) -> list[Ranked]:
    """The first ``depth`` items, each by its first piece, with keyword scores.

    ``pieces`` are ``(item, piece, BM25 score s, holds every word)``, best
    first. An item's score is ``s / (1 + s)`` (``s`` below 0 counts as 0),
    plus 1 when the piece holds every word of the query, so scores fall as
    the ranking goes on.
    """
    ranked: dict[int, Ranked] = {}
    for item, piece, strength, every in pieces:
        if len(ranked) == depth:
            break
        if item not in ranked:
            strength = max(0.0, float(strength))
            bonus = 1.0 if every else 0.0
            ranked[item] = Ranked(item, piece, bonus + strength / (1.0 + strength))
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


#: A ranking of one kind: the best ``depth`` admitted items.
Ranking = Callable[[int], list[Ranked]]


def ranked_by_mode(mode: FetchMode, keyword: Ranking, vector: Ranking, depth: int) -> list[Ranked]:
    """The best ``depth`` items of a fetch in ``mode``, from the engine's two rankings.

    Hybrid fuses a fixed depth of each (:data:`FUSION_DEPTH`, doubled until it
    covers ``depth``), so the pages of one request agree.
    """
    if mode is FetchMode.KEYWORD:
        return keyword(depth)
    if mode is FetchMode.VECTOR:
        return vector(depth)
    fusion = FUSION_DEPTH * 2 ** max(0, math.ceil(math.log2(max(depth, 1) / FUSION_DEPTH)))
    return fused([keyword(fusion), vector(fusion)], depth)


def recall_ranking(matched: list[Ranked], similar: list[Ranked], limit: int) -> list[Ranked]:
    """The relevant hits of a recall, best first: fused, holding a word of the question
    (``matched``) or close to it in meaning (``similar``, :data:`RECALL_SIMILARITY` and up)."""
    relevant = {entry.item for entry in matched}
    relevant |= {entry.item for entry in similar if entry.score >= RECALL_SIMILARITY}
    return [entry for entry in fused([matched, similar], limit) if entry.item in relevant]
