"""The whole conformance suite against the installed engine ``tinyhumans``, through the double.

The hosted routes of the CortexDB double answer in memory (the transport's connection seam),
each engine a tenant of its own. The double's rate limiter stays on but is
raised, and so is the engine's own pacing: the real 300 requests a minute
would make the suite wait out real minutes (test_hosted.py proves the
pacing against the real limit's shape on a scaled-down window).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from conftest import build_against, fresh_token

from tinymemory import MemoryEngine
from tinymemory.conformance import ConformanceTests
from tinymemory_cortex.testing import MEMORY_ENDPOINT, CortexDouble, serve_in_memory

#: Requests a minute, for the double and the engine alike, while the suite runs.
SUITE_RATE_LIMIT = 1_000_000


class TestHosted(ConformanceTests):
    """Every check on the hosted wire, in the legacy layout the backend roots under a tenant."""

    profile = "ci"

    @pytest.fixture(autouse=True)
    def _double(self) -> Iterator[None]:
        self.built: list[MemoryEngine] = []
        self.double = CortexDouble(hosted_rate_limit=(SUITE_RATE_LIMIT, 60.0))
        yield
        for engine in self.built:
            engine.close()

    def make_engine(self) -> MemoryEngine:
        engine = build_against(
            MEMORY_ENDPOINT,
            fresh_token(),
            "tinyhumans",
            options={"rate_limit": SUITE_RATE_LIMIT},
        )
        serve_in_memory(engine, self.double)
        self.built.append(engine)
        return engine

    def make_pair(self) -> tuple[MemoryEngine, MemoryEngine]:
        return self.make_engine(), self.make_engine()
