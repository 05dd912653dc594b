"""TinyMemory's CortexDB engines: ``cortexdb`` (CortexDB's Direct wire, ``v1/*``) and
``tinyhumans`` (the hosted TinyHumans memory API, ``memory/*``), one engine class over two wires.

Build it through the registry::

    engine = tinymemory.build_engine(
        "cortexdb", EngineSettings(scope_root="org:42"), EngineCredential.static(key)
    )

:mod:`tinymemory_cortex.testing` holds a stateful CortexDB double for tests.
"""

from __future__ import annotations

from .descriptor import DESCRIPTOR, HOSTED_DESCRIPTOR
from .engine import CortexEngine
from .pacing import Pacer
from .wire import DIRECT, HOSTED, Wire

__all__ = ["DESCRIPTOR", "DIRECT", "HOSTED", "HOSTED_DESCRIPTOR", "CortexEngine", "Pacer", "Wire"]
