"""The engines the store is tested on, as a host builds them with ``tinymemory.build_engine``.

``sqlite`` keeps a file in the folder given; ``reference`` is in memory;
``cortexdb`` is a tenant of its own (a fresh token) on the CortexDB double of
``tinymemory-cortex``, one loopback server per process, stopped at exit;
``postgres`` is a schema of its own in a throwaway cluster of
``tinymemory-postgres`` (initdb in a temporary folder), one per process,
removed at exit.
In a module of its own name (not ``conftest``), so that LangGraph's suite,
run from its sdist, builds its engines with it too.
"""

from __future__ import annotations

import atexit
import itertools
from pathlib import Path

import tinymemory as tm

NAMES = ("sqlite", "reference", "cortexdb", "postgres")
#: The double answers at once: short visibility polls (as the cortex plugin's tests use).
FAST = {"poll_interval": 0.005, "wait_budget": 2.0, "settle_budget": 0.2, "timeout": 10.0}
_tenants = itertools.count()
_servers: dict[str, str] = {}


def engine_named(name: str, folder: Path | None) -> tm.MemoryEngine:
    """A new, empty engine ``name`` (sqlite: a new file in ``folder``)."""
    if name == "sqlite":
        if folder is None:
            raise tm.ConfigError("the sqlite engine needs a folder for its file")
        path = folder / f"memory-{next(_tenants)}.db"
        return tm.build_engine("sqlite", tm.EngineSettings(options={"path": str(path)}))
    if name == "cortexdb":
        settings = tm.EngineSettings(endpoint=_server("cortexdb"), options=FAST)
        token = tm.EngineCredential.static(f"langgraph-{next(_tenants)}")
        return tm.build_engine("cortexdb", settings, token)
    if name == "postgres":
        options = {"conninfo": _server("postgres"), "schema": f"langgraph_{next(_tenants)}"}
        return tm.build_engine("postgres", tm.EngineSettings(options=options))
    if name == "reference":
        return tm.build_engine("reference")
    raise tm.ConfigError(f"the store is tested on {', '.join(NAMES)}, not {name!r}")


def _server(name: str) -> str:
    """Where the process's server for ``name`` answers, started on first use."""
    if name not in _servers:
        if name == "cortexdb":
            from tinymemory_cortex.testing import DoubleServer

            double = DoubleServer()
            double.__enter__()
            atexit.register(double.__exit__, None, None, None)
            _servers[name] = double.url
        else:
            from tinymemory_postgres.cluster import ThrowawayCluster

            cluster = ThrowawayCluster()
            atexit.register(cluster.remove)
            _servers[name] = cluster.socket_conninfo
    return _servers[name]
