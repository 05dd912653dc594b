"""Rankings: an item's place, keyword scores squashed, score fusion, and reads by mode.

A ranking is a list of :class:`Ranked` entries, one per item (its best
piece), best first. An engine computes its keyword and vector rankings over
what a read admits (never the whole store, so no score tells a reader about
memory it cannot read); the kit orders, squashes and fuses them.

Fusion adds the rankings' scores, not their ranks: each score is on a scale
the kit fixes (keyword's in [0, 2), with a whole point for holding every
word of the query; vector's a cosine), and the spread of a ranking's scores
is its confidence. An answer holding every rare word stands a point above
the texts holding one; the cosines of texts unrelated to the query sit close
together and reorder little. Reciprocal-rank fusion gave every ranking the
same weight, so the noise of one drowned the other's answer (on the
benchmark's 10,000 items, hybrid found 0.57 of the answers against
keyword's 0.62 alone); standardising each ranking's scores (deviations from
its mean) also weighed noise as much as an answer, since it divides the
spread away.

Recall is fused by reciprocal rank (:func:`rank_fused`) instead: its vector
hits have passed a relevance bar from the embedder's background first
(:func:`recall_ranking`), so the noise is out, and ranks are the same for
every embedder's scale of similarities (docs/recall.md measures both).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Sequence

import attrs

from tinymemory._operations import FetchMode

#: Hybrid fuses at least this many hits of each ranking (more for deep pages).
FUSION_DEPTH = 50
#: Reciprocal-rank fusion's offset: a place ``r`` (from 1) counts ``1 / (RANK_OFFSET + r)``
#: (the usual value; a place, not a similarity, so no embedder's scale is in it).
RANK_OFFSET = 60


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


def unlisted_score(ranking: list[Ranked], width: int) -> float:
    """What an item ``ranking`` does not list counts for: its lowest score, or 0 (what
    an item holding no word of the query gets by keyword) when it lists fewer than
    ``width`` items, so that every item matching anything is in it."""
    lowest = min((entry.score for entry in ranking), default=0.0)
    return lowest if len(ranking) >= width else min(0.0, lowest)


def fused(rankings: Sequence[list[Ranked]], depth: int, width: int = FUSION_DEPTH) -> list[Ranked]:
    """The best ``depth`` items by the sum of their scores in every ranking (see the module).

    An item a ranking does not list counts :func:`unlisted_score` there
    (each ranking holds the best ``width`` of its kind); an item keeps the
    piece of the first ranking it is in; ties go to the lower item key.
    """
    scores: dict[int, float] = {}
    pieces: dict[int, int] = {}
    for ranking in rankings:
        for entry in ranking:
            pieces.setdefault(entry.item, entry.piece)
    for ranking in rankings:
        listed = {entry.item: entry.score for entry in ranking}
        unlisted = unlisted_score(ranking, width)
        for item in pieces:
            scores[item] = scores.get(item, 0.0) + listed.get(item, unlisted)
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
    return fused([keyword(fusion), vector(fusion)], depth, fusion)


def rank_fused(rankings: Sequence[list[Ranked]], depth: int) -> list[Ranked]:
    """The best ``depth`` items by reciprocal rank: each ranking gives an item at place
    ``r`` ``1 / (RANK_OFFSET + r)``. Only places count, so the fusion is the same for
    any increasing map of a ranking's scores; an item keeps the piece of the first
    ranking it is in, ties go to the lower item key."""
    scores: dict[int, float] = {}
    pieces: dict[int, int] = {}
    for ranking in rankings:
        for place, entry in enumerate(ranking, start=1):
            pieces.setdefault(entry.item, entry.piece)
            scores[entry.item] = scores.get(entry.item, 0.0) + 1.0 / (RANK_OFFSET + place)
    ordered = sorted(scores, key=lambda item: (-scores[item], item))[:depth]
    return [Ranked(item, pieces[item], scores[item]) for item in ordered]


def recall_ranking(
    matched: list[Ranked],
    similar: list[Ranked],
    limit: int,
    bar: float,
    windowed: Collection[int] = frozenset(),
) -> list[Ranked]:
    """The relevant hits of a recall, best first: those holding a word of the question
    (``matched``) and those closer to it than ``bar`` (``similar``, by vector; ``bar`` is
    :func:`~tinymemory.retrieval.question_bar`, from the embedder's background) or whose
    piece is in ``windowed`` (a window of its sentences passed the bar of background
    windows of its size: :mod:`tinymemory.retrieval._relevance`), fused by
    :func:`rank_fused` (a relevance filter has taken the noise out that reciprocal ranks
    would weigh as much as an answer; see docs/recall.md)."""
    close = [entry for entry in similar if entry.score > bar or entry.piece in windowed]
    return rank_fused([matched, close], limit)
