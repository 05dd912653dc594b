"""The suite against engines that each break one rule: every one must fail.

The fixed checks must catch each fault in the check named for it; the
property checks and the state machine must catch the faults they can see.
"""

from __future__ import annotations

import pytest
from broken_engines import (
    FAULTS,
    GetsOutOfOrder,
    IgnoresFetchFilter,
    ListIgnoresReach,
    NeverReplays,
    UndercountsExplore,
    Wrapped,
)

from tinymemory.conformance import CHECK_NAMES, run

RANDOM_CHECKS = ("stored_items_read_back", "filters_admit_exactly", "matches_reference")
FIXED_CHECKS = [name for name in CHECK_NAMES if name not in RANDOM_CHECKS]


def test_the_wrapper_itself_passes():
    report = run(Wrapped, profile="ci", checks=FIXED_CHECKS)
    assert report.passed, str(report)


@pytest.mark.parametrize(
    ("engine", "check"), FAULTS.items(), ids=lambda x: getattr(x, "__name__", x)
)
def test_each_fault_fails_its_named_check(engine: type[Wrapped], check: str):
    report = run(engine, checks=FIXED_CHECKS)
    failed = {result.check: result.detail for result in report.failed}
    assert check in failed, str(report)
    assert failed[check].startswith(f"{check}: ")
    assert "\n  expected: " in failed[check]
    assert "\n  got: " in failed[check]


@pytest.mark.parametrize(
    ("engine", "check"),
    [
        (IgnoresFetchFilter, "filters_admit_exactly"),
        (NeverReplays, "stored_items_read_back"),
        (ListIgnoresReach, "matches_reference"),
        (UndercountsExplore, "matches_reference"),
    ],
    ids=lambda x: getattr(x, "__name__", x),
)
def test_random_checks_catch_what_they_can_see(engine: type[Wrapped], check: str):
    report = run(engine, profile="ci", checks=[check])
    (failure,) = report.failed
    example = {
        "stored_items_read_back": "read_back(",
        "filters_admit_exactly": "admit_exactly(",
        "matches_reference": "state = EngineMatchesReference()",
    }[check]
    assert example in failure.detail, failure.detail


def test_get_out_of_order_is_also_caught_by_the_namespaces_check():
    # A get that ignores the order named fails wherever get is read back in order.
    report = run(GetsOutOfOrder, checks=["get", "namespaces"])
    assert {result.check for result in report.failed} == {"get", "namespaces"}
