"""A public module's names, each loaded from the module that defines it on first use.

A public face (``tinymemory.plugin``, ``tinymemory.retrieval``) lists its
names by the private module that defines them; :func:`lazy_exports` gives it
``__all__``, a module ``__getattr__`` importing a name's module only when the
name is first read, and ``__dir__``. So importing the face costs nothing, and
a plugin that reads by keyword never loads what only a store, a conversion or
the plugin system needs (cattrs, pluggy, numpy). Type checkers read the same
names from the face's ``if TYPE_CHECKING:`` imports (``import X as X``, an
explicit re-export); a test holds those imports and the table to one another.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

Getattr = Callable[[str], Any]
Dir = Callable[[], list[str]]


def lazy_exports(
    face: str, sources: Mapping[str, tuple[str, ...]]
) -> tuple[list[str], Getattr, Dir]:
    """``__all__``, ``__getattr__`` and ``__dir__`` of module ``face``, whose names are
    ``sources`` (a defining module to the names it gives): each name is imported from its
    module when first read, then kept in ``face``'s namespace."""
    where = {name: module for module, names in sources.items() for name in names}
    names = sorted(where)

    def load(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {face!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(importlib.import_module(face), name, value)
        return value

    def listing() -> list[str]:
        return sorted({*vars(importlib.import_module(face)), *names})

    return names, load, listing
