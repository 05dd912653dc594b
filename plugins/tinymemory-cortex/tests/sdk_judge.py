"""Every Direct request the engine sends, judged by the vendor's own clients (cortexdbai 0.12.0).

:class:`JudgingConnection` serves the double in memory and, before each
exchange, rebuilds the request with the SDK's own body builders (a
:class:`V1Client` whose sending is replaced by a capture) from the fields
the engine sent, and compares: the engine's body must be the body the SDK
would send for the same call, up to the differences listed here, each with
its source. Every body must also pass the SDK's canonical JSON writer, and
every experience its flattened-content limit. Routes the SDK lacks are
judged by the vendor CLI (cortexdb-cli 0.6.0), read from its source:
``scopes register`` sends ``{path, owner}``, ``scopes list`` sends
``prefix`` and ``limit``, ``experience bulk`` sends ``ordering``
(``independent`` or ``strict_temporal``), ``forget`` sends ``audit_note``.

Differences allowed, and why:

- ``directives`` on an experience: the wire reference's §4.1 (the Rust
  engine's ``{"extract": []}`` for ``derive: false`` items and tool turns;
  no vendor client builds it);
- a forget without ``confirm_all: false`` (the SDK's builder always writes
  it; the CLI never does) and with ``audit_note`` (the CLI's field);
- an experience without ``context.observed_at`` (the SDK fills in "now"; an
  item without a time has none to send).

A newer SDK: re-read the builders named in :func:`expected`, and what they
always send.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from cortexdb.v1.client import (
    V1Client,
    _canonical_json_bytes,
    _validate_flattened_content,
)
from cortexdb.v1.source import validate_modality

from tinymemory_cortex.connection import Reply, Request
from tinymemory_cortex.testing import CortexDouble, InMemoryConnection
from tinymemory_cortex.testing.double import query_values

_EVENTS_PARAMS = {"scope", "view", "limit", "cursor", "since", "labels", "modality"}
_ORDERINGS = {"independent", "strict_temporal"}


class _Capture(V1Client):
    """The SDK's client with its sending replaced: each call leaves its path and body."""

    def __init__(self) -> None:
        super().__init__("http://judge.invalid", actor="user:judge")
        self.sent: list[tuple[str, Any]] = []

    def _post(self, path: str, body: Any) -> dict[str, Any]:
        self.sent.append((path, body))
        return {}


_clients = threading.local()


def _built(call: Callable[[_Capture], object]) -> tuple[str, Any]:
    """The path and body the SDK builds in ``call`` (one capturing client per thread)."""
    sdk = getattr(_clients, "sdk", None)
    if sdk is None:
        sdk = _clients.sdk = _Capture()
    call(sdk)
    return sdk.sent.pop()


def _experience(body: dict[str, Any], wait: str | None) -> tuple[str, Any]:
    """What the SDK's ``experience`` builds from the engine's envelope (its key checked first).

    The key is ``tm3:`` and 56 hex of SHA-256 over the body without it, written
    by the SDK's canonical writer (its re-implementation of serde_json's
    sorted ``Value``): the engine's own writer must produce the same bytes.
    """
    unkeyed = {name: value for name, value in body.items() if name != "idempotency_key"}
    digest = hashlib.sha256(_canonical_json_bytes(unkeyed, "experience")).hexdigest()
    assert body.get("idempotency_key") == "tm3:" + digest[:56], "the key over canonical JSON"
    content, context = body["content"], body.get("context", {})
    return _built(
        lambda sdk: sdk.experience(
            body["scope"],
            text=content["text"],
            role=content["role"],
            labels=context.get("labels"),
            observed_at=context.get("observed_at"),
            idempotency_key=body.get("idempotency_key"),
            modality=body["modality"],
            wait=wait,
        )
    )


def _as_engine_sends(envelope: dict[str, Any], sent: dict[str, Any]) -> dict[str, Any]:
    """The SDK's envelope with the allowed differences applied."""
    shaped = dict(envelope)
    if "observed_at" not in sent.get("context", {}):
        shaped["context"] = {k: v for k, v in shaped["context"].items() if k != "observed_at"}
    if "directives" in sent:
        shaped["directives"] = sent["directives"]
    return shaped


def expected(method: str, route: str, params: dict[str, str], body: Any) -> Any:
    """The body the vendor's clients send for this call (None: nothing to compare)."""
    wait = params.get("wait")
    if (method, route) == ("POST", "v1/experience"):
        _validate_flattened_content(body["content"])
        validate_modality(body["modality"])
        path, envelope = _experience(body, wait)
        assert path == "/v1/experience" + (f"?wait={wait}" if wait else "")
        return _as_engine_sends(envelope, body)
    if (method, route) == ("POST", "v1/experience/bulk"):
        assert body.get("ordering", "independent") in _ORDERINGS, "the CLI's orderings"
        items = []
        for item in body["items"]:
            _validate_flattened_content(item["content"])
            items.append(_as_engine_sends(_experience(item, wait)[1], item))
        shaped = {"items": items}
        if "ordering" in body:
            shaped["ordering"] = body["ordering"]
        return shaped
    if (method, route) == ("POST", "v1/recall"):
        return _built(
            lambda sdk: sdk.recall(
                body["scope"],
                query=body.get("query"),
                view=body.get("view", "holistic"),
                include=body.get("include"),
                diagnostics=body.get("diagnostics", "none"),
                budgets=body.get("budgets"),
                filters=body.get("filters"),
                temporal=body.get("temporal"),
            )
        )[1]
    if (method, route) == ("POST", "v1/answer"):
        return _built(
            lambda sdk: sdk.answer(
                body["scope"],
                body["question"],
                view=body.get("view", "holistic"),
                answer_instructions=body.get("answer_instructions"),
                cite_sources=body.get("cite_sources", False),
                use_pack_id=body.get("use_pack_id"),
                diagnostics=body.get("diagnostics", "none"),
                filters=body.get("filters"),
                temporal=body.get("temporal"),
            )
        )[1]
    if (method, route) == ("POST", "v1/forget"):
        selector = body.get("selector") or {}
        sdk_body = _built(
            lambda sdk: sdk.forget(
                body["scope"],
                layers=body.get("layers"),
                memory_ids=selector.get("memory_ids"),
                cascade=body.get("cascade", "derived_only"),
            )
        )[1]
        sdk_body.pop("confirm_all")
        if "audit_note" in body:
            sdk_body["audit_note"] = body["audit_note"]
        return sdk_body
    if (method, route) == ("POST", "v1/erasures"):
        return _built(
            lambda sdk: sdk.erase(
                body["scope"],
                confirm_all=body.get("confirm_all", False),
                audit_note=body.get("audit_note"),
                idempotency_key=body.get("idempotency_key"),
            )
        )[1]
    if (method, route) == ("POST", "v1/scopes"):
        assert set(body) <= {"path", "owner"}, "the CLI registers {path, owner}"
        return None
    if (method, route) == ("GET", "v1/events"):
        assert set(params) <= _EVENTS_PARAMS, "the SDK's events parameters"
        return None
    if (method, route) == ("GET", "v1/scopes/list"):
        assert set(params) <= {"prefix", "limit"}, "the CLI's scopes list parameters"
        return None
    if method == "GET" and (
        route in ("v1/auth/whoami", "v1/admin/health", "v1/admin/version")
        or route.startswith(("v1/erasures/", "v1/events/"))
    ):
        assert body is None
        return None
    raise AssertionError(f"no vendor client sends {method} {route}")


class JudgingConnection(InMemoryConnection):
    """The double in memory, each Direct request judged first; what failed is in ``verdicts``."""

    def __init__(self, double: CortexDouble) -> None:
        super().__init__(double)
        self.verdicts: list[str] = []
        self.judged = 0

    def exchange(self, request: Request) -> Reply:
        parts = urlsplit(request.url)
        route = parts.path.strip("/")
        if route.startswith("v1/"):
            params = {name: values[-1] for name, values in query_values(parts.query).items()}
            self.judge(request.method, route, params, request.body)
        return super().exchange(request)

    def judge(self, method: str, route: str, params: dict[str, str], raw: bytes | None) -> None:
        self.judged += 1
        try:
            body = None if raw is None else json.loads(raw)
            if body is not None:
                _canonical_json_bytes(body, "request body")
            wanted = expected(method, route, params, body)
            assert wanted is None or wanted == body, f"the SDK builds {wanted!r}"
        except (AssertionError, ValueError, KeyError) as failed:
            self.verdicts.append(f"{method} {route}: {failed} (sent {raw!r:.300})")
