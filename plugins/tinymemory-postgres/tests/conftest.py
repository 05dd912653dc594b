"""Shared fixtures: one throwaway PostgreSQL cluster for the session, a fresh schema per test."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest

import tinymemory as tm
from tinymemory_postgres import PostgresEngine
from tinymemory_postgres.cluster import ThrowawayCluster

_SCHEMAS = itertools.count()


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
