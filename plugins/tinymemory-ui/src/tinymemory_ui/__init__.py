"""``tinymemory ui``: a local web view of memory, served on 127.0.0.1 behind a per-run token."""

from .app import create_app as create_app
from .security import Guard as Guard

__all__ = ["Guard", "create_app"]
