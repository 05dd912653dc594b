"""The plugin's hook: the engine ``postgres``.

Options are :mod:`tinymemory_postgres.settings`'s; the credential's key is
the password. ``test_settings`` (the conformance suite's throwaway settings)
need a server: the one whose connection string
``$TINYMEMORY_POSTGRES_TEST_CONNINFO`` holds (``python -m
tinymemory_postgres.cluster`` starts one and sets it), with a fresh schema
per folder.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from tinymemory import ConfigError, EngineCredential, EngineSettings, MemoryEngine
from tinymemory.plugin import EngineFactory, answerer_named, embedder_named, hookimpl

from .cluster import TEST_CONNINFO_VARIABLE
from .descriptor import DESCRIPTOR
from .settings import ServerSettings


def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    """The engine for these settings; an unknown option, embedder or answerer is ``ConfigError``."""
    server = ServerSettings.from_options(settings.options)
    embedder = None if server.embedder is None else embedder_named(server.embedder)
    named = settings.options.get("answerer")
    answerer = None if named is None else answerer_named(named)
    from .engine import PostgresEngine

    return PostgresEngine(server, credential, embedder=embedder, answerer=answerer)


def test_settings(folder: Path) -> EngineSettings:
    """Throwaway settings: a schema of its own, named after ``folder``, on the test server."""
    conninfo = os.environ.get(TEST_CONNINFO_VARIABLE)
    if not conninfo:
        raise ConfigError(
            f"the postgres engine's test settings need a throwaway server: set "
            f"{TEST_CONNINFO_VARIABLE}, or run under `python -m tinymemory_postgres.cluster`"
        )
    digest = hashlib.sha256(str(folder.resolve()).encode("utf-8")).hexdigest()[:16]
    return EngineSettings(options={"conninfo": conninfo, "schema": f"tm_test_{digest}"})


@hookimpl
def tinymemory_engines() -> list[EngineFactory]:
    """The server engine ``postgres``."""
    return [EngineFactory(descriptor=DESCRIPTOR, build=build, test_settings=test_settings)]
