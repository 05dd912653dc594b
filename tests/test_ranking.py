"""Fusion of rankings: a ranking sure of its answer is not drowned by one without it.

Scores are added, each ranking's on its own kit-fixed scale, so a ranking's
spread is its confidence. The class has three members, each built exactly
first: keyword strong and
vector noise, vector strong and keyword noise, both agreeing. Then a property
over generated rankings of the same shapes: the answer a strong ranking puts
first stays in hybrid's top 5 whatever the noise of the other. (The same rule
over whole generated corpora, through an engine, is the sqlite plugin's
``test_hybrid_recall``.)
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory import FetchMode
from tinymemory.retrieval import (
    FUSION_DEPTH,
    RANK_OFFSET,
    Ranked,
    fused,
    rank_fused,
    ranked_by_mode,
    recall_ranking,
    unlisted_score,
)

ANSWER = 0


def ranking(scores: list[float], first_item: int = 1) -> list[Ranked]:
    """Entries for ``scores`` (sorted best first), items numbered from ``first_item``."""
    ordered = sorted(scores, reverse=True)
    return [Ranked(first_item + at, first_item + at, score) for at, score in enumerate(ordered)]


def noise(rng: random.Random, low: float, high: float, count: int = FUSION_DEPTH) -> list[float]:
    return [rng.uniform(low, high) for _ in range(count)]


def keyword_strong(rng: random.Random) -> list[Ranked]:
    """The answer alone holds every word (score above 1); partial matches below."""
    return [Ranked(ANSWER, ANSWER, 1.9), *ranking(noise(rng, 0.3, 0.6, FUSION_DEPTH - 1))]


def vector_strong(rng: random.Random) -> list[Ranked]:
    """The answer's cosine stands well above the others'."""
    return [Ranked(ANSWER, ANSWER, 0.8), *ranking(noise(rng, 0.15, 0.3, FUSION_DEPTH - 1))]


def top(rankings: list[list[Ranked]], depth: int = 5) -> list[int]:
    return [entry.item for entry in fused(rankings, depth)]


def test_keyword_sure_vector_noise_over_the_same_items() -> None:
    # Reciprocal-rank fusion put the partial matches that vector also lists (at
    # ranks 1..49 of both) above an answer first in keyword alone.
    rng = random.Random(1)
    assert top([keyword_strong(rng), ranking(noise(rng, 0.2, 0.25))])[0] == ANSWER


def test_vector_sure_keyword_noise() -> None:
    rng = random.Random(2)
    assert top([ranking(noise(rng, 0.3, 0.4)), vector_strong(rng)])[0] == ANSWER


def test_both_sure_of_the_same_answer() -> None:
    rng = random.Random(3)
    assert top([keyword_strong(rng), vector_strong(rng)])[0] == ANSWER


def test_an_answer_one_ranking_alone_lists_keeps_its_place() -> None:
    # The vector noise lists other items than keyword's (disjoint item numbers).
    rng = random.Random(4)
    vector = ranking(noise(rng, 0.2, 0.3), first_item=1000)
    assert ANSWER in top([keyword_strong(rng), vector])


def test_a_ranking_of_equal_scores_reorders_nothing() -> None:
    rng = random.Random(5)
    strong = vector_strong(rng)
    flat = [Ranked(entry.item, entry.item, 0.5) for entry in strong]
    assert top([flat, strong]) == top([strong])


def test_what_an_unlisted_item_counts() -> None:
    full = ranking([0.9 - at / 100 for at in range(FUSION_DEPTH)])
    assert unlisted_score(full, FUSION_DEPTH) == full[-1].score
    # A shorter list holds every item matching anything: the others count 0.
    assert unlisted_score([Ranked(7, 7, 1.5)], FUSION_DEPTH) == 0.0
    assert unlisted_score([Ranked(7, 7, -0.25)], FUSION_DEPTH) == -0.25
    assert unlisted_score([], FUSION_DEPTH) == 0.0


def test_no_rankings_and_empty_rankings() -> None:
    assert fused([], 5) == []
    assert fused([[], []], 5) == []


def test_an_item_keeps_the_piece_of_the_first_ranking_holding_it() -> None:
    keyword = [Ranked(1, 10, 1.0), Ranked(2, 20, 0.5)]
    vector = [Ranked(2, 21, 0.9), Ranked(1, 11, 0.1)]
    pieces = {entry.item: entry.piece for entry in fused([keyword, vector], 5)}
    assert pieces == {1: 10, 2: 20}


def test_pages_of_a_hybrid_read_agree() -> None:
    rng = random.Random(6)
    keyword, vector = keyword_strong(rng), vector_strong(rng)

    def read(ranks: list[Ranked]) -> Any:
        return lambda depth: ranks[:depth]

    whole = ranked_by_mode(FetchMode.HYBRID, read(keyword), read(vector), 20)
    first = ranked_by_mode(FetchMode.HYBRID, read(keyword), read(vector), 10)
    assert whole[:10] == first


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    strong=st.sampled_from(["keyword", "vector", "both"]),
    overlap=st.booleans(),
)
def test_a_sure_answer_stays_in_the_top_five(seed: int, strong: str, overlap: bool) -> None:
    """Whichever ranking is sure, and whether the other's noise lists the same items or
    others, the answer is in hybrid's top 5."""
    rng = random.Random(seed)
    first = 1 if overlap else 1000
    keyword = keyword_strong(rng) if strong != "vector" else ranking(noise(rng, 0.3, 0.6))
    vector = vector_strong(rng) if strong != "keyword" else ranking(noise(rng, 0.1, 0.3), first)
    assert ANSWER in top([keyword, vector])


# --- recall: a relevance bar from the embedder, and fusion by rank -------------------------

#: Vector similarities of a reworded answer (item 0) and of texts sharing a common word of
#: the question (items 5, 6) that the embedder puts no closer than its background.
SIMILAR = [Ranked(0, 0, 0.45), Ranked(5, 5, 0.2), Ranked(6, 6, 0.1)]
#: Keyword: item 5 holds every word of the question, the answer one word.
MATCHED = [Ranked(5, 5, 1.4), Ranked(0, 0, 0.5)]
#: The question's bar: its closest unrelated background sentence.
BAR = 0.3


def test_recall_fusion_is_never_worse_than_the_better_single_ranking() -> None:
    """The answer is first by vector, second by keyword: recall puts it first. Summed
    scores put the word-holding text first (1.4 against 0.5 + 0.45)."""
    assert [entry.item for entry in recall_ranking(MATCHED, SIMILAR, 10, BAR)] == [0, 5]
    assert fused([MATCHED, SIMILAR], 10, 10)[0].item == 5
    assert rank_fused([MATCHED, SIMILAR[:1]], 10)[0].score == (
        1 / (RANK_OFFSET + 2) + 1 / (RANK_OFFSET + 1)
    )


def test_only_vector_hits_above_the_bar_are_relevant() -> None:
    assert [entry.item for entry in recall_ranking([], SIMILAR, 10, BAR)] == [0]
    assert [entry.item for entry in recall_ranking([], SIMILAR, 10, 0.45)] == []  # not equal
    assert [entry.item for entry in recall_ranking(MATCHED, [], 10, BAR)] == [5, 0]


def test_a_vector_hit_under_the_bar_is_relevant_by_a_window_of_its_sentences() -> None:
    """Item 5's piece as a whole is under the bar, one window of its sentences is not
    (:func:`tinymemory.retrieval.recall_hits` finds which)."""
    assert [entry.item for entry in recall_ranking([], SIMILAR, 10, BAR, {5})] == [0, 5]
    assert [entry.item for entry in recall_ranking([], SIMILAR, 10, BAR, {7})] == [0]


# Cosines in hundredths: both maps stay strictly increasing in floating point on them.
cosines = st.integers(-100, 100).map(lambda hundredths: hundredths / 100)


@given(
    similarities=st.lists(cosines, min_size=1, max_size=12),
    bar=cosines,
    how=st.sampled_from(["affine", "cube"]),
)
def test_any_increasing_map_of_the_similarities_ranks_a_recall_alike(
    similarities: list[float], bar: float, how: str
) -> None:
    """The bar is the embedder's own similarity, mapped as every other: nothing changes."""

    def mapped(value: float) -> float:
        return 0.9 + 0.1 * value if how == "affine" else value**3

    similar = ranking(similarities)
    moved = [Ranked(entry.item, entry.piece, mapped(entry.score)) for entry in similar]
    plain = recall_ranking(MATCHED, similar, 10, bar)
    again = recall_ranking(MATCHED, moved, 10, mapped(bar))
    assert [entry.item for entry in again] == [entry.item for entry in plain]
