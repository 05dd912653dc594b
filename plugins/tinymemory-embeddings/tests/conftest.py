"""Shared fixtures: a sandbox per test (never the user's own data or configuration), a tiny
model2vec model built offline, and the configuration that points the embedder at it.

Every test runs offline: models are built or bundled, and no library may reach a model hub
(set here, before any test imports one).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.testing import Sandbox
from tinymemory_embeddings.testing import build_tiny_model2vec

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

#: Builds the sqlite engine on a file with the named embedder.
OpenSqlite = Callable[..., tm.MemoryEngine]


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """An isolated home, configuration and data folder in the test's folder."""
    with Sandbox(tmp_path, extra={"TINYMEMORY_SQLITE_PATH": None}).enter() as entered:
        yield entered


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model2vec model in a folder of its own, built once (no download)."""
    return build_tiny_model2vec(tmp_path_factory.mktemp("tiny-model2vec"))


def write_config(sandbox: Sandbox, text: str) -> Path:
    """Write the sandbox's configuration file; its path."""
    path = sandbox.config_home / "tinymemory" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def configured(sandbox: Sandbox, tiny_model: Path) -> Path:
    """The configuration file naming the tiny model for ``[plugins.embeddings.model2vec]``."""
    return write_config(sandbox, f'[plugins.embeddings.model2vec]\nmodel = "{tiny_model}"\n')


@pytest.fixture
def open_sqlite(tmp_path: Path) -> OpenSqlite:
    """``open_sqlite(embedder, path=...)``: the sqlite engine, as ``build_engine`` makes it."""

    def build(embedder: str = "model2vec", path: Path | None = None) -> tm.MemoryEngine:
        options = {"path": str(path or tmp_path / "memory.db"), "embedder": embedder}
        return tm.build_engine("sqlite", tm.EngineSettings(options=options), scrub=False)

    return build
