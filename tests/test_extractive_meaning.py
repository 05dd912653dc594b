"""The extractive answer by meaning: a meaning-aware embedder chooses the sentence, and every
bar is a comparison with the same embedder's background, never a number."""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory._extractive import (
    MAX_MEANING_CANDIDATES,
    NOTHING_RELEVANT,
    asked_value,
    extract_answer,
    extractive_answer,
    named_values,
)
from tinymemory._words import words
from tinymemory.answerers import ExtractiveAnswerer, engine_answerer
from tinymemory.hashing import HashingEmbedder
from tinymemory.retrieval._background import SYNONYMS, background

#: Axes every word no sense knows is hashed onto, so no text is a zero vector.
OTHER_AXES = 8


class SenseEmbedder:
    """A double: each known word adds one to its sense's axis, any other word a tenth to
    one of a few hashed axes; it records every call."""

    name = "senses"

    def __init__(self, senses: Mapping[str, str]) -> None:
        self.senses = {**senses, **{word: f"probe-{a}" for a, b in SYNONYMS for word in (a, b)}}
        self.axes = sorted(set(self.senses.values()))
        self.dimensions = len(self.axes) + OTHER_AXES
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        vectors = []
        for text in texts:
            vector = [0.0] * self.dimensions
            for word in words(text):
                if word in self.senses:
                    vector[self.axes.index(self.senses[word])] += 1.0
                else:
                    vector[len(self.axes) + zlib.crc32(word.encode()) % OTHER_AXES] += 0.1
            vectors.append(vector)
        return vectors


class Mapped:
    """An embedder whose cosines are ``inner``'s mapped through an increasing function:
    ``affine`` gives ``0.9 + 0.1c`` (a constant axis beside the scaled vector), ``cube``
    gives ``c**3`` (the vector's threefold outer product with itself)."""

    def __init__(self, inner: SenseEmbedder, how: str) -> None:
        self.inner, self.how, self.name = inner, how, f"{how}-senses"
        self.dimensions = 1 + inner.dimensions if how == "affine" else inner.dimensions**3

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        rows = []
        for vector in np.array(self.inner.embed(texts), dtype=np.float64):
            unit = vector / np.linalg.norm(vector)
            if self.how == "affine":
                rows.append([0.9**0.5, *(0.1**0.5 * unit)])
            else:
                rows.append(np.einsum("i,j,k->ijk", unit, unit, unit).ravel().tolist())
        return rows


SENSES = {
    "charges": "pay", "card": "pay", "checkout": "pay", "gateway": "pay",
    "purchases": "pay", "fail": "fail", "failed": "fail", "break": "fail", "rejected": "fail",
    "customers": "who", "buyers": "who",
    "lunch": "food", "pizza": "food", "meal": "food",
    "parking": "car", "garage": "car",
}  # fmt: skip
QUESTION = "why did customers' card charges fail?"
REPORT = "Every checkout at the gateway was rejected for buyers."


def answer(question: str, passages: Sequence[str], embedder: object) -> str:
    return extract_answer(question, passages, embedder=embedder).text  # type: ignore[arg-type]


def test_the_probe_tells_a_meaning_aware_embedder_from_a_lexical_one() -> None:
    assert background(SenseEmbedder(SENSES)).meaning_aware
    assert not background(HashingEmbedder()).meaning_aware


def test_a_reworded_question_is_answered_by_meaning() -> None:
    embedder = SenseEmbedder(SENSES)
    assert answer(QUESTION, ["Friday lunch is pizza.", REPORT], embedder) == f"{REPORT} [1]"
    assert extract_answer(QUESTION, [REPORT]).text == ""  # without the embedder: nothing


def test_the_sentence_closest_in_meaning_leads_over_one_sharing_a_word() -> None:
    """The question against each whole sentence: the one that answers comes first."""
    partly = "The card is blue."  # shares `card`, says nothing of a failure
    extract = extract_answer(QUESTION, [partly, REPORT], embedder=SenseEmbedder(SENSES))
    assert extract.text.startswith(f"{REPORT} [1]")


def test_an_unanswerable_question_is_refused() -> None:
    """Nothing stored is closer to the question than the embedder's unrelated sentences."""
    embedder = SenseEmbedder(SENSES)
    passages = [REPORT, "Friday lunch is pizza."]
    assert answer("Where is the parking garage?", passages, embedder) == ""


QUESTIONS = [
    QUESTION,
    "Where is the parking garage?",
    "what about lunch?",
    "Why did the card fail?",
    "Which buyers were rejected at checkout?",
    "How much did the flights cost?",
    "How often did the card charges fail?",
    "When is lunch on Friday?",
]
PASSAGES = [
    REPORT,
    "Friday lunch is pizza. The meal is free.",
    "The card is blue. Parking is behind the garage.",
    "Releases ship on Friday.",
]


@pytest.mark.parametrize("how", ["affine", "cube"])
def test_similarities_mapped_through_an_increasing_function_give_the_same_answers(
    how: str,
) -> None:
    """No bar is a number: ``0.9 + 0.1c`` and ``c**3`` answer and refuse as ``c`` does."""
    plain = SenseEmbedder(SENSES)
    mapped = Mapped(SenseEmbedder(SENSES), how)
    assert background(mapped).meaning_aware
    answers = [answer(question, PASSAGES, plain) for question in QUESTIONS]
    assert "" in answers  # a refusal is at stake
    assert any(answers)  # and an answer
    assert [answer(question, PASSAGES, mapped) for question in QUESTIONS] == answers


def test_a_decoy_sharing_the_topic_but_not_the_subject_is_left_out() -> None:
    notes = "Version 4.2 requires PostgreSQL 15 or newer. Version 3.0 required PostgreSQL 11."
    question = "Which PostgreSQL version does version 4.2 require?"
    for embedder in (None, HashingEmbedder(), SenseEmbedder(SENSES)):
        text = extract_answer(question, [notes], embedder=embedder).text
        assert text == "Version 4.2 requires PostgreSQL 15 or newer. [1]"


def test_a_sentence_s_own_year_overrides_its_heading_s() -> None:
    # Under "Leave policy 2027" the 2026 sentence is about 2026: the heading's year is
    # not its own, so it is a decoy beside the 2027 one, not a second answer.
    notes = (
        "# Leave policy 2027\n\nFrom 2027, new parents receive 16 weeks of paid leave. "
        "In 2026, new parents received 12 weeks of paid leave."
    )
    question = "How many weeks of paid leave do new parents get from 2027?"
    for embedder in (None, HashingEmbedder(), SenseEmbedder(SENSES)):
        text = extract_answer(question, [notes], embedder=embedder).text
        assert text == "From 2027, new parents receive 16 weeks of paid leave. [1]"
    older = extract_answer("How many weeks did new parents get in 2026?", [notes]).text
    assert older.startswith("In 2026, new parents received 12 weeks")  # the decoy answers its own


def test_a_question_of_several_parts_is_answered_part_by_part() -> None:
    # A description asked in parts (no value asked): a sentence its words quote answers
    # one part, though it holds fewer than half of all the question's words.
    notes = (
        "I am Ada Lovelace, tech lead of the platform team. "
        "I like short answers with the code first, and I work in the mornings."
    )
    question = "Who is the user: their identity, their role, and how they like to work?"
    text = answer(question, [notes], SenseEmbedder(SENSES))
    assert "I like short answers with the code first, and I work in the mornings." in text
    # A value asked of the same sentence stays refused: it states no quantity.
    assert answer("How many hours do they like to work?", [notes], SenseEmbedder(SENSES)) == ""


def test_one_bounded_embed_call_after_the_background() -> None:
    embedder = SenseEmbedder(SENSES)
    background(embedder)
    embedder.calls.clear()
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
    assert answer("why did customers' purchases break?", [FORMATTED], embedder) == f"{REPORT} [1]"
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


@settings(max_examples=200, deadline=None)
@given(
    question=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=6).map(
        lambda chosen: " ".join(chosen) + "?"
    ),
    passages=st.lists(texts, min_size=1, max_size=4),
)
def test_feature_hashing_adds_no_answer(question: str, passages: list[str]) -> None:
    """Feature hashing is lexical (the probe finds no meaning in it): the answer is the
    lexical one."""
    lexical = extract_answer(question, passages)
    assert extract_answer(question, passages, embedder=HashingEmbedder()) == lexical


@settings(max_examples=30, deadline=None)
@given(
    question=st.lists(st.sampled_from([*VOCABULARY, *SENSES]), min_size=1, max_size=6).map(
        lambda chosen: " ".join(chosen) + "?"
    ),
    passages=st.lists(texts, min_size=1, max_size=3),
    how=st.sampled_from(["affine", "cube"]),
)
def test_any_increasing_map_of_the_similarities_answers_alike(
    question: str, passages: list[str], how: str
) -> None:
    plain = SenseEmbedder(SENSES)
    assert answer(question, passages, Mapped(plain, how)) == answer(question, passages, plain)


def test_a_question_without_a_content_word_is_not_answered_by_meaning() -> None:
    embedder = SenseEmbedder(SENSES)
    background(embedder)
    embedder.calls.clear()
    assert extract_answer("what was it?", ["Pizza was it."], embedder=embedder).text == ""
    assert embedder.calls == []


EMBEDDERS = (None, HashingEmbedder(), SenseEmbedder(SENSES))


@pytest.mark.parametrize("embedder", EMBEDDERS, ids=["words", "hashing", "senses"])
@pytest.mark.parametrize(
    ("question", "neighbour", "answering"),
    [
        # A value asked (how often) that the neighbour does not state.
        (
            "How often are the card charges checked?",
            "The card charges are checked by the gateway team.",
            "The card charges are checked every Monday.",
        ),
        # A price asked: the neighbour holds a number but no amount of money.
        (
            "How much does the parking garage cost?",
            "The parking garage has 40 places.",
            "The parking garage costs 12 EUR a day.",
        ),
        # A version named: the neighbour is about another one.
        (
            "When will checkout 5.2 be released?",
            "Checkout 5.1 was released on 3 March.",
            "Checkout 5.2 will be released on 9 June.",
        ),
        # A weekday named: an embedder puts Sunday beside any day; letters tell them apart.
        (
            "When does the lunch menu change on Sundays?",
            "The lunch menu changes at 11:00 on weekdays.",
            "The lunch menu changes at 12:00 on Sundays.",
        ),
    ],
)
def test_a_topical_neighbour_is_refused_and_the_answer_accepted(
    embedder: object, question: str, neighbour: str, answering: str
) -> None:
    """The neighbour shares the question's topic, not what it asks: refused alone, and left
    out beside the sentence that answers."""
    assert answer(question, [neighbour], embedder) == ""
    assert answer(question, [neighbour, answering], embedder) == f"{answering} [1]"


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("How many weeks of leave?", "quantity"),
        ("How long did it stop?", "quantity"),
        ("How often are backups made?", "frequency"),
        ("How much does the charger cost?", "money"),
        ("What is the parking fee?", "money"),
        ("How much holiday is given?", "quantity"),
        ("When is the next meeting?", "time"),
        ("What time does the bus leave?", "time"),
        ("Which region holds the backups?", ""),
        ("Why did the card fail?", ""),
    ],
)
def test_the_value_a_question_asks_for(question: str, kind: str) -> None:
    assert asked_value(question).kind == kind


def test_the_values_a_question_names() -> None:
    assert named_values("Is 5.2 out on Sundays for the 6204-2RS in May?") == (
        ("5", "2"),
        ("6204", "2rs"),
        ("sunday",),
        ("may",),
    )
    assert named_values("May I know when it ships?") == ()  # a capital opening the question
