"""What the engine ``sqlite`` says it is, readable without loading the engine (or numpy)."""

from __future__ import annotations

from tinymemory import EngineDescriptor, FetchMode

DESCRIPTOR = EngineDescriptor(
    id="sqlite",
    label="SQLite (embedded)",
    description=(
        "One SQLite file on this machine: FTS5 keyword search, vectors from an embedder, "
        "hybrid fusion and extractive recall. No server, no key."
    ),
    fetch_modes=(FetchMode.KEYWORD, FetchMode.VECTOR, FetchMode.HYBRID),
)
