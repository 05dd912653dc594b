"""What the embedders of this distribution share: settings read and a model loaded on first use,
once per process whatever the number of embedders made for the same settings.

A subclass names itself (``name``), its table's keys (``KEYS``), the model
used when the table names none (``DEFAULT_MODEL``; None: the table must name
one, ``MISSING_MODEL`` says how), how a model is loaded
(``_load``) and how it embeds (``_encode``); ``dimensions`` it may answer
without loading the model when it can.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from tinymemory import ConfigError

from .settings import embedder_table

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


#: Every model loaded in this process, by embedder name and settings: an embedder is made
#: afresh for each listing (each engine built), and a model loads once all the same.
_shared: dict[tuple[str, str, tuple[tuple[str, Any], ...]], Any] = {}
_shared_lock = threading.Lock()


class LazyModelEmbedder:
    """An embedder over a model named by its table (or by the arguments, which skip the file)."""

    name: str
    KEYS: ClassVar[Mapping[str, type]]
    DEFAULT_MODEL: ClassVar[str | None]
    MISSING_MODEL: ClassVar[str] = ""

    def __init__(self, **given: Any) -> None:
        self._given = {key: value for key, value in given.items() if value is not None}
        self._lock = threading.Lock()
        self._settings: dict[str, Any] | None = None
        self._model: Any = None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._given.get('model', 'configured')}>"

    @property
    def model(self) -> str:
        """The folder or model id the vectors come from; ``ConfigError`` when none is set and
        the embedder has no default."""
        model = self._configured().get("model", self.DEFAULT_MODEL)
        if model is None:
            raise ConfigError(
                f"[plugins.embeddings.{self.name}] needs `model`: {self.MISSING_MODEL}"
            )
        return str(model)

    @property
    def dimensions(self) -> int:
        """The size of every vector (here from the loaded model; subclasses may know it sooner)."""
        raise NotImplementedError

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

        matrix = self._encode(self._loaded(), list(texts))
        return np.asarray(matrix, dtype=np.float32).reshape(len(texts), -1)

    def _configured(self) -> dict[str, Any]:
        """The settings: the arguments when any were given, else the table, checked once."""
        if self._settings is None:
            self._settings = self._checked(self._given or embedder_table(self.name, self.KEYS))
        return self._settings

    def _checked(self, settings: dict[str, Any]) -> dict[str, Any]:
        """``settings``, or ``ConfigError`` for a value of the right type that is still wrong."""
        return settings

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                settings = self._configured()
                key = (self.name, self.model, tuple(sorted(settings.items())))
                with _shared_lock:
                    if key not in _shared:
                        _shared[key] = self._load(settings)
                    self._model = _shared[key]
            return self._model

    def _load(self, settings: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def _encode(self, model: Any, texts: list[str]) -> Any:
        raise NotImplementedError
