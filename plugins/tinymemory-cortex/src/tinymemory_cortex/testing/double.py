"""A stateful CortexDB double: the Direct wire's behaviour over an in-memory log.

The hosted TinyHumans routes (``memory/*``) are served over the same state
by :mod:`.hosted`, in front of these.

It keeps what CortexDB keeps (an append-only log of events per scope, write
keys, recall packs, erasures) separately for every bearer token (each token
is a tenant of its own), and answers as the wire reference's §4 and §12
describe: newest-first listings (each event once; ``listing_copies=2`` emits
every event twice, as §4.2 measured on a live server), labels any-of
with at most 50 per request, closed request bodies (an unknown key is 422),
the 1 MiB text limit, scope types outside the shipped presets refused, and
failures in CortexDB's error JSON. It is not a mock that answers whatever is
asked: a request the real service refuses is refused here too. Nor is it
stricter than the service: what the vendor's own clients send (cortexdbai
0.12, cortexdb-cli 0.6) is accepted, and a replay is judged on the write
identity the SDK documents (:func:`write_identity`).

:meth:`CortexDouble.handle` takes a request and returns an :class:`Answer`;
:mod:`.server` serves it over HTTP on 127.0.0.1 and :mod:`.memory` in
memory, as the engine's connection. Faults are armed with
:meth:`CortexDouble.inject`.
"""

from __future__ import annotations

import json
import re
import threading
from collections import deque
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import unquote, unquote_plus

import attrs

from ..clock import SYSTEM_CLOCK, Clock
from .hosted import HostedFront
from .state import (
    ANSWER_KEYS,
    Answer,
    ApiError,
    Event,
    Fault,
    Tenant,
    below,
    limit_param,
    read_json,
)

#: The scope types every shipped CortexDB preset allows (§8.1), and the two the vendor's
#: own clients write: ``ns:`` (cortexdb-mcp 0.8 server.py, a namespace below the scope)
#: and ``verify:`` (cortexdb-cli 0.6 commands/onboard.py, "caught" by "a live run against
#: the hosted API").
ALLOWED_SCOPE_TYPES = frozenset(
    {
        "ns",
        "verify",
        "org",
        "dept",
        "team",
        "app",
        "user",
        "agent",
        "service",
        "ws",
        "project",
        "global",
        "system",
        "source",
    }
)
MAX_TEXT_BYTES = 1024 * 1024
MAX_LABELS_PER_QUERY = 50
MAX_LABEL_BYTES = 256
MAX_BULK = 1000
DEFAULT_LIMIT = 50
MAX_SCOPES_LIMIT = 1000
_SEGMENT = re.compile(r"([A-Za-z0-9_-]+):([A-Za-z0-9_-]+)", re.ASCII)
_WORD = re.compile(r"[^\W_]{3,}")

_EXPERIENCE_KEYS = {
    "scope",
    "modality",
    "content",
    "context",
    "idempotency_key",
    "directives",
    "observed_actor",
    "subject",
    "source",
    # The SDK's capture hints (capability capture_language_v1), outside write identity.
    "language",
    "scripts",
}
_CONTEXT_KEYS = {"labels", "observed_at", "timezone", "refers_to"}
#: What the SDK's recall sends besides the documented body: `diagnostics` always, hints.
_RECALL_KEYS = {
    "scope",
    "query",
    "budgets",
    "view",
    "include",
    "temporal",
    "filters",
    "diagnostics",
    "language",
    "scripts",
    "query_variants",
}
#: The Direct answer: the hosted keys, plus what the SDK always sends (`view`, `diagnostics`).
_DIRECT_ANSWER_KEYS = ANSWER_KEYS | {"view", "diagnostics", "answer_model"}
_DIAGNOSTICS = {"none", "summary", "full"}
_FORGET_KEYS = {
    "scope",
    "layers",
    "selector",
    "cascade",
    "audit_note",
    "confirm_all",
    "reason",
    "from_preview_id",
}
_CASCADES = {"none", "derived_only", "redact_events"}
#: The forget selector's fields, as cortexdb-cli 0.6 names the server's ForgetSelector
#: (commands/forget.py); anything else is an empty selector (§4.5).
_SELECTORS = ("memory_ids", "about_subject", "about_entity", "predicate")
#: Routes served without a bearer: the liveness and readiness probes (cortexdb-cli 0.6
#: onboarding.py: "GET /v1/admin/health (unauthenticated)", then /v1/admin/ready, read as
#: ``{ready, degraded, checks: {name: {ok}}}`` by its ``stage_ready``).
_PUBLIC: dict[str, dict[str, Any]] = {
    "v1/admin/health": {"status": "healthy"},
    "v1/admin/ready": {"ready": True, "degraded": False, "checks": {"storage": {"ok": True}}},
}
_ERASURE_KEYS = {"scope", "confirm_all", "selector", "audit_note", "idempotency_key"}
#: Bulk `ordering` as the CLI sends it (`independent` is its default).
_ORDERINGS = {"independent", "strict_temporal"}
_ROLES = {"user", "assistant", "system", "tool"}
_WAITS = {"accepted", "captured", "indexed", "consolidated", "settled"}
#: What CortexDB's recall packs hold by default when no ``max_tokens`` is given.
DEFAULT_MAX_TOKENS = 4000


class CortexDouble:
    """CortexDB's Direct wire over in-memory state, one tenant per bearer token.

    ``tokens`` maps each accepted token to the caller whoami names; without
    it any non-blank token is accepted, served as ``user:local``.
    ``require_actor`` refuses a request that does not name its caller in
    ``X-Cortex-Actor`` (as CortexDB does for minted per-account tokens).
    ``hosted_rate_limit`` is the hosted routes' limit per token as
    ``(requests, seconds)``: the real 300 a minute by default, None for none
    (the hosted routes are ``self.hosted``, a :class:`.hosted.HostedFront`),
    counted on ``clock``.

    ``erasures_accepted`` answers an erasure as the SDK describes the
    asynchronous one (``202 {erasure_id, status: "accepted", manifest_url,
    lifecycle_stream}``), its status route answering ``completed`` afterwards
    (or 404 with ``erasure_status_route`` off: a server without that route).
    ``pack_token_cap`` caps every pack's ``max_tokens`` (a deployment's own
    limit), so long events come back as budget excerpts. A bulk item whose
    text holds ``bulk_refused_text`` is refused inside its batch: the batch
    answers 207 ``{partial: true, results, failures: [{index, error_code,
    error}]}`` as the CLI reads it, the other items written.
    """

    def __init__(
        self,
        tokens: Mapping[str, str] | None = None,
        *,
        require_actor: bool = False,
        hosted_rate_limit: tuple[int, float] | None = (300, 60.0),
        clock: Clock = SYSTEM_CLOCK,
        listing_copies: int = 1,
    ) -> None:
        self.tokens = dict(tokens) if tokens is not None else None
        self.require_actor = require_actor
        #: How many consecutive copies of each event a listing emits (and ``limit`` counts).
        self.listing_copies = listing_copies
        self.erasures_accepted = False
        self.erasure_status_route = True
        self.pack_token_cap: int | None = None
        self.bulk_refused_text: str | None = None
        self.tenants: dict[str, Tenant] = {}
        #: Every request answered: ``(method, route)``, in order.
        self.requests: list[tuple[str, str]] = []
        self._faults: deque[Fault] = deque()
        self._lock = threading.RLock()
        self._numbers = 0
        #: What the rate limiter and a slow answer read (a test shares its clock with the engine).
        self.clock = clock
        self.hosted = HostedFront(self, hosted_rate_limit)

    # --- fault injection -----------------------------------------------------------

    def inject(self, fault: Fault) -> None:
        """Arm a fault for the next requests to its route."""
        with self._lock:
            self._faults.append(fault)

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _take_fault(self, route: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.route in ("*", route) and fault.times > 0:
                    fault.times -= 1
                    if fault.times == 0:
                        self._faults.remove(fault)
                    return fault
        return None

    def write(self, token: str, body: dict[str, Any]) -> str:
        """Append one experience for ``token``'s tenant as if it was sent (checked the same way)."""
        with self._lock:
            tenant = self.tenants.setdefault(token, Tenant(self._caller(token)))
            return str(self._append(tenant, self._checked_experience(body))["event_id"])

    def _caller(self, token: str) -> str:
        return "user:local" if self.tokens is None else self.tokens[token]

    # --- requests --------------------------------------------------------------------

    def count(self, route: str, method: str | None = None) -> int:
        """How many requests reached ``route`` (with ``method``, when given)."""
        return sum(1 for sent, path in self.requests if path == route and method in (None, sent))

    def handle(self, method: str, target: str, headers: Mapping[str, str], body: bytes) -> Answer:
        """Answer one request: ``target`` is the path and query below the endpoint."""
        path, _, query = target.partition("?")
        route = unquote(path.strip("/"))
        parsed = query_values(query)
        params = {name: values[-1] for name, values in parsed.items()}
        labels_given = parsed.get("labels", [])
        with self._lock:
            self.requests.append((method, route))
        if route == "memory" or route.startswith("memory/"):
            return self.hosted.handle(method, route, params, labels_given, headers, body)
        fault = self._take_fault(route)
        if fault is not None and not fault.after_apply and (fault.drop or fault.status is not None):
            return _faulted(fault)
        if method == "GET" and route in _PUBLIC:
            return Answer(200, _PUBLIC[route])
        try:
            tenant = self._tenant(headers, whoami=route == "v1/auth/whoami")
            answer = self._route(tenant, method, route, params, labels_given, body)
        except ApiError as error:
            answer = error.answer()
        if fault is not None:
            if fault.after_apply and (fault.drop or fault.status is not None):
                return _faulted(fault)
            answer = attrs.evolve(answer, delay=fault.delay)
        return answer

    def _tenant(self, headers: Mapping[str, str], *, whoami: bool) -> Tenant:
        lowered = {name.lower(): value for name, value in headers.items()}
        auth = lowered.get("authorization", "")
        if not auth.startswith("Bearer ") or not auth[7:].strip():
            raise ApiError(401, "MISSING_TOKEN", "a bearer token is required")
        token = auth[7:].strip()
        if self.tokens is not None and token not in self.tokens:
            raise ApiError(401, "INVALID_TOKEN_SIGNATURE", "the token is not valid")
        caller = self._caller(token)
        actor = lowered.get("x-cortex-actor")
        if (actor is not None and actor != caller) or (
            self.require_actor and actor is None and not whoami
        ):
            raise ApiError(401, "ACTOR_MISMATCH", "X-Cortex-Actor must name the token's subject")
        with self._lock:
            return self.tenants.setdefault(token, Tenant(caller))

    def _route(
        self,
        tenant: Tenant,
        method: str,
        route: str,
        params: dict[str, str],
        labels_given: list[str],
        raw: bytes,
    ) -> Answer:
        handlers: dict[tuple[str, str], Callable[[], Answer]] = {
            ("POST", "v1/experience"): lambda: self._experience(tenant, read_json(raw), params),
            ("POST", "v1/experience/bulk"): lambda: self._bulk(tenant, read_json(raw), params),
            ("GET", "v1/events"): lambda: self._events(tenant, params, labels_given),
            ("POST", "v1/recall"): lambda: self._recall(tenant, read_json(raw)),
            ("POST", "v1/answer"): lambda: self._answer(tenant, read_json(raw)),
            ("POST", "v1/forget"): lambda: self._forget(tenant, read_json(raw)),
            ("GET", "v1/scopes/list"): lambda: self._scopes(tenant, params),
            ("POST", "v1/erasures"): lambda: self._erase(tenant, read_json(raw)),
            ("GET", "v1/auth/whoami"): lambda: Answer(200, {"caller": tenant.caller}),
            ("GET", "v1/admin/version"): lambda: Answer(
                200,
                {
                    "version": "v0.10.5",
                    "capabilities": ["refers_to_v1", "temporal_lenient_v1", "capture_language_v1"],
                },
            ),
            ("POST", "v1/scopes"): lambda: self._register(tenant, read_json(raw)),
            ("GET", "v1/scopes"): lambda: self._registration(tenant, params),
            ("PUT", "v1/scopes/members"): lambda: self._members(tenant, params, read_json(raw)),
        }
        handler = handlers.get((method, route))
        if handler is not None:
            with self._lock:
                return handler()
        if method == "GET" and route.startswith("v1/events/"):
            return self._event(tenant, route.removeprefix("v1/events/"))
        if method == "GET" and route.startswith("v1/erasures/") and self.erasure_status_route:
            with self._lock:
                status = tenant.erasures.get(route.removeprefix("v1/erasures/"))
            if status is None:
                raise ApiError(404, "NOT_FOUND", "no such erasure")
            return Answer(200, {"erasure_id": route.removeprefix("v1/erasures/"), "status": status})
        raise ApiError(404, "NOT_FOUND", f"no route {method} /{route}")

    # --- writes --------------------------------------------------------------------

    def _next(self, prefix: str) -> str:
        self._numbers += 1
        return f"{prefix}_{self._numbers}"

    def _checked_experience(self, body: object) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ApiError(422, "INVALID_BODY", "an experience is a JSON object")
        unknown = set(body) - _EXPERIENCE_KEYS
        if unknown:
            raise ApiError(422, "INVALID_BODY", f"unknown field `{sorted(unknown)[0]}`")
        check_scope(body.get("scope"))
        modality = body.get("modality")
        if not isinstance(modality, str) or not modality:  # open-set, as the SDK says
            raise ApiError(422, "INVALID_BODY", "`modality` is a non-empty string")
        content = body.get("content")
        if not isinstance(content, dict) or set(content) - {"kind", "role", "text"}:
            raise ApiError(422, "INVALID_BODY", "`content` is {kind, role, text}")
        text = content.get("text")
        if content.get("kind") != "message" or content.get("role") not in _ROLES:
            raise ApiError(422, "INVALID_BODY", "`content` must be a message with a known role")
        if not isinstance(text, str) or not text:
            raise ApiError(422, "INVALID_BODY", "a message needs text")
        flattened = len(f"[{content['role']}] ".encode()) + len(
            text.encode("utf-8", "surrogatepass")
        )
        if flattened > MAX_TEXT_BYTES:
            raise ApiError(422, "INVALID_ENVELOPE", "the experience is over 1 MiB")
        context = body.get("context", {})
        if not isinstance(context, dict) or set(context) - _CONTEXT_KEYS:
            raise ApiError(422, "INVALID_BODY", "`context` has an unknown field")
        labels = context.get("labels", [])
        if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
            raise ApiError(422, "INVALID_BODY", "`context.labels` is a list of strings")
        if any(len(label.encode("utf-8", "surrogatepass")) > MAX_LABEL_BYTES for label in labels):
            raise ApiError(422, "INVALID_BODY", "a label is at most 256 bytes")
        key = body.get("idempotency_key")
        if key is not None and (not isinstance(key, str) or not 1 <= len(key) <= 64):
            raise ApiError(422, "INVALID_BODY", "`idempotency_key` is 1 to 64 characters")
        directives = body.get("directives")
        if directives is not None and (
            not isinstance(directives, dict) or set(directives) - {"extract"}
        ):
            raise ApiError(422, "INVALID_BODY", "`directives` is {extract}")
        return body

    def _append(self, tenant: Tenant, body: dict[str, Any]) -> dict[str, Any]:
        identity = write_identity(body)
        key = body.get("idempotency_key")
        if key is not None and key in tenant.keys:
            event_id, first = tenant.keys[key]
            if first != identity:
                raise ApiError(409, "IDEMPOTENCY_CONFLICT", "the key was used for another body")
            return {"event_id": event_id, "status": "captured", "replayed_from_idempotency": True}
        event = Event(self._next("evt"), body["scope"], body, _now())
        tenant.logs.setdefault(body["scope"], []).append(event)
        if key is not None:
            tenant.keys[key] = (event.id, identity)
        return {"event_id": event.id, "status": "captured", "replayed_from_idempotency": False}

    def _experience(self, tenant: Tenant, body: object, params: dict[str, str]) -> Answer:
        _check_wait(params)
        return Answer(202, self._append(tenant, self._checked_experience(body)))

    def _bulk(self, tenant: Tenant, body: object, params: dict[str, str]) -> Answer:
        _check_wait(params)
        if not isinstance(body, dict) or set(body) - {"items", "ordering"}:
            raise ApiError(422, "INVALID_BODY", "a bulk append is {items, ordering?}")
        items = body.get("items")
        if not isinstance(items, list) or not 1 <= len(items) <= MAX_BULK:
            raise ApiError(422, "INVALID_BODY", "a bulk append holds 1 to 1000 items")
        if body.get("ordering", "independent") not in _ORDERINGS:
            raise ApiError(422, "INVALID_BODY", "`ordering` is independent or strict_temporal")
        checked = [self._checked_experience(item) for item in items]
        results, failures = [], []
        refused = self.bulk_refused_text
        for index, item in enumerate(checked):
            if refused is not None and refused in item["content"]["text"]:
                failures.append({"index": index, "error_code": "INVALID_BODY", "error": "refused"})
                continue
            answer = self._append(tenant, item)
            results.append({"index": index, **answer})
        if failures:
            partial = {"accepted": len(results), "partial": True, "failures": failures}
            return Answer(207, {**partial, "results": results})
        return Answer(202, {"accepted": len(results), "results": results})

    # --- reads -----------------------------------------------------------------------

    def _events(self, tenant: Tenant, params: dict[str, str], labels_given: list[str]) -> Answer:
        scope = params.get("scope")
        if scope is None:
            raise ApiError(422, "INVALID_BODY", "`scope` is required")
        check_scope(scope)
        limit = limit_param(params.get("limit"), DEFAULT_LIMIT, 1000)
        wanted = _labels(",".join(labels_given)) if labels_given else None
        log = tenant.logs.get(scope, [])
        chosen = [e for e in reversed(log) if wanted is None or wanted & set(_event_labels(e))]
        copies = [event for event in chosen for _ in range(self.listing_copies)]
        offset = _offset(params.get("cursor"))
        page = copies[offset : offset + limit]
        return Answer(
            200,
            {
                "items": [event.listed() for event in page],
                "has_more": offset + limit < len(copies),
                "next_cursor": str(offset + limit),
            },
        )

    def _recall(self, tenant: Tenant, body: object) -> Answer:
        if not isinstance(body, dict):
            raise ApiError(422, "INVALID_BODY", "a recall is a JSON object")
        unknown = set(body) - _RECALL_KEYS
        if unknown:
            raise ApiError(422, "INVALID_BODY", f"unknown field `{sorted(unknown)[0]}`")
        scope, query = body.get("scope"), body.get("query")
        check_scope(scope)
        if body.get("diagnostics", "none") not in _DIAGNOSTICS:
            raise ApiError(422, "INVALID_BODY", "`diagnostics` is none, summary or full")
        if not isinstance(query, str) or not query.strip():
            raise ApiError(422, "INVALID_BODY", "`query` is required")
        view = body.get("view", "holistic")
        budgets = body.get("budgets") or {}
        limit = (budgets.get("per_layer_limits") or {}).get("events", 10)
        max_tokens = budgets.get("max_tokens", DEFAULT_MAX_TOKENS)
        if self.pack_token_cap is not None:
            max_tokens = min(max_tokens, self.pack_token_cap)
        filters = body.get("filters") or {}
        metadata = filters.get("metadata") or {}
        if set(filters) - {"metadata"} or set(metadata) - {
            "labels",
            "intent",
            "modality",
            "caller",
            "observed_actor",
        }:
            raise ApiError(422, "INVALID_BODY", "unknown filter")
        wanted = metadata.get("labels")
        if isinstance(wanted, str):  # cortexdb-cli 0.6 sends one `--filter labels=x` as a string
            wanted = [wanted]
        if wanted is not None and len(wanted) > MAX_LABELS_PER_QUERY:
            raise ApiError(422, "INVALID_BODY", "at most 50 labels")
        scopes = [
            path
            for path in tenant.logs
            if path == scope
            or (view in ("descend", "holistic") and below(str(scope), path))
            or (view == "holistic" and below(path, str(scope)))
        ]
        words = [word.lower() for word in _WORD.findall(query)]
        ranked = []
        for position, event in enumerate(e for path in scopes for e in tenant.logs[path]):
            if wanted is not None and not set(wanted) & set(_event_labels(event)):
                continue
            text = event.body["content"]["text"].lower()
            score = sum(1 for word in words if word in text)
            if score or not words:
                ranked.append((-score, -position, event))
        ranked.sort(key=lambda entry: entry[:2])
        chosen = [event for _, _, event in ranked[: max(0, int(limit))]]
        pack_id = self._next("pack")
        tenant.packs[pack_id] = (str(scope), [event.id for event in chosen])
        listed = []
        for event in chosen:
            shown = event.listed()
            stored = shown["content"]["text"].encode("utf-8", "surrogatepass")
            if len(stored) > max_tokens:
                # An excerpt, marked where the SDK says (budget_excerpt_v1): in the content.
                cut = stored[: max(1, int(max_tokens))].decode("utf-8", "ignore")
                shown["content"].update(
                    text=cut,
                    _partial=True,
                    _partial_reason="budget_excerpt",
                    _original_bytes=len(stored),
                    _excerpt_ranges=[[0, len(cut.encode("utf-8", "surrogatepass"))]],
                )
            listed.append(shown)
        include = body.get("include")
        layers: dict[str, list[Any]] = {}
        if include is None or "events" in include:
            layers["events"] = listed
        for layer in include or ():
            layers.setdefault(str(layer), [])  # the double derives nothing: other layers are empty
        # The marker `[role] ` is in the context block only (§4.3), where the vendor's MCP
        # server reads the pack from: memories between `---` rules, each headed
        # `[<time> UTC] [<role>] ` (cortexdb-mcp 0.8 render.py, memories_from_context).
        block = "\n---\n".join(
            f"[{_shown_time(event)} UTC] [{event['content']['role']}] {event['content']['text']}"
            for event in layers.get("events", [])
        )
        return Answer(200, {"pack_id": pack_id, "layers": layers, "context_block": block})

    def _event(self, tenant: Tenant, event_id: str) -> Answer:
        """``GET v1/events/{id}``: the whole event (what a budget excerpt points to)."""
        with self._lock:
            for log in tenant.logs.values():
                for event in log:
                    if event.id == event_id:
                        return Answer(200, event.listed())
        raise ApiError(404, "NOT_FOUND", "no such event")

    def _answer(self, tenant: Tenant, body: object) -> Answer:
        if not isinstance(body, dict) or set(body) - _DIRECT_ANSWER_KEYS:
            raise ApiError(422, "INVALID_BODY", "unknown answer field")
        if body.get("diagnostics", "none") not in _DIAGNOSTICS:
            raise ApiError(422, "INVALID_BODY", "`diagnostics` is none, summary or full")
        if "use_pack_id" not in body:
            # No preview pack named: the service recalls for the question itself (the SDK's
            # and the CLI's answer() never name one).
            question = {"scope": body.get("scope"), "query": body.get("question")}
            recalled = self._recall(tenant, {**question, "view": body.get("view", "holistic")})
            body = {**body, "use_pack_id": recalled.body["pack_id"]}
        pack = tenant.packs.get(str(body.get("use_pack_id")))
        if pack is None:
            raise ApiError(404, "UNKNOWN_PREVIEW_ID", "the pack is gone")
        if pack[0] != body.get("scope"):
            raise ApiError(400, "MISSING_PACK", "the pack belongs to another scope")
        texts = {
            event.id: event.body["content"]["text"] for log in tenant.logs.values() for event in log
        }
        held = [texts[event_id] for event_id in pack[1] if event_id in texts]
        answer = f"From memory: {held[0]}" if held else "Nothing in memory answers that."
        return Answer(200, {"answer": answer, "diagnostics": {"answer_model": "cortex-double"}})

    def _scopes(self, tenant: Tenant, params: dict[str, str]) -> Answer:
        prefix = params.get("prefix")
        if prefix is not None:
            if prefix.endswith("/"):
                raise ApiError(422, "INVALID_SCOPE_GRAMMAR", "a segment is empty")
            check_scope(prefix, check_types=False)
        limit = limit_param(params.get("limit"), DEFAULT_LIMIT, MAX_SCOPES_LIMIT)
        paths = sorted(
            path
            for path in {*tenant.logs, *tenant.registered}
            if prefix is None or below(prefix, path)
        )
        return Answer(200, {"items": [{"path": path} for path in paths[:limit]]})

    # --- forgetting and erasing ----------------------------------------------------

    def _forget(self, tenant: Tenant, body: object) -> Answer:
        if not isinstance(body, dict) or set(body) - _FORGET_KEYS:
            raise ApiError(422, "INVALID_BODY", "unknown forget field")
        scope = body.get("scope")
        check_scope(scope)
        selector = body.get("selector") or {}
        chosen = {
            name: selector[name]
            for name in _SELECTORS
            if isinstance(selector, dict) and selector.get(name)
        }
        ids = chosen.get("memory_ids")
        confirm = body.get("confirm_all") is True
        if chosen and confirm:
            raise ApiError(400, "AMBIGUOUS_SELECTOR_CONFIRM_ALL", "a selector or confirm_all")
        if not chosen and not confirm:
            raise ApiError(
                422, "EMPTY_SELECTOR_WITHOUT_CONFIRMATION", "an empty selector needs confirm_all"
            )
        cascade = body.get("cascade", "derived_only")
        if cascade not in _CASCADES:
            raise ApiError(400, "INVALID_CASCADE", "cascade is none, derived_only or redact_events")
        log = tenant.logs.get(str(scope), [])
        if chosen:
            # Subjects are the attribution `subject.id` of an event; the double derives no
            # entities nor predicates, so those select no event.
            subject = chosen.get("about_subject")
            named = set(ids or ()) | {
                event.id for event in log if subject and _subject(event) == subject
            }
        else:
            named = {event.id for event in log}
        removed = (
            [event for event in log if event.id in named] if cascade == "redact_events" else []
        )
        if removed:
            tenant.logs[str(scope)] = [event for event in log if event.id not in named]
            if chosen:
                gone = {event.id for event in removed}
                for key in [key for key, (event_id, _) in tenant.keys.items() if event_id in gone]:
                    del tenant.keys[key]
        tenant.packs.clear()
        return Answer(200, {"deleted": {"events": len(removed)}, "requested": len(named)})

    def _erase(self, tenant: Tenant, body: object) -> Answer:
        if not isinstance(body, dict) or set(body) - _ERASURE_KEYS:
            raise ApiError(422, "INVALID_BODY", "unknown erasure field")
        scope = body.get("scope")
        check_scope(scope)
        if body.get("confirm_all") is not True or "selector" in body:
            raise ApiError(
                422, "AMBIGUOUS_SELECTOR", "an erasure takes confirm_all and no selector"
            )
        own = tenant.logs.pop(str(scope), [])
        tenant.registered.pop(str(scope), None)
        gone = {event.id for event in own}
        for key in [key for key, (event_id, _) in tenant.keys.items() if event_id in gone]:
            del tenant.keys[key]
        for path in [path for path in tenant.logs if below(str(scope), path)]:
            # Scopes below are redacted: their events go, their write keys stay.
            del tenant.logs[path]
        tenant.packs.clear()
        erasure_id = self._next("erasure")
        tenant.erasures[erasure_id] = "completed"
        if not self.erasures_accepted:
            return Answer(202, {"erasure_id": erasure_id, "status": "completed"})
        return Answer(
            202,
            {
                "erasure_id": erasure_id,
                "status": "accepted",
                "manifest_url": f"/v1/erasures/{erasure_id}/manifest",
                "lifecycle_stream": f"/v1/erasures/{erasure_id}/events",
            },
        )

    # --- scope registration ----------------------------------------------------------

    def _register(self, tenant: Tenant, body: object) -> Answer:
        if not isinstance(body, dict) or set(body) - {"path", "owner", "members"}:
            raise ApiError(422, "INVALID_BODY", "a registration is {path, owner?, members?}")
        path, owner = body.get("path"), body.get("owner")
        check_scope(path)
        if owner is not None and not isinstance(owner, str):
            raise ApiError(422, "INVALID_BODY", "`owner` is an actor")
        if path in tenant.registered:
            raise ApiError(409, "SCOPE_REGISTRATION_EXISTS", "the scope is registered")
        members = list(body.get("members") or [])
        if owner is not None:  # the CLI's form: the owner named, no member list
            members.append({"actor": owner, "role": "owner"})
        tenant.registered[str(path)] = members
        return Answer(201, {"path": path, "members": tenant.registered[str(path)]})

    def _registration(self, tenant: Tenant, params: dict[str, str]) -> Answer:
        path = params.get("path", "")
        if path not in tenant.registered:
            raise ApiError(404, "NOT_FOUND", "no such scope")
        return Answer(200, {"path": path, "members": tenant.registered[path]})

    def _members(self, tenant: Tenant, params: dict[str, str], body: object) -> Answer:
        path = params.get("path", "")
        if path not in tenant.registered or not isinstance(body, dict):
            raise ApiError(404, "NOT_FOUND", "no such scope")
        tenant.registered[path] = list(body.get("members") or [])
        return Answer(200, {"path": path, "members": tenant.registered[path]})


# --- the rules every request shares ----------------------------------------------


def query_values(query: str) -> dict[str, list[str]]:
    """A query string's values by name, in order (``parse_qs``, without its generality's cost)."""
    values: dict[str, list[str]] = {}
    for pair in query.split("&"):
        if not pair:
            continue
        name, _, value = pair.partition("=")
        if not value:
            continue  # as parse_qs: a blank value is no value
        if "%" in value or "+" in value:
            value = unquote_plus(value)
        values.setdefault(unquote_plus(name), []).append(value)
    return values


def write_identity(body: dict[str, Any]) -> str:
    """What a replay must repeat: the envelope less its key, ``context.observed_at`` and hints.

    As the SDK documents it: occurrence time is outside write identity (a
    retry after a default-now expansion replays), and so are the capture
    hints (``language``, ``scripts``, ``context.timezone``).
    """
    identity = {
        k: v for k, v in body.items() if k not in ("idempotency_key", "language", "scripts")
    }
    context = dict(identity.get("context") or {})
    context.pop("observed_at", None)
    context.pop("timezone", None)
    identity["context"] = context
    return json.dumps(identity, sort_keys=True, ensure_ascii=False)


def check_scope(scope: object, *, check_types: bool = True) -> None:
    """Refuse a scope that is not ``type:id`` segments of allowed types."""
    if not isinstance(scope, str) or not scope:
        raise ApiError(422, "INVALID_SCOPE_GRAMMAR", "a scope is type:id segments")
    for number, segment in enumerate(scope.split("/")):
        match = _SEGMENT.fullmatch(segment)
        if match is None:
            raise ApiError(422, "INVALID_SCOPE_GRAMMAR", f"segment {number} is not type:id")
        if check_types and match.group(1) not in ALLOWED_SCOPE_TYPES:
            raise ApiError(
                422, "UNREGISTERED_SCOPE_TYPE", f"scope type `{match.group(1)}` is not allowed"
            )


def _check_wait(params: dict[str, str]) -> None:
    wait = params.get("wait")
    if wait is not None and wait not in _WAITS:
        raise ApiError(422, "INVALID_BODY", "unknown `wait`")


def _labels(joined: str) -> set[str]:
    labels = {label for label in joined.split(",") if label}
    if len(labels) > MAX_LABELS_PER_QUERY:
        raise ApiError(422, "INVALID_BODY", "at most 50 labels per request")
    return labels


def _event_labels(event: Event) -> list[str]:
    return list((event.body.get("context") or {}).get("labels", []))


def _shown_time(listed: dict[str, Any]) -> str:
    context = listed.get("context") or {}
    return str(context.get("observed_at") or context.get("recorded_at") or "")


def _subject(event: Event) -> str | None:
    subject = event.body.get("subject")
    return subject.get("id") if isinstance(subject, dict) else None


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit():
        raise ApiError(422, "INVALID_BODY", "unknown cursor")
    return int(cursor)


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _faulted(fault: Fault) -> Answer:
    if fault.drop:
        return Answer(0, drop=True)
    assert fault.status is not None
    code = fault.code or {429: "RATE_LIMITED", 503: "STORAGE_UNWIRED"}.get(fault.status, "FAULT")
    answer = ApiError(fault.status, code, "an injected failure").answer()
    headers = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
    return attrs.evolve(answer, headers=headers, delay=fault.delay)
