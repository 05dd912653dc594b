"""The seam between the engine and a CortexDB wire: routes, bodies, headers, health.

The engine speaks logical routes (``experience``, ``events``, ...); a
:class:`Wire` says how each one is spelled and how answers are unwrapped.
This release has the Direct wire (``cortexdb``, ``v1/*``); the hosted wire
(``tinyhumans``, ``memory/*`` in ``{success, data}`` envelopes, one
``Idempotency-Key`` claim per write, no bulk) fills in the same fields.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs


def bare(data: Any) -> Any:
    """A Direct answer is the JSON itself."""
    return data


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
    #: Turns a 2xx JSON body into the answer (the hosted wire unwraps ``data``).
    unwrap: Callable[[Any], Any] = bare

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
        "members": "v1/scopes/members",
    },
    sends_actor=True,
    bulk=True,
    waits_indexed=True,
    health=("health", {}),
)
