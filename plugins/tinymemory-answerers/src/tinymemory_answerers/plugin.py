"""The plugin's hook: the answerers it offers, each configured by ``[plugins.answerers.<name>]``.

The table is read when the answerers are listed; nothing is sent until an
engine's recall asks.
"""

from __future__ import annotations

from tinymemory.plugin import Answerer, hookimpl, plugin_settings

from .openai_answerer import answerer_from_table


@hookimpl
def tinymemory_answerers() -> list[Answerer]:
    """The answerer ``openai``, as ``[plugins.answerers.openai]`` configures it."""
    return [answerer_from_table(plugin_settings("answerers").get("openai", {}))]
