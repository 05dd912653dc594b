"""The conformance suite, alone, against a copy of the reference engine: a test of the mutation run.

``run.py`` copies ``tinymemory/reference.py`` to the module ``reference_under_test`` of the
folder it lays out, and mutates that copy only. The suite's oracle keeps comparing with the
unmutated ``tinymemory.reference``, so a mutant dies for what its engine does, not because
the oracle changed along with it. Not collected by the core's own test run (its name does
not start with ``test_``).
"""

from __future__ import annotations

from reference_under_test import ReferenceEngine  # type: ignore[import-not-found]

from tinymemory import MemoryEngine
from tinymemory.conformance import ConformanceTests


class TestReference(ConformanceTests):
    """Each engine is a store of its own, in memory."""

    profile = "mutation"

    def make_engine(self) -> MemoryEngine:
        engine: MemoryEngine = ReferenceEngine()
        return engine
