"""The embedder ``model2vec``: model2vec's static embeddings (a vector per token, averaged).

Configured in ``[plugins.embeddings.model2vec]``:

- ``model``: a local folder holding a model2vec model (``config.json``,
  ``model.safetensors``, ``tokenizer.json``), or a model id that model2vec's
  own loader fetches once onto this machine (default
  ``minishlab/potion-base-8M``);
- ``dimensions`` (optional): keep only the first ``dimensions`` of each vector
  (models trained for it); when given, opening a memory never loads the model.

The model is loaded on the first ``embed`` (or, when neither the table nor the
folder says, the first question about its ``dimensions``), never when plugins
are listed. A missing folder, a model that cannot be loaded and model2vec not
installed are ``ConfigError``.
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
DEFAULT_MODEL = "minishlab/potion-base-8M"
#: The keys of ``[plugins.embeddings.model2vec]``.
KEYS: dict[str, type] = {"model": str, "dimensions": int}


class Model2VecEmbedder:
    """model2vec static embeddings; ``model`` and ``dimensions`` as the table's, read on first use.

    Passing them here (a test, a program) skips the configuration file.
    """

    name = "model2vec"

    def __init__(self, model: str | None = None, dimensions: int | None = None) -> None:
        self._given = {"model": model, "dimensions": dimensions}
        self._lock = threading.Lock()
        self._settings: dict[str, Any] | None = None
        self._model: Any = None
        self._dimensions: int | None = None

    def __repr__(self) -> str:
        return f"<Model2VecEmbedder {self._given['model'] or 'configured'}>"

    @property
    def model(self) -> str:
        """The folder or model id the vectors come from."""
        return str(self._configured().get("model", DEFAULT_MODEL))

    @property
    def dimensions(self) -> int:
        """The vectors' size: the table's ``dimensions``, else the folder's, else the model's."""
        if self._dimensions is None:
            wanted = self._configured().get("dimensions")
            if wanted is not None:
                self._dimensions = int(wanted)
            else:
                folder = local_folder(self.model)
                stored = _folder_dimensions(folder) if folder is not None else None
                self._dimensions = stored if stored is not None else int(self._loaded().dim)
        return self._dimensions

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

        model = self._loaded()
        matrix = model.encode(list(texts), use_multiprocessing=False)
        return np.asarray(matrix, dtype=np.float32).reshape(len(texts), -1)[:, : self.dimensions]

    def _configured(self) -> dict[str, Any]:
        if self._settings is None:
            given = {key: value for key, value in self._given.items() if value is not None}
            settings = given or embedder_table(self.name, KEYS)
            if settings.get("dimensions", 1) < 1:
                raise ConfigError("[plugins.embeddings.model2vec] `dimensions` must be at least 1")
            self._settings = settings
        return self._settings

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = _load(self.model, self._configured().get("dimensions"))
            return self._model


def _folder_dimensions(folder: Any) -> int | None:
    """The size of the vectors in a model folder's ``model.safetensors``, read from its header."""
    try:
        from safetensors import safe_open
    except ImportError:
        return None
    path = folder / "model.safetensors"
    if not path.is_file():
        raise ConfigError(
            f"`{folder}` is not a model2vec model folder: it has no model.safetensors"
        )
    try:
        with safe_open(str(path), framework="numpy") as tensors:
            shape = tensors.get_slice("embeddings").get_shape()
    except Exception as error:
        raise ConfigError(f"`{path}` cannot be read as model2vec embeddings: {error}") from None
    if len(shape) != 2 or shape[1] < 1:
        raise ConfigError(f"`{path}` holds embeddings of shape {shape}, not a matrix")
    return int(shape[1])


def _load(model: str, dimensions: int | None) -> Any:
    """model2vec's StaticModel for ``model`` (a folder, or an id its loader fetches)."""
    try:
        from model2vec import StaticModel
    except ImportError:
        raise ConfigError(
            "the model2vec embedder needs the `model2vec` package "
            "(pip install tinymemory-embeddings)"
        ) from None
    folder = local_folder(model)
    try:
        loaded = StaticModel.from_pretrained(
            str(folder) if folder is not None else model,
            dimensionality=dimensions,
            force_download=False,
        )
    except Exception as error:
        where = f"the folder `{folder}`" if folder is not None else f"the model id `{model}`"
        raise ConfigError(
            f"model2vec could not load {where}: {type(error).__name__}: {error}"
        ) from None
    return loaded
