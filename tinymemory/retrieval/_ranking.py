"""Rankings: an item's place, keyword scores squashed, score fusion, and reads by mode.

A ranking is a list of :class:`Ranked` entries, one per item (its best
piece), best first. An engine computes its keyword and vector rankings over
what a read admits (never the whole store, so no score tells a reader about
memory it cannot read); the kit orders, squashes and fuses them.

Fusion adds each ranking's scores standardised over its own list (how many
standard deviations each stands above that list's mean), not ranks: a
ranking sure of its best hit (keyword's one item holding every rare word of
the query, far above the rest) gives it a lead of several deviations, while
a ranking with no answer (vector scores of unrelated texts, close together)
spreads its hits over about two. Reciprocal-rank fusion gave both the same
weight, so the noise of one drowned the other's answer: on the benchmark's
queries hybrid found fewer answers than keyword alone (0.57 against 0.62).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import attrs

from tinymemory._operations import FetchMode

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


def standardised(ranking: list[Ranked], width: int) -> tuple[dict[int, float], float]:
    """Each item's score in deviations from the mean of ``ranking``, and the score of an
    item it does not list.

    A ranking shorter than ``width`` is read as padded to it with scores of 0,
    what an item holding no word of the query gets by keyword (a vector
    ranking lists ``width`` items unless the read admits fewer). An unlisted
    item counts as the lowest of the list and the padding. A ranking whose
    scores are all equal says nothing: every item counts 0.
    """
    scores = [entry.score for entry in ranking]
    padding = max(0, width - len(scores))
    count = len(scores) + padding
    if not count:
        return {}, 0.0
    mean = math.fsum(scores) / count
    spread = math.sqrt(
        (math.fsum((score - mean) ** 2 for score in scores) + padding * mean**2) / count
    )
    if spread <= 1e-12 * max(1.0, abs(mean)):
        return {entry.item: 0.0 for entry in ranking}, 0.0
    lowest = min([*scores, 0.0] if padding else scores)
    return {entry.item: (entry.score - mean) / spread for entry in ranking}, (
        lowest - mean
    ) / spread


def fused(rankings: Sequence[list[Ranked]], depth: int, width: int = FUSION_DEPTH) -> list[Ranked]:
    """The best ``depth`` items by the sum of their standardised scores (see the module).

    Each ranking is standardised over ``width`` places (:func:`standardised`);
    an item keeps the piece of the first ranking it is in; ties go to the
    lower item key.
    """
    scales = [standardised(ranking, width) for ranking in rankings]
    pieces: dict[int, int] = {}
    for ranking in rankings:
        for entry in ranking:
            pieces.setdefault(entry.item, entry.piece)
    scores = {
        item: math.fsum(scaled.get(item, unlisted) for scaled, unlisted in scales)
        for item in pieces
    }
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


def recall_ranking(matched: list[Ranked], similar: list[Ranked], limit: int) -> list[Ranked]:
    """The relevant hits of a recall, best first: fused, holding a word of the question
    (``matched``) or close to it in meaning (``similar``, :data:`RECALL_SIMILARITY` and up)."""
    relevant = {entry.item for entry in matched}
    relevant |= {entry.item for entry in similar if entry.score >= RECALL_SIMILARITY}
    return [entry for entry in fused([matched, similar], limit, limit) if entry.item in relevant]
