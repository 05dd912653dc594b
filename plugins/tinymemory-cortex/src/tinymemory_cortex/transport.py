"""HTTP to CortexDB over a connection: the bearer, the actor, retries, pauses and errors.

- The bearer is asked of the credential on every attempt (a dynamic source
  refreshes at once); a blank or malformed token is ``Unauthorized`` and no
  request is sent.
- ``X-Cortex-Actor`` is learned once from whoami (Direct): known, absent (404
  or 405: a server before the actor model) or unknown (asked again next
  time); any 401 or 403 forgets it.
- Retries: a request is retried only when a retry cannot duplicate a write:
  reads, and writes CortexDB replays by their body key. Up to 3 attempts on a
  transient failure (429, 408, 5xx, a dropped or timed-out connection),
  sleeping 250 ms then 500 ms; a 503 ``AUTHORIZATION_STATE_CHANGED`` gets 6.
  A 429's or a 503's ``Retry-After`` (seconds or an HTTP date), else its
  ``X-RateLimit-Reset`` / ``RateLimit-Reset`` (seconds, or a Unix time),
  holds every request of the engine until then, at most :data:`MAX_PAUSE`
  seconds; a wait the server asks beyond that cap is not waited: the error
  states the wait asked and the cap.
- Time is read through a :class:`~.clock.Clock` (a test drives a manual one).
- The hosted wire: every single-attempt POST carries a fresh
  ``Idempotency-Key`` claim (a caller may pass its own, reused across its
  retries); answers are unwrapped from ``{success, data}``; failures
  ``{success: false, error, errorCode}`` read as ``[CODE] ...``; requests are
  paced under the wire's rate limit (:mod:`.pacing`).
- Errors follow the wire reference's §10: the route without its query, the
  endpoint's host, the status, and at most 300 characters of what the
  backend said after `` — ``; never a credential (:mod:`.secrets` takes every
  configured secret out, whole or any run of 8 characters of it, in every
  form a server may echo it). ``urllib3``'s and ``requests``' own log
  records pass through the same redaction, at every level. Redirects are
  not followed.
- What goes over the network is a :class:`~.connection.Connection`'s
  business: ``requests`` by default, anything that carries one exchange in
  a test (:class:`tinymemory_cortex.testing.InMemoryConnection`).
"""

from __future__ import annotations

import contextlib
import email.utils
import itertools
import json
import logging
import re
import secrets
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

from tinymemory import (
    ConfigError,
    Conflict,
    EngineCredential,
    EngineError,
    InvalidRequest,
    NotFound,
    TinyMemoryError,
    Unauthorized,
    Unavailable,
)

from .clock import SYSTEM_CLOCK, Clock
from .connection import Connection, ConnectionFailed, Reply, Request, RequestsConnection
from .pacing import Pacer
from .secrets import Redactor
from .wire import Wire

#: Header names a host may not set (case-insensitive).
RESERVED_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "host",
        "content-length",
        "idempotency-key",
        "x-cortex-actor",
    }
)
REQUEST_TIMEOUT = 60.0
CONNECT_TIMEOUT = 10.0
#: The longest the engine waits when a 429 or a 503 asks it to (``Retry-After``), in seconds.
MAX_PAUSE = 10.0
#: The statuses whose ``Retry-After`` / reset headers the engine honours.
PAUSING_STATUSES = frozenset({429, 503})
SUCCESS_BODY_CAP = 64 * 1024 * 1024
EXCERPT_CHARS = 300
#: A reset header above this many seconds is a Unix time, not a delay (2001-09-09).
_EPOCH_FLOOR = 1_000_000_000
_TRANSIENT = frozenset({408, 429, 500, 502, 503, 504})
_STATE_CHANGED = "AUTHORIZATION_STATE_CHANGED"
_UNKNOWN, _ABSENT = object(), object()
_CLAIM_SALT = secrets.token_hex(8)
_claims = itertools.count(1)
_NOT_CODE = re.compile(r"[^A-Za-z0-9_]", re.ASCII)
_SECONDS = re.compile(r"\d+(\.\d+)?", re.ASCII)
#: Bearers remembered per transport, to take out of the text a server sends back.
_BEARERS_KEPT = 16
#: The hosted code of a failure whose body names none (the wire reference's §10.2).
_HOSTED_DEFAULT_CODES = {401: "UNAUTHORIZED", 403: "UNAUTHORIZED", 402: "USER_INSUFFICIENT_CREDITS"}


def new_claim() -> str:
    """A fresh ``Idempotency-Key``: ``tm-<salt>-<unix ns>-<sequence>``, never from content."""
    return f"tm-{_CLAIM_SALT}-{time.time_ns()}-{next(_claims)}"


def status_of(error: BaseException) -> int | None:
    """The HTTP status an error was mapped from, None for a local or transport failure."""
    status = getattr(error, "status", None)
    return status if isinstance(status, int) else None


def code_of(error: BaseException) -> str | None:
    """The CortexDB ``error_code`` of the failure's body, when it had one."""
    code = getattr(error, "code", None)
    return code if isinstance(code, str) else None


def asked_wait(error: BaseException) -> float | None:
    """The seconds a 429 or a 503 asked the engine to wait before trying again, if it said."""
    wait = getattr(error, "asked_wait", None)
    return wait if isinstance(wait, float) else None


def _failure(
    kind: type[TinyMemoryError],
    message: str,
    status: int | None,
    code: str | None,
    wait: float | None = None,
) -> TinyMemoryError:
    error = kind(message)
    error.status = status  # type: ignore[attr-defined]
    error.code = code  # type: ignore[attr-defined]
    error.asked_wait = wait  # type: ignore[attr-defined]
    return error


def server_wait(headers: Mapping[str, str], wall: float) -> float | None:
    """Seconds the answer asks to wait: ``Retry-After`` (seconds or an HTTP date), else a reset.

    ``X-RateLimit-Reset`` / ``RateLimit-Reset`` are seconds, or a Unix time
    when above 10^9 (2001-09-09). ``wall`` is now, in Unix seconds. None when
    no header says anything usable; a time already past reads as 0.
    """
    retry_after = headers.get("retry-after", "").strip()
    if _SECONDS.fullmatch(retry_after):
        return float(retry_after)
    if retry_after:
        with contextlib.suppress(TypeError, ValueError, IndexError, OverflowError):
            moment = email.utils.parsedate_to_datetime(retry_after)
            if moment.tzinfo is not None:
                return max(0.0, moment.timestamp() - wall)
    for name in ("x-ratelimit-reset", "ratelimit-reset"):
        value = headers.get(name, "").strip()
        if _SECONDS.fullmatch(value):
            seconds = float(value)
            return max(0.0, seconds - wall) if seconds > _EPOCH_FLOOR else seconds
    return None


def _seconds(value: float) -> str:
    return f"{value:g} s" if value < 100 else f"{round(value)} s"


class _LibraryLogRedaction(logging.Filter):
    """Takes every live transport's secrets out of ``urllib3``'s and ``requests``' records.

    urllib3 logs each request line, the endpoint's query included, at DEBUG.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        transports = list(_LIVE)
        if not transports:
            return True
        text = record.getMessage()
        redacted = text
        for transport in transports:
            redacted = transport.redact(redacted)
        if redacted != text:
            record.msg, record.args = redacted, None
        return True


_LIVE: weakref.WeakSet[Transport] = weakref.WeakSet()
_LIBRARY_REDACTION = _LibraryLogRedaction()
#: The loggers of the HTTP libraries under the default connection (each module's own logger
#: must hold the filter: a logger's filters see only the records logged to it).
LIBRARY_LOGGERS = (
    "requests",
    "urllib3",
    "urllib3.connection",
    "urllib3.connectionpool",
    "urllib3.poolmanager",
    "urllib3.response",
    "urllib3.util.retry",
)


def _filter_library_loggers() -> None:
    known = [
        name
        for name in list(logging.root.manager.loggerDict)
        if name.split(".")[0] in ("urllib3", "requests")
    ]
    for name in {*LIBRARY_LOGGERS, *known}:
        logger = logging.getLogger(name)
        if _LIBRARY_REDACTION not in logger.filters:
            logger.addFilter(_LIBRARY_REDACTION)


def check_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """The host's fixed headers; a reserved name is ``ConfigError`` (its value never shown)."""
    for name in headers:
        if name.strip().lower() in RESERVED_HEADERS:
            raise ConfigError(f"header `{name}` is reserved; the engine sets it itself")
    return dict(headers)


def query_string(pairs: Iterable[tuple[str, str]]) -> str:
    """``a=1&b=2`` with every byte but ``A-Z a-z 0-9 - . _ ~`` percent-encoded."""
    return "&".join(f"{quote(name, safe='')}={quote(value, safe='')}" for name, value in pairs)


class Transport:
    """Requests to one endpoint over one wire; safe to share between the engine's threads."""

    def __init__(
        self,
        endpoint: str,
        credential: EngineCredential,
        wire: Wire,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = REQUEST_TIMEOUT,
        backoff: float = 0.25,
        pacer: Pacer | None = None,
        connection: Connection | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        parts = urlsplit(endpoint)
        if parts.username is not None or parts.password is not None:
            raise ConfigError(
                f"the {wire.engine_id} endpoint carries user info; give the key as the "
                "engine's credential instead"
            )
        if parts.fragment:
            raise ConfigError(f"the {wire.engine_id} endpoint has a `#` fragment; remove it")
        path = parts.path if parts.path.endswith("/") else parts.path + "/"
        self.base = f"{parts.scheme}://{parts.netloc}{path}"
        # The endpoint's own query parameters, sent on every request before the route's.
        self._query = parse_qsl(parts.query, keep_blank_values=True)
        self.host = parts.hostname or "?"
        if parts.port is not None:
            self.host += f":{parts.port}"
        self.wire = wire
        self._credential = credential
        self._headers = check_headers(headers or {})
        self.redactor = Redactor([*self._headers.values(), *(value for _, value in self._query)])
        self.timeout = (min(CONNECT_TIMEOUT, timeout), timeout)
        self.backoff = backoff
        self.clock = clock
        self.pacer = pacer
        #: What carries each exchange: ``requests`` unless a test serves the engine itself.
        self.connection: Connection = connection or RequestsConnection()
        self._lock = threading.Lock()
        self._actor: object = _UNKNOWN
        self._paused_until = 0.0
        self._bearers: deque[str] = deque(maxlen=_BEARERS_KEPT)
        #: Requests sent (attempts included): what the benchmark counts.
        self.sent = 0
        _LIVE.add(self)
        _filter_library_loggers()

    # --- the calls the engine makes ---------------------------------------------

    def get(
        self, route: str, params: Mapping[str, str] | None = None, *, retry: bool = True
    ) -> Any:
        """GET a logical route (a read: retried on a transient failure)."""
        return self.request("GET", route, params=params, retry=retry)

    def post(
        self,
        route: str,
        body: object,
        params: Mapping[str, str] | None = None,
        *,
        retry: bool = False,
        claim: str | bool | None = None,
    ) -> Any:
        """POST a JSON body; ``retry`` only for a body CortexDB replays by its key.

        ``claim`` (hosted wire): None gives a single attempt (``retry`` off) a
        fresh claim, True a fresh claim on every attempt, a string that claim
        on every attempt; False sends none.
        """
        return self.request("POST", route, params=params, body=body, retry=retry, claim=claim)

    def request(
        self,
        method: str,
        route: str,
        *,
        params: Mapping[str, str] | None = None,
        body: object = None,
        retry: bool = True,
        suffix: tuple[str, ...] = (),
        claim: str | bool | None = None,
    ) -> Any:
        """One logical request, with the bounded retries the call allows (``claim`` as in post)."""
        path = self.wire.route(route, *(quote(part, safe="") for part in suffix))
        pairs = [*self._query, *(params or {}).items()]
        url = self.base + path + (f"?{query_string(pairs)}" if pairs else "")
        data = None if body is None else json.dumps(body, ensure_ascii=False).encode("utf-8")
        if claim is None:
            claim = method == "POST" and not retry
        attempt = 0
        while True:
            attempt += 1
            key = None
            if self.wire.claims and claim is not False:
                key = claim if isinstance(claim, str) else new_claim()
            try:
                return self._attempt(method, path, url, data, key)
            except TinyMemoryError as error:
                asked = asked_wait(error)
                if not retry or not error.transient or attempt >= _attempts(error):
                    raise
                if asked is not None and asked > MAX_PAUSE:
                    raise
            # The pause a 429 or a 503 asked for is waited out at the next attempt.
            self.clock.sleep(self.backoff * 2 ** (attempt - 1))

    def close(self) -> None:
        self.connection.close()

    def redact(self, text: str) -> str:
        """``text`` (a server's words) with no key, token handed out or configured secret.

        Each in part too: any run of 8 characters of it, or of the header value
        ``Bearer <token>``, in any spelling (:mod:`.secrets`).
        """
        with self._lock:
            bearers = list(self._bearers)
        headers = [f"Bearer {bearer}" for bearer in bearers]
        return self.redactor.redact(self._credential.redact(text), *bearers, *headers)

    # --- one attempt -----------------------------------------------------------------

    def _attempt(
        self, method: str, path: str, url: str, data: bytes | None, claim: str | None
    ) -> Any:
        self._wait_out_pause()
        headers = {**self._headers, "Accept": "application/json"}
        bearer = self._bearer()
        headers["Authorization"] = "Bearer " + bearer
        if data is not None:
            headers["Content-Type"] = "application/json"
        if claim is not None:
            headers["Idempotency-Key"] = claim
        actor = self._actor_header(path)
        if actor is not None:
            headers["X-Cortex-Actor"] = actor
        if self.pacer is not None:
            self.pacer.take()
        with self._lock:
            self.sent += 1
        try:
            reply = self.connection.exchange(Request(method, url, headers, data, self.timeout))
        except ConnectionFailed as failed:
            raise _failure(
                Unavailable, f"memory API {path} on {self.host}: {failed.reason}", None, None
            ) from None
        return self._answer(path, reply)

    def _answer(self, path: str, reply: Reply) -> Any:
        status = reply.status
        if status in (401, 403):
            with self._lock:
                self._actor = _UNKNOWN
        wait = None
        if status in PAUSING_STATUSES:
            wait = server_wait(reply.headers, self.clock.wall())
            self._pause(wait)
        if 200 <= status < 300:
            return self._json(path, reply)
        raise self._status_error(path, reply, wait)

    def _json(self, path: str, reply: Reply) -> Any:
        if len(reply.body) > SUCCESS_BODY_CAP:
            raise _failure(
                EngineError, f"memory API {path} on {self.host} answered too much", None, None
            )
        try:
            data = json.loads(reply.body) if reply.body.strip() else None
        except ValueError:
            raise _failure(
                EngineError,
                f"memory API {path} on {self.host} answered something not JSON",
                None,
                None,
            ) from None
        if not self._enveloped(path):
            return data
        if isinstance(data, dict) and data.get("success") is True and "data" in data:
            return data["data"]
        if isinstance(data, dict) and data.get("success") is False:
            raise self._status_error(path, reply)
        raise _failure(
            EngineError,
            f"memory API {path} on {self.host} answered outside the {{success, data}} envelope",
            reply.status,
            None,
        )

    def _enveloped(self, path: str) -> bool:
        return self.wire.enveloped and path not in self.wire.passthrough

    def _status_error(self, path: str, reply: Reply, wait: float | None = None) -> TinyMemoryError:
        status = reply.status
        text = reply.body[: 64 * 1024].decode("utf-8", "replace")
        parsed: Any = None
        with contextlib.suppress(ValueError):
            parsed = json.loads(text)
        fields = parsed if isinstance(parsed, dict) else {}
        hosted = self.wire.enveloped
        code = fields.get("errorCode" if self._enveloped(path) else "error_code")
        code = (_NOT_CODE.sub("", code)[:64].upper() or None) if isinstance(code, str) else None
        if hosted and code is None:
            code = _HOSTED_DEFAULT_CODES.get(status, f"HTTP_{status}")
            code = "RATE_LIMITED" if status == 429 else code
        if self._enveloped(path) and "error" in fields:
            error = fields["error"]
            text = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
        kind: type[TinyMemoryError]
        if status in (401, 403):
            kind = Unauthorized
            head = (
                f"memory API {path} on {self.host}: the credential was rejected "
                f"(HTTP {status}); " + ("re-authenticate" if hosted else "check the API key")
            )
        else:
            kind = _KINDS.get(status, Unavailable if status in _TRANSIENT else EngineError)
            if hosted and status == 400 and code == "CONFLICT":
                kind = Conflict  # older hosted backends relay a claim conflict as 400
            head = f"memory API {path} on {self.host} returned HTTP {status}"
        if hosted or (code == _STATE_CHANGED and status == 503):
            head = f"[{code}] {head}"
        if wait is not None and wait > MAX_PAUSE:
            head += (
                f"; the server asked to wait {_seconds(wait)}, over the engine's cap of "
                f"{_seconds(MAX_PAUSE)}, so it did not retry"
            )
        elif wait is not None:
            head += f"; the server asked to wait {_seconds(wait)}"
        detail = self.redact(text).strip()  # redacted first: a run may begin with a space
        if len(detail) > EXCERPT_CHARS:
            detail = detail[:EXCERPT_CHARS] + "…"
        return _failure(kind, f"{head} — {detail}" if detail else head, status, code, wait)

    # --- the bearer, the actor and the pause --------------------------------------

    def _bearer(self) -> str:
        try:
            token = self._credential.bearer()
        except Exception:
            raise _failure(
                Unauthorized, "the credential source failed; no request was sent", None, None
            ) from None
        token = token.strip() if isinstance(token, str) else ""
        if not token:
            raise _failure(Unauthorized, "the credential is blank; no request was sent", None, None)
        if any(ord(char) < 0x21 or ord(char) > 0x7E for char in token):
            raise _failure(
                Unauthorized,
                "the credential holds characters a header cannot carry; no request was sent",
                None,
                None,
            )
        with self._lock:
            if token not in self._bearers:
                self._bearers.append(token)
        return token

    def _actor_header(self, path: str) -> str | None:
        if not self.wire.sends_actor or path == self.wire.route("whoami"):
            return None
        with self._lock:
            known = self._actor
        if known is _ABSENT:
            return None
        if isinstance(known, str):
            return known
        try:
            answer = self.request("GET", "whoami", retry=False)
        except TinyMemoryError as error:
            if status_of(error) in (404, 405):
                with self._lock:
                    self._actor = _ABSENT
            return None
        caller = None
        if isinstance(answer, dict):  # `caller` (the SDK and the CLI), else `actor`
            caller = answer.get("caller") or answer.get("actor")
        with self._lock:
            self._actor = caller if isinstance(caller, str) and caller else _ABSENT
            return self._actor if isinstance(self._actor, str) else None

    def _pause(self, seconds: float | None) -> None:
        """Hold every request ``seconds`` (what a 429 or a 503 asked), at most the cap."""
        if seconds is None or seconds <= 0:
            return
        until = self.clock.now() + min(seconds, MAX_PAUSE)
        with self._lock:
            self._paused_until = max(self._paused_until, until)

    def _wait_out_pause(self) -> None:
        while True:
            with self._lock:
                left = self._paused_until - self.clock.now()
            if left <= 0:
                return
            self.clock.sleep(left)


_KINDS: dict[int, type[TinyMemoryError]] = {
    400: InvalidRequest,
    404: NotFound,
    409: Conflict,
    413: InvalidRequest,
    422: InvalidRequest,
}


def _attempts(error: TinyMemoryError) -> int:
    return 6 if code_of(error) == _STATE_CHANGED else 3
