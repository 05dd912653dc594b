"""A stateful CortexDB double for tests (Direct ``v1/*`` and hosted ``memory/*`` routes).

Served in memory (:class:`InMemoryConnection`, no network at all), or over
HTTP on 127.0.0.1 (:class:`DoubleServer`).

::

    from tinymemory_cortex.testing import CortexDouble, DoubleServer

    with DoubleServer() as server:          # http://127.0.0.1:<free port>
        engine = build_engine("cortexdb", EngineSettings(endpoint=server.url),
                              EngineCredential.static("test-key"))

Faults (:class:`Fault`) are armed with ``double.inject(...)``: a status such
as 429 with ``retry_after`` or 503, a dropped connection, a slow answer.
"""

from __future__ import annotations

from .clock import ManualClock
from .double import CortexDouble
from .hosted import HostedError, HostedFront
from .memory import MEMORY_ENDPOINT, InMemoryConnection, connect, serve_in_memory
from .server import DoubleServer
from .state import Answer, ApiError, Fault, Tenant

__all__ = [
    "MEMORY_ENDPOINT",
    "Answer",
    "ApiError",
    "CortexDouble",
    "DoubleServer",
    "Fault",
    "HostedError",
    "HostedFront",
    "InMemoryConnection",
    "ManualClock",
    "Tenant",
    "connect",
    "serve_in_memory",
]
