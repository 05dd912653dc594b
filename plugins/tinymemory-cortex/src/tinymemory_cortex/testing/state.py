"""What the Direct double and its hosted front share: answers, faults, refusals, tenants.

:mod:`.double` (the Direct wire) and :mod:`.hosted` (the hosted routes in
front of it) both build on this module and never on each other's insides:
the hosted front reaches the Direct double only through :class:`Backend`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any, Protocol

import attrs

from ..clock import Clock

ANSWER_KEYS = {
    "scope",
    "question",
    "question_type",
    "question_date",
    "temporal",
    "filters",
    "answer_max_tokens",
    "answer_instructions",
    "cite_sources",
    "include_context",
    "use_pack_id",
}


@attrs.frozen
class Answer:
    """What the double answers: a status and JSON body, or a fault to act out."""

    status: int
    body: Any = None
    headers: Mapping[str, str] = attrs.field(factory=dict)
    #: Close the connection without answering.
    drop: bool = False
    #: Seconds to wait before answering.
    delay: float = 0.0


@attrs.define
class Fault:
    """A failure the double acts out for the next ``times`` requests to ``route``.

    ``route`` is a path below the endpoint such as ``v1/events`` (``*`` for
    any). ``status`` answers that status in CortexDB's error JSON (with
    ``retry_after`` as a ``Retry-After`` header: seconds, or a string such
    as an HTTP date sent as written); ``drop`` closes the
    connection unanswered; ``delay`` answers normally, that many seconds late.
    """

    route: str
    times: int = 1
    status: int | None = None
    code: str | None = None
    retry_after: int | str | None = None
    drop: bool = False
    delay: float = 0.0
    #: Apply the request first, then fail (a write that landed but whose answer was lost).
    after_apply: bool = False
    #: Hosted routes: take the request's ``Idempotency-Key`` claim, then fail without applying.
    claimed: bool = False


class ApiError(Exception):
    """A refusal, in CortexDB's error JSON."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def answer(self) -> Answer:
        body = {
            "error_code": self.code,
            "message": self.message,
            "request_id": "req_double",
            "retriable": self.status in (408, 429, 503),
            "details": {},
        }
        return Answer(self.status, body)


@attrs.define
class Event:
    id: str
    scope: str
    body: dict[str, Any]
    recorded_at: str

    def listed(self) -> dict[str, Any]:
        context = dict(self.body.get("context") or {})
        context["recorded_at"] = self.recorded_at
        return {
            "id": self.id,
            "scope": self.scope,
            "modality": self.body["modality"],
            "content": dict(self.body["content"]),
            "context": context,
        }


@attrs.define
class Tenant:
    """Everything one token's caller holds."""

    caller: str
    #: Scope path -> its log, oldest first.
    logs: dict[str, list[Event]] = attrs.field(factory=dict)
    #: Write key -> (event id, the write identity of its first body).
    keys: dict[str, tuple[str, str]] = attrs.field(factory=dict)
    packs: dict[str, tuple[str, list[str]]] = attrs.field(factory=dict)
    erasures: dict[str, str] = attrs.field(factory=dict)
    registered: dict[str, list[dict[str, str]]] = attrs.field(factory=dict)

    def events(self) -> int:
        return sum(len(log) for log in self.logs.values())


def below(prefix: str, path: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


def read_json(raw: bytes) -> Any:
    try:
        return json.loads(raw or b"null")
    except ValueError:
        raise ApiError(422, "INVALID_BODY", "the body is not JSON") from None


def limit_param(value: str | None, default: int, ceiling: int) -> int:
    if value is None:
        return default
    if not value.isdigit() or int(value) < 1:
        raise ApiError(422, "INVALID_BODY", "`limit` is a positive number")
    return min(int(value), ceiling)


class Backend(Protocol):
    """The Direct double as its hosted front sees it."""

    tokens: dict[str, str] | None
    tenants: dict[str, Tenant]
    clock: Clock
    _lock: threading.RLock

    def _caller(self, token: str) -> str: ...

    def _take_fault(self, route: str) -> Fault | None: ...

    def _next(self, prefix: str) -> str: ...

    def _route(
        self,
        tenant: Tenant,
        method: str,
        route: str,
        params: dict[str, str],
        labels_given: list[str],
        raw: bytes,
    ) -> Answer: ...
