"""The plugin's hook: every embedder of this distribution, listed once here.

Each is configured by ``[plugins.embeddings.<name>]``. Making an embedder reads
nothing and imports no model library: each loads its settings and its model on
first use (and ``openai`` sends nothing until an engine embeds), so listing
plugins stays fast.
"""

from __future__ import annotations

from collections.abc import Callable

from tinymemory.plugin import Embedder, hookimpl

from .model2vec_embedder import Model2VecEmbedder
from .openai_embedder import OpenAIEmbedder
from .sentence_transformers_embedder import SentenceTransformersEmbedder

#: This distribution's embedders, each made afresh for every listing.
EMBEDDERS: tuple[Callable[[], Embedder], ...] = (
    Model2VecEmbedder,
    OpenAIEmbedder,
    SentenceTransformersEmbedder,
)


@hookimpl
def tinymemory_embedders() -> list[Embedder]:
    """``model2vec``, ``openai`` and ``sentence-transformers``."""
    return [make() for make in EMBEDDERS]
