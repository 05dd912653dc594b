"""The whole conformance suite against the installed engine, through the double over HTTP.

Each engine is a tenant of its own (a fresh token), so every engine the
suite builds starts empty; the isolation check's two users are two tokens
of the same double.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tinymemory import MemoryEngine
from tinymemory.conformance import ConformanceTests
from tinymemory_cortex.testing import DoubleServer

from conftest import build_against, fresh_token


class TestThroughTheDouble(ConformanceTests):
    """The legacy layout, as a default install writes it."""

    profile = "ci"
    settings: dict[str, object] = {}

    @pytest.fixture(autouse=True)
    def _server(self, server: DoubleServer) -> Iterator[None]:
        self.url = server.url
        self.built: list[MemoryEngine] = []
        yield
        for engine in self.built:
            engine.close()

    def make_engine(self) -> MemoryEngine:
        engine = build_against(self.url, fresh_token(), **self.settings)
        self.built.append(engine)
        return engine

    def make_pair(self) -> tuple[MemoryEngine, MemoryEngine]:
        return self.make_engine(), self.make_engine()


class TestLayoutV3(TestThroughTheDouble):
    """Layout v3 below a scope root."""

    settings = {"scope_root": "org:42"}
