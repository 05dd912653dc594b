"""The seam between the engine and a CortexDB wire: routes, bodies, headers, health.

The engine speaks logical routes (``experience``, ``events``, ...); a
:class:`Wire` says how each one is spelled and how answers are unwrapped.
Two wires fill it: :data:`DIRECT` (``cortexdb``, CortexDB's own ``v1/*``)
and :data:`HOSTED` (``tinyhumans``, the TinyHumans memory API's
``memory/*``: answers in ``{success, data}`` envelopes, an
``Idempotency-Key`` claim on every single-attempt POST, one event per
request, no actor header, 300 requests a minute).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs


@attrs.frozen(kw_only=True)
class Wire:
    """How one wire spells the logical routes and treats requests."""

    #: The engine id this wire is registered as.
    engine_id: str
    default_endpoint: str
    #: Logical route -> path below the endpoint (no leading ``/``).
    routes: Mapping[str, str]
    #: Whether ``X-Cortex-Actor`` is learned from whoami and sent.
    sends_actor: bool
    #: Whether an item's several events go out as one ordered bulk append.
    bulk: bool
    #: Whether writes ask for the indexed barrier (``?wait=indexed``).
    waits_indexed: bool
    #: The health probe: a logical route and its query parameters.
    health: tuple[str, Mapping[str, str]]
    #: Whether answers and failures come in the hosted ``{success, ...}`` envelope.
    enveloped: bool = False
    #: Routes answered in the backend's own dialect even on an enveloped wire.
    passthrough: frozenset[str] = frozenset()
    #: Whether a single-attempt POST carries an ``Idempotency-Key`` claim.
    claims: bool = False
    #: Requests a minute the service allows one user (None: the server's own limit).
    rate_limit: int | None = None
    #: Fields every recall body carries (Direct: ``diagnostics: none``, as the SDK always sends).
    recall_fields: Mapping[str, str] = attrs.field(factory=dict)
    #: Fields every answer body carries (Direct: the SDK's ``view`` and ``diagnostics``).
    answer_fields: Mapping[str, str] = attrs.field(factory=dict)

    def route(self, name: str, *suffix: str) -> str:
        """The path of logical route ``name`` (an erasure id appended as a segment)."""
        return "/".join([self.routes[name], *suffix])


DIRECT = Wire(
    engine_id="cortexdb",
    default_endpoint="https://api-v1.cortexdb.ai",
    routes={
        "experience": "v1/experience",
        "bulk": "v1/experience/bulk",
        "events": "v1/events",
        "recall": "v1/recall",
        "answer": "v1/answer",
        "forget": "v1/forget",
        "scopes": "v1/scopes/list",
        "health": "v1/admin/health",
        "erasures": "v1/erasures",
        "whoami": "v1/auth/whoami",
        "register": "v1/scopes",
    },
    sends_actor=True,
    bulk=True,
    waits_indexed=True,
    health=("health", {}),
    # A token without the diagnostics.read capability is refused a read that asks for them;
    # the SDK sends `none` on every recall and answer so that such tokens succeed.
    recall_fields={"diagnostics": "none"},
    answer_fields={"view": "granular", "diagnostics": "none"},
)

HOSTED = Wire(
    engine_id="tinyhumans",
    default_endpoint="https://api.tinyhumans.ai",
    routes={
        "experience": "memory/experience",
        "events": "memory/events",
        "recall": "memory/recall",
        "answer": "memory/answer",
        "forget": "memory/forget",
        "scopes": "memory/scopes",
        "erasures": "memory/v1/erasures",
        "erase_all": "memory",
    },
    sends_actor=False,
    bulk=False,
    waits_indexed=False,
    # A type the engine never writes: the memory API refuses a bare-word prefix.
    health=("scopes", {"prefix": "tmh:probe", "limit": "1"}),
    enveloped=True,
    passthrough=frozenset({"memory/v1/erasures"}),
    claims=True,
    rate_limit=300,
)
