"""The whole conformance suite against the installed engine, through the CortexDB double.

Each engine is a tenant of its own (a fresh token), so every engine the
suite builds starts empty; the isolation check's two users are two tokens
of the same double. The engine is built by the registry and speaks HTTP
through its own ``requests`` session; the double answers in-process (through
``responses``, a third of the cost of a loopback round trip), and
``TestOverLoopback`` runs the fixed checks over a real socket too.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import pytest
from conftest import build_against, fresh_token

from tinymemory import MemoryEngine
from tinymemory.conformance import CHECKS, ConformanceTests
from tinymemory_cortex.testing import MOCK_ENDPOINT, CortexDouble, DoubleServer, mocked


class _AgainstTheDouble(ConformanceTests):
    profile = "ci"
    settings: ClassVar[dict[str, object]] = {}
    url = MOCK_ENDPOINT

    def make_engine(self) -> MemoryEngine:
        engine = build_against(self.url, fresh_token(), **self.settings)
        self.built.append(engine)
        return engine

    def make_pair(self) -> tuple[MemoryEngine, MemoryEngine]:
        return self.make_engine(), self.make_engine()


class TestInProcess(_AgainstTheDouble):
    """Every check, the legacy layout (as a default install writes it)."""

    @pytest.fixture(autouse=True)
    def _double(self) -> Iterator[None]:
        self.built: list[MemoryEngine] = []
        with mocked(CortexDouble()):
            yield
        for engine in self.built:
            engine.close()


class TestLayoutV3(TestInProcess):
    """Every fixed and property check in layout v3, below a scope root.

    The state machine runs once, in the legacy layout: a layout changes only
    the scope paths, which every check here reads and writes through, and a
    second run would double the suite's time on CI.
    """

    settings: ClassVar[dict[str, object]] = {"scope_root": "org:42"}
    test_matches_reference = None


class TestOverLoopback(_AgainstTheDouble):
    """The fixed checks over a real HTTP socket on 127.0.0.1."""

    @pytest.fixture(autouse=True)
    def _server(self, server: DoubleServer) -> Iterator[None]:
        self.url = server.url
        self.built = []
        yield
        for engine in self.built:
            engine.close()


# Over a socket the fixed checks are enough: the random ones make the same calls.
for _check in CHECKS:
    if not _check.fixed:
        setattr(TestOverLoopback, f"test_{_check.name}", None)
