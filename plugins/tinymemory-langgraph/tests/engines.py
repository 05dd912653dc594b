"""The engines the store is tested on, as a host builds them with ``tinymemory.build_engine``.

``sqlite`` keeps a file in the folder given; ``reference`` is in memory;
``cortexdb`` is a tenant of its own (a fresh token) on the CortexDB double of
``tinymemory-cortex``, one loopback server per process, stopped at exit.
In a module of its own name (not ``conftest``), so that LangGraph's suite,
run from its sdist, builds its engines with it too.
"""

from __future__ import annotations

import atexit
import itertools
from pathlib import Path

import tinymemory as tm

NAMES = ("sqlite", "reference", "cortexdb")
#: The double answers at once: short visibility polls (as the cortex plugin's tests use).
FAST = {"poll_interval": 0.005, "wait_budget": 2.0, "settle_budget": 0.2, "timeout": 10.0}
_tenants = itertools.count()
_servers: list[str] = []


def engine_named(name: str, folder: Path | None) -> tm.MemoryEngine:
    """A new, empty engine ``name`` (sqlite: a new file in ``folder``)."""
    if name == "sqlite":
        if folder is None:
            raise tm.ConfigError("the sqlite engine needs a folder for its file")
        path = folder / f"memory-{next(_tenants)}.db"
        return tm.build_engine("sqlite", tm.EngineSettings(options={"path": str(path)}))
    if name == "cortexdb":
        settings = tm.EngineSettings(endpoint=_double_url(), options=FAST)
        token = tm.EngineCredential.static(f"langgraph-{next(_tenants)}")
        return tm.build_engine("cortexdb", settings, token)
    if name == "reference":
        return tm.build_engine("reference")
    raise tm.ConfigError(f"the store is tested on {', '.join(NAMES)}, not {name!r}")


def _double_url() -> str:
    if not _servers:
        from tinymemory_cortex.testing import DoubleServer

        server = DoubleServer()
        server.__enter__()
        atexit.register(server.__exit__, None, None, None)
        _servers.append(server.url)
    return _servers[0]
