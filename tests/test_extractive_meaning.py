"""The extractive answer by meaning: the engine's embedder chooses when no sentence holds
enough of the question's words."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory._extractive import (
    MAX_MEANING_CANDIDATES,
    MEANING_MARGIN,
    MIN_MEANING_SIMILARITY,
    NOTHING_RELEVANT,
    extract_answer,
    extractive_answer,
)
from tinymemory._words import words
from tinymemory.answerers import ExtractiveAnswerer, engine_answerer
from tinymemory.hashing import HashingEmbedder


class SenseEmbedder:
    """A double: each known word adds one to its sense's axis (unknown words add nothing),
    so the cosine of two texts is exact arithmetic; it records every call."""

    name = "senses"

    def __init__(self, senses: Mapping[str, str]) -> None:
        self.axes = sorted(set(senses.values()))
        self.senses = senses
        self.dimensions = len(self.axes)
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        vectors = []
        for text in texts:
            vector = [0.0] * self.dimensions
            for word in words(text):
                if word in self.senses:
                    vector[self.axes.index(self.senses[word])] += 1.0
            vectors.append(vector)
        return vectors


SENSES = {
    "charges": "pay", "card": "pay", "checkout": "pay", "gateway": "pay",
    "purchases": "pay", "fail": "fail", "failed": "fail", "break": "fail", "rejected": "fail",
    "customers": "who", "buyers": "who",
    "lunch": "food", "pizza": "food", "meal": "food",
    "a": "a", "b": "b", "c": "c", "d": "d", "e": "e",
}  # fmt: skip
QUESTION = "why did customers' card charges fail?"
REPORT = "Every checkout at the gateway was rejected for buyers."


def answer(question: str, passages: Sequence[str], embedder: SenseEmbedder) -> str:
    return extract_answer(question, passages, embedder=embedder).text


def test_a_reworded_question_is_answered_by_meaning() -> None:
    embedder = SenseEmbedder(SENSES)
    assert answer(QUESTION, ["Friday lunch is pizza.", REPORT], embedder) == f"{REPORT} [1]"
    assert extract_answer(QUESTION, [REPORT]).text == ""  # without the embedder: nothing


def test_the_embedder_is_not_called_when_words_answer() -> None:
    embedder = SenseEmbedder(SENSES)
    assert answer("why did the card fail?", ["The card did fail today."], embedder)
    assert embedder.calls == []


@pytest.mark.parametrize(("others", "quoted"), [(1, True), (2, True), (4, False), (5, False)])
def test_the_least_similarity_quoted(others: int, quoted: bool) -> None:
    """A sentence of the question's one sense and ``others`` senses of its own has cosine
    ``1 / sqrt(1 + others)``: quoted when that reaches the threshold."""
    sentence = "The meal " + " ".join("abcde"[:others]) + "."
    assert (1 / math.sqrt(1 + others) >= MIN_MEANING_SIMILARITY) is quoted
    assert bool(answer("what lunch?", [sentence], SenseEmbedder(SENSES))) is quoted


def test_only_sentences_within_the_margin_of_the_closest_are_quoted() -> None:
    closest = "Pizza."  # cosine 1
    near = "Pizza pizza pizza a."  # cosine 3 / sqrt(10), within the margin
    far = "Pizza a."  # cosine 1 / sqrt(2), more than the margin below
    assert 1 - 3 / math.sqrt(10) <= MEANING_MARGIN < 1 - 1 / math.sqrt(2)
    extract = extract_answer("what lunch?", [far, near, closest], embedder=SenseEmbedder(SENSES))
    assert extract.text == f"{closest} [1] {near} [2]"
    assert extract.sources == (2, 1)


def test_one_bounded_embed_call() -> None:
    embedder = SenseEmbedder(SENSES)
    passages = [" ".join(f"Sentence {n} of note {p}." for n in range(30)) for p in range(10)]
    assert answer(QUESTION, passages, embedder) == ""
    [call] = embedder.calls
    assert call[0] == QUESTION
    assert len(call) == 1 + MAX_MEANING_CANDIDATES


FORMATTED = """# Card charges failed

Every checkout at the gateway was rejected for buyers.

```
card charges fail
```

| payment | status |
|---------|--------|
| gateway | rejected |
"""


def test_headings_code_and_table_rows_are_not_quoted_by_meaning() -> None:
    embedder = SenseEmbedder(SENSES)
    assert answer("why did customers' purchases break?", [FORMATTED], embedder) == (f"{REPORT} [1]")
    assert len(embedder.calls[0]) == 2  # the question and the one prose sentence
    # Asked for code, the code line is a candidate too.
    assert "card charges fail [1]" in answer(
        "which command made purchases break?", [FORMATTED], embedder
    )


def test_the_recall_answer_cites_the_hit_quoted_by_meaning() -> None:
    hits = [
        tm.Hit(id="lunch", kind="document", text="Friday lunch is pizza.", meta=tm.MemoryMeta()),
        tm.Hit(id="report", kind="document", text=REPORT, meta=tm.MemoryMeta()),
    ]
    given_embedder = extractive_answer(QUESTION, hits, embedder=SenseEmbedder(SENSES))
    assert given_embedder.answer == f"{REPORT} [1]"
    assert [citation.id for citation in given_embedder.citations] == ["report"]
    assert extractive_answer(QUESTION, hits).answer == NOTHING_RELEVANT


def test_engines_give_the_extractive_answerer_their_embedder() -> None:
    embedder = SenseEmbedder(SENSES)
    chosen = engine_answerer(None, embedder)
    assert isinstance(chosen, ExtractiveAnswerer)
    assert chosen.embedder is embedder
    named = engine_answerer(ExtractiveAnswerer(), embedder)
    assert isinstance(named, ExtractiveAnswerer)
    assert named.embedder is embedder
    request = tm.RecallRequest(question=QUESTION)
    hit = tm.Hit(id="report", kind="document", text=REPORT, meta=tm.MemoryMeta())
    assert chosen.answer(request, [hit]).answer == f"{REPORT} [1]"

    class Other:
        name = "other"

        def answer(self, request: tm.RecallRequest, hits: Sequence[tm.Hit]) -> tm.RecallAnswer:
            return tm.RecallAnswer(answer="", model="other")

    other = Other()
    assert engine_answerer(other, embedder) is other


# Words of a few themes, and stop words, from which questions and passages are drawn.
VOCABULARY = (
    "user", "prefers", "tabs", "spaces", "travel", "budget", "trip", "flights", "hotel", "team",
    "offsite", "lisbon", "card", "charges", "payment", "failed", "certificate", "expired",
    "checkout", "lunch", "pizza", "menu", "report", "incident",
    "the", "a", "of", "is", "was", "in", "for", "and", "to", "why", "what", "did",
)  # fmt: skip
texts = st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12).map(
    lambda chosen: " ".join(chosen).capitalize() + "."
)


@settings(max_examples=300, deadline=None)
@given(
    question=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=6).map(
        lambda chosen: " ".join(chosen) + "?"
    ),
    passages=st.lists(texts, min_size=1, max_size=4),
)
def test_feature_hashing_adds_no_answer(question: str, passages: list[str]) -> None:
    """Feature hashing is lexical: a sentence short of the question's words is no closer
    to it by hashing than the threshold, so the answer is the lexical one."""
    lexical = extract_answer(question, passages)
    assert extract_answer(question, passages, embedder=HashingEmbedder()) == lexical


def test_a_sentence_sharing_some_question_words_is_judged_by_the_rest() -> None:
    """The question's own words in a sentence add nothing: what the rest says decides."""
    partly = "The card gateway rejected every checkout."  # shares `card`; the rest is close
    assert answer(QUESTION, [partly], SenseEmbedder(SENSES)) == f"{partly} [1]"
    assert answer(QUESTION, ["The card is blue."], SenseEmbedder(SENSES)) == ""


@pytest.mark.parametrize("sentence", ["Prefers.", "User prefers.", "The user prefers it."])
def test_hashing_does_not_rescue_a_sentence_short_of_the_question_words(sentence: str) -> None:
    question = "Does the user prefer tabs or spaces, and which editor?"
    passages = [sentence, "Lunch is pizza."] * 3  # `user` and `prefer` common: too few
    assert extract_answer(question, passages).text == ""
    assert extract_answer(question, passages, embedder=HashingEmbedder()).text == ""


def test_a_question_without_a_content_word_is_not_answered_by_meaning() -> None:
    embedder = SenseEmbedder(SENSES)
    assert extract_answer("what was it?", ["Pizza was it."], embedder=embedder).text == ""
    assert (
        extract_answer("the in?", ["User the the the in."], embedder=HashingEmbedder()).text == ""
    )
    assert embedder.calls == []
