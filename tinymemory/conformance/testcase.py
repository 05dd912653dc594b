"""The base test class a plugin author subclasses to run the suite under pytest.

::

    from tinymemory.conformance import ConformanceTests

    class TestMyEngine(ConformanceTests):
        def make_engine(self):
            return MyEngine(path=":memory:")

Every check becomes one test method (``test_health``, ``test_fetch_filters``,
...); a check the engine declines (export or erase refused with
``Unsupported``) is reported as skipped. The fixed checks run first; once one
fails, the random checks of the class are skipped, saying why.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tinymemory._engine import MemoryEngine

from .checks import CHECKS, Check, random_checks_wait
from .failures import CheckSkipped
from .harness import Subject
from .profiles import profile_named


class ConformanceTests:
    """Subclass with :meth:`make_engine` (and, for a shared store, :meth:`make_pair`).

    ``profile`` names the random example budget (``default``, ``ci``,
    ``thorough``, ``mutation``); ``None`` reads ``TINYMEMORY_CONFORMANCE_PROFILE``.
    """

    profile: str | None = None

    def make_engine(self) -> MemoryEngine:
        """A fresh, empty engine; called once per check and per random example."""
        raise NotImplementedError(f"{type(self).__name__} must define make_engine()")

    def make_pair(self) -> tuple[MemoryEngine, MemoryEngine]:
        """Two users' engines over one backing store, for the isolation check.

        The default is two engines from :meth:`make_engine`; override it when
        your engine serves several users from one store (one per API key or
        tenant), which is what the isolation check is for.
        """
        return self.make_engine(), self.make_engine()

    def conformance_subject(self) -> Subject:
        """The engine under test as the checks take it."""
        overridden = type(self).make_pair is not ConformanceTests.make_pair
        return Subject(
            self.make_engine,
            self.make_pair if overridden else None,
            profile_named(self.profile),
            pair_hint=f"override {type(self).__name__}.make_pair() to build two users of one store",
        )


#: The first fixed check that failed in each test class, so its random checks wait.
_FAILED_FIXED: dict[type, str] = {}


def _test_method(check: Check) -> Callable[[ConformanceTests], None]:
    def test(self: ConformanceTests) -> None:
        waiting = random_checks_wait(check, _FAILED_FIXED.get(type(self)))
        if waiting is not None:
            pytest.skip(waiting)
        try:
            check.run(self.conformance_subject())
        except CheckSkipped as skipped:
            pytest.skip(skipped.reason)
        except Exception:
            __tracebackhide__ = True  # the failure is the check's, not this wrapper's
            if check.fixed:
                _FAILED_FIXED.setdefault(type(self), check.name)
            raise

    test.__name__ = test.__qualname__ = f"test_{check.name}"
    test.__doc__ = check.summary
    return test


for _check in CHECKS:
    setattr(ConformanceTests, f"test_{_check.name}", _test_method(_check))
