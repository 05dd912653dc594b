"""The whole conformance suite against the engine on the tests' own server."""

from __future__ import annotations

import itertools

import pytest

import tinymemory as tm
from tinymemory.conformance import ConformanceTests
from tinymemory_postgres.cluster import ThrowawayCluster


class TestOnAServer(ConformanceTests):
    """Each engine gets a schema of its own in one database, as several memories would."""

    profile = "ci"

    @pytest.fixture(autouse=True)
    def _server(self, cluster: ThrowawayCluster, request: pytest.FixtureRequest) -> None:
        self.conninfo = cluster.socket_conninfo
        self.numbers = itertools.count()
        self.prefix = f"conf_{abs(hash(request.node.nodeid)) % 10**8}"

    def make_engine(self) -> tm.MemoryEngine:
        options = {"conninfo": self.conninfo, "schema": f"{self.prefix}_{next(self.numbers)}"}
        return tm.build_engine("postgres", tm.EngineSettings(options=options), scrub=False)
