"""The conformance suite, alone, against the postgres engine: a test of the mutation run.

``run.py`` runs mutmut under ``python -m tinymemory_postgres.cluster``, which starts a
throwaway server and sets ``$TINYMEMORY_POSTGRES_TEST_CONNINFO``; every engine gets a
schema of its own (named after the process and a count, as mutmut runs each mutant in a
forked process). Not collected by the core's own test run (its name does not start with
``test_``).
"""

from __future__ import annotations

import itertools
import os

from tinymemory import EngineCredential, EngineSettings, ItemLimits, MemoryEngine, set_item_limits
from tinymemory.conformance import ConformanceTests
from tinymemory_postgres.cluster import TEST_CONNINFO_VARIABLE
from tinymemory_postgres.plugin import build

# As for sqlite: items at a 1 MiB cap keep each mutant's run short.
set_item_limits(ItemLimits(max_item_bytes=1024 * 1024))

_NUMBERS = itertools.count()


class TestPostgres(ConformanceTests):
    """Each engine gets a schema of its own on the run's throwaway server."""

    profile = "mutation"

    def make_engine(self) -> MemoryEngine:
        schema = f"mutation_{os.getpid()}_{next(_NUMBERS)}"
        options = {"conninfo": os.environ[TEST_CONNINFO_VARIABLE], "schema": schema}
        return build(EngineSettings(options=options), EngineCredential())
