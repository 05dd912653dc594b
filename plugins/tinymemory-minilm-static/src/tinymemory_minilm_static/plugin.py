"""The plugin's hooks: the embedder ``minilm-static``, and that it is the default one.

Making the embedder reads nothing: its model loads on the first ``embed``.
"""

from __future__ import annotations

from tinymemory.plugin import Embedder, hookimpl

from .embedder import StaticModelEmbedder


@hookimpl
def tinymemory_embedders() -> list[Embedder]:
    """``minilm-static``: the static model this package ships."""
    return [StaticModelEmbedder()]


@hookimpl
def tinymemory_default_embedder() -> str:
    """Engines whose settings name no embedder embed with ``minilm-static``."""
    return StaticModelEmbedder.name
