"""The plugin's hook: every embedder of this distribution, listed once here.

Making an embedder reads nothing and imports no model library: each loads its
settings and its model on first use, so listing plugins stays fast.
"""

from __future__ import annotations

from collections.abc import Callable

from tinymemory.plugin import Embedder, hookimpl

from .model2vec_embedder import Model2VecEmbedder
from .sentence_transformers_embedder import SentenceTransformersEmbedder

#: This distribution's embedders, each made afresh for every listing.
EMBEDDERS: tuple[Callable[[], Embedder], ...] = (Model2VecEmbedder, SentenceTransformersEmbedder)


@hookimpl
def tinymemory_embedders() -> list[Embedder]:
    """``model2vec`` and ``sentence-transformers``."""
    return [make() for make in EMBEDDERS]
