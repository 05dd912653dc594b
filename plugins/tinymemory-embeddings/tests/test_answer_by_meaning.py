"""The extractive answer by meaning: recall over several notes answers each reworded question
from its own note with a model that knows meaning, and answers nothing with feature hashing or
when no note is about the question; headings, code and table rows stay unquoted."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import OpenSqlite, write_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.retrieval import STOP_WORDS, words
from tinymemory.testing import Sandbox
from tinymemory_embeddings.testing import build_tiny_model2vec

NOTES = {
    "incident": "Incident report: the TLS certificate of the payments gateway expired at 09:12 "
    "UTC, so every checkout request was rejected until it was renewed.",
    "travel": "The travel budget is 1,200 EUR per trip, flights and hotel included.",
    "offsite": "The team offsite is in Lisbon in the second week of May.",
    "style": "The user prefers tabs over spaces for indentation.",
    "lunch": "Friday lunch is pizza; a vegetarian menu is on request.",
}
#: Words sharing meaning: each note's words and the other words of its questions.
SENSES = {
    "payment": ("card", "charges", "payments", "gateway", "checkout", "purchases"),
    "failure": ("fail", "break", "expired", "rejected", "incident", "outage"),
    "security": ("certificate", "tls", "renewed", "expired"),
    "customer": ("customers", "buyers", "clients"),
    "cause": ("why", "reason", "report", "so"),
    "money": ("budget", "eur", "money", "spend", "cost", "allowance"),
    "travel": ("travel", "trip", "flights", "hotel", "journey", "voyage", "airfare"),
    "meeting": ("offsite", "team", "colleagues", "gather", "retreat"),
    "place": ("lisbon", "where", "city"),
    "season": ("may", "week", "spring", "second"),
    "layout": ("tabs", "spaces", "indentation", "whitespace", "layout"),
    "liking": ("prefers", "like", "likes", "favourite"),
    "person": ("user", "person", "owner"),
    "food": ("lunch", "pizza", "menu", "vegetarian", "food", "meal", "served", "eat"),
    "weekday": ("friday", "workweek", "weekend"),
    "weather": ("weather", "rain", "forecast", "sunny", "tomorrow"),
}
#: Each note's reworded questions (no content word of the note) and a word its answer holds.
REWORDED = {
    "incident": (("why did customers' card charges fail?", "certificate"),
                 ("what was the reason buyers' purchases would break?", "certificate")),
    "travel": (("how much money may I spend on a journey?", "1,200 EUR"),
               ("what allowance covers airfare on a voyage?", "1,200 EUR")),
    "offsite": (("where will colleagues gather in spring?", "Lisbon"),),
    "style": (("what whitespace layout does the person like?", "tabs"),),
    "lunch": (("what food is served at the end of the workweek?", "pizza"),),
}  # fmt: skip
NOTHING = "Nothing stored answers this question."
UNRELATED = ("will it rain tomorrow?", "is it sunny at the weekend?", "what city has rain?")
ASKED = [(note, question, fact) for note, pairs in REWORDED.items() for question, fact in pairs]


@pytest.fixture(scope="module")
def note_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model2vec model whose vocabulary gives the notes' words and the questions'
    shared senses (no download)."""
    return build_tiny_model2vec(tmp_path_factory.mktemp("note-model"), senses=SENSES)


@pytest.fixture
def with_note_model(sandbox: Sandbox, note_model: Path) -> None:
    write_config(sandbox, f'[plugins.embeddings.model2vec]\nmodel = "{note_model}"\n')


def content(text: str) -> set[str]:
    """Its words that are not stop words, each cut to four letters (a light stem)."""
    return {word[:4] for word in words(text) if word not in STOP_WORDS}


def store_notes(engine: tm.MemoryEngine, texts: dict[str, str]) -> dict[str, str]:
    """Store each note; the note's name by id."""
    receipts = engine.store_many(tm.Document(body=text) for text in texts.values())
    return {receipt.id: name for receipt, name in zip(receipts, texts, strict=True)}


@pytest.mark.parametrize(("note", "question", "fact"), ASKED)
def test_each_question_shares_no_content_word_with_its_note(
    note: str, question: str, fact: str
) -> None:
    assert not content(question) & content(NOTES[note])


@pytest.mark.usefixtures("with_note_model")
def test_the_model_answers_each_reworded_question_from_its_note(open_sqlite: OpenSqlite) -> None:
    with open_sqlite("model2vec") as engine:
        names = store_notes(engine, NOTES)
        for note, question, fact in ASKED:
            answer = engine.recall(tm.RecallRequest(question=question))
            assert [names[citation.id] for citation in answer.citations] == [note], question
            assert fact in answer.answer, question
            assert answer.answer.endswith("[1]")
        for question in UNRELATED:
            answer = engine.recall(tm.RecallRequest(question=question))
            assert (answer.answer, answer.citations) == (NOTHING, ())


@pytest.mark.usefixtures("with_note_model")
def test_hashing_answers_no_reworded_question(open_sqlite: OpenSqlite) -> None:
    """Feature hashing is lexical: what it finds close shares words, which the lexical
    choice already found wanting, so it adds no answer."""
    with open_sqlite("hashing") as engine:
        store_notes(engine, NOTES)
        for _, question, _ in ASKED:
            answer = engine.recall(tm.RecallRequest(question=question))
            assert (answer.answer, answer.citations) == (NOTHING, ())


FORMATTED = """# Card charges failed

The TLS certificate expired, so checkout was rejected.

```
charge_card(card) failed
```

| payment | status |
|---------|--------|
| charges | failed |
"""


@pytest.mark.usefixtures("with_note_model")
def test_headings_code_and_table_rows_are_not_quoted_by_meaning(open_sqlite: OpenSqlite) -> None:
    with open_sqlite("model2vec") as engine:
        store_notes(engine, {"formatted": FORMATTED})
        answer = engine.recall(tm.RecallRequest(question="why did customers' purchases break?"))
        assert answer.answer == "The TLS certificate expired, so checkout was rejected. [1]"


@pytest.mark.usefixtures("with_note_model")
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    chosen=st.lists(st.sampled_from(ASKED), min_size=1, max_size=3, unique=True),
    others=st.sets(st.sampled_from(sorted(NOTES)), max_size=4),
)
def test_any_notes_and_rewordings_answer_from_the_right_note(
    open_sqlite: OpenSqlite,
    tmp_path_factory: pytest.TempPathFactory,
    chosen: list[tuple[str, str, str]],
    others: set[str],
) -> None:
    """Whichever notes are stored beside the one asked about, in whatever order, a reworded
    question is answered from its own note and only from it."""
    stored = sorted({note for note, _, _ in chosen} | others)
    path = tmp_path_factory.mktemp("notes") / "memory.db"
    with open_sqlite("model2vec", path) as engine:
        names = store_notes(engine, {name: NOTES[name] for name in stored})
        for note, question, fact in chosen:
            answer = engine.recall(tm.RecallRequest(question=question))
            assert [names[citation.id] for citation in answer.citations] == [note]
            assert fact in answer.answer
