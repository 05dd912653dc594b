"""A stateful CortexDB double for tests (Direct ``v1/*`` and hosted ``memory/*`` routes).

In-process through ``responses``, or over HTTP.

::

    from tinymemory_cortex.testing import CortexDouble, DoubleServer

    with DoubleServer() as server:          # http://127.0.0.1:<free port>
        engine = build_engine("cortexdb", EngineSettings(endpoint=server.url),
                              EngineCredential.static("test-key"))

Faults (:class:`Fault`) are armed with ``double.inject(...)``: a status such
as 429 with ``retry_after`` or 503, a dropped connection, a slow answer.
"""

from __future__ import annotations

from .double import Answer, ApiError, CortexDouble, Fault, Tenant
from .hosted import HostedError, HostedFront
from .mocked import MOCK_ENDPOINT, mocked
from .server import DoubleServer

__all__ = [
    "MOCK_ENDPOINT",
    "Answer",
    "ApiError",
    "CortexDouble",
    "DoubleServer",
    "Fault",
    "HostedError",
    "HostedFront",
    "Tenant",
    "mocked",
]
