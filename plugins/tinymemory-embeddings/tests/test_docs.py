"""The plugin's README as written: its configuration reads as shown, and its table of keys is
each embedder's own."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from conftest import write_config

from tinymemory.plugin import embedders
from tinymemory.testing import Sandbox
from tinymemory_embeddings.model2vec_embedder import Model2VecEmbedder
from tinymemory_embeddings.sentence_transformers_embedder import SentenceTransformersEmbedder

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def test_the_configuration_shown_reads_as_shown(sandbox: Sandbox) -> None:
    blocks = re.findall(r"```toml\n(.*?)```", README, re.S)
    (block,) = [block for block in blocks if "[plugins.embeddings.model2vec]" in block]
    table = tomllib.loads(block)
    write_config(sandbox, block)
    embedder = embedders()[table["engines"]["sqlite"]["embedder"]]
    assert isinstance(embedder, Model2VecEmbedder)
    assert embedder.model == table["plugins"]["embeddings"]["model2vec"]["model"]


def test_the_table_of_keys_is_each_embedders_own() -> None:
    rows = re.findall(r"^\| (`\[plugins[^|]*`)? ?\| `(\w+)` \| `?([^|`]*)`? \|", README, re.M)
    documented: dict[str, dict[str, str]] = {}
    table = ""
    for name, key, default in rows:
        table = name.strip("`[]").rsplit(".", 1)[-1] if name else table
        documented.setdefault(table, {})[key] = default.strip()
    assert set(documented) == {"model2vec", "sentence-transformers"}
    for embedder in (Model2VecEmbedder, SentenceTransformersEmbedder):
        assert set(documented[embedder.name]) == set(embedder.KEYS)
        assert documented[embedder.name]["model"] == (embedder.DEFAULT_MODEL or "none: required")
