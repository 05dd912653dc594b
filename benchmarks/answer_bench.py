"""Print how long the extractive recall answer takes, beside a floor.

``tinymemory.retrieval.extractive_answer`` (what the sqlite and postgres engines
answer with) runs over seeded hits: ``--hits`` passages of ``--sentences``
twelve-word sentences drawn from inflected words (``ship``, ``ships``,
``shipped``, ``shipping``), so stemming has work to do. The floor, measured
in the same run over the same texts, is one pass of ``tinymemory.retrieval.words``
over every passage: what any answer costs at the least to look at each word
once. The third line is the answer with its stem cache bypassed, which shows
what the cache saves. Then the answer given the engine's embedder (the
core's ``hashing``): for the same question (its words answer it, nothing is
embedded) and for a question sharing no word with the passages, which takes the
path by meaning, beside its floor: one ``embed`` call of the question and the
candidates it embeds. Each figure is the best of five rounds of 50 answers.

    python benchmarks/answer_bench.py [--hits 10] [--sentences 15] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import timeit
from collections.abc import Callable
from unittest import mock

import tinymemory._extractive as extractive
from tinymemory import Hit, ItemKind, MemoryMeta
from tinymemory.hashing import HashingEmbedder
from tinymemory.retrieval import extractive_answer, words

STEMS = (
    "travel", "budget", "release", "ship", "prefer", "hotel", "flight", "policy",
    "review", "deploy", "schedule", "meeting", "account", "report", "plan",
)  # fmt: skip
ENDINGS = ("", "s", "ed", "ing")
QUESTION = "What is the travel budget for flights and hotels?"
#: A question no passage holds a word of: answered by meaning, if at all.
REWORDED = "Why did customers' card charges fail yesterday?"
ROUNDS, ANSWERS = 5, 50


def seeded_hits(count: int, sentences: int, seed: int) -> list[Hit]:
    """``count`` document hits of ``sentences`` sentences each, the same for one seed."""
    rng = random.Random(seed)
    vocabulary = [stem + ending for stem in STEMS for ending in ENDINGS]

    def sentence() -> str:
        return " ".join(rng.choice(vocabulary) for _ in range(12)).capitalize() + "."

    return [
        Hit(
            id=f"{index:040x}",
            kind=ItemKind.DOCUMENT,
            text=" ".join(sentence() for _ in range(sentences)),
            meta=MemoryMeta(),
            score=1.0 / (1 + index),
        )
        for index in range(count)
    ]


def per_call_ms(work: Callable[[], object]) -> float:
    """The best round's milliseconds per call."""
    return min(timeit.repeat(work, number=ANSWERS, repeat=ROUNDS)) / ANSWERS * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hits", type=int, default=10, help="passages per answer")
    parser.add_argument("--sentences", type=int, default=15, help="sentences per passage")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    hits = seeded_hits(args.hits, args.sentences, args.seed)
    texts = [hit.text for hit in hits]

    answer = per_call_ms(lambda: extractive_answer(QUESTION, hits))
    floor = per_call_ms(lambda: [words(text) for text in texts])
    # The module looks ``stem`` up at each call, so the bare function replaces the cached one.
    with mock.patch.object(extractive, "stem", extractive.stem.__wrapped__):
        uncached = per_call_ms(lambda: extractive_answer(QUESTION, hits))

    embedder = HashingEmbedder()
    given = per_call_ms(lambda: extractive_answer(QUESTION, hits, embedder=embedder))
    by_meaning = per_call_ms(lambda: extractive_answer(REWORDED, hits, embedder=embedder))
    embedded = [REWORDED, *extractive.sentences(" ".join(texts))][
        : 1 + extractive.MAX_MEANING_CANDIDATES
    ]
    embed_floor = per_call_ms(lambda: embedder.embed_matrix(embedded))

    total = args.hits * args.sentences
    print(f"extractive answer over {args.hits} hits, {total} sentences")
    print(f"  answer              {answer:7.2f} ms")
    print(f"  floor (words once)  {floor:7.2f} ms   answer/floor {answer / floor:5.1f}x")
    print(f"  stems not cached    {uncached:7.2f} ms   {uncached / answer:5.2f}x the answer")
    print(f"  with the embedder   {given:7.2f} ms   {given / answer:5.2f}x the answer")
    print(f"  by meaning          {by_meaning:7.2f} ms   (a question holding no passage word)")
    print(
        f"  floor (one embed)   {embed_floor:7.2f} ms   by meaning/floor "
        f"{by_meaning / embed_floor:5.1f}x ({len(embedded)} texts, hashing)"
    )


if __name__ == "__main__":
    main()
