"""The embedder ``openai``: vectors from any OpenAI-compatible ``/v1/embeddings`` server.

Configured by the table ``[plugins.embeddings.openai]``: the keys of
:func:`~tinymemory_embeddings.openai_api.read_settings` (``base_url``,
``model``, ``api_key_variable``, timeouts, retries) and its own:

- ``dimensions``: the size of the model's vectors (1536 for the default
  ``text-embedding-3-small``; required with any other model), checked on every
  reply: a vector of another size is an error and nothing is stored;
- ``batch_size``: the most texts in one request (64 by default, 1 to 2048);
- ``request_dimensions``: send ``dimensions`` with each request, for models
  that shorten their vectors to it (OpenAI's ``text-embedding-3-*``); false
  by default, since other servers may refuse the field.

The table is read on first use (``dimensions``, ``identity`` or ``embed``),
never when embedders are listed; nothing is sent before the first
:meth:`OpenAIEmbedder.embed`, and ``requests`` loads then too. A memory
records ``identity``, ``openai:<model>:<dimensions>``. Blank texts are not
sent (servers refuse them): their vector is zero. The reply's vectors are put
back in the order of the texts by their ``index``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

import tinymemory as tm

from .openai_api import OpenAIConfigured, OpenAISettings, read_settings, whole

__all__ = [
    "DEFAULT_DIMENSIONS",
    "DEFAULT_MODEL",
    "EmbedderSettings",
    "OpenAIEmbedder",
    "settings_from_table",
]

#: The model used when the table names none, and the size of its vectors.
DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_DIMENSIONS = 1536
#: Where the configuration file holds the embedder's settings.
TABLE = "[plugins.embeddings.openai]"
_OWN_KEYS = ("dimensions", "batch_size", "request_dimensions")


@attrs.frozen(kw_only=True)
class EmbedderSettings:
    """What ``[plugins.embeddings.openai]`` says: where the model is, and the embedder's own."""

    api: OpenAISettings
    dimensions: int = DEFAULT_DIMENSIONS
    batch_size: int = 64
    request_dimensions: bool = False


class OpenAIEmbedder(OpenAIConfigured[EmbedderSettings]):
    """The embedder ``openai``; ``settings`` as ``[plugins.embeddings.openai]`` gives them,
    read on first use (``dimensions``, ``identity`` or ``embed``), unless passed here."""

    PLUGIN = "embeddings"
    name = "openai"

    def read(self, table: Mapping[str, Any]) -> EmbedderSettings:
        """:func:`settings_from_table`."""
        return settings_from_table(table)

    @property
    def dimensions(self) -> int:
        """The size of the model's vectors, as configured (checked on every reply)."""
        return self.settings.dimensions

    @property
    def identity(self) -> str:
        """What a memory records of its vectors: ``openai:<model>:<dimensions>``."""
        return f"openai:{self.settings.api.model}:{self.dimensions}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector of :attr:`dimensions` floats per text, in order, ``batch_size`` per request.

        ``EngineError`` for a reply that is not one vector of the configured
        size per text sent; the transport's errors otherwise.
        """
        vectors = [[0.0] * self.dimensions for _ in texts]
        sent = [n for n, text in enumerate(texts) if text.strip()]
        size = self.settings.batch_size
        for start in range(0, len(sent), size):
            batch = sent[start : start + size]
            for n, vector in zip(batch, self._embed_batch([texts[n] for n in batch]), strict=True):
                vectors[n] = vector
        return vectors

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        payload: dict[str, Any] = {
            "model": self.settings.api.model,
            "input": texts,
            "encoding_format": "float",
        }
        if self.settings.request_dimensions:
            payload["dimensions"] = self.dimensions
        reply = self.client().post("embeddings", payload)
        return self._vectors(reply, len(texts))

    def _vectors(self, reply: Any, count: int) -> list[list[float]]:
        """The vectors by ``index``: exactly ``count``, each ``dimensions`` finite floats."""
        data = reply.get("data") if isinstance(reply, dict) else None
        if not isinstance(data, list) or len(data) != count:
            raise self._bad(f"sent {count} texts and got no list of {count} embeddings back")
        found: dict[int, list[float]] = {}
        for entry in data:
            index = entry.get("index") if isinstance(entry, dict) else None
            vector = entry.get("embedding") if isinstance(entry, dict) else None
            if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
                raise self._bad("gave an embedding without a valid `index`")
            if index in found:
                raise self._bad(f"gave two embeddings for index {index}")
            if not isinstance(vector, list) or not all(_is_number(x) for x in vector):
                raise self._bad("gave an embedding that is not a list of numbers")
            if len(vector) != self.dimensions:
                raise self._bad(
                    f"gave vectors of {len(vector)} dimensions, not the {self.dimensions} "
                    f"configured: set `dimensions = {len(vector)}` in {TABLE} "
                    "(a memory filled with other vectors needs `tinymemory reindex`)"
                )
            found[index] = [float(x) for x in vector]
        return [found[index] for index in range(count)]

    def _bad(self, what: str) -> tm.EngineError:
        return tm.EngineError(f"embedder `openai` (model `{self.settings.api.model}`) {what}")


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def settings_from_table(table: Mapping[str, Any]) -> EmbedderSettings:
    """The settings a ``[plugins.embeddings.openai]`` table gives; ``ConfigError`` when it is
    malformed."""
    api = read_settings(table, where=TABLE, own_keys=_OWN_KEYS, default_model=DEFAULT_MODEL)
    if "dimensions" not in table and api.model != DEFAULT_MODEL:
        raise tm.ConfigError(
            f"{TABLE}: set `dimensions`, the size of the vectors of model `{api.model}`"
        )
    request_dimensions = table.get("request_dimensions", False)
    if not isinstance(request_dimensions, bool):
        raise tm.ConfigError(f"{TABLE}: `request_dimensions` must be true or false")
    return EmbedderSettings(
        api=api,
        dimensions=whole(table, "dimensions", DEFAULT_DIMENSIONS, TABLE, least=1, most=65536),
        batch_size=whole(table, "batch_size", 64, TABLE, least=1, most=2048),
        request_dimensions=request_dimensions,
    )
