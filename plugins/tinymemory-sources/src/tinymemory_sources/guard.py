"""The SSRF guard: the HTTP fetcher every reader is handed by default.

:class:`GuardedFetcher` is a :class:`~tinymemory.plugin.Fetcher`. For each
hop it checks the URL (:mod:`tinymemory_sources.address_rules`), resolves the
name once, refuses if *any* address is not public, and connects to the vetted
address itself, so no second lookup can rebind the name; TLS is still verified
against the host name (SNI and certificate). Redirects are followed by hand, at
most ``max_redirects``, each hop judged afresh; credentials (``Authorization``,
``Cookie``) do not follow a hop to another origin, and https never falls back
to http. The body is streamed against ``max_body_bytes`` after decoding
(gzip, deflate), a declared ``Content-Length`` above the cap is refused
unread, and a watchdog closes the socket at the total deadline, so a server
dripping a byte a second cannot hold a reader. It is built on the standard
library's ``http.client``: no proxy is taken from the environment.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import ipaddress
import socket
import ssl
import threading
import time
import urllib.parse
import zlib
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import attrs

from tinymemory import ConfigError, InvalidRequest, Unavailable
from tinymemory.plugin import HttpResponse
from tinymemory_sources.address_rules import (
    IPAddress,
    Target,
    blocked_reason,
    parse_target,
    refuse,
)

#: Resolves a host name to its addresses (as text); an empty list when it has none.
Resolver = Callable[[str], Sequence[str]]
#: Opens a TCP connection to ``(address, port)`` within ``timeout`` seconds.
Connector = Callable[[str, int, float], socket.socket]

REDIRECTS = frozenset({301, 302, 303, 307, 308})
#: Headers that never follow a redirect to another origin.
CREDENTIAL_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})
#: Headers the guard sets itself: the name it connects for and the encodings it decodes.
FIXED_HEADERS = frozenset({"host", "accept-encoding"})
MIB = 1024 * 1024
_CHUNK = 64 * 1024


def system_resolver(host: str) -> list[str]:
    """Every address ``getaddrinfo`` gives for ``host`` (both families), in its order."""
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except socket.gaierror:
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def direct_connector(address: str, port: int, timeout: float) -> socket.socket:
    """A plain TCP connection to the vetted address (never through a proxy)."""
    return socket.create_connection((address, port), timeout=timeout)


def _positive(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise ConfigError(f"guard setting `{attribute.name}` must be a positive number")


def _ports(value: Collection[int]) -> frozenset[int]:
    ports = frozenset(value)
    if not ports or any(
        isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535
        for port in ports
    ):
        raise ConfigError("guard setting `ports` must hold port numbers from 1 to 65535")
    return ports


def _redirects(instance: object, attribute: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
        raise ConfigError("guard setting `max_redirects` must be an integer from 0 to 20")


@attrs.frozen(kw_only=True)
class GuardPolicy:
    """What the guard allows: ports, redirects, body size, timeouts, and how it reaches hosts.

    ``resolver`` and ``connector`` default to the system's; a test injects its
    own (a table of names; a dial to its loopback server). ``ca_file`` adds a
    CA bundle to trust (default: the system's). ``loopback_for_tests`` lets
    127.0.0.0/8 and ::1 through, for tests against a server they start: it is
    off by default and only ever set by an explicit argument, never from the
    environment. Every other refusal stays in force with it.
    """

    ports: frozenset[int] = attrs.field(default=frozenset({80, 443}), converter=_ports)
    max_redirects: int = attrs.field(default=5, validator=_redirects)
    max_body_bytes: int = attrs.field(default=10 * MIB, validator=_positive)
    connect_timeout: float = attrs.field(default=5.0, validator=_positive)
    read_timeout: float = attrs.field(default=10.0, validator=_positive)
    total_deadline: float = attrs.field(default=20.0, validator=_positive)
    user_agent: str = "tinymemory-sources/0.1"
    ca_file: str | None = None
    resolver: Resolver = system_resolver
    connector: Connector = direct_connector
    loopback_for_tests: bool = attrs.field(
        default=False, validator=attrs.validators.instance_of(bool)
    )


@attrs.frozen(kw_only=True)
class Pinned:
    """A hop the guard accepted: the parsed URL and the one vetted address it connects to."""

    target: Target
    address: IPAddress


class GuardedFetcher:
    """A blocking ``GET`` that refuses private, local and malformed destinations.

    Call it as any :class:`~tinymemory.plugin.Fetcher`. Refusals are
    ``InvalidRequest`` naming the host and the reason (a body over the cap
    too); an unreachable host or the total deadline passing is
    ``Unavailable``. Header names in the response are lower-cased.
    """

    def __init__(self, policy: GuardPolicy | None = None) -> None:
        self.policy = policy or GuardPolicy()

    @functools.cached_property
    def _tls(self) -> ssl.SSLContext:
        # Made at the first https fetch: loading the system's certificates costs
        # about 0.1 s of CPU, which every `tm.read` (of a folder too) paid.
        return ssl.create_default_context(cafile=self.policy.ca_file)

    def __repr__(self) -> str:
        return f"GuardedFetcher(ports={sorted(self.policy.ports)})"

    def vet(self, url: str) -> Pinned:
        """``url`` judged and resolved once: the address a fetch would connect to."""
        target = parse_target(url, self.policy.ports)
        loopback = self.policy.loopback_for_tests
        if target.literal is not None:
            addresses: list[IPAddress] = [target.literal]
        else:
            found = self.policy.resolver(target.host)
            try:
                addresses = [ipaddress.ip_address(str(text).split("%")[0]) for text in found]
            except ValueError:
                raise refuse(
                    target.host, "the resolver gave something that is no address"
                ) from None
            if not addresses:
                raise refuse(target.host, "the name does not resolve")
        for address in addresses:
            reason = blocked_reason(address, loopback_for_tests=loopback)
            if reason is not None:
                raise refuse(target.host, reason)
        return Pinned(target=target, address=addresses[0])

    def __call__(self, url: str, *, headers: Mapping[str, str] | None = None) -> HttpResponse:
        """``GET url`` through the guard, following at most ``max_redirects`` redirects."""
        given = dict(headers or {})
        for name, value in given.items():
            if any(c in f"{name}{value}" for c in "\r\n\x00") or name.lower() in FIXED_HEADERS:
                raise InvalidRequest(f"header `{name[:40]!r}` cannot be sent")
        defaults = {"User-Agent": self.policy.user_agent, "Accept": "*/*"}
        taken = {name.lower() for name in given}
        sent = {k: v for k, v in defaults.items() if k.lower() not in taken}
        sent.update(given)
        sent["Accept-Encoding"] = "gzip, deflate"
        deadline = time.monotonic() + self.policy.total_deadline
        current = url
        pinned = self.vet(current)
        for hop in range(self.policy.max_redirects + 1):
            response = self._exchange(pinned, current, sent, deadline)
            location = response.headers.get("location")
            if response.status not in REDIRECTS or not location:
                return response
            if hop == self.policy.max_redirects:
                break
            following = urllib.parse.urljoin(current, location)
            hop_pinned = self.vet(following)
            if pinned.target.scheme == "https" and hop_pinned.target.scheme == "http":
                raise refuse(hop_pinned.target.host, "a redirect from https down to http")
            if hop_pinned.target.origin != pinned.target.origin:
                sent = {k: v for k, v in sent.items() if k.lower() not in CREDENTIAL_HEADERS}
            current, pinned = following, hop_pinned
        raise refuse(pinned.target.host, f"more than {self.policy.max_redirects} redirects")

    def _exchange(
        self, pinned: Pinned, url: str, headers: Mapping[str, str], deadline: float
    ) -> HttpResponse:
        """One request and its whole (capped) body, on a socket to the pinned address."""
        target = pinned.target
        left = deadline - time.monotonic()
        if left <= 0:
            raise self._late(target.host)
        try:
            sock = self.policy.connector(
                str(pinned.address), target.port, min(self.policy.connect_timeout, left)
            )
        except OSError as error:
            raise Unavailable(
                f"`{target.host}` cannot be reached: {error.strerror or error}"
            ) from None
        live = [sock]  # the socket in use: the TLS one, once wrapped
        fired = threading.Event()
        watchdog = threading.Timer(left, _shut, (live, fired))
        watchdog.daemon = True
        watchdog.start()
        try:
            response = self._talk(live, pinned, url, headers)
        except ssl.SSLCertVerificationError as error:
            raise refuse(
                target.host, f"its TLS certificate does not verify ({error.verify_message})"
            ) from None
        except (OSError, http.client.HTTPException) as error:
            if fired.is_set():
                raise self._late(target.host) from None
            raise Unavailable(f"`{target.host}` failed mid-request: {error}") from None
        finally:
            watchdog.cancel()
            live[0].close()
        if fired.is_set():  # the socket was shut under a read: what came is not the whole body
            raise self._late(target.host)
        return response

    def _late(self, host: str) -> Unavailable:
        deadline = self.policy.total_deadline
        return Unavailable(f"`{host}`: the total deadline of {deadline:g} s passed")

    def _talk(
        self, live: list[socket.socket], pinned: Pinned, url: str, headers: Mapping[str, str]
    ) -> HttpResponse:
        target = pinned.target
        live[0].settimeout(self.policy.read_timeout)
        if target.scheme == "https":
            live[0] = self._tls.wrap_socket(live[0], server_hostname=target.host)
        connection = http.client.HTTPConnection(target.host, target.port)
        connection.sock = live[0]
        connection.putrequest("GET", target.target, skip_host=True, skip_accept_encoding=True)
        connection.putheader("Host", target.host_header)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders()
        response = connection.getresponse()
        found: dict[str, str] = {}
        for name, value in response.getheaders():
            key = name.lower()
            found[key] = f"{found[key]}, {value}" if key in found else value
        body = self._body(response, found, target.host)
        return HttpResponse(url=url, status=response.status, headers=found, body=body)

    def _body(
        self, response: http.client.HTTPResponse, headers: dict[str, str], host: str
    ) -> bytes:
        cap = self.policy.max_body_bytes
        declared = headers.get("content-length", "").strip()
        if declared.isdigit() and int(declared) > cap:
            raise refuse(host, f"the body declares {int(declared)} bytes, over the cap of {cap}")
        encoding = headers.get("content-encoding", "identity").strip().lower()
        decoder = _decoder(encoding, host)
        parts: list[bytes] = []
        size = 0
        while chunk := response.read1(_CHUNK):
            pending = chunk
            while pending:
                if decoder is None:
                    piece, pending = pending, b""
                else:
                    piece = decoder.decompress(pending, cap - size + 1)
                    pending = decoder.unconsumed_tail
                size += len(piece)
                if size > cap:
                    raise refuse(host, f"the body is over the cap of {cap} bytes")
                parts.append(piece)
        if decoder is not None:
            tail = decoder.flush()
            size += len(tail)
            if size > cap:
                raise refuse(host, f"the body is over the cap of {cap} bytes")
            parts.append(tail)
        return b"".join(parts)


def _decoder(encoding: str, host: str) -> zlib._Decompress | None:
    if encoding in ("identity", ""):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj()
    raise refuse(host, f"the body is in the content encoding `{encoding}`, which is not read")


def _shut(live: list[socket.socket], fired: threading.Event) -> None:
    """The watchdog's end: any read blocked on the live socket returns at once."""
    fired.set()
    with contextlib.suppress(OSError):
        live[0].shutdown(socket.SHUT_RDWR)
