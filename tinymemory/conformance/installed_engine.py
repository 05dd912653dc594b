"""The suite against an installed engine, as ``pytest --tinymemory-engine=ID`` runs it.

The pytest plugin collects this module when the option is given; it is not
meant to be imported otherwise.
"""

from __future__ import annotations

import pytest

from .harness import Subject
from .profiles import profile_named
from .pytest_plugin import TARGET_KEY, EngineTarget
from .testcase import ConformanceTests


class TestInstalledEngine(ConformanceTests):
    """Every check against the engine ``--tinymemory-engine`` names."""

    target: EngineTarget

    @pytest.fixture(autouse=True)
    def _engine_target(self, request: pytest.FixtureRequest) -> None:
        self.target = request.config.stash[TARGET_KEY]
        self.profile = self.target.profile

    def conformance_subject(self) -> Subject:
        engine = self.target.engine
        return Subject(
            engine.build,
            engine.build_pair if engine.has_peer else None,
            profile_named(self.profile),
            pair_hint=engine.pair_hint,
        )
