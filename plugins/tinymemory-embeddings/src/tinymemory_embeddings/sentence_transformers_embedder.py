"""The embedder ``sentence-transformers``: a sentence-transformers model on this machine's CPU.

Needs the ``sentence-transformers`` extra (torch). Configured in
``[plugins.embeddings.sentence-transformers]``:

- ``model``: a local folder holding a sentence-transformers model, or a model
  id the library fetches once onto this machine (default
  ``sentence-transformers/all-MiniLM-L6-v2``);
- ``device`` (optional): where it runs, ``cpu`` by default.

The model is loaded on the first ``embed`` or the first question about its
``dimensions`` (which only the model knows), never when plugins are listed,
and once per process (:mod:`.lazy_model`); neither loading nor embedding
draws a progress bar on stderr.
A missing folder, a model that cannot be loaded and the extra not installed
are ``ConfigError``.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from tinymemory import ConfigError

from .lazy_model import LazyModelEmbedder
from .settings import local_folder


class SentenceTransformersEmbedder(LazyModelEmbedder):
    """A sentence-transformers model; ``model`` and ``device`` as the table's, read on first use.

    Passing them here (a test, a program) skips the configuration file.
    """

    name = "sentence-transformers"
    KEYS: ClassVar[Mapping[str, type]] = {"model": str, "device": str}
    DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

    def __init__(self, model: str | None = None, device: str | None = None) -> None:
        super().__init__(model=model, device=device)

    @property
    def dimensions(self) -> int:
        """The size of the model's sentence vectors (the model is loaded to know it)."""
        size = self._loaded().get_embedding_dimension()
        if not isinstance(size, int) or size < 1:
            raise ConfigError(f"the sentence-transformers model `{self.model}` has no fixed size")
        return size

    def _load(self, settings: Mapping[str, Any]) -> Any:
        return _load(self.model, str(settings.get("device", "cpu")))

    def _encode(self, model: Any, texts: list[str]) -> Any:
        # No bar on stderr: a command's output is the user's, not the library's.
        return model.encode(texts, convert_to_numpy=True, show_progress_bar=False)


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    """transformers' weight-loading bar and load report kept off stderr while a model loads,
    its own settings given back afterwards (they are the host program's)."""
    logging: Any = importlib.import_module("transformers.utils.logging")
    verbosity, bars = logging.get_verbosity(), logging.is_progress_bar_enabled()
    logging.set_verbosity_error()
    logging.disable_progress_bar()
    try:
        yield
    finally:
        logging.set_verbosity(verbosity)
        if bars:
            logging.enable_progress_bar()


def _load(model: str, device: str) -> Any:
    # By name: the extra (torch) is not installed where the types are checked.
    try:
        library: Any = importlib.import_module("sentence_transformers")
    except ImportError:
        raise ConfigError(
            "the sentence-transformers embedder needs its extra: "
            'pip install "tinymemory-embeddings[sentence-transformers]"'
        ) from None
    folder = local_folder(model)
    try:
        with _quiet_transformers():
            return library.SentenceTransformer(
                str(folder) if folder is not None else model, device=device
            )
    except Exception as error:
        where = f"the folder `{folder}`" if folder is not None else f"the model id `{model}`"
        raise ConfigError(
            f"sentence-transformers could not load {where}: {type(error).__name__}: {error}"
        ) from None
