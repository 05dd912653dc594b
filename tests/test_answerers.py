"""The answerer seam: the ``tinymemory_answerers`` hook, the built-in ``extractive``, engines
taking ``answerer`` by name, and ``tinymemory recall --answerer``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.plugin import (
    Answerer,
    ExtractiveAnswerer,
    answerer_named,
    answerers,
    hookimpl,
)
from tinymemory.reference import ReferenceEngine
from tinymemory.retrieval import extractive_answer
from tinymemory.testing import BUILTIN_PLUGINS, Cli, Sandbox, only_plugins, registered


class Echo:
    """An answerer that writes down what it was handed: the question and the hits' ids."""

    name = "echo"

    def __init__(self) -> None:
        self.seen: list[tuple[str, list[str]]] = []

    def answer(self, request: tm.RecallRequest, hits: Sequence[tm.Hit]) -> tm.RecallAnswer:
        self.seen.append((request.question, [hit.id for hit in hits]))
        return tm.RecallAnswer(answer=f"{len(hits)} hits", model="echo-model")


class EchoPlugin:
    def __init__(self, *offered: Answerer) -> None:
        self.offered = list(offered)

    @hookimpl
    def tinymemory_answerers(self) -> list[Answerer]:
        return self.offered


@pytest.fixture
def echo() -> Iterator[Echo]:
    answerer = Echo()
    with registered(EchoPlugin(answerer), name="echo-plugin"):
        yield answerer


def test_the_builtin_extractive_answerer_is_installed_and_the_protocols_instance() -> None:
    installed = answerers()
    assert isinstance(installed["extractive"], ExtractiveAnswerer)
    assert isinstance(ExtractiveAnswerer(), Answerer)
    assert answerer_named("extractive").name == "extractive"


@pytest.mark.parametrize("name", ["nope", "", 3, None])
def test_an_unknown_or_malformed_answerer_name_is_a_config_error(name: object) -> None:
    with pytest.raises(tm.ConfigError) as raised:
        answerer_named(name)
    named = isinstance(name, str) and name
    assert ("installed: extractive" if named else "an answerer's name") in raised.value.message


texts = st.lists(
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=80),
    min_size=0,
    max_size=6,
)


@settings(max_examples=40, deadline=None)
@given(question=st.text(min_size=1, max_size=40).filter(str.strip), bodies=texts)
def test_extractive_answers_as_the_kits_function_does(question: str, bodies: list[str]) -> None:
    hits = [
        tm.Hit.of_item(f"{n:040x}", tm.Learning(text=body), 1.0 / (n + 1))
        for n, body in enumerate(bodies)
        if body.strip()
    ]
    request = tm.RecallRequest(question=question)
    assert ExtractiveAnswerer().answer(request, hits) == extractive_answer(question, hits)


def _stored(engine: tm.MemoryEngine) -> list[str]:
    texts = ["the deploy runs on fridays", "tabs over spaces", "the deploy needs a review"]
    return [engine.store(tm.Learning(text=text)).id for text in texts]


def test_the_reference_engine_hands_its_ranked_hits_to_a_named_answerer(echo: Echo) -> None:
    engine = tm.build_engine("reference", tm.EngineSettings(options={"answerer": "echo"}))
    ids = _stored(engine)
    answer = engine.recall(tm.RecallRequest(question="deploy fridays", limit=1))
    assert (answer.answer, answer.model) == ("1 hits", "echo-model")
    assert echo.seen == [("deploy fridays", [ids[0]])]


def test_without_an_answerer_the_reference_engine_answers_as_before() -> None:
    engine = ReferenceEngine()
    _stored(engine)
    answer = engine.recall(tm.RecallRequest(question="tabs", limit=1))
    assert (answer.answer, answer.model) == ("From 1 stored items: tabs over spaces", "reference")


def test_the_reference_engine_refuses_an_answerer_not_installed() -> None:
    with pytest.raises(tm.ConfigError, match=r"no answerer named `nope` .*installed: extractive"):
        tm.build_engine("reference", tm.EngineSettings(options={"answerer": "nope"}))


def test_two_plugins_offering_one_answerer_name_is_a_config_error() -> None:
    with (
        registered(EchoPlugin(Echo()), name="one"),
        registered(EchoPlugin(Echo()), name="two"),
        pytest.raises(tm.ConfigError, match=r"answerer `echo` is registered by two plugins"),
    ):
        answerers()


def test_recall_answerer_chooses_the_answerer_and_names_the_model(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path, {"TINYMEMORY_ENGINE": "reference"})
    answerer = Echo()
    with (
        sandbox.enter(),
        only_plugins(*BUILTIN_PLUGINS),
        registered(EchoPlugin(answerer), name="echo-plugin"),
    ):
        cli = Cli(sandbox)
        chosen = cli.invoke("recall", "deploy", "--answerer", "echo")
        plain = cli.invoke("recall", "deploy")
        unknown = cli.invoke("recall", "deploy", "--answerer", "nope")
    assert (chosen.exit_code, chosen.stdout) == (0, "0 hits\n\nmodel: echo-model\n")
    assert answerer.seen == [("deploy", [])]
    assert "model:" not in plain.stdout
    assert unknown.exit_code != 0
    assert "no answerer named `nope` is installed (installed: echo, extractive)" in unknown.stderr
