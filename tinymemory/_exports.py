"""A public module's names, declared once: what it imports ``as`` itself (``import X as X``).

mypy and ruff read ``from m import name as name`` as an explicit re-export,
so a public face lists each name once, in its imports, and its ``__all__``
is derived from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any


def public_names(namespace: Mapping[str, Any]) -> list[str]:
    """The names of ``namespace`` (a module's ``globals()``) that are its public face, sorted."""
    return sorted(
        name
        for name, value in namespace.items()
        if not name.startswith("_") and name != "annotations" and not isinstance(value, ModuleType)
    )
