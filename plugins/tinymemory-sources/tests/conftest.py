"""Real components for the readers' tests: a loopback HTTP(S) server and guard settings for it.

The server listens on 127.0.0.1 on a port the system picks and answers from a
table of routes the test fills. The guard reaches it only through the
test-only ``loopback_for_tests`` setting, or through a connector that dials it
in place of the (public, illustrative) address a stub resolver gave: nothing
ever leaves the machine.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import socket
import ssl
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import trustme

from tinymemory.testing import only_plugins
from tinymemory_sources import GuardedFetcher, GuardPolicy

FIXTURES = Path(__file__).parent / "fixtures"
#: Every name the HTTPS server holds a certificate for (the allowed cases' hosts).
TLS_NAMES = (
    "example.com",
    "public.test",
    "xn--bcher-kva.de",
    "api.github.com",
    "news.ycombinator.com",
    "2606:4700:4700::1111",
)

Handler = Callable[[http.server.BaseHTTPRequestHandler], None]


def ssrf_cases() -> dict[str, Any]:
    """The shared SSRF corpus (a copy of shared/reference/ssrf-cases.json)."""
    return json.loads((FIXTURES / "ssrf-cases.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


class LoopbackServer:
    """An HTTP server on 127.0.0.1 answering from ``routes``, recording every request."""

    def __init__(self, tls: ssl.SSLContext | None = None) -> None:
        self.routes: dict[str, Handler] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        outer = self

        class _Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append((self.path, dict(self.headers.items())))
                handler = outer.routes.get(self.path.split("?")[0]) or outer.routes.get(self.path)
                if handler is None:
                    self.send_error(404)
                    return
                with contextlib.suppress(BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    handler(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        if tls is not None:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.scheme = "https" if tls else "http"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def url(self, path: str = "/") -> str:
        """The loopback URL of ``path``."""
        return f"{self.scheme}://127.0.0.1:{self.port}{path}"

    def answer(
        self,
        path: str,
        body: bytes = b"",
        *,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Serve ``body`` with ``status`` and ``headers`` at ``path``."""

        def send(request: http.server.BaseHTTPRequestHandler) -> None:
            request.send_response(status)
            for name, value in (headers or {"Content-Type": "text/plain"}).items():
                request.send_header(name, value)
            request.send_header("Content-Length", str(len(body)))
            request.end_headers()
            request.wfile.write(body)

        self.routes[path] = send

    def redirect(self, path: str, to: str, status: int = 302) -> None:
        """Answer ``path`` with a redirect to ``to``."""
        self.answer(path, status=status, headers={"Location": to})

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    """A plain HTTP server on loopback, stopped at the end of the test."""
    started = LoopbackServer()
    yield started
    started.close()


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    """A throwaway certificate authority the HTTPS server's certificate comes from."""
    return trustme.CA()


@pytest.fixture
def ca_file(ca: trustme.CA, tmp_path: Path) -> str:
    """The test CA's certificate as a file, for the guard's ``ca_file``."""
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


@pytest.fixture
def tls_server(ca: trustme.CA) -> Iterator[LoopbackServer]:
    """An HTTPS server on loopback whose certificate names the allowed cases' hosts."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(*TLS_NAMES).configure_cert(context)
    started = LoopbackServer(tls=context)
    yield started
    started.close()


def stub_resolver(table: Mapping[str, Sequence[str]], calls: list[str] | None = None) -> Any:
    """A resolver answering from ``table`` (unknown names do not resolve), noting each lookup."""

    def resolve(host: str) -> list[str]:
        if calls is not None:
            calls.append(host)
        return list(table.get(host, []))

    return resolve


def dial(server: LoopbackServer, dialled: list[str]) -> Any:
    """A connector that notes the vetted address it was given and dials ``server`` instead."""

    def connect(address: str, port: int, timeout: float) -> socket.socket:
        dialled.append(address)
        return socket.create_connection(("127.0.0.1", server.port), timeout=timeout)

    return connect


def loopback_fetcher(server: LoopbackServer, **policy: Any) -> GuardedFetcher:
    """The guard with the test-only loopback setting on and the server's port allowed."""
    return GuardedFetcher(
        GuardPolicy(loopback_for_tests=True, ports={80, 443, server.port}, **policy)
    )


@pytest.fixture
def without_converters() -> Iterator[None]:
    """Only this plugin loads, so a test of what a reader does without a converter holds
    with the documents plugin installed beside it (as the README's bundle has it)."""
    with only_plugins("sources", "tinymemory.reference"):
        yield
