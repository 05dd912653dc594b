"""numpy, an optional dependency: the ``vectors`` extra (``pip install 'tinymemory[vectors]'``).

The hashing embedder and the retrieval kit's embedding matrix load it on
first use; without it they raise ``ConfigError`` saying what to install.
"""

from __future__ import annotations

import importlib.util

from tinymemory._errors import ConfigError

#: What to install for vectors.
INSTALL = "pip install 'tinymemory[vectors]'"


def require_numpy(what: str) -> None:
    """``ConfigError`` naming ``what`` needs numpy and how to install it, when it is missing."""
    if importlib.util.find_spec("numpy") is None:
        raise ConfigError(f"{what} needs numpy, which is not installed: {INSTALL}")
