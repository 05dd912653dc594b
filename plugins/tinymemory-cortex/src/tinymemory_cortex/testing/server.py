"""The double served over real HTTP on 127.0.0.1, for end-to-end tests and benchmarks."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

from .double import CortexDouble


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes: without this, Nagle's algorithm and
    # the client's delayed ACK hold every answer for some 40 ms.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        answer = self.server.double.handle(self.command, self.path, dict(self.headers), body)
        if answer.delay:
            time.sleep(answer.delay)
        if answer.drop:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        payload = (
            b""
            if answer.body is None
            else json.dumps(answer.body, ensure_ascii=False).encode("utf-8")
        )
        self.send_response(answer.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in answer.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_DELETE = _serve  # noqa: N815 (http.server's names)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    double: CortexDouble


class DoubleServer:
    """A :class:`CortexDouble` listening on 127.0.0.1 (a free port); a context manager.

    ``url`` is the endpoint to give the engine. :meth:`close` stops it.
    """

    def __init__(self, double: CortexDouble | None = None) -> None:
        self.double = double or CortexDouble()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.double = self.double
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Stop serving and release the port."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> DoubleServer:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
