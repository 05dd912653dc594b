"""Which URLs, host names and addresses the guard lets a reader reach.

Judged in this order, every refusal an ``InvalidRequest`` naming its reason:
the URL's shape (scheme, authority characters, userinfo, port), the host's
name (suffixes that are local by definition, single labels), then every
address the name resolves to. An IP address is public only when it is in no
blocked network *and* ``ipaddress`` calls it global, after unwrapping the IPv4
address embedded in mapped, compatible, 6to4, Teredo and NAT64 forms (the
flags alone are not a block list on this Python; see the perf-security notes).
"""

from __future__ import annotations

import ipaddress
import re
import socket
import urllib.parse
from collections.abc import Collection

import attrs

from tinymemory import InvalidRequest

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Schemes a reader may fetch.
SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}

#: Names local by definition (RFC 6761, RFC 8375, common private zones), refused by name.
LOCAL_SUFFIXES = (".localhost", ".local", ".internal", ".home.arpa", ".lan", ".localdomain")

#: Networks never fetched from, whatever ``ipaddress`` says (RFC 6890 and the IANA registries).
BLOCKED_NETWORKS = tuple(
    ipaddress.ip_network(cidr)
    for cidr in (
        "0.0.0.0/8",  # this network; 0.0.0.0 reaches local listeners
        "10.0.0.0/8",
        "100.64.0.0/10",  # CGNAT shared space
        "127.0.0.0/8",
        "169.254.0.0/16",  # link-local, cloud metadata
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, broadcast
        "::/128",
        "::1/128",
        "::ffff:0:0/96",  # judged by the embedded IPv4 first; never as itself
        "64:ff9b::/96",
        "64:ff9b:1::/48",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "2002::/16",  # 6to4: judged by the embedded IPv4 first
        "fc00::/7",  # unique local (AWS IMDS fd00:ec2::254)
        "fe80::/10",
        "ff00::/8",
    )
)

#: Loopback networks a test may open (``GuardPolicy.loopback_for_tests``).
LOOPBACK_NETWORKS = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))

# Characters no authority may hold: parsers disagree about them (backslash,
# whitespace, controls) or they hide another host (percent-encoding).
_BAD_AUTHORITY = re.compile(r"[\\\s%\x00-\x1f\x7f]")
#: What a path or query keeps as it is when its non-ASCII characters are encoded.
_URL_SAFE = "/%:@!$&'()*+,;=?~-._"
_CONTROL = re.compile(r"[\s\x00-\x1f\x7f]")
# Every label digits or hex: an IPv4 address in a legacy spelling (127.1, 0x7f.1, 0177.0.0.1).
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+))*\.?$")


@attrs.frozen(kw_only=True)
class Target:
    """A URL the guard accepted: its parts, with the host in its ASCII (IDNA) form."""

    scheme: str
    host: str
    port: int
    target: str  # the path and query sent in the request line
    literal: IPAddress | None  # the host, when it is an IP address

    @property
    def origin(self) -> tuple[str, str, int]:
        """Scheme, host and port: what a redirect must keep for credentials to follow it."""
        return (self.scheme, self.host, self.port)

    @property
    def host_header(self) -> str:
        """The ``Host`` header: the name, bracketed for IPv6, with the port unless the default."""
        shown = f"[{self.host}]" if isinstance(self.literal, ipaddress.IPv6Address) else self.host
        return shown if DEFAULT_PORTS[self.scheme] == self.port else f"{shown}:{self.port}"


def refuse(host: str, reason: str) -> InvalidRequest:
    """The guard's refusal: ``InvalidRequest`` naming the host and the reason."""
    return InvalidRequest(f"refused to fetch from `{host}`: {reason}")


def parse_target(url: str, ports: Collection[int]) -> Target:
    """``url`` checked for shape and name (no resolving): scheme, authority, port, host."""
    if not isinstance(url, str) or not url:
        raise InvalidRequest("a url to fetch must be a non-empty string")
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    shown = parts.hostname or url[:60]
    if scheme not in SCHEMES:
        raise refuse(shown, f"only http and https are fetched, not `{scheme or 'no scheme'}`")
    # The authority as written: urlsplit drops tabs and newlines before it splits.
    authority = re.split(r"[/?#]", url.split("://", 1)[-1], maxsplit=1)[0]
    if _BAD_AUTHORITY.search(authority):
        raise refuse(
            shown, "the host part holds a backslash, whitespace, a control character or `%`"
        )
    if _CONTROL.search(url):
        raise refuse(shown, "the url holds whitespace or a control character")
    if "@" in authority:
        raise refuse(shown, "credentials in the url are not sent")
    try:
        port = parts.port
    except ValueError:
        raise refuse(shown, "the port is not a number from 1 to 65535") from None
    port = DEFAULT_PORTS[scheme] if port is None else port
    if port not in ports:
        allowed = ", ".join(str(number) for number in sorted(ports))
        raise refuse(shown, f"port {port} is not one the guard allows ({allowed})")
    host, literal = _canonical_host(parts.hostname or "")
    # Non-ASCII in the path or query is percent-encoded; what is already encoded stays.
    target = urllib.parse.quote(parts.path or "/", safe=_URL_SAFE)
    if parts.query:
        target += "?" + urllib.parse.quote(parts.query, safe=_URL_SAFE)
    return Target(scheme=scheme, host=host, port=port, target=target, literal=literal)


def _canonical_host(raw: str) -> tuple[str, IPAddress | None]:
    """The host lower-cased, IDNA-encoded, without a trailing dot, and its address if a literal."""
    if not raw:
        raise refuse("(none)", "the url names no host")
    try:
        return raw, ipaddress.IPv6Address(raw)  # urlsplit strips the brackets
    except ValueError:
        pass
    try:
        # Python's idna codec applies nameprep, so enclosed letters fold to ASCII
        # (ⓛⓞⓒⓐⓛⓗⓞⓢⓣ is localhost) before any rule sees the name.
        host = raw.encode("idna").decode("ascii").lower().rstrip(".")
    except UnicodeError:
        raise refuse(raw, "the host is not a valid name") from None
    if _NUMERIC_HOST.match(host):
        try:
            # The resolver reads 127.1, 0x7f000001 and 0177.0.0.1 as addresses: so does the guard.
            return host, ipaddress.IPv4Address(socket.inet_aton(host))
        except OSError:
            raise refuse(host, "a numeric host that is no IPv4 address") from None
    if host == "localhost" or host.endswith(LOCAL_SUFFIXES):
        raise refuse(host, "the name is local by definition")
    if "." not in host:
        raise refuse(host, "a single-label name is resolved inside the network")
    return host, None


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address carried inside an IPv6 one (mapped, compatible, 6to4, Teredo, NAT64)."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]  # the client's address
    packed = int(address)
    if packed >> 32 == 0 and packed > 1:  # ::a.b.c.d, IPv4-compatible (deprecated)
        return ipaddress.IPv4Address(packed)
    if address in ipaddress.ip_network("64:ff9b::/96"):
        return ipaddress.IPv4Address(packed & 0xFFFFFFFF)
    return None


def blocked_reason(address: IPAddress, *, loopback_for_tests: bool = False) -> str | None:
    """Why ``address`` must not be reached, or ``None`` when it is public."""
    if loopback_for_tests and any(address in network for network in LOOPBACK_NETWORKS):
        return None
    inner = embedded_ipv4(address)
    if inner is not None:
        reason = blocked_reason(inner)
        if reason is not None:
            return f"{address} carries {inner}: {reason}"
    for network in BLOCKED_NETWORKS:
        if address.version == network.version and address in network:
            if inner is not None:
                return f"{address} is in {network}, a range whose addresses are not fetched"
            return f"{address} is in the blocked range {network}"
    if not address.is_global:
        return f"{address} is not a public address"
    return None
