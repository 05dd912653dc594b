"""Embedding for the engine: an embedder's vectors as a checked float32 matrix of unit rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tinymemory import EngineError
from tinymemory.plugin import Embedder


def embed(embedder: Embedder, texts: Sequence[str]) -> Any:
    """``embedder``'s vectors for ``texts``: ``len(texts)`` float32 rows, L2-normalised.

    A result that is not that many rows of ``dimensions`` finite numbers is the
    embedder's failure: ``EngineError`` naming it. A zero row stays zero.
    """
    import numpy as np

    dimensions = embedder.dimensions
    if not texts:
        return np.zeros((0, dimensions), dtype=np.float32)
    embed_matrix = getattr(embedder, "embed_matrix", None)
    raw = embed_matrix(texts) if callable(embed_matrix) else embedder.embed(texts)
    try:
        matrix = np.array(raw, dtype=np.float64)
    except (TypeError, ValueError):
        raise EngineError(f"embedder `{embedder.name}` returned something not a matrix") from None
    if matrix.shape != (len(texts), dimensions) or not np.isfinite(matrix).all():
        raise EngineError(
            f"embedder `{embedder.name}` returned {matrix.shape} values, not {len(texts)} rows "
            f"of {dimensions} finite numbers"
        )
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32)
