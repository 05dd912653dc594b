"""The OpenAI-compatible HTTP API, written once: settings, key, timeouts, retries, errors.

Used by the embedder ``openai`` (``/v1/embeddings``) and by the answerer
``openai`` of ``tinymemory-answerers`` (``/v1/chat/completions``). Any server
speaking the OpenAI API answers: OpenAI (``https://api.openai.com/v1``),
Ollama (``http://localhost:11434/v1``), vLLM, LM Studio, llama.cpp's server.

Settings come from a config table (:func:`read_settings`): ``base_url``,
``model``, ``api_key_variable`` (the environment variable holding the key,
``OPENAI_API_KEY`` by default: the key itself is never written in the
configuration), ``timeout`` and ``connect_timeout`` (seconds), ``retries``,
``backoff`` and ``max_wait`` (seconds).

:class:`OpenAIClient` posts JSON and returns the decoded reply. It reads the
key from the environment when it is made; without one it sends no
``Authorization`` (a local server needs none). A key is never sent in
cleartext to another machine (plain ``http`` only to this one), as the core
refuses for engines. A 429, a 5xx or a failed connection is retried up to
``retries`` times, waiting ``backoff`` seconds doubled each time, or what the
server's ``Retry-After`` asks, never more than ``max_wait``; a read that
times out is not retried (the server may still be working on it), nor is any
other answer. No error, log line or repr holds the key: messages go through
the credential's redaction.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from typing import Any, ClassVar, Generic, Protocol, TypeVar
from urllib.parse import urlsplit

import attrs

import tinymemory as tm
from tinymemory.plugin import check_endpoint, plugin_settings, redact_url

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_KEY_VARIABLE",
    "SETTINGS_KEYS",
    "MalformedReply",
    "OpenAIClient",
    "OpenAIConfigured",
    "OpenAISettings",
    "TimedOut",
    "read_settings",
    "whole",
]

#: Where requests go unless ``base_url`` says otherwise.
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: The environment variable the key is read from unless ``api_key_variable`` names another.
DEFAULT_KEY_VARIABLE = "OPENAI_API_KEY"
#: The keys every OpenAI-compatible table takes (an embedder or answerer adds its own).
SETTINGS_KEYS = (
    "base_url",
    "model",
    "api_key_variable",
    "timeout",
    "connect_timeout",
    "retries",
    "backoff",
    "max_wait",
)
#: The most of a server's error message quoted in ours.
_QUOTED_CHARS = 300
#: Statuses worth another try: too many requests, and the server's own failures.
_RETRIED = frozenset({429, 500, 502, 503, 504})

log = logging.getLogger("tinymemory_embeddings.openai")


class TimedOut(tm.Unavailable):
    """The server took the request but did not answer within ``timeout``."""


class MalformedReply(tm.EngineError):
    """The server answered with something that is not JSON."""


@attrs.frozen(kw_only=True)
class OpenAISettings:
    """How to reach one OpenAI-compatible model (never the key: only where to read it)."""

    base_url: str = DEFAULT_BASE_URL
    model: str
    api_key_variable: str = DEFAULT_KEY_VARIABLE
    #: Seconds to wait for the reply once connected.
    timeout: float = 60.0
    #: Seconds to wait for the connection.
    connect_timeout: float = 5.0
    #: Further tries after a 429, a 5xx or a failed connection.
    retries: int = 3
    #: Seconds before the first retry, doubled for each next one.
    backoff: float = 0.5
    #: The longest single wait, ``Retry-After`` included.
    max_wait: float = 20.0

    def url(self, path: str) -> str:
        """The url of ``path`` (``embeddings``, ``chat/completions``) under ``base_url``."""
        return f"{self.base_url.rstrip('/')}/{path.lstrip('/')}"

    def __repr__(self) -> str:
        return (
            f"OpenAISettings(base_url={redact_url(self.base_url)!r}, model={self.model!r}, "
            f"api_key_variable={self.api_key_variable!r})"
        )


def read_settings(
    table: Mapping[str, Any], *, where: str, own_keys: tuple[str, ...] = (), default_model: str
) -> OpenAISettings:
    """The settings a config table (``where`` names it in errors) gives.

    ``own_keys`` are the caller's own (checked by the caller); any other key
    not in :data:`SETTINGS_KEYS`, and any malformed value, is ``ConfigError``.
    """
    if not isinstance(table, Mapping):
        raise tm.ConfigError(f"{where} must be a table")
    allowed = (*SETTINGS_KEYS, *own_keys)
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise tm.ConfigError(f"{where} has no key `{unknown[0]}` (keys: {', '.join(allowed)})")
    base_url = _text(table, "base_url", DEFAULT_BASE_URL, where)
    check_endpoint(where, base_url, credentialed=False)
    variable = _text(table, "api_key_variable", DEFAULT_KEY_VARIABLE, where)
    if not variable.replace("_", "").isalnum():
        raise tm.ConfigError(f"{where}: `api_key_variable` must name an environment variable")
    return OpenAISettings(
        base_url=base_url,
        model=_text(table, "model", default_model, where),
        api_key_variable=variable,
        timeout=_seconds(table, "timeout", 60.0, where),
        connect_timeout=_seconds(table, "connect_timeout", 5.0, where),
        retries=whole(table, "retries", 3, where, least=0, most=10),
        backoff=_seconds(table, "backoff", 0.5, where, least=0.0),
        max_wait=_seconds(table, "max_wait", 20.0, where, least=0.0),
    )


def _text(table: Mapping[str, Any], key: str, default: str, where: str) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise tm.ConfigError(f"{where}: `{key}` must be a non-empty string")
    return value.strip()


def _seconds(
    table: Mapping[str, Any], key: str, default: float, where: str, *, least: float = 0.001
) -> float:
    value = table.get(key, default)
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not least <= value <= 3600
    ):
        raise tm.ConfigError(f"{where}: `{key}` must be a number of seconds, {least} to 3600")
    return float(value)


def whole(
    table: Mapping[str, Any], key: str, default: int, where: str, *, least: int, most: int
) -> int:
    """``table[key]`` (``default`` when absent) as a whole number from ``least`` to ``most``."""
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise tm.ConfigError(f"{where}: `{key}` must be a whole number, {least} to {most}")
    return value


class OpenAIClient:
    """Posts JSON to one OpenAI-compatible server; safe to share between threads.

    ``what`` names the caller in every error (``embedder `openai```). The key
    is read from ``environ`` (the process's environment by default) now, and
    refused (``ConfigError``) when it would travel in cleartext to another
    machine; ``sleep`` waits between tries (a test may pass its own).
    """

    def __init__(
        self,
        settings: OpenAISettings,
        *,
        what: str,
        environ: Mapping[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        key = (os.environ if environ is None else environ).get(settings.api_key_variable, "")
        self._credential = tm.EngineCredential.static(key.strip()) if key.strip() else None
        check_endpoint(what, settings.base_url, credentialed=self._credential is not None)
        self.settings = settings
        self.what = what
        self._sleep = sleep
        import requests  # with the first client, not with the plugin

        self._session = requests.Session()
        # No proxy, .netrc or CA bundle from the environment: a .netrc entry would
        # replace the Authorization header, and a local server must not go through a proxy.
        self._session.trust_env = False

    def __repr__(self) -> str:
        keyed = "a key" if self._credential is not None else "no key"
        return f"OpenAIClient({self.what}, {redact_url(self.settings.base_url)}, {keyed})"

    def post(self, path: str, payload: Mapping[str, Any]) -> Any:
        """The decoded JSON reply to ``POST path`` with ``payload``.

        ``Unauthorized`` for a 401 or 403, ``Unavailable`` when the server
        cannot be reached or still fails after the retries (:class:`TimedOut`
        when it does not answer in time), ``EngineError`` for any other
        refusal (:class:`MalformedReply` for a reply that is not JSON).
        """
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        tries = self.settings.retries + 1
        for attempt in range(tries):
            status, headers, content = self._exchange(path, body)
            if status is None or status in _RETRIED:
                if attempt == tries - 1:
                    break
                wait = self._wait(attempt, headers)
                log.warning(
                    "%s: %s; try %d of %d in %.2fs",
                    self.what,
                    f"HTTP {status}" if status else "no connection",
                    attempt + 2,
                    tries,
                    wait,
                )
                self._sleep(wait)
                continue
            return self._decoded(status, content)
        failure = f"answered HTTP {status}" if status else "could not be reached"
        raise tm.Unavailable(
            f"{self.what}: {self._host()} {failure} after {tries} tries; try again later"
        )

    def _exchange(self, path: str, body: bytes) -> tuple[int | None, Mapping[str, str], bytes]:
        """One request: its status, headers and body; status ``None`` when no answer came."""
        import requests

        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._credential is not None:
            headers["Authorization"] = f"Bearer {self._credential.bearer()}"
        try:
            response = self._session.post(
                self.settings.url(path),
                data=body,
                headers=headers,
                timeout=(self.settings.connect_timeout, self.settings.timeout),
                allow_redirects=False,
            )
            content = response.content
        except requests.exceptions.SSLError:
            raise tm.Unavailable(f"{self.what}: TLS with {self._host()} failed") from None
        except requests.ConnectionError:  # a connect timeout among them: nothing was sent
            return None, {}, b""
        except requests.Timeout:
            raise TimedOut(
                f"{self.what}: {self._host()} did not answer within {self.settings.timeout:g}s "
                "(raise `timeout` for a slow model)"
            ) from None
        except requests.RequestException as error:
            raise tm.Unavailable(
                f"{self.what}: the request to {self._host()} failed ({type(error).__name__})"
            ) from None
        return response.status_code, response.headers, content

    def _wait(self, attempt: int, headers: Mapping[str, str]) -> float:
        asked = _retry_after(headers.get("Retry-After"))
        wait = self.settings.backoff * 2**attempt if asked is None else asked
        return min(wait, self.settings.max_wait)

    def _decoded(self, status: int, content: bytes) -> Any:
        if status in (401, 403):
            raise tm.Unauthorized(
                f"{self.what}: {self._host()} refused the request (HTTP {status}); "
                f"check the key in ${self.settings.api_key_variable}"
            )
        if not 200 <= status < 300:
            said = self._said(content)
            raise tm.EngineError(
                f"{self.what}: {self._host()} answered HTTP {status}"
                + (f": {said}" if said else "")
            )
        try:
            return json.loads(content)
        except ValueError:
            raise MalformedReply(
                f"{self.what}: {self._host()} answered with something that is not JSON"
            ) from None

    def _said(self, content: bytes) -> str:
        """The server's own error message, short and without the key."""
        try:
            error = json.loads(content).get("error")
            message = error.get("message") if isinstance(error, dict) else error
        except (ValueError, AttributeError):
            message = content.decode("utf-8", "replace")
        text = " ".join(str(message or "").split())[:_QUOTED_CHARS]
        return self._credential.redact(text) if self._credential is not None else text

    def _host(self) -> str:
        return f"`{urlsplit(redact_url(self.settings.base_url)).netloc}`"

    def close(self) -> None:
        """Release the connections held."""
        self._session.close()


def _retry_after(value: str | None) -> float | None:
    """The seconds a ``Retry-After`` header asks for (a number or an HTTP date), else None."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return max(0.0, seconds) if math.isfinite(seconds) else None


class _WithApi(Protocol):
    @property
    def api(self) -> OpenAISettings: ...


S = TypeVar("S", bound=_WithApi)


class OpenAIConfigured(Generic[S]):
    """What an OpenAI-compatible embedder or answerer shares: its settings, read from the
    table ``[plugins.<PLUGIN>.openai]`` on first use unless passed, and one client.

    A subclass names ``PLUGIN`` (``embeddings``, ``answerers``) and ``name``,
    and reads its table with ``read``.
    """

    PLUGIN: ClassVar[str]
    name: str

    def __init__(self, settings: S | None = None) -> None:
        self._settings = settings
        self._client: OpenAIClient | None = None
        self._lock = threading.Lock()

    def read(self, table: Mapping[str, Any]) -> S:
        """The settings the table gives; ``ConfigError`` when it is malformed."""
        raise NotImplementedError

    @property
    def settings(self) -> S:
        """The settings passed, else the configuration file's table (``ConfigError`` when
        it is malformed)."""
        with self._lock:
            if self._settings is None:
                self._settings = self.read(plugin_settings(self.PLUGIN).get("openai", {}))
            return self._settings

    def client(self) -> OpenAIClient:
        """The client, made on first use (``ConfigError`` for a key bound for cleartext)."""
        settings = self.settings
        with self._lock:
            if self._client is None:
                what = f"{self.PLUGIN.removesuffix('s')} `{self.name}`"
                self._client = OpenAIClient(settings.api, what=what)
            return self._client

    def __repr__(self) -> str:
        shown = "unread" if self._settings is None else repr(self._settings.api)
        return f"{type(self).__name__}({shown})"
