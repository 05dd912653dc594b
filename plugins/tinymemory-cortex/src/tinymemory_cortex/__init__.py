"""TinyMemory's CortexDB engine: ``cortexdb``, CortexDB's Direct wire (``v1/*``).

Build it through the registry::

    engine = tinymemory.build_engine(
        "cortexdb", EngineSettings(scope_root="org:42"), EngineCredential.static(key)
    )

:mod:`tinymemory_cortex.testing` holds a stateful CortexDB double for tests.
"""

from __future__ import annotations

from .descriptor import DESCRIPTOR
from .engine import CortexEngine
from .wire import DIRECT, Wire

__all__ = ["DESCRIPTOR", "DIRECT", "CortexEngine", "Wire"]
