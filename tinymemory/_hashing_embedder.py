"""The built-in embedder ``hashing``, :class:`HashingEmbedder`: how it hashes is
:mod:`tinymemory.hashing`'s docstring, its vectorised arithmetic :mod:`tinymemory._feature_hashing`.

Defined apart from the plugin module that offers it (and so from pluggy), so an
engine that embeds with it, or only holds it, loads no part of the plugin system.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tinymemory._errors import ConfigError

if TYPE_CHECKING:  # numpy loads when something is embedded, not with the plugin
    from tinymemory._feature_hashing import Floats

#: Vector size of the default embedder.
DEFAULT_DIMENSIONS = 256
#: Fewer buckets than this would make nearly every text collide with every other.
MIN_DIMENSIONS = 16

#: Feature weights (:mod:`tinymemory.hashing` says why).
WORD_WEIGHT = 1.0
PAIR_WEIGHT = 0.5
GRAM_WEIGHT = 0.5
#: Factor on a stop word's features, and on a pair of two stop words.
STOP_WEIGHT = 0.2


class HashingEmbedder:
    """Deterministic feature-hashing embedder; ``dimensions`` at least 16."""

    name: str = "hashing"
    dimensions: int

    def __init__(self, dimensions: int = DEFAULT_DIMENSIONS) -> None:
        if isinstance(dimensions, bool) or not isinstance(dimensions, int):
            raise ConfigError(f"embedder dimensions must be an integer, not {dimensions!r}")
        if dimensions < MIN_DIMENSIONS:
            raise ConfigError(
                f"embedder dimensions must be at least {MIN_DIMENSIONS}, not {dimensions}"
            )
        self.dimensions = dimensions

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimensions={self.dimensions})"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text (zero for a text without words)."""
        return self.embed_matrix(texts).tolist()  # type: ignore[no-any-return]

    def embed_matrix(self, texts: Sequence[str]) -> Floats:
        """The vectors as a float32 array of shape ``(len(texts), dimensions)``.

        Memory stays in proportion to a pass of a few hundred kilobytes of
        text, however long one text is.
        """
        from tinymemory._feature_hashing import embed_texts

        return embed_texts(texts, self.dimensions)
