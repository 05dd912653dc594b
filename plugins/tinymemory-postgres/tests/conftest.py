"""Shared fixtures: one throwaway PostgreSQL cluster for the session, a fresh schema per test."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.testing import Sandbox
from tinymemory_postgres import PostgresEngine
from tinymemory_postgres.cluster import ThrowawayCluster

_SCHEMAS = itertools.count()


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """An isolated home, configuration and data folder: no test reads the user's own."""
    with Sandbox(tmp_path).enter() as entered:
        yield entered


@pytest.fixture(scope="session")
def cluster() -> Iterator[ThrowawayCluster]:
    """A server of the tests' own: initdb in a temporary folder, removed at the end."""
    started = ThrowawayCluster()
    try:
        yield started
    finally:
        started.remove()


@pytest.fixture
def schema() -> str:
    """A schema name no other test uses."""
    return f"test_{next(_SCHEMAS)}"


@pytest.fixture
def settings(cluster: ThrowawayCluster, schema: str) -> tm.EngineSettings:
    return tm.EngineSettings(options={"conninfo": cluster.socket_conninfo, "schema": schema})


@pytest.fixture
def engine(settings: tm.EngineSettings) -> Iterator[PostgresEngine]:
    built = tm.build_engine("postgres", settings, scrub=False)
    assert isinstance(built, PostgresEngine)
    with built:
        yield built
