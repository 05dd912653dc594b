"""The embedding matrix: an embedder's vectors checked, as float32 rows of unit length.

numpy is the ``vectors`` extra, loaded here on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tinymemory._errors import EngineError
from tinymemory._hashing_embedder import HashingEmbedder
from tinymemory._numpy import require_numpy

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from tinymemory._hookspecs import Embedder

    from ._hits import Prepared

    Floats = npt.NDArray[np.float32]
else:
    Floats = Any


def embedding_matrix(embedder: Embedder, texts: Sequence[str]) -> Floats:
    """``embedder``'s vectors for ``texts`` as a checked float32 matrix, rows L2-normalised.

    Uses the embedder's ``embed_matrix`` when it has one, else ``embed``. A
    result that is not ``len(texts)`` rows of ``dimensions`` finite numbers is
    the embedder's failure: ``EngineError`` naming it. Zero rows stay zero.
    Without numpy: ``ConfigError`` saying to install ``tinymemory[vectors]``.
    """
    require_numpy("vector search")
    import numpy as np

    if type(embedder) is HashingEmbedder:
        # Its matrix is checked and normalised by construction; checking it again
        # would cost a third of the embedding time.
        return embedder.embed_matrix(texts)
    name = getattr(embedder, "name", type(embedder).__name__)
    dimensions = getattr(embedder, "dimensions", None)
    if isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1:
        raise EngineError(f"embedder `{name}` has invalid dimensions {dimensions!r}")
    if not texts:
        return np.zeros((0, dimensions), dtype=np.float32)
    embed_matrix = getattr(embedder, "embed_matrix", None)
    raw = embed_matrix(texts) if callable(embed_matrix) else embedder.embed(texts)
    try:
        # A copy: the rows are scaled in place, and the array may be the embedder's own.
        matrix = np.array(raw, dtype=np.float64)
    except (TypeError, ValueError) as error:
        # A ragged list or non-numbers cannot form a matrix.
        raise EngineError(f"embedder `{name}` returned something other than vectors") from error
    expected = (len(texts), dimensions)
    if matrix.shape != expected:
        raise EngineError(
            f"embedder `{name}` returned vectors of shape {matrix.shape}, expected {expected}"
        )
    if not np.isfinite(matrix).all():
        raise EngineError(f"embedder `{name}` returned a vector with non-finite values")
    # Scaled to a largest entry of 1 first, so squaring neither overflows nor underflows.
    largest = np.abs(matrix).max(axis=1, keepdims=True)
    np.divide(matrix, largest, out=matrix, where=largest > 0)
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None]
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix.astype(np.float32)


def piece_vectors(embedder: Embedder, entries: Sequence[Prepared]) -> dict[str, Floats]:
    """Each entry's pieces' vectors (rows in piece order), by item id, from one embedding."""
    if not entries:
        return {}  # nothing new (a replay): numpy is not loaded
    texts = [piece.text for entry in entries for piece in entry.pieces]
    matrix = embedding_matrix(embedder, texts)
    vectors: dict[str, Floats] = {}
    row = 0
    for entry in entries:
        vectors[entry.id] = matrix[row : row + len(entry.pieces)]
        row += len(entry.pieces)
    return vectors
