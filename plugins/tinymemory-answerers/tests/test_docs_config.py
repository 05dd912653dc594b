"""The configurations docs/plugins.md shows for the OpenAI-compatible plugins are ones they read."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory_answerers.openai_answerer import OpenAIAnswerer
from tinymemory_answerers.openai_answerer import settings_from_table as answerer_settings
from tinymemory_embeddings.openai_embedder import OpenAIEmbedder
from tinymemory_embeddings.openai_embedder import settings_from_table as embedder_settings

PAGE = Path(__file__).resolve().parents[3] / "docs" / "plugins.md"
SECTION = "## The OpenAI-compatible embedder and answerer"


def blocks() -> list[str]:
    text = PAGE.read_text(encoding="utf-8").split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```toml\n(.*?)```", text, re.S)


def test_the_section_shows_a_setup_for_ollama_and_for_openai() -> None:
    found = blocks()
    assert len(found) == 2
    assert "localhost:11434" in found[0]
    assert "localhost" not in found[1]


@pytest.mark.parametrize("body", blocks())
def test_each_setup_is_read_by_the_sdk_and_both_plugins(body: str) -> None:
    config = tm.MemoryConfig.from_toml(body)
    assert config.settings_for("sqlite").options == {"embedder": "openai", "answerer": "openai"}
    tables = tomllib.loads(body)["plugins"]
    embedder = OpenAIEmbedder(embedder_settings(tables["embeddings"]["openai"]))
    answerer = OpenAIAnswerer(answerer_settings(tables["answerers"]["openai"]))
    assert embedder.dimensions == tables["embeddings"]["openai"]["dimensions"]
    assert answerer.model == f"openai:{tables['answerers']['openai']['model']}"
