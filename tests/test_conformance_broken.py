"""The suite against engines that each break one rule: every one must fail, fast.

Each broken engine runs through the suite as a plugin author runs it (every
check, the default profile): the fixed check named for its fault must fail,
the random checks must wait, and the whole set must be caught well within
the time budget. The property checks and the state machine must still catch
the faults they can see when run on their own.
"""

from __future__ import annotations

import time

import pytest
from broken_engines import (
    FAULTS,
    GetsOutOfOrder,
    IgnoresFetchFilter,
    ListIgnoresReach,
    NeverReplays,
    ServesBestPieces,
    UndercountsExplore,
    Wrapped,
)
from doc_examples import ROOT

from tinymemory.conformance import CHECKS, Outcome, run
from tinymemory.conformance.checks import FIXED_CHECK_NAMES

RANDOM_CHECKS = [check.name for check in CHECKS if not check.fixed]
#: The most seconds a broken engine may take to fail, on the default profile: CPU seconds of
#: this process (every engine here runs in it), so that a busy machine does not fail the test.
BUDGET = 20


@pytest.mark.parametrize("engine", [Wrapped, ServesBestPieces], ids=lambda x: x.__name__)
def test_the_wrappers_themselves_pass(engine: type[Wrapped]):
    report = run(engine, profile="ci")
    assert report.passed, str(report)


@pytest.mark.parametrize(
    ("engine", "check"), FAULTS.items(), ids=lambda x: getattr(x, "__name__", x)
)
def test_each_fault_fails_its_named_check_and_the_random_checks_wait(
    engine: type[Wrapped], check: str
):
    # The whole suite runs every fixed check before the random ones, so this one run also holds
    # that the fault is caught by the fixed checks alone, within the budget.
    assert check in FIXED_CHECK_NAMES
    started = time.process_time()
    report = run(engine)
    elapsed = time.process_time() - started
    failed = {result.check: result.detail for result in report.failed}
    assert check in failed, str(report)
    assert failed[check].startswith(f"{check}: ")
    assert "\n  expected: " in failed[check]
    assert "\n  got: " in failed[check]
    first = next(name for name in FIXED_CHECK_NAMES if name in failed)
    waiting = {result.check: result for result in report.results if result.check in RANDOM_CHECKS}
    assert [result.outcome for result in waiting.values()] == [Outcome.SKIPPED] * 3
    assert all(f"the fixed check `{first}` failed" in r.detail for r in waiting.values())
    assert elapsed < BUDGET


def test_every_fixed_check_has_a_broken_engine_it_catches():
    # Isolation is tested with one engine passed as two users (test_conformance.py).
    caught = set(FAULTS.values()) | {"isolation"}
    assert set(FIXED_CHECK_NAMES) - caught == set()


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


def test_the_docs_table_names_every_broken_engine():
    page = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    table = page[page.index("## Every rule and the check that fails without it") :]
    for engine, check in FAULTS.items():
        rows = [line for line in table.splitlines() if f"`{engine.__name__}`" in line]
        assert rows, engine.__name__
        assert all(f"| `{check}`" in row for row in rows), rows
