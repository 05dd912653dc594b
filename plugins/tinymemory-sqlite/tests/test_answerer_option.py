"""The engine's ``answerer`` option: recall's hits handed to the answerer named, an answerer
not installed refused before the file is made."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.plugin import Answerer, hookimpl
from tinymemory.testing import registered


class Echo:
    """An answerer that writes down the question and the ids of the hits it was handed."""

    name = "echo"

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[str]]] = []

    @hookimpl
    def tinymemory_answerers(self) -> list[Answerer]:
        return [self]

    def answer(self, request: tm.RecallRequest, hits: Sequence[tm.Hit]) -> tm.RecallAnswer:
        self.seen.append((request.question, [hit.id for hit in hits]))
        return tm.RecallAnswer(answer=f"{len(hits)} hits", model="echo-model")


def test_recall_hands_its_ranked_hits_to_the_answerer_named(tmp_path: Path) -> None:
    echo = Echo()
    options = {"path": str(tmp_path / "m.db"), "answerer": "echo"}
    with (
        registered(echo, name="echo-plugin"),
        tm.build_engine("sqlite", tm.EngineSettings(options=options)) as engine,
    ):
        texts = ["the deploy runs on fridays", "tabs over spaces", "the deploy needs a review"]
        ids = [engine.store(tm.Learning(text=text)).id for text in texts]
        answer = engine.recall(tm.RecallRequest(question="deploy", limit=2))
    assert (answer.answer, answer.model) == ("2 hits", "echo-model")
    assert echo.seen[0][0] == "deploy"
    assert set(echo.seen[0][1]) == {ids[0], ids[2]}


def test_without_the_option_recall_answers_extractively(tmp_path: Path) -> None:
    options = {"path": str(tmp_path / "m.db")}
    with tm.build_engine("sqlite", tm.EngineSettings(options=options)) as engine:
        engine.store(tm.Learning(text="the deploy runs on fridays"))
        answer = engine.recall(tm.RecallRequest(question="when does the deploy run?"))
    assert (answer.answer, answer.model) == ("the deploy runs on fridays [1]", "extractive")


@pytest.mark.parametrize(
    ("name", "complaint"),
    [("nope", "no answerer named `nope` is installed (installed: "), (3, "an answerer's name")],
)
def test_an_answerer_not_installed_is_refused_before_the_file_is_made(
    tmp_path: Path, name: object, complaint: str
) -> None:
    options = {"path": str(tmp_path / "m.db"), "answerer": name}
    with pytest.raises(tm.ConfigError) as raised:
        tm.build_engine("sqlite", tm.EngineSettings(options=options))
    assert complaint in raised.value.message
    assert not (tmp_path / "m.db").exists()
