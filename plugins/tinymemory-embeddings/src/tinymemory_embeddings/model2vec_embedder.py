"""The embedder ``model2vec``: model2vec's static embeddings (a vector per token, averaged).

Configured in ``[plugins.embeddings.model2vec]``:

- ``model`` (required): a local folder holding a model2vec model
  (``config.json``, ``model.safetensors``, ``tokenizer.json``; one distilled
  offline, docs/recall.md says how), or a model id that model2vec's own loader
  fetches once onto this machine. No default: a model id would need the
  network, and the static model that works offline ships as its own embedder,
  ``minilm-static`` (the ``tinymemory-minilm-static`` plugin);
- ``dimensions`` (optional): keep only the first ``dimensions`` of each vector
  (models trained for it); when given, opening a memory never loads the model.

The model is loaded on the first ``embed`` (or, when neither the table nor the
folder says, the first question about its ``dimensions``), never when plugins
are listed. A missing folder, a model that cannot be loaded and model2vec not
installed are ``ConfigError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from tinymemory import ConfigError

from .lazy_model import LazyModelEmbedder
from .settings import local_folder


class Model2VecEmbedder(LazyModelEmbedder):
    """model2vec static embeddings; ``model`` and ``dimensions`` as the table's, read on first use.

    Passing them here (a test, a program) skips the configuration file.
    """

    name = "model2vec"
    KEYS: ClassVar[Mapping[str, type]] = {"model": str, "dimensions": int}
    DEFAULT_MODEL = None
    MISSING_MODEL = (
        "a folder holding a model2vec model (distilled offline: docs/recall.md, "
        '"Embedders: offline routes"), or a model id model2vec downloads once; the '
        'static model shipped with tinymemory-minilm-static is embedder = "minilm-static"'
    )

    def __init__(self, model: str | None = None, dimensions: int | None = None) -> None:
        super().__init__(model=model, dimensions=dimensions)
        self._dimensions: int | None = None

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

    def _checked(self, settings: dict[str, Any]) -> dict[str, Any]:
        if settings.get("dimensions", 1) < 1:
            raise ConfigError("[plugins.embeddings.model2vec] `dimensions` must be at least 1")
        return settings

    def _load(self, settings: Mapping[str, Any]) -> Any:
        return _load(self.model, settings.get("dimensions"))

    def _encode(self, model: Any, texts: list[str]) -> Any:
        return model.encode(texts, use_multiprocessing=False)[:, : self.dimensions]


def _folder_dimensions(folder: Path) -> int | None:
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
