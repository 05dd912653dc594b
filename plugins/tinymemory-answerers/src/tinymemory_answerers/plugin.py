"""The plugin's hook: the answerers it offers, each configured by ``[plugins.answerers.<name>]``.

The answerer reads its table on first use, never when answerers are listed;
nothing is sent until an engine's recall asks.
"""

from __future__ import annotations

from tinymemory.plugin import Answerer, hookimpl

from .openai_answerer import OpenAIAnswerer


@hookimpl
def tinymemory_answerers() -> list[Answerer]:
    """The answerer ``openai``, which reads ``[plugins.answerers.openai]`` on first use."""
    return [OpenAIAnswerer()]
