"""The identity a memory records of the embedder that filled it, and the embedder an engine
whose settings name none opens a memory with."""

from __future__ import annotations

import threading
import warnings
from typing import TYPE_CHECKING

from tinymemory._errors import ConfigError

if TYPE_CHECKING:
    from tinymemory._hookspecs import Embedder


class KeptEmbedderWarning(UserWarning):
    """A memory keeps the embedder it was filled with, not the default, until ``tinymemory
    reindex`` re-embeds it (said once per memory and process)."""


_told: set[tuple[str, str]] = set()
_told_lock = threading.Lock()


def embedder_identity(embedder: Embedder) -> str:
    """What a memory records of the embedder that filled it: its ``identity`` when it has
    one, else ``name:dimensions``."""
    identity = getattr(embedder, "identity", None)
    if identity is None:
        return f"{embedder.name}:{embedder.dimensions}"
    if not isinstance(identity, str) or not identity:
        raise ConfigError(f"embedder `{embedder.name}` has an invalid identity {identity!r}")
    return identity


def memory_embedder(name: str, identity: str, where: str) -> Embedder:
    """The embedder for a memory (``where``, as a notice names it, never with a credential)
    whose settings name none: the default embedder (:func:`default_embedder`), unless the
    memory holds vectors of the installed embedder ``name`` whose identity is ``identity``
    (what the memory recorded).

    A memory filled under an earlier default so keeps answering after the default
    changes, and says so once per process with a :class:`KeptEmbedderWarning`; with
    the embedder it recorded not installed, the default is returned, and the
    engine refuses what would mix vectors as for any other embedder.
    """
    from tinymemory._plugin_manager import default_embedder, embedders

    default = default_embedder()
    if identity == embedder_identity(default):
        return default
    kept = embedders(name).get(name)
    if kept is None or embedder_identity(kept) != identity:
        return default
    with _told_lock:
        told = (where, identity) in _told
        _told.add((where, identity))
    if not told:
        warnings.warn(
            f"{where} was filled by embedder `{name}` ({identity}), not by the default "
            f"`{default.name}`, and keeps answering with `{name}`: run `tinymemory reindex` "
            f'to re-embed it with `{default.name}`, or set embedder = "{name}" in the '
            "engine's settings to keep it without this note",
            KeptEmbedderWarning,
            stacklevel=2,
        )
    return kept
