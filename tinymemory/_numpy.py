"""numpy, an optional dependency: the ``vectors`` extra (``pip install 'tinymemory[vectors]'``).

The hashing embedder and the retrieval kit's embedding matrix load it on
first use; without it they raise ``ConfigError`` saying what to install.
"""

from __future__ import annotations

from tinymemory._errors import ConfigError

#: What to install for vectors.
INSTALL = "pip install 'tinymemory[vectors]'"


def require_numpy(what: str) -> None:
    """Load numpy; ``ConfigError`` saying ``what`` needs it and how to install it, without it."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise ConfigError(f"{what} needs numpy, which is not installed: {INSTALL}") from None
