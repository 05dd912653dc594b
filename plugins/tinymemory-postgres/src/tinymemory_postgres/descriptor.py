"""What the engine ``postgres`` says it is, readable without loading the engine."""

from __future__ import annotations

from tinymemory import EngineDescriptor, FetchMode

DESCRIPTOR = EngineDescriptor(
    id="postgres",
    label="PostgreSQL (server)",
    description=(
        "One schema of a PostgreSQL database, shared by every process and host using it: "
        "full-text keyword search (tsvector, GIN), exact vector search (every vector held in "
        "the process, kept in step with the server; the `vector` extension is not used), "
        "hybrid fusion and extractive recall. The password is the engine's credential."
    ),
    fetch_modes=(FetchMode.KEYWORD, FetchMode.VECTOR, FetchMode.HYBRID),
)
