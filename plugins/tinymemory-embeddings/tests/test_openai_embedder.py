"""The embedder ``openai`` against the loopback double: batching, order by index, dimensions
checked, configuration, and store, vector fetch and recall through the sqlite engine."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.plugin import embedders
from tinymemory.retrieval import HashingEmbedder
from tinymemory.testing import Sandbox
from tinymemory_embeddings.openai_embedder import (
    DEFAULT_DIMENSIONS,
    DEFAULT_MODEL,
    OpenAIEmbedder,
    settings_from_table,
)
from tinymemory_embeddings.openai_testing import OpenAIDouble, Reply

KEY = "sk-test-SECRET-0123456789abcdef"
DIMENSIONS = 16


@pytest.fixture(scope="module")
def double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble(dimensions=DIMENSIONS) as server:
        yield server


@pytest.fixture(autouse=True)
def fresh(double: OpenAIDouble, monkeypatch: pytest.MonkeyPatch) -> None:
    double.received.clear()
    double._scripts["embeddings"].clear()
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def embedder(double: OpenAIDouble, **table: Any) -> OpenAIEmbedder:
    defaults = {"base_url": double.base_url, "model": "double-embed", "dimensions": DIMENSIONS}
    return OpenAIEmbedder(settings_from_table({**defaults, "retries": 0, **table}))


texts = st.lists(
    st.one_of(st.sampled_from(["", "  ", "\n"]), st.text(min_size=1, max_size=30)),
    max_size=12,
)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(texts=texts, batch_size=st.integers(min_value=1, max_value=5))
def test_vectors_come_back_in_text_order_batch_by_batch(
    double: OpenAIDouble, texts: list[str], batch_size: int
) -> None:
    double.received.clear()
    vectors = embedder(double, batch_size=batch_size).embed(texts)
    sent = [text for text in texts if text.strip()]
    hashing = HashingEmbedder(DIMENSIONS)
    wanted = [hashing.embed([text])[0] if text.strip() else [0.0] * DIMENSIONS for text in texts]
    assert vectors == [pytest.approx(vector) for vector in wanted]
    batches = [request.body["input"] for request in double.requests_to("embeddings")]
    assert batches == [sent[i : i + batch_size] for i in range(0, len(sent), batch_size)]


def test_each_request_names_the_model_and_floats_and_dimensions_only_when_asked(
    double: OpenAIDouble,
) -> None:
    embedder(double).embed(["one"])
    embedder(double, request_dimensions=True).embed(["two"])
    plain, asked = (request.body for request in double.requests_to("embeddings"))
    assert plain == {"model": "double-embed", "input": ["one"], "encoding_format": "float"}
    assert asked == {**plain, "input": ["two"], "dimensions": DIMENSIONS}


def test_vectors_of_another_size_are_a_clear_error(double: OpenAIDouble) -> None:
    with pytest.raises(tm.EngineError) as raised:
        embedder(double, dimensions=32).embed(["a text"])
    assert (
        f"gave vectors of {DIMENSIONS} dimensions, not the 32 configured: "
        f"set `dimensions = {DIMENSIONS}` in [plugins.embeddings.openai]"
    ) in raised.value.message


def _data(*entries: Any) -> Reply:
    return Reply(body={"data": list(entries)})


VECTOR = [0.5] * DIMENSIONS


@pytest.mark.parametrize(
    ("reply", "complaint"),
    [
        (_data({"index": 0, "embedding": VECTOR}), "got no list of 2 embeddings"),
        (Reply(body={"nothing": []}), "got no list of 2 embeddings"),
        (Reply(body=[1, 2]), "got no list of 2 embeddings"),
        (_data({"index": 0, "embedding": VECTOR}, {"index": 0, "embedding": VECTOR}), "two"),
        (_data({"index": 0, "embedding": VECTOR}, {"index": 2, "embedding": VECTOR}), "index"),
        (_data({"index": 0, "embedding": VECTOR}, {"index": True, "embedding": VECTOR}), "index"),
        (_data({"index": 0, "embedding": VECTOR}, {"embedding": VECTOR}), "index"),
        (_data({"index": 0, "embedding": VECTOR}, {"index": 1, "embedding": "abc"}), "numbers"),
        (
            _data(
                {"index": 0, "embedding": VECTOR}, {"index": 1, "embedding": [None] * DIMENSIONS}
            ),
            "numbers",
        ),
        (
            _data(
                {"index": 0, "embedding": VECTOR}, {"index": 1, "embedding": [1e400] * DIMENSIONS}
            ),
            "numbers",
        ),
    ],
)
def test_a_malformed_reply_is_an_engine_error(
    double: OpenAIDouble, reply: Reply, complaint: str
) -> None:
    double.script("embeddings", reply)
    with pytest.raises(tm.EngineError, match=complaint):
        embedder(double).embed(["one", "two"])


def test_a_429_then_success_embeds(double: OpenAIDouble) -> None:
    double.script("embeddings", Reply(status=429, headers={"Retry-After": "0"}))
    vectors = embedder(double, retries=1).embed(["one"])
    assert vectors[0] == pytest.approx(HashingEmbedder(DIMENSIONS).embed(["one"])[0])
    assert len(double.requests_to("embeddings")) == 2


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ({"model": "nomic-embed-text"}, "set `dimensions`, the size of the vectors of model"),
        ({"dimensions": 0}, "`dimensions` must be a whole number, 1 to 65536"),
        ({"batch_size": 0}, "`batch_size` must be a whole number, 1 to 2048"),
        ({"request_dimensions": "yes"}, "`request_dimensions` must be true or false"),
        ({"key": KEY}, "has no key `key`"),
    ],
)
def test_a_malformed_table_is_a_config_error(table: dict[str, Any], complaint: str) -> None:
    with pytest.raises(tm.ConfigError, match=r"\[plugins.embeddings.openai\]") as raised:
        settings_from_table(table)
    assert complaint in raised.value.message
    assert KEY not in raised.value.message


def test_the_default_is_openais_small_model() -> None:
    made = OpenAIEmbedder(settings_from_table({}))
    assert (made.settings.api.model, made.dimensions) == (DEFAULT_MODEL, DEFAULT_DIMENSIONS)
    assert made.identity == f"openai:{DEFAULT_MODEL}:{DEFAULT_DIMENSIONS}"
    assert made.settings.api.base_url == "https://api.openai.com/v1"
    assert KEY not in repr(made)


def test_the_table_is_read_on_first_use_not_when_made(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    file = sandbox.config_home / "tinymemory" / "config.toml"
    file.parent.mkdir(parents=True)
    file.write_text("[plugins.embeddings.openai]\nbatch_size = 0\n", encoding="utf-8")
    with sandbox.enter():
        made = OpenAIEmbedder()
        assert repr(made) == "OpenAIEmbedder(unread)"
        with pytest.raises(tm.ConfigError, match="`batch_size` must be a whole number"):
            made.embed(["text"])


def _configure(sandbox: Sandbox, double: OpenAIDouble, **table: Any) -> None:
    options = {"base_url": double.base_url, "model": "double-embed", "dimensions": DIMENSIONS}
    rows = "\n".join(f"{key} = {value!r}" for key, value in {**options, **table}.items())
    file = sandbox.config_home / "tinymemory" / "config.toml"
    file.parent.mkdir(parents=True)
    file.write_text(
        'engine = "sqlite"\n[engines.sqlite]\nembedder = "openai"\n'
        f"path = {str(sandbox.folder / 'memory.db')!r}\n"
        f"[plugins.embeddings.openai]\n{rows}\n".replace("True", "true").replace("'", '"'),
        encoding="utf-8",
    )


def test_store_vector_fetch_and_recall_through_sqlite(double: OpenAIDouble, tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path, {"OPENAI_API_KEY": KEY})
    _configure(sandbox, double, batch_size=2)
    with sandbox.enter():
        assert embedders()["openai"].identity == f"openai:double-embed:{DIMENSIONS}"
        assert double.received == []  # listing sends nothing
        with tm.build_engine() as engine:
            stored = engine.store_many(
                [
                    tm.Learning(text="The deploy runs every friday afternoon"),
                    tm.Learning(text="Ada prefers tabs over spaces"),
                    tm.Document(
                        title="Billing", body="Invoices are sent on the first of the month"
                    ),
                ]
            )
            request = tm.FetchRequest(query="when are invoices sent", mode=tm.FetchMode.VECTOR)
            page = engine.fetch(request)
            answer = engine.recall(tm.RecallRequest(question="when does the deploy run?"))
    assert page.hits[0].id == stored[2].id
    assert answer.citations[0].id == stored[0].id
    assert answer.model == "extractive"
    sent = double.requests_to("embeddings")
    assert all(request.headers["Authorization"] == f"Bearer {KEY}" for request in sent)
    assert all(len(request.body["input"]) <= 2 for request in sent)


def test_wrong_dimensions_store_nothing(double: OpenAIDouble, tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path, {"OPENAI_API_KEY": KEY})
    _configure(sandbox, double, dimensions=24)
    with sandbox.enter(), tm.build_engine() as engine:
        with pytest.raises(tm.EngineError, match="not the 24 configured"):
            engine.store(tm.Learning(text="The deploy runs every friday"))
        assert engine.list(tm.ListRequest()).items == ()
