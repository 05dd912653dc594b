"""The ``model2vec`` embedder: configured from its table, loaded on first embed (never when
listed), every way of getting it wrong a ``ConfigError``, and store, fetch and recall through
the sqlite engine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import OpenSqlite, write_config

import tinymemory as tm
from tinymemory.plugin import embedder_identity, embedder_named, embedders
from tinymemory.testing import Sandbox
from tinymemory_embeddings import lazy_model
from tinymemory_embeddings.model2vec_embedder import Model2VecEmbedder
from tinymemory_embeddings.testing import build_tiny_model2vec


def test_listing_and_choosing_load_no_model(sandbox: Sandbox, tiny_model: Path) -> None:
    """In a new process: the plugin loads, the embedders are listed and one is chosen and
    asked its size, and neither model2vec nor sentence-transformers is imported."""
    write_config(sandbox, f'[plugins.embeddings.model2vec]\nmodel = "{tiny_model}"\n')
    script = (
        "import sys\n"
        "from tinymemory.plugin import embedders, embedder_named\n"
        "assert {'model2vec', 'sentence-transformers', 'hashing'} <= set(embedders())\n"
        "assert embedder_named('model2vec').dimensions == 128\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('model2vec', 'sentence_transformers', 'torch', 'tokenizers')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=sandbox.env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.usefixtures("configured")
def test_the_table_configures_it(tiny_model: Path) -> None:
    embedder = embedder_named("model2vec")
    assert embedder.dimensions == 128
    assert embedder_identity(embedder) == f"model2vec:{tiny_model}:128"
    vectors = embedder.embed(["card charges", "an unknown word: zyzzyva"])
    assert len(vectors) == 2
    assert all(len(vector) == 128 for vector in vectors)


def test_dimensions_in_the_table_cut_the_vectors(sandbox: Sandbox, tiny_model: Path) -> None:
    write_config(
        sandbox, f'[plugins.embeddings.model2vec]\nmodel = "{tiny_model}"\ndimensions = 16\n'
    )
    embedder = embedders()["model2vec"]
    assert embedder.dimensions == 16
    assert [len(vector) for vector in embedder.embed(["payment"])] == [16]


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('model = "/no/such/folder"', "no model folder at `/no/such/folder`"),
        ('model = "./missing-model"', "no model folder at `./missing-model`"),
        ("model = 3", "`model` must be a str"),
        ('modle = "x"', "has no key `modle`"),
        ("dimensions = 0", "`dimensions` must be at least 1"),
        ("dimensions = true", "`dimensions` must be a int"),
    ],
)
def test_a_bad_table_is_a_config_error(sandbox: Sandbox, table: str, message: str) -> None:
    write_config(sandbox, f"[plugins.embeddings.model2vec]\n{table}\n")
    embedder = embedders()["model2vec"]  # listing never reads the table
    with pytest.raises(tm.ConfigError, match=message):
        embedder.embed(["anything"])


def test_a_folder_that_is_no_model_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(tm.ConfigError, match="cannot be read as model2vec embeddings"):
        _ = Model2VecEmbedder(model=str(tmp_path)).dimensions
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(tm.ConfigError, match="not a model2vec model folder"):
        _ = Model2VecEmbedder(model=str(empty)).dimensions
    broken = build_tiny_model2vec(tmp_path / "broken")
    (broken / "tokenizer.json").write_text("{", encoding="utf-8")
    with pytest.raises(tm.ConfigError, match="model2vec could not load the folder"):
        Model2VecEmbedder(model=str(broken)).embed(["payment"])


def test_without_model2vec_it_is_a_config_error(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "model2vec", None)  # what an import of a missing one does
    monkeypatch.setattr(lazy_model, "_shared", {})  # a process that loaded no model yet
    with pytest.raises(tm.ConfigError, match="needs the `model2vec` package"):
        Model2VecEmbedder(model=str(tiny_model)).embed(["payment"])


def test_a_model_loads_once_per_process(tiny_model: Path) -> None:
    first, second = (Model2VecEmbedder(model=str(tiny_model)) for _ in range(2))
    first.embed(["payment"])
    second.embed(["payment"])
    assert first._loaded() is second._loaded()
    other = Model2VecEmbedder(model=str(tiny_model), dimensions=64)
    assert other._loaded() is not first._loaded()  # other settings: a model of their own


def test_no_model_configured_is_a_config_error_naming_the_routes() -> None:
    with pytest.raises(tm.ConfigError, match=r"needs `model`: .*offline routes.*minilm-static"):
        _ = Model2VecEmbedder().model


def test_without_the_extra_sentence_transformers_is_a_config_error(
    tiny_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tinymemory_embeddings.sentence_transformers_embedder import (
        SentenceTransformersEmbedder,
    )

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    embedder = SentenceTransformersEmbedder(model=str(tiny_model))
    with pytest.raises(tm.ConfigError, match=r"needs its extra: pip install .*\[sentence-"):
        embedder.embed(["payment"])


def test_an_engine_with_an_unknown_embedder_lists_the_installed(open_sqlite: OpenSqlite) -> None:
    with pytest.raises(tm.ConfigError, match=r"no embedder named `nope`.*model2vec"):
        open_sqlite("nope")


@pytest.mark.usefixtures("configured")
def test_store_fetch_and_recall_through_sqlite(open_sqlite: OpenSqlite, tmp_path: Path) -> None:
    notes = (
        "The payment gateway certificate expired, so card charges failed at checkout.",
        "The travel budget is 1,200 EUR per trip, flights and hotel included.",
        "The team offsite is in Lisbon in the second week of May.",
    )
    with open_sqlite("model2vec") as engine:
        receipts = engine.store_many(tm.Document(body=text) for text in notes)
        payment, travel, _ = (receipt.id for receipt in receipts)
        for mode, query in (
            (tm.FetchMode.VECTOR, "declined purchases"),
            (tm.FetchMode.HYBRID, "declined purchases"),
            (tm.FetchMode.VECTOR, "hotel flights"),
        ):
            hits = engine.fetch(tm.FetchRequest(query=query, mode=mode, limit=1)).hits
            assert [hit.id for hit in hits] == [travel if "hotel" in query else payment]
        answer = engine.recall(tm.RecallRequest(question="Why did the card charges fail?"))
        assert [citation.id for citation in answer.citations] == [payment]
    # Reopened in a new engine: the same vectors, the same embedder recorded.
    with open_sqlite("model2vec") as again:
        hits = again.fetch(tm.FetchRequest(query="trip", mode=tm.FetchMode.VECTOR, limit=1)).hits
        assert [hit.id for hit in hits] == [travel]
