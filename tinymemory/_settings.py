"""What an engine is built with: its settings and its credential.

Neither ever shows a secret: a credential's repr is redacted, settings show
header names but not their values, and an endpoint's user info and
credential-like query parameters (``api_key=``, ``token=``, ``sig=``...) are
hidden.
"""

from __future__ import annotations

import enum
import ipaddress
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any, Protocol, runtime_checkable
from urllib.parse import unquote, urlsplit, urlunsplit

import attrs

from tinymemory._errors import ConfigError

#: The environment variable a static API key is read from.
API_KEY_VARIABLE = "TINYMEMORY_API_KEY"


@runtime_checkable
class BearerSource(Protocol):
    """Hands out a current bearer token (for tokens that expire and are refreshed)."""

    def bearer(self) -> str:
        """The token to send now."""
        ...


class CredentialKind(enum.Enum):
    """How an engine authenticates."""

    NONE = "none"
    STATIC = "static"
    DYNAMIC = "dynamic"


@attrs.frozen(repr=False)
class EngineCredential:
    """No credential, a static key, or a dynamic bearer source. Never printed."""

    #: Never written anywhere: the JSON converter refuses it.
    __no_json_form__ = True

    kind: CredentialKind = CredentialKind.NONE
    _secret: str | None = attrs.field(default=None, alias="secret")
    _source: BearerSource | None = attrs.field(default=None, alias="source", eq=False)
    # Every token a dynamic source handed out (the latest HANDED_OUT_KEPT), to redact them all.
    _handed_out: dict[str, None] = attrs.field(factory=dict, init=False, eq=False)

    @classmethod
    def none(cls) -> EngineCredential:
        """No credential."""
        return cls()

    @classmethod
    def static(cls, key: str) -> EngineCredential:
        """A fixed API key. ``ConfigError`` when it is blank or holds white space."""
        if not isinstance(key, str) or not key.strip():
            raise ConfigError("a static key must not be blank")
        if any(char.isspace() for char in key):
            raise ConfigError("a static key must not hold white space or line breaks")
        return cls(CredentialKind.STATIC, secret=key)

    @classmethod
    def dynamic(cls, source: BearerSource) -> EngineCredential:
        """A source asked for a fresh bearer token on every request."""
        if not isinstance(source, BearerSource):
            raise ConfigError("a dynamic credential needs an object with a bearer() method")
        return cls(CredentialKind.DYNAMIC, source=source)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> EngineCredential:
        """A static key from ``TINYMEMORY_API_KEY`` when it is set, else none."""
        key = (os.environ if environ is None else environ).get(API_KEY_VARIABLE, "")
        return cls.static(key.strip()) if key.strip() else cls.none()

    @property
    def is_none(self) -> bool:
        """Whether there is no credential."""
        return self.kind is CredentialKind.NONE

    def bearer(self) -> str | None:
        """The token to send now, or ``None`` without a credential."""
        if self._source is not None:
            token = self._source.bearer()
            if isinstance(token, str) and token:
                self._handed_out[token] = None
                while len(self._handed_out) > HANDED_OUT_KEPT:
                    del self._handed_out[next(iter(self._handed_out))]
            return token
        return self._secret

    def redact(self, text: str) -> str:
        """``text`` with the static key and every token handed out replaced by ``***``."""
        secrets = [*list(self._handed_out), self._secret or ""]
        return redact_values(text, secrets)

    def __repr__(self) -> str:
        shown = {CredentialKind.NONE: "none()", CredentialKind.STATIC: "static(***)"}
        return f"EngineCredential.{shown.get(self.kind, 'dynamic(***)')}"

    __str__ = __repr__


#: How many tokens of a dynamic credential are remembered for redaction.
HANDED_OUT_KEPT = 256
#: Query and fragment parameter names whose values are credentials (matched within the name).
_SECRET_NAME = re.compile(r"key|token|secret|pass|pwd|sig|auth|credential|session", re.IGNORECASE)
#: Shorter values are not redacted from messages: they would mangle ordinary words.
SHORTEST_SECRET = 4


def redact_values(text: str, secrets: list[str]) -> str:
    """``text`` with each of ``secrets`` (longest first) replaced by ``***``."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= SHORTEST_SECRET:
            text = text.replace(secret, "***")
    return text


def is_secret_name(name: str) -> bool:
    """Whether a parameter, option or header named ``name`` holds a credential (``api_key``)."""
    return _SECRET_NAME.search(name) is not None


def redact_url(url: str) -> str:
    """``url`` with its user info and credential-like parameters (``api_key=``...) as ``***``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unreadable url>"
    # The host part is kept as written: reading ``parts.port`` raises on a bad
    # port, and ``parts.hostname`` drops an IPv6 address's brackets.
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"***@{netloc.rpartition('@')[2]}"
    return urlunsplit(
        parts._replace(
            netloc=netloc, query=_redact_pairs(parts.query), fragment=_redact_pairs(parts.fragment)
        )
    )


def url_secrets(url: str) -> list[str]:
    """The credentials written in ``url``: its user info and credential-like parameter values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return [url]
    found: list[str] = []
    if "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        found += [userinfo, *userinfo.split(":")]
    for pairs in (parts.query, parts.fragment):
        for pair in pairs.split("&"):
            name, _, value = pair.partition("=")
            if value and is_secret_name(unquote(name)):
                found += [value, unquote(value)]
    return [variant for secret in found for variant in {secret, unquote(secret)} if variant]


def _redact_pairs(pairs: str) -> str:
    if not pairs:
        return pairs
    shown = []
    for pair in pairs.split("&"):
        name, equals, value = pair.partition("=")
        shown.append(f"{name}=***" if equals and value and is_secret_name(unquote(name)) else pair)
    return "&".join(shown)


def is_loopback_host(host: str) -> bool:
    """Whether ``host`` names this machine (``localhost`` or a loopback address)."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_endpoint(what: str, endpoint: str, *, credentialed: bool) -> None:
    """Refuse, as ``ConfigError`` naming ``what``, an ``endpoint`` that is no http(s) url, or
    one a credential would reach in cleartext: plain ``http`` to a host other than this machine.

    A password in the url's user info counts as a credential.
    """
    try:
        parts = urlsplit(endpoint)
        host = parts.hostname or ""
        credentialed = credentialed or parts.password is not None
    except ValueError:
        raise ConfigError(f"{what} endpoint is not a url") from None
    if parts.scheme not in ("http", "https") or not host:
        raise ConfigError(f"{what} endpoint `{redact_url(endpoint)}` must be an http or https url")
    if credentialed and parts.scheme == "http" and not is_loopback_host(host):
        raise ConfigError(
            f"{what} would send its credential in cleartext to `{host}`; "
            "use https (plain http is allowed only to this machine)"
        )


class FrozenMapping(Mapping[str, Any]):
    """A mapping that cannot change once made, and hashes: settings' headers and options.

    Made from any mapping, deeply: a nested table becomes a FrozenMapping and a
    list a tuple, so nothing inside can change either.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        self._data = {key: _frozen(value) for key, value in (data or {}).items()}

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        return hash(frozenset(self._data.items()))

    def __repr__(self) -> str:
        return f"FrozenMapping({self._data!r})"


def _frozen(value: Any) -> Any:
    if isinstance(value, Mapping):
        return value if isinstance(value, FrozenMapping) else FrozenMapping(value)
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, set):
        return frozenset(value)
    return value


def _headers(value: Mapping[str, str]) -> FrozenMapping:
    if not isinstance(value, Mapping):
        raise ConfigError("headers must be a table of names to values")
    for name, header in value.items():
        if not isinstance(name, str) or not isinstance(header, str):
            raise ConfigError("headers map names to values, both strings")
        if any(char in name + header for char in "\r\n"):
            raise ConfigError(f"header `{name}` must not hold a line break")
    return FrozenMapping(value)


def _options(value: Mapping[str, Any]) -> FrozenMapping:
    if not isinstance(value, Mapping) or not all(isinstance(key, str) for key in value):
        raise ConfigError("options must be a table of names to values")
    return FrozenMapping(value)


def _optional_str(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"`{attribute.name}` must be a string")


@attrs.frozen(kw_only=True, repr=False)
class EngineSettings:
    """Settings of one engine.

    ``endpoint`` (for remote engines), ``scope_root`` and ``tenant_root``
    (where an engine lays memory out), extra ``headers``, and engine-specific
    ``options`` (such as ``path`` for the embedded engine). Frozen and
    hashable: ``headers`` and ``options`` are read-only mappings (a list in
    an option reads back as a tuple).
    """

    endpoint: str | None = attrs.field(default=None, validator=_optional_str)
    scope_root: str | None = attrs.field(default=None, validator=_optional_str)
    tenant_root: str | None = attrs.field(default=None, validator=_optional_str)
    headers: Mapping[str, str] = attrs.field(factory=FrozenMapping, converter=_headers)
    options: Mapping[str, Any] = attrs.field(factory=FrozenMapping, converter=_options)

    def __repr__(self) -> str:
        shown = []
        if self.endpoint is not None:
            shown.append(f"endpoint={redact_url(self.endpoint)!r}")
        for name in ("scope_root", "tenant_root"):
            if getattr(self, name) is not None:
                shown.append(f"{name}={getattr(self, name)!r}")
        if self.headers:
            shown.append(f"headers=<{', '.join(sorted(self.headers))}>")
        if self.options:
            shown.append(f"options=<{', '.join(sorted(self.options))}>")
        return f"EngineSettings({', '.join(shown)})"
