"""The plugin's hook: the embedders it offers, each configured by ``[plugins.embeddings.<name>]``.

Each embedder reads its table on first use, never when they are listed; no
model is loaded and nothing is sent until an engine embeds.
"""

from __future__ import annotations

from typing import cast

from tinymemory.plugin import Embedder, hookimpl

from .openai_embedder import OpenAIEmbedder


@hookimpl
def tinymemory_embedders() -> list[Embedder]:
    """The embedder ``openai``, which reads ``[plugins.embeddings.openai]`` on first use."""
    # Its `dimensions` is read-only (a property reading the table): the protocol allows that.
    return [cast(Embedder, OpenAIEmbedder())]
