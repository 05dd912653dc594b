"""The embedder's background: the probe's sign test, the store per embedder identity, the
kept vectors of texts, and the word bars that tell an answer from a topical neighbour."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from test_extractive_meaning import SENSES, SenseEmbedder

from tinymemory._extractive import extract_answer
from tinymemory.retrieval import _background
from tinymemory.retrieval._background import (
    BACKGROUND_SENTENCES,
    PASSAGE_SENTENCES,
    PROBE_FALSE_POSITIVES,
    SYNONYMS,
    background,
    embedded,
    stored_path,
    windows,
)
from tinymemory.retrieval._vectors import embedding_matrix


class Identified(SenseEmbedder):
    """A :class:`SenseEmbedder` declaring an identity, as a memory records it."""

    identity = "senses:test:v1"


@pytest.fixture(autouse=True)
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TINYMEMORY_CACHE", str(tmp_path))
    return tmp_path / "backgrounds"


def test_the_probe_is_a_sign_test_at_its_stated_false_positive_rate() -> None:
    """An embedder knowing no meaning wins each pair with chance 1/2: 14 wins of 16 or more
    happen with chance 137/65536 (0.2 %), 13 or more with 697/65536 (1.06 %), above 1 %."""
    pairs = len(SYNONYMS)
    least = _background._least_wins(pairs, PROBE_FALSE_POSITIVES)
    tail = sum(math.comb(pairs, wins) for wins in range(least, pairs + 1)) / 2**pairs
    below = sum(math.comb(pairs, wins) for wins in range(least - 1, pairs + 1)) / 2**pairs
    assert (least, tail <= PROBE_FALSE_POSITIVES < below) == (14, True)


def test_a_background_is_stored_once_per_identity_and_read_back(store: Path) -> None:
    first = Identified(SENSES)
    measured = background(first)
    path = stored_path(first)
    assert path is not None
    assert path.parent == store
    assert path.is_file()
    again = Identified(SENSES)  # another object, another process: read, not embedded
    read = background(again)
    assert again.calls == []
    assert read.meaning_aware == measured.meaning_aware
    for name in ("sentences", "questions", "passages", "words"):
        assert np.array_equal(getattr(read, name), getattr(measured, name))
    assert len(read.windows) == len(measured.windows) == PASSAGE_SENTENCES
    for kept, made in zip(read.windows, measured.windows, strict=True):
        assert np.array_equal(kept, made)


def test_windows_are_every_run_of_consecutive_sentences() -> None:
    assert windows(["A.", "B.", "C."], 2) == ["A. B.", "B. C."]
    assert windows(["A.", "B."], 4) == ["A. B."]  # fewer: the whole text
    assert windows([], 4) == []
    embedder = SenseEmbedder(SENSES)
    first = embedding_matrix(embedder, [BACKGROUND_SENTENCES[0]])
    assert np.array_equal(background(embedder).windows[0][:1], first)


def test_an_embedder_without_an_identity_is_not_stored(store: Path) -> None:
    embedder = SenseEmbedder(SENSES)
    background(embedder)
    assert stored_path(embedder) is None
    assert not store.exists()


def test_an_unreadable_store_is_measured_again(store: Path) -> None:
    embedder = Identified(SENSES)
    path = stored_path(embedder)
    assert path is not None
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a background")
    assert background(embedder).meaning_aware
    assert embedder.calls  # measured
    assert background(Identified(SENSES)).meaning_aware  # and stored anew


def test_texts_are_embedded_once_per_embedder() -> None:
    embedder = SenseEmbedder(SENSES)
    texts = ["The card failed.", "Lunch is pizza."]
    first = embedded(embedder, texts)
    second = embedded(embedder, [*reversed(texts), "The meal is free."])
    assert embedder.calls == [texts, ["The meal is free."]]
    assert np.array_equal(second[:2], first[::-1])
    assert np.array_equal(
        second, embedding_matrix(embedder, [*reversed(texts), "The meal is free."])
    )


def near(embedder: SenseEmbedder, question: str, sentence: str) -> bool:
    """Whether ``sentence`` passes both sentence bars for ``question`` (closer than every
    unrelated sentence; the question closer to it than every unrelated question)."""
    known = background(embedder)
    vectors = embedding_matrix(embedder, [question, sentence])
    similarity = float(vectors[1] @ vectors[0])
    return similarity > known.question_bar(vectors[0]) and similarity > float(
        known.sentence_bars(vectors[1:])[0]
    )


@pytest.mark.parametrize(
    ("question", "sentence", "answers"),
    [
        # On topic (a duration), but nothing of the holidays nor of the interns.
        ("How many vacation days do interns get?", "Books may be borrowed for three weeks.", False),
        # Every word of the question held in meaning.
        ("What is the duration of the meal?", "Lunch lasts three weeks.", True),
    ],
)
def test_a_topical_neighbour_is_not_an_answer(question: str, sentence: str, answers: bool) -> None:
    embedder = SenseEmbedder(
        {**SENSES, "days": "time", "weeks": "time", "lasts": "time", "duration": "time",
         "books": "read", "borrowed": "lend"}
    )  # fmt: skip
    assert near(embedder, question, sentence)  # the sentence bars let both through
    assert bool(extract_answer(question, [sentence], embedder=embedder).text) is answers


def test_a_stored_background_of_other_dimensions_is_measured_again(store: Path) -> None:
    embedder = Identified(SENSES)
    path = stored_path(embedder)
    assert path is not None
    path.parent.mkdir(parents=True)
    rows = np.ones((1, 3), dtype=np.float32)
    names = ("sentences", "questions", "passages", "words")
    np.savez(path, meaning_aware=np.array(False), **dict.fromkeys(names, rows))
    assert background(embedder).meaning_aware
    assert embedder.calls  # measured, not read
