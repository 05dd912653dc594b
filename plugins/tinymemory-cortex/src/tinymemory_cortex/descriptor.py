"""What the engines ``cortexdb`` and ``tinyhumans`` say they are, readable without building them."""

from __future__ import annotations

from tinymemory import EngineDescriptor, FetchMode

from .wire import DIRECT, HOSTED

DESCRIPTOR = EngineDescriptor(
    id=DIRECT.engine_id,
    label="CortexDB (Direct)",
    description=(
        "CortexDB's own API (v1/*): memory as event logs per kind and namespace node, "
        "ranked recall packs and answers, erasure with receipts. Needs an API key."
    ),
    hosted=True,
    needs_endpoint=True,
    needs_key=True,
    default_endpoint=DIRECT.default_endpoint,
    fetch_modes=(FetchMode.HYBRID,),
)

HOSTED_DESCRIPTOR = EngineDescriptor(
    id=HOSTED.engine_id,
    label="TinyHumans (hosted CortexDB)",
    description=(
        "The TinyHumans memory API (memory/*) in front of CortexDB: the same event logs, "
        "recall and answers, one event per request, 300 requests a minute per user. "
        "Needs a session token or a tiny_live_ key."
    ),
    hosted=True,
    needs_endpoint=True,
    needs_key=True,
    default_endpoint=HOSTED.default_endpoint,
    fetch_modes=(FetchMode.HYBRID,),
)
