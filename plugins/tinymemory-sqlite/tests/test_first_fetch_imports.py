"""A new process's first fetch imports what the read needs, and nothing a store, a conversion or
another plugin needs (the start-up figures of ``benchmarks/import_time.py`` rest on this).

Each fetch runs in a new process, which names the modules it imported: through the public API
(``tinymemory.build_engine``, as the README builds an engine) and through :class:`SqliteEngine`.
Every other tinymemory plugin installed beside this one stays unimported (the safety plugin's
scrubbers load with the first store, not with a read), but the one naming the default
embedder, which the registry builds the engine with (its model loads with the first embed).
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.testing import Sandbox
from tinymemory_sqlite import SqliteEngine

#: argv: the file, the mode, how the engine is made. Fetch once; print the modules imported.
PROBE = """
import json, sys
import tinymemory as tm
path, mode, how = sys.argv[1:]
if how == "build_engine":
    engine = tm.build_engine("sqlite", tm.EngineSettings(options={"path": path}))
else:
    from tinymemory_sqlite import SqliteEngine
    engine = SqliteEngine(path)
with engine:
    page = engine.fetch(tm.FetchRequest(query="lantern harbour", mode=mode, limit=2))
print(json.dumps({"hits": len(page.hits), "modules": sorted(sys.modules)}))
"""

#: Never needed by a fetch without a filter: the JSON converter, the command line.
NOT_FOR_A_READ = {"cattrs", "click"}
#: What only the plugin system needs: engines made through the registry load it.
PLUGIN_SYSTEM = {"pluggy", "importlib.metadata"}
#: What only vectors need.
VECTORS = {"numpy", "numkong"}


def other_plugins() -> set[str]:
    """The top-level packages of every other tinymemory plugin installed here, but the one
    naming the default embedder (through the registry, the engine is built with it)."""

    def packages(group: str) -> set[str]:
        return {entry.module.split(".")[0] for entry in entry_points(group=group)}

    return packages("tinymemory") - packages("tinymemory.default_embedder") - {"tinymemory_sqlite"}


@pytest.fixture(scope="module")
def memory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("first-fetch") / "memory.db"
    with SqliteEngine(path) as engine:
        engine.store_many(
            [
                tm.Learning(text=f"note {n}: the lantern by the harbour, number {n}")
                for n in range(30)
            ]
        )
    return path


def first_fetch(memory: Path, sandbox: Sandbox, mode: str, how: str) -> set[str]:
    """The modules of a new process that fetched once (``how``: build_engine or SqliteEngine)."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(memory), mode, how],
        capture_output=True,
        text=True,
        env=sandbox.env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["hits"] == 2
    return set(report["modules"])


def loaded(modules: set[str], names: set[str]) -> set[str]:
    """Those of ``names`` (modules or packages) among ``modules``."""
    return {name for name in names if any(m == name or m.startswith(name + ".") for m in modules)}


@pytest.mark.parametrize("how", ["build_engine", "SqliteEngine"])
def test_a_first_keyword_fetch_imports_no_converter_vectors_or_other_plugin(
    memory: Path, sandbox: Sandbox, how: str
) -> None:
    modules = first_fetch(memory, sandbox, "keyword", how)
    assert loaded(modules, NOT_FOR_A_READ | VECTORS | other_plugins()) == set()
    assert loaded(modules, {"requests", "psycopg", "tinymemory_safety"}) == set()
    if how == "SqliteEngine":
        assert loaded(modules, PLUGIN_SYSTEM) == set()


@pytest.mark.parametrize("how", ["build_engine", "SqliteEngine"])
def test_a_first_vector_fetch_adds_numpy_and_nothing_else(
    memory: Path, sandbox: Sandbox, how: str
) -> None:
    modules = first_fetch(memory, sandbox, "vector", how)
    assert loaded(modules, VECTORS) == VECTORS
    assert loaded(modules, NOT_FOR_A_READ | other_plugins()) == set()
