"""Hybrid finds the answer at least as often as the better of keyword and vector.

Over generated corpora (random vocabularies, Zipf-drawn texts of 20 to 60
words) and queries with a known answer text of three kinds: two of its rare
words (keyword's case), four of its rare words with their last letter changed
as an inflection would (vector's case: keyword finds other texts or none), and
one rare word with two changed ones. recall@5 of hybrid is at least the better
of keyword's and vector's less one query in the count, overall and on each
ranking's own kind (the kit's fusion of summed scores gives no per-query
guarantee: two rankings sure of different items cannot both keep theirs in five
places; tests/test_ranking.py holds the per-ranking rule). The corpora hold a
few thousand texts: below that, vector's noise is too thin to drown keyword's
answers even by reciprocal-rank fusion, which at 3,000 texts found 30-80 % of
the "words" answers keyword found alone.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine

LETTERS = "abcdefghijklmnopqrstuvwxyz"
KINDS = ("words", "variants", "mixed")


def corpus(rng: random.Random, size: int) -> list[str]:
    vocabulary = list(
        dict.fromkeys("".join(rng.choices(LETTERS, k=rng.randint(3, 10))) for _ in range(3000))
    )
    weights = [1.0 / rank for rank in range(1, len(vocabulary) + 1)]
    return [
        " ".join(rng.choices(vocabulary, weights=weights, k=rng.randint(20, 60)))
        for _ in range(size)
    ]


def queries(rng: random.Random, texts: list[str], count: int) -> list[tuple[str, int]]:
    """(query, index of its answer text), the kinds in turn."""
    frequent = {word for word, _ in Counter(" ".join(texts).split()).most_common(50)}

    def changed(word: str) -> str:
        return word[:-1] + rng.choice([c for c in LETTERS if c != word[-1]])

    made: list[tuple[str, int]] = []
    while len(made) < count:
        kind = KINDS[len(made) % len(KINDS)]
        answer = rng.randrange(len(texts))
        rare = [w for w in dict.fromkeys(texts[answer].split()) if w not in frequent]
        long = [w for w in rare if len(w) >= 6]
        short = [w for w in rare if len(w) < 6]
        if kind == "words" and len(rare) >= 2:
            words = rng.sample(rare, 2)
        elif kind == "variants" and len(long) >= 4:
            words = [changed(w) for w in rng.sample(long, 4)]
        elif kind == "mixed" and len(long) >= 2 and short:
            words = [rng.choice(short), *(changed(w) for w in rng.sample(long, 2))]
        else:
            continue
        made.append((" ".join(words), answer))
    return made


def recall_at_5(
    engine: SqliteEngine, mode: tm.FetchMode, asked: list[tuple[str, int]], ids: list[str]
) -> float:
    found = 0
    for query, answer in asked:
        page = engine.fetch(tm.FetchRequest(query=query, mode=mode, limit=5))
        found += ids[answer] in {hit.id for hit in page.hits}
    return found / len(asked)


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1500, 3000))
def test_hybrid_finds_as_many_answers_as_the_better_ranking(seed: int, size: int) -> None:
    rng = random.Random(seed)
    texts = corpus(rng, size)
    asked = queries(rng, texts, 30)
    keyword, vector, hybrid = tm.FetchMode.KEYWORD, tm.FetchMode.VECTOR, tm.FetchMode.HYBRID
    with SqliteEngine(":memory:") as engine:
        ids: list[str] = []
        for first in range(0, size, 100):
            batch = [tm.Learning(text=text) for text in texts[first : first + 100]]
            ids += [receipt.id for receipt in engine.store_many(batch)]

        def recall(mode: tm.FetchMode, kind: str | None = None) -> float:
            chosen = asked if kind is None else asked[KINDS.index(kind) :: len(KINDS)]
            return recall_at_5(engine, mode, chosen, ids)

        overall = {mode: recall(mode) for mode in (keyword, vector, hybrid)}
        assert overall[hybrid] >= max(overall[keyword], overall[vector]) - 1 / 30, overall
        assert recall(hybrid, "words") >= recall(keyword, "words") - 1 / 10
        assert recall(hybrid, "variants") >= recall(vector, "variants") - 1 / 10
