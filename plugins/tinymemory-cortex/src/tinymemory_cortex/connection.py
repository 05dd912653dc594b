"""The connection under the transport: one HTTP exchange, and nothing else (as httpx's transports).

:class:`~.transport.Transport` decides what to send, how often and what an
answer means; a :class:`Connection` only carries one request and brings back
its status, headers and body. :class:`RequestsConnection` is the one a
built engine uses (a ``requests`` session, no redirects, no proxy from the
environment); a test serves the engine from memory with
:class:`tinymemory_cortex.testing.InMemoryConnection` instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

import attrs
import requests
from requests.adapters import HTTPAdapter


@attrs.frozen
class Request:
    """One request to carry: the method, the whole URL, the headers, the body, the timeouts.

    ``timeout`` is ``(connect, read)`` in seconds.
    """

    method: str
    url: str
    headers: Mapping[str, str]
    body: bytes | None
    timeout: tuple[float, float]


@attrs.frozen
class Reply:
    """What came back: the status, the headers (names lowercased) and the body's bytes."""

    status: int
    headers: Mapping[str, str]
    body: bytes


class ConnectionFailed(Exception):
    """No answer came back; ``reason`` says why in a few words (never a URL or a header)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def timed_out(request: Request, *, connecting: bool) -> ConnectionFailed:
    """The failure of a request that ran out of time, naming the timeout that cut it."""
    connect, read = request.timeout
    if connecting:
        cut = "" if connect >= read else f" (connecting is capped below the {read:g} s request)"
        return ConnectionFailed(f"timed out connecting after {connect:g} s{cut}")
    return ConnectionFailed(f"timed out: no answer within the request timeout of {read:g} s")


class Connection(Protocol):
    """Carries one request; safe to share between threads."""

    def exchange(self, request: Request) -> Reply:
        """Send one request and return its answer; :class:`ConnectionFailed` when none came."""
        ...

    def close(self) -> None:
        """Release what the connection holds."""
        ...


class RequestsConnection:
    """HTTP through one pooled ``requests`` session: no redirects, no proxy from the environment."""

    def __init__(self) -> None:
        self._session = requests.Session()
        adapter = HTTPAdapter(pool_connections=4, pool_maxsize=8, max_retries=0)
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)
        self._session.trust_env = False

    def exchange(self, request: Request) -> Reply:
        try:
            response = self._session.request(
                request.method,
                request.url,
                headers=dict(request.headers),
                data=request.body,
                timeout=request.timeout,
                allow_redirects=False,
            )
            content = response.content
        except requests.ConnectTimeout:
            raise timed_out(request, connecting=True) from None
        except requests.Timeout:
            raise timed_out(request, connecting=False) from None
        except requests.exceptions.SSLError:
            raise ConnectionFailed("TLS failed") from None
        except requests.ConnectionError as error:
            dropped = "RemoteDisconnected" in repr(error) or "reset" in repr(error).lower()
            raise ConnectionFailed(
                "the request did not complete" if dropped else "could not connect; check the URL"
            ) from None
        except requests.RequestException:
            raise ConnectionFailed("the request did not complete") from None
        names = {name.lower(): value for name, value in response.headers.items()}
        return Reply(response.status_code, names, content)

    def close(self) -> None:
        self._session.close()
