"""The identity a memory records of the embedder that filled it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tinymemory._errors import ConfigError

if TYPE_CHECKING:
    from tinymemory._hookspecs import Embedder


def embedder_identity(embedder: Embedder) -> str:
    """What a memory records of the embedder that filled it: its ``identity`` when it has
    one, else ``name:dimensions``."""
    identity = getattr(embedder, "identity", None)
    if identity is None:
        return f"{embedder.name}:{embedder.dimensions}"
    if not isinstance(identity, str) or not identity:
        raise ConfigError(f"embedder `{embedder.name}` has an invalid identity {identity!r}")
    return identity
