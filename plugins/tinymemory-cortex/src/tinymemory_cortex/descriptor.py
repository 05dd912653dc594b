"""What the engine ``cortexdb`` says it is, readable without building it."""

from __future__ import annotations

from tinymemory import EngineDescriptor, FetchMode

from .wire import DIRECT

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
