"""The double served in memory: a :class:`~tinymemory_cortex.connection.Connection` with no network.

::

    double = CortexDouble()
    engine = CortexEngine(ENDPOINT, credential, connection=InMemoryConnection(double))

or, for an engine a registry built, :func:`serve_in_memory` (:func:`connect`
for any other connection). Each exchange
goes straight to :meth:`CortexDouble.handle` with the bytes the engine would
have sent; a slow answer past the request's timeout times out (after waiting
out the timeout, as a real client would) and a dropped connection fails as
one does on the network.
"""

from __future__ import annotations

import json
from urllib.parse import urlsplit

from tinymemory import MemoryEngine

from ..connection import Connection, ConnectionFailed, Reply, Request, timed_out
from ..engine import CortexEngine
from .double import CortexDouble

#: An endpoint for engines served in memory (nothing listens there).
MEMORY_ENDPOINT = "https://cortex.double.invalid"


class InMemoryConnection:
    """Carries every exchange to ``double`` in this process."""

    def __init__(self, double: CortexDouble) -> None:
        self.double = double

    def exchange(self, request: Request) -> Reply:
        parts = urlsplit(request.url)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        answer = self.double.handle(request.method, target, request.headers, request.body or b"")
        if answer.delay:
            read_timeout = request.timeout[1]
            if answer.delay > read_timeout:
                self.double.clock.sleep(read_timeout)
                raise timed_out(request, connecting=False)
            self.double.clock.sleep(answer.delay)
        if answer.drop:
            raise ConnectionFailed("the request did not complete")
        payload = (
            b""
            if answer.body is None
            else json.dumps(answer.body, ensure_ascii=False).encode("utf-8")
        )
        names = {name.lower(): value for name, value in answer.headers.items()}
        return Reply(answer.status, {"content-type": "application/json", **names}, payload)

    def close(self) -> None:
        return None


def connect(engine: MemoryEngine, connection: Connection) -> MemoryEngine:
    """Carry a CortexDB engine's requests (one the registry built, say) over ``connection``.

    Call it before the engine's first request; returns the engine.
    """
    if not isinstance(engine, CortexEngine):
        raise TypeError("connect takes a CortexDB engine (built with scrub=False)")
    engine.transport.connection = connection
    return engine


def serve_in_memory(engine: MemoryEngine, double: CortexDouble) -> MemoryEngine:
    """Serve a CortexDB engine from ``double``, in memory; returns it."""
    return connect(engine, InMemoryConnection(double))
