"""The plugin's hook: the embedders it offers, each configured by ``[plugins.embeddings.<name>]``.

The tables are read when the embedders are listed (the configuration file,
as the core reads it); no model is loaded and nothing is sent until an
engine embeds.
"""

from __future__ import annotations

from tinymemory.plugin import Embedder, hookimpl, plugin_settings

from .openai_embedder import embedder_from_table


@hookimpl
def tinymemory_embedders() -> list[Embedder]:
    """The embedder ``openai``, as ``[plugins.embeddings.openai]`` configures it."""
    return [embedder_from_table(plugin_settings("embeddings").get("openai", {}))]
