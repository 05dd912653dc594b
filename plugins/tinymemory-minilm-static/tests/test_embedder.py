"""The shipped static model: its folder (size, licence, recipe), its vectors held equal to
model2vec's own reading of the same folder, and a folder that cannot be read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.plugin import embedder_identity, embedders
from tinymemory_minilm_static.embedder import MODEL, StaticModelEmbedder

#: The issue's bound on what the package ships.
MOST_BYTES = 20 * 1024 * 1024
FIXED = [
    "",
    "Who holds the copyright on curl?",
    "The travel budget is 1,200 EUR per trip, flights and hotel included.",
    "ÜBER-LOUD punctuation!!! and ümlauts, naïve café",
    "🙂 🙃",  # no known token: a zero vector, as model2vec gives
    "def load(path):\n    return json.loads(Path(path).read_text())",
    " ".join(["a long passage about release checklists and deploy windows"] * 40),
]


@pytest.fixture(scope="module")
def reference() -> object:
    """model2vec's StaticModel over the shipped folder."""
    from model2vec import StaticModel

    return StaticModel.from_pretrained(str(MODEL), force_download=False)


def model2vec_vectors(model: object, texts: list[str]) -> np.ndarray:
    encoded = model.encode(texts, use_multiprocessing=False)  # type: ignore[attr-defined]
    return np.asarray(encoded, dtype=np.float32)


def test_the_folder_is_small_licensed_and_says_its_recipe() -> None:
    files = {path.name: path for path in MODEL.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "LICENSE", "NOTICE"} <= set(files)
    assert sum(path.stat().st_size for path in files.values()) < MOST_BYTES
    assert "Apache License" in files["LICENSE"].read_text(encoding="utf-8")
    assert "all-MiniLM-L6-v2" in files["NOTICE"].read_text(encoding="utf-8")
    recipe = json.loads(files["recipe.json"].read_text(encoding="utf-8"))
    embedder = StaticModelEmbedder()
    assert embedder.dimensions == recipe["pca_dims"] == 256
    assert embedder_identity(embedder) == "minilm-static:all-MiniLM-L6-v2-pca256-float16:256"


def test_listed_as_minilm_static() -> None:
    assert isinstance(embedders()["minilm-static"], StaticModelEmbedder)


def test_the_vectors_are_model2vecs(reference: object) -> None:
    ours = StaticModelEmbedder().embed_matrix(FIXED)
    assert ours.shape == (len(FIXED), 256)
    assert ours.dtype == np.float32
    # model2vec averages in the model's float16; ours in float32.
    np.testing.assert_allclose(ours, model2vec_vectors(reference, FIXED), atol=2e-3)
    norms = np.linalg.norm(ours, axis=1)
    assert norms[0] == norms[4] == 0.0
    assert np.allclose(np.delete(norms, [0, 4]), 1.0, atol=1e-5)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=80), min_size=1, max_size=6))
def test_any_texts_embed_as_model2vec_embeds_them(reference: object, texts: list[str]) -> None:
    ours = StaticModelEmbedder().embed_matrix(texts)
    np.testing.assert_allclose(ours, model2vec_vectors(reference, texts), atol=2e-3)
    assert StaticModelEmbedder().embed(texts) == ours.tolist()


def test_a_folder_that_cannot_be_read_is_a_config_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(MODEL, broken)
    (broken / "model.safetensors").write_bytes(b"not tensors")
    embedder = StaticModelEmbedder(broken)
    assert embedder.dimensions == 256  # the config alone: nothing loaded yet
    with pytest.raises(tm.ConfigError, match="not a readable model2vec folder"):
        embedder.embed(["anything"])
    with pytest.raises(tm.ConfigError, match="cannot read the static model's"):
        _ = StaticModelEmbedder(tmp_path / "missing").dimensions
