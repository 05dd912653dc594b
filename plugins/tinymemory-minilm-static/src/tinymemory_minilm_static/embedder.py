"""The embedder ``minilm-static``: the static model shipped in this package's ``model`` folder.

The folder is in model2vec's format (``config.json``, ``model.safetensors``
holding one vector per token, ``tokenizer.json``). A text's vector is the mean
of its tokens' vectors (the tokenizer's pieces, no special tokens, unknown
pieces left out, at most the config's ``max_length`` of them), L2-normalised:
what ``model2vec.StaticModel.encode`` computes (a test holds the two equal).
It is read here with the format's own libraries, ``tokenizers`` and
``safetensors``, because model2vec's loader imports the Hugging Face hub
client, which costs a ``tinymemory recall`` process about a second.

Nothing is read when plugins are listed; ``dimensions`` and ``identity`` read
the small ``config.json`` and ``recipe.json``; the vectors and the tokenizer
are loaded once per process, on the first ``embed``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tinymemory import ConfigError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: The shipped model's folder.
MODEL = Path(__file__).resolve().parent / "model"

_models: dict[Path, tuple[Any, npt.NDArray[np.floating[Any]]]] = {}
_lock = threading.Lock()


class StaticModelEmbedder:
    """A model2vec-format folder's embeddings (``folder``: the shipped model unless given)."""

    name = "minilm-static"

    def __init__(self, folder: Path = MODEL) -> None:
        self.folder = folder

    def __repr__(self) -> str:
        return f"<StaticModelEmbedder {self.folder}>"

    @cached_property
    def _config(self) -> dict[str, Any]:
        return _json(self.folder / "config.json")

    @property
    def dimensions(self) -> int:
        """The size of every vector, as the folder's ``config.json`` says."""
        return int(self._config["hidden_dim"])

    @cached_property
    def identity(self) -> str:
        """What a memory records: the name, the recipe the vectors come from and the size."""
        recipe = _json(self.folder / "recipe.json")
        made = f"{recipe['transformer']}-pca{recipe['pca_dims']}-{recipe['quantize_to']}"
        return f"{self.name}:{made}:{self.dimensions}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text; ``dimensions`` floats each."""
        return self.embed_matrix(texts).tolist()  # type: ignore[no-any-return]

    def embed_matrix(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The vectors as one float32 matrix, a row per text, each of length 1 (or all zero
        for a text with no known token)."""
        import numpy as np

        tokenizer, vectors = self._loaded()
        unknown = tokenizer.token_to_id(tokenizer.model.unk_token)
        encoded = tokenizer.encode_batch_fast(list(texts), add_special_tokens=False)
        matrix = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        for row, encoding in enumerate(encoded):
            ids = [token for token in encoding.ids if token != unknown]
            if ids:
                matrix[row] = vectors[ids].mean(axis=0, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        matrix /= np.where(norms > 0, norms, np.float32(1.0))
        return matrix

    def _loaded(self) -> tuple[Any, npt.NDArray[np.floating[Any]]]:
        """The tokenizer and the vectors, read once per process and folder (an embedder is
        made afresh for every listing of the installed ones)."""
        with _lock:
            if self.folder not in _models:
                _models[self.folder] = self._load()
            return _models[self.folder]

    def _load(self) -> tuple[Any, npt.NDArray[np.floating[Any]]]:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        try:
            tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            vectors = load_file(str(self.folder / "model.safetensors"))["embeddings"]
        except Exception as error:
            raise ConfigError(
                f"`{self.folder}` is not a readable model2vec folder: {type(error).__name__}: "
                f"{error}"
            ) from None
        tokenizer.no_padding()
        limit = self._config.get("max_length")
        if limit is None:
            tokenizer.no_truncation()
        else:
            tokenizer.enable_truncation(int(limit))
        if vectors.ndim != 2 or vectors.shape[1] != self.dimensions:
            raise ConfigError(
                f"`{self.folder}` holds vectors of shape {vectors.shape}, not "
                f"{self.dimensions} columns as its config.json says"
            )
        # Kept as stored (float16): converting the whole table would cost a recall process
        # more than every lookup it serves; each text's rows are averaged in float32.
        return tokenizer, vectors


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read the static model's `{path}`: {error}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"the static model's `{path}` is not a JSON object")
    return data
