"""The conformance suite: the behaviour every engine must show, as a product.

Three ways to run it against an engine:

- ``pytest --tinymemory-engine=ID`` (the ``pytest11`` plugin) from any folder;
- a test class subclassing :class:`ConformanceTests` with ``make_engine()``;
- :func:`run` from a script, which returns a :class:`Report`.

Hypothesis drives the random part; its strategies for every contract type
are public in :mod:`tinymemory.conformance.strategies`. Names are loaded on
first use, so the pytest plugin costs nothing in a run that does not use it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .checks import CHECK_NAMES, CHECKS, Check
    from .failures import CheckFailed, CheckSkipped
    from .harness import EngineMaker, PairMaker, Subject
    from .profiles import PROFILES, Profile
    from .runner import CheckResult, Outcome, Report, run
    from .testcase import ConformanceTests

_HOMES = {
    "CHECK_NAMES": "checks",
    "CHECKS": "checks",
    "Check": "checks",
    "CheckFailed": "failures",
    "CheckSkipped": "failures",
    "EngineMaker": "harness",
    "PairMaker": "harness",
    "Subject": "harness",
    "PROFILES": "profiles",
    "Profile": "profiles",
    "CheckResult": "runner",
    "Outcome": "runner",
    "Report": "runner",
    "run": "runner",
    "ConformanceTests": "testcase",
}

__all__ = [
    "CHECKS",
    "CHECK_NAMES",
    "Check",
    "CheckFailed",
    "CheckResult",
    "CheckSkipped",
    "ConformanceTests",
    "EngineMaker",
    "MISSING_HYPOTHESIS",
    "Outcome",
    "PROFILES",
    "PairMaker",
    "Profile",
    "Report",
    "Subject",
    "run",
]


#: What the suite says when Hypothesis is not installed.
MISSING_HYPOTHESIS = (
    "the TinyMemory conformance suite needs Hypothesis: pip install 'tinymemory[conformance]'"
)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module(f"{__name__}.{home}")
    except ModuleNotFoundError as error:
        if error.name != "hypothesis":
            raise
        raise ModuleNotFoundError(MISSING_HYPOTHESIS, name="hypothesis") from None
    value = getattr(module, name)
    globals()[name] = value
    return value
