"""The issue's "Done when": a question sharing no word with the text that answers it is found
with a model that knows the words share meaning, and not with feature hashing."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import OpenSqlite
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.retrieval import words
from tinymemory_embeddings.model2vec_embedder import Model2VecEmbedder
from tinymemory_embeddings.testing import SENSES

INCIDENT = (
    "Incident report: the TLS certificate of the payments gateway expired at 09:12 UTC, "
    "so every checkout request was rejected until it was renewed."
)
OTHERS = (
    "The travel budget is 1,200 EUR per trip, flights and hotel included.",
    "The team offsite is in Lisbon in the second week of May.",
    "The user prefers tabs over spaces for indentation.",
    "Friday lunch is pizza; a vegetarian menu is on request.",
)
QUESTION = "why did customers' card charges fail?"


def store_all(engine: tm.MemoryEngine, texts: tuple[str, ...]) -> dict[str, str]:
    """Store each text as a document; text by id."""
    receipts = engine.store_many(tm.Document(body=text) for text in texts)
    return {receipt.id: text for receipt, text in zip(receipts, texts, strict=True)}


def vector_scores(engine: tm.MemoryEngine, question: str) -> dict[str, float]:
    page = engine.fetch(tm.FetchRequest(query=question, mode=tm.FetchMode.VECTOR, limit=10))
    return {hit.id: hit.score for hit in page.hits}


def cited(answer: tm.RecallAnswer) -> set[str]:
    return {citation.id for citation in answer.citations}


def test_the_question_and_the_report_share_no_word() -> None:
    assert not set(words(QUESTION)) & set(words(INCIDENT))


@pytest.mark.usefixtures("configured")
def test_the_tiny_model_finds_what_hashing_cannot(open_sqlite: OpenSqlite, tmp_path: Path) -> None:
    with open_sqlite("model2vec", tmp_path / "model.db") as engine:
        ids = store_all(engine, (INCIDENT, *OTHERS))
        incident = next(i for i, text in ids.items() if text == INCIDENT)
        scores = vector_scores(engine, QUESTION)
        assert max(scores, key=scores.__getitem__) == incident
        assert incident in cited(engine.recall(tm.RecallRequest(question=QUESTION)))
        hybrid = engine.fetch(tm.FetchRequest(query=QUESTION, mode=tm.FetchMode.HYBRID, limit=3))
        assert hybrid.hits[0].id == incident
    with open_sqlite("hashing", tmp_path / "hashing.db") as engine:
        ids = store_all(engine, (INCIDENT, *OTHERS))
        incident = next(i for i, text in ids.items() if text == INCIDENT)
        # Hashing's vector mode is lexical: what little the report scores (shared letters)
        # is no closer than hashing's unrelated background sentences, and recall cites nothing.
        assert incident not in cited(engine.recall(tm.RecallRequest(question=QUESTION)))


@pytest.mark.usefixtures("configured")
def test_recall_answers_the_reworded_question(open_sqlite: OpenSqlite) -> None:
    with open_sqlite("model2vec") as engine:
        ids = store_all(engine, (INCIDENT, *OTHERS))
        incident = next(i for i, text in ids.items() if text == INCIDENT)
        answer = engine.recall(tm.RecallRequest(question=QUESTION))
        assert cited(answer) == {incident}
        assert "certificate" in answer.answer


# A rewording asks what went wrong with payments in words the report lacks: a word of each
# of its senses "payment" and "failure", and maybe who was hit and why.
REPORT_WORDS = set(words(INCIDENT))


def unused(sense: str) -> st.SearchStrategy[str]:
    return st.sampled_from([word for word in SENSES[sense] if word not in REPORT_WORDS])


questions = st.tuples(
    unused("payment"),
    unused("failure"),
    st.lists(unused("customer") | unused("cause"), max_size=2),
).map(lambda parts: [parts[0], parts[1], *parts[2]])


@pytest.mark.usefixtures("configured")
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(asked=questions)
def test_any_rewording_from_its_senses_finds_the_report(
    open_sqlite: OpenSqlite, tmp_path: Path, asked: list[str]
) -> None:
    """Not one question but the class: any few words sharing the report's senses find it first."""
    path = tmp_path / "rewordings.db"
    with open_sqlite("model2vec", path) as engine:
        ids = store_all(engine, (INCIDENT, *OTHERS))
        incident = next(i for i, text in ids.items() if text == INCIDENT)
        scores = vector_scores(engine, " ".join(asked))
        assert max(scores, key=scores.__getitem__) == incident


class Squared:
    """``inner`` with every cosine ``c`` mapped to ``((1 + c) / 2) ** 2``, increasing on
    [-1, 1]: the vector ``(1, v) / sqrt(2)`` multiplied out with itself."""

    name = "squared"

    def __init__(self, inner: Model2VecEmbedder) -> None:
        self.inner = inner
        self.dimensions = (1 + inner.dimensions) ** 2

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        import numpy as np

        rows = np.array(self.inner.embed(texts), dtype=np.float64)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        np.divide(rows, norms, out=rows, where=norms > 0)  # a zero row has cosine 0 with all
        lifted = np.hstack([np.ones((len(rows), 1)), rows]) / np.sqrt(2)
        squared: list[list[float]] = (
            np.einsum("ni,nj->nij", lifted, lifted).reshape(len(rows), -1).tolist()
        )
        return squared


def test_an_engine_answers_and_refuses_alike_under_mapped_similarities(
    tiny_model: Path, tmp_path: Path
) -> None:
    """No bar of recall is a number: through the sqlite engine, the same model with every
    similarity squared (after a shift) recalls the same answers, citations and refusals."""
    from tinymemory_sqlite import SqliteEngine

    plain = Model2VecEmbedder(model=str(tiny_model))
    questions = [QUESTION, "What is the travel budget?", "When does the dentist open on Saturdays?"]
    found = []
    for name, embedder in (("plain", plain), ("squared", Squared(plain))):
        engine = SqliteEngine(tmp_path / f"{name}.db", embedder=embedder)
        try:
            store_all(engine, (INCIDENT, *OTHERS))
            answers = [engine.recall(tm.RecallRequest(question=text)) for text in questions]
        finally:
            engine.close()
        found.append([(answer.answer, len(answer.citations)) for answer in answers])
    assert found[0] == found[1]
    assert "certificate" in found[0][0][0]
    assert found[0][2][0] == "Nothing stored answers this question."
