"""The hosted TinyHumans memory API (``memory/*``) in front of the CortexDB double.

It answers as the wire reference's §2.3, §4, §10 and §12 say the hosted
backend does, over the same tenants and logs as the Direct routes:

- 2xx bodies in ``{"success": true, "data": ...}``; failures in
  ``{"success": false, "error", "errorCode"}``, CortexDB's refusals relayed
  as the backend relays them (401/403 become 502, other 4xx become 400
  ``BAD_REQUEST``, ...); ``memory/v1/erasures`` answers bare, in memory-api's
  own dialect.
- Its own rate limiter (300 requests a minute per token by default,
  configurable) answers 429 **outside** the envelope, with ``Retry-After``,
  before any claim is taken.
- ``Idempotency-Key`` is a claim: the first POST with a key takes it, and any
  later request with the same key is answered 409 ``CONFLICT`` and never
  forwarded (``legacy_conflicts`` answers 400 ``CONFLICT``, as older backends
  relay it).
- The hosted scope grammar on every scope and prefix (``type:id`` segments
  of ``[A-Za-z0-9_-]+``, at most 31), one ``labels=`` parameter, no query on
  a write (no ``wait``), a strict answer body with no ``null``
  instructions, and no actor header (the double refuses one, so a test
  proves none is sent). Scope listings name paths below the caller's tenant
  root ``org:t<n>``, as the backend roots them.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Mapping
from typing import Any

import attrs

from .state import (
    ANSWER_KEYS,
    Answer,
    ApiError,
    Backend,
    Fault,
    Tenant,
    below,
    limit_param,
    read_json,
)

_HOSTED_SEGMENT = re.compile(r"[A-Za-z0-9_-]+:[A-Za-z0-9_-]+", re.ASCII)
MAX_HOSTED_SEGMENTS = 31
PASSTHROUGH = "memory/v1/erasures"
_WRITES = {"memory/experience", "memory/answer", "memory/forget", PASSTHROUGH}


class HostedError(Exception):
    """A refusal of the hosted backend itself: a status, an ``errorCode`` and a message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def relayed(error: ApiError) -> HostedError:
    """How the hosted backend relays a CortexDB refusal (the wire reference's §10.2)."""
    status = error.status
    if status == 402:
        return HostedError(402, "USER_INSUFFICIENT_CREDITS", error.message)
    if status in (404, 409, 413):
        code = {404: "NOT_FOUND", 409: "CONFLICT", 413: "PAYLOAD_TOO_LARGE"}[status]
        return HostedError(status, code, error.message)
    if status == 503:
        return HostedError(503, "UPSTREAM_UNAVAILABLE", error.message)
    if 400 <= status < 500 and status not in (401, 403):
        return HostedError(400, "BAD_REQUEST", error.message)
    return HostedError(502, "UPSTREAM_UNAVAILABLE", error.message)


def check_hosted_scope(scope: object) -> str:
    """The hosted grammar: ``type:id`` segments of ``[A-Za-z0-9_-]+``, at most 31."""
    if not isinstance(scope, str):
        raise HostedError(400, "BAD_REQUEST", "a scope is a string")
    segments = scope.split("/")
    if len(segments) > MAX_HOSTED_SEGMENTS or not all(
        _HOSTED_SEGMENT.fullmatch(segment) for segment in segments
    ):
        raise HostedError(400, "BAD_REQUEST", "a scope is at most 31 type:id segments")
    return scope


def _backend_429(wait: int | str | None) -> Answer:
    body = {"error": {"message": "Too many requests", "type": "rate_limit_error"}}
    return Answer(429, body, {} if wait is None else {"Retry-After": str(wait)})


@attrs.define
class HostedFront:
    """The hosted routes in front of one Direct double; ``rate_limit`` is (requests, seconds).

    ``double`` is the :class:`.double.CortexDouble`, seen as a :class:`.state.Backend`.
    """

    double: Backend
    rate_limit: tuple[int, float] | None = (300, 60.0)
    legacy_conflicts: bool = False
    #: Requests the rate limiter refused.
    rate_limited: int = 0
    #: Every claim taken: ``(route, key)``, in order.
    claims: list[tuple[str, str]] = attrs.field(factory=list)
    #: Every ``Idempotency-Key`` that arrived, refused or not: ``(route, key)``, in order.
    keys_sent: list[tuple[str, str]] = attrs.field(factory=list)
    _claimed: dict[str, set[str]] = attrs.field(factory=dict)
    _sent: dict[str, deque[float]] = attrs.field(factory=dict)
    _orgs: dict[str, str] = attrs.field(factory=dict)

    def handle(
        self,
        method: str,
        route: str,
        params: dict[str, str],
        labels_given: list[str],
        headers: Mapping[str, str],
        body: bytes,
    ) -> Answer:
        key = {name.lower(): value for name, value in headers.items()}.get("idempotency-key")
        if key is not None:
            with self.double._lock:
                self.keys_sent.append((route, key))
        fault = self.double._take_fault(route)
        acts = fault is not None and (fault.drop or fault.status is not None)
        if acts and fault is not None and not (fault.after_apply or fault.claimed):
            return self._faulted(route, fault)
        try:
            token, tenant = self._tenant(headers)
            limited = self.limit_param(token)
            if limited is not None:
                return limited
            if method == "POST" and key is not None:
                self._claim(token, route, key)
            if acts and fault is not None and fault.claimed:
                return self._faulted(route, fault)  # claimed, never applied
            answer = self._route(tenant, token, method, route, params, labels_given, body)
        except ApiError as error:
            answer = self._failure(route, relayed(error))
        except HostedError as error:
            answer = self._failure(route, error)
        if fault is not None:
            if acts and fault.after_apply:
                return self._faulted(route, fault)
            answer = attrs.evolve(answer, delay=fault.delay)
        return answer

    # --- the backend's own checks ---------------------------------------------------

    def _tenant(self, headers: Mapping[str, str]) -> tuple[str, Tenant]:
        lowered = {name.lower(): value for name, value in headers.items()}
        auth = lowered.get("authorization", "")
        token = auth[7:].strip() if auth.startswith("Bearer ") else ""
        tokens = self.double.tokens
        if not token or (tokens is not None and token not in tokens):
            raise HostedError(401, "UNAUTHORIZED", "sign in again")
        if "x-cortex-actor" in lowered:
            raise HostedError(400, "VALIDATION_ERROR", "the hosted API names the actor itself")
        with self.double._lock:
            tenant = self.double.tenants.setdefault(token, Tenant(self.double._caller(token)))
            self._orgs.setdefault(token, f"org:t{len(self._orgs) + 1}")
        return token, tenant

    def limit_param(self, token: str) -> Answer | None:
        if self.rate_limit is None:
            return None
        limit, window = self.rate_limit
        with self.double._lock:
            sent = self._sent.setdefault(token, deque())
            now = self.double.clock.now()
            while sent and sent[0] <= now - window:
                sent.popleft()
            if len(sent) >= limit:
                self.rate_limited += 1
                return _backend_429(max(1, math.ceil(sent[0] + window - now)))
            sent.append(now)
        return None

    def _claim(self, token: str, route: str, key: str) -> None:
        with self.double._lock:
            taken = self._claimed.setdefault(token, set())
            if key in taken:
                status = 400 if self.legacy_conflicts else 409
                raise HostedError(status, "CONFLICT", "this Idempotency-Key was already used")
            taken.add(key)
            self.claims.append((route, key))

    # --- routes ----------------------------------------------------------------------

    def _route(
        self,
        tenant: Tenant,
        token: str,
        method: str,
        route: str,
        params: dict[str, str],
        labels_given: list[str],
        raw: bytes,
    ) -> Answer:
        double = self.double
        if route in _WRITES and params:
            raise HostedError(400, "VALIDATION_ERROR", "a hosted write takes no query parameters")
        if (method, route) == ("POST", "memory/experience"):
            body = read_json(raw)
            check_hosted_scope(body.get("scope") if isinstance(body, dict) else None)
            return self._data(double._route(tenant, "POST", "v1/experience", {}, [], raw))
        if (method, route) == ("GET", "memory/events"):
            if len(labels_given) > 1:
                raise HostedError(400, "VALIDATION_ERROR", "`labels` is one parameter")
            check_hosted_scope(params.get("scope"))
            return self._data(double._route(tenant, "GET", "v1/events", params, labels_given, raw))
        if (method, route) in (("POST", "memory/recall"), ("POST", "memory/forget")):
            body = read_json(raw)
            check_hosted_scope(body.get("scope") if isinstance(body, dict) else None)
            direct = "v1/" + route.removeprefix("memory/")
            return self._data(double._route(tenant, "POST", direct, {}, [], raw))
        if (method, route) == ("POST", "memory/answer"):
            body = read_json(raw)
            if not isinstance(body, dict) or set(body) - ANSWER_KEYS:
                raise HostedError(400, "VALIDATION_ERROR", "unknown answer field")
            if "answer_instructions" in body and body["answer_instructions"] is None:
                raise HostedError(400, "VALIDATION_ERROR", "`answer_instructions` is a string")
            return self._data(double._route(tenant, "POST", "v1/answer", {}, [], raw))
        if (method, route) == ("GET", "memory/scopes"):
            return self._scopes(tenant, token, params)
        if (method, route) == ("POST", PASSTHROUGH):
            return self._erase(tenant, read_json(raw))
        if (method, route) == ("DELETE", "memory"):
            with double._lock:
                scopes = len({*tenant.logs, *tenant.registered})
                tenant.logs.clear()
                tenant.registered.clear()
                tenant.keys.clear()
                tenant.packs.clear()
            return self._data(Answer(200, {"erased": True, "scopes": scopes}))
        raise HostedError(404, "NOT_FOUND", f"no route {method} /{route}")

    def _scopes(self, tenant: Tenant, token: str, params: dict[str, str]) -> Answer:
        prefix = params.get("prefix")
        if prefix is not None:
            check_hosted_scope(prefix)
        limit = limit_param(params.get("limit"), 50, 1000)
        with self.double._lock:
            paths = sorted(
                path
                for path in {*tenant.logs, *tenant.registered}
                if prefix is None or below(prefix, path)
            )
        org = self._orgs[token]
        return self._data(Answer(200, {"scopes": [f"{org}/{path}" for path in paths[:limit]]}))

    def _erase(self, tenant: Tenant, body: object) -> Answer:
        if not isinstance(body, dict):
            raise HostedError(400, "INVALID_BODY", "an erasure is a JSON object")
        unknown = set(body) - {"scope", "audit_note"}
        if unknown:
            raise HostedError(400, "UNKNOWN_FIELD", f"unknown field `{sorted(unknown)[0]}`")
        scope = body.get("scope")
        if not isinstance(scope, str):
            raise HostedError(400, "INVALID_SCOPE", "`scope` is a string")
        if scope.strip("/") == "":
            raise HostedError(422, "ROOT_ERASURE_REFUSED", "the root is erased with DELETE /memory")
        check_hosted_scope(scope)
        with self.double._lock:
            doomed = sorted(
                path for path in {*tenant.logs, *tenant.registered} if below(scope, path)
            )
            ids = []
            for path in doomed:
                gone = {event.id for event in tenant.logs.pop(path, [])}
                tenant.registered.pop(path, None)
                for key in [key for key, (event_id, _) in tenant.keys.items() if event_id in gone]:
                    del tenant.keys[key]
                ids.append(self.double._next("erasure"))
            tenant.packs.clear()
        return Answer(
            200, {"erased": True, "scope": scope, "scopes": len(doomed), "erasure_ids": ids}
        )

    # --- answers -------------------------------------------------------------------------

    @staticmethod
    def _data(answer: Answer) -> Answer:
        return attrs.evolve(answer, body={"success": True, "data": answer.body})

    @staticmethod
    def _failure(route: str, error: HostedError) -> Answer:
        if route == PASSTHROUGH:
            body: dict[str, Any] = {
                "error_code": error.code,
                "message": error.message,
                "retriable": error.code == "ERASURE_INCOMPLETE",
            }
            return Answer(error.status, body)
        return Answer(
            error.status, {"success": False, "error": error.message, "errorCode": error.code}
        )

    def _faulted(self, route: str, fault: Fault) -> Answer:
        if fault.drop:
            return Answer(0, drop=True)
        assert fault.status is not None
        if fault.status == 429:
            return attrs.evolve(_backend_429(fault.retry_after), delay=fault.delay)
        default = "CONFLICT" if fault.status == 409 else "UPSTREAM_UNAVAILABLE"
        error = HostedError(fault.status, fault.code or default, "an injected failure")
        answer = self._failure(route, error)
        headers = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
        return attrs.evolve(answer, headers=headers, delay=fault.delay)
