"""Choosing an embedder by name, and the identity a memory records of it."""

from __future__ import annotations

from tinymemory._errors import ConfigError
from tinymemory._hookspecs import Embedder
from tinymemory._plugin_manager import embedders


def embedder_named(name: object) -> Embedder:
    """The installed embedder called ``name``; ``ConfigError`` listing the installed ones."""
    installed = embedders()
    if not isinstance(name, str) or name not in installed:
        names = ", ".join(sorted(installed)) or "none"
        shown = f"`{name}`" if isinstance(name, str) else repr(name)
        raise ConfigError(f"no embedder named {shown} is installed (installed: {names})")
    return installed[name]


def embedder_identity(embedder: Embedder) -> str:
    """What a memory records of the embedder that filled it: its ``identity`` when it has
    one, else ``name:dimensions``."""
    identity = getattr(embedder, "identity", None)
    if identity is None:
        return f"{embedder.name}:{embedder.dimensions}"
    if not isinstance(identity, str) or not identity:
        raise ConfigError(f"embedder `{embedder.name}` has an invalid identity {identity!r}")
    return identity
