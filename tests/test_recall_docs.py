"""docs/recall.md: its configurations are ones the SDK reads, naming the agreed plugins.

The page's python example runs with every page's (test_doc_examples.py). Its
configurations need a real model (a download, a server or a key), so they
are read here, not used: each is a valid configuration file whose engine
option names the embedder or answerer the table beside it configures.
"""

from __future__ import annotations

import tomllib

import pytest
from doc_examples import FENCE, ROOT

import tinymemory as tm

PAGE = ROOT / "docs" / "recall.md"
BLOCKS = [body for language, body in FENCE.findall(PAGE.read_text("utf-8")) if language == "toml"]
EMBEDDERS = {"model2vec", "openai", "sentence-transformers"}
ANSWERERS = {"openai"}


def test_the_page_configures_every_embedder_and_the_answerer_for_ollama_and_openai():
    assert len(BLOCKS) == 6
    configured = [tomllib.loads(body)["plugins"] for body in BLOCKS]
    assert {name for table in configured for name in table.get("embeddings", {})} == EMBEDDERS
    assert {name for table in configured for name in table.get("answerers", {})} == ANSWERERS
    servers = [table.get("answerers", table.get("embeddings"))["openai"] for table in configured
               if "openai" in table.get("answerers", table.get("embeddings", {}))]  # fmt: skip
    assert sorted(server.get("base_url", "openai") for server in servers) == [
        "http://localhost:11434/v1",
        "http://localhost:11434/v1",
        "openai",
        "openai",
    ]


@pytest.mark.parametrize("body", BLOCKS)
def test_each_configuration_is_read_and_chooses_what_it_configures(body):
    config = tm.MemoryConfig.from_toml(body)
    assert config.engine == "sqlite"
    options = config.engines["sqlite"].options
    plugins = tomllib.loads(body)["plugins"]
    for kind, option in (("embeddings", "embedder"), ("answerers", "answerer")):
        for name in plugins.get(kind, {}):
            assert options[option] == name
    # Marked for readers: each needs a real model, so no test builds its engine.
    assert "# needs a model:" in body
