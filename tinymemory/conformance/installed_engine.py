"""The suite against an installed engine, as ``pytest --tinymemory-engine=ID`` runs it.

The pytest plugin collects this module when the option is given; it is not
meant to be imported otherwise.
"""

from __future__ import annotations

import pytest

from tinymemory._engine import MemoryEngine
from tinymemory._registry import build_engine
from tinymemory._settings import EngineCredential

from .pytest_plugin import TARGET_KEY, EngineTarget
from .testcase import ConformanceTests


class TestInstalledEngine(ConformanceTests):
    """Every check against the engine ``--tinymemory-engine`` names."""

    target: EngineTarget

    @pytest.fixture(autouse=True)
    def _engine_target(self, request: pytest.FixtureRequest) -> None:
        self.target = request.config.stash[TARGET_KEY]
        self.profile = self.target.profile

    def make_engine(self) -> MemoryEngine:
        return build_engine(
            self.target.engine, self.target.settings, EngineCredential.from_env(), scrub=False
        )

    def make_pair(self) -> tuple[MemoryEngine, MemoryEngine]:
        if self.target.peer_settings is None:
            return super().make_pair()
        peer = build_engine(
            self.target.engine, self.target.peer_settings, EngineCredential.from_env(), scrub=False
        )
        return self.make_engine(), peer
