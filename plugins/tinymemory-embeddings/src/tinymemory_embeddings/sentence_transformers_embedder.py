"""The embedder ``sentence-transformers``: a sentence-transformers model on this machine's CPU.

Needs the ``sentence-transformers`` extra (torch). Configured in
``[plugins.embeddings.sentence-transformers]``:

- ``model``: a local folder holding a sentence-transformers model, or a model
  id the library fetches once onto this machine (default
  ``sentence-transformers/all-MiniLM-L6-v2``);
- ``device`` (optional): where it runs, ``cpu`` by default.

The model is loaded on the first ``embed`` or the first question about its
``dimensions`` (which only the model knows), never when plugins are listed.
A missing folder, a model that cannot be loaded and the extra not installed
are ``ConfigError``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tinymemory import ConfigError

from .settings import embedder_table, local_folder

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: The model used when the table names none.
DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
#: The keys of ``[plugins.embeddings.sentence-transformers]``.
KEYS: dict[str, type] = {"model": str, "device": str}


class SentenceTransformersEmbedder:
    """A sentence-transformers model; ``model`` and ``device`` as the table's, read on first use.

    Passing them here (a test, a program) skips the configuration file.
    """

    name = "sentence-transformers"

    def __init__(self, model: str | None = None, device: str | None = None) -> None:
        self._given = {"model": model, "device": device}
        self._lock = threading.Lock()
        self._settings: dict[str, Any] | None = None
        self._model: Any = None

    def __repr__(self) -> str:
        return f"<SentenceTransformersEmbedder {self._given['model'] or 'configured'}>"

    @property
    def model(self) -> str:
        """The folder or model id the vectors come from."""
        return str(self._configured().get("model", DEFAULT_MODEL))

    @property
    def dimensions(self) -> int:
        """The size of the model's sentence vectors (the model is loaded to know it)."""
        size = self._loaded().get_embedding_dimension()
        if not isinstance(size, int) or size < 1:
            raise ConfigError(f"the sentence-transformers model `{self.model}` has no fixed size")
        return size

    @property
    def identity(self) -> str:
        """What a memory records of this embedder: its name, model and dimensions."""
        return f"{self.name}:{self.model}:{self.dimensions}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text; ``dimensions`` floats each."""
        return [[float(value) for value in row] for row in self.embed_matrix(texts)]

    def embed_matrix(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The vectors as one float32 matrix, a row per text (the retrieval kit's fast path)."""
        import numpy as np

        vectors = self._loaded().encode(list(texts), convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), -1)

    def _configured(self) -> dict[str, Any]:
        if self._settings is None:
            given = {key: value for key, value in self._given.items() if value is not None}
            self._settings = given or embedder_table(self.name, KEYS)
        return self._settings

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load(self.model, str(self._configured().get("device", "cpu")))
            return self._model


def _load(model: str, device: str) -> Any:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        raise ConfigError(
            "the sentence-transformers embedder needs its extra: "
            'pip install "tinymemory-embeddings[sentence-transformers]"'
        ) from None
    folder = local_folder(model)
    try:
        return SentenceTransformer(str(folder) if folder is not None else model, device=device)
    except Exception as error:
        where = f"the folder `{folder}`" if folder is not None else f"the model id `{model}`"
        raise ConfigError(
            f"sentence-transformers could not load {where}: {type(error).__name__}: {error}"
        ) from None
