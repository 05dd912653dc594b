"""The conformance suite run from a script: run(), its report, and how it fails."""

from __future__ import annotations

import time

import pytest
from broken_engines import ListIgnoresReach, ReportsDown, UndercountsExplore, Wrapped
from doc_examples import ROOT

from tinymemory import (
    ConfigError,
    EraseReport,
    EraseRequest,
    ExportPage,
    ListRequest,
    ReferenceEngine,
    Unsupported,
)
from tinymemory.conformance import CHECK_NAMES, CheckFailed, Outcome, Report, run


class RefusesExportAndErase(Wrapped):
    def handle_export(self, request: ListRequest) -> ExportPage:
        raise Unsupported("this engine does not export")

    def handle_erase(self, request: EraseRequest) -> EraseReport:
        raise Unsupported("this engine does not erase")


def test_the_reference_engine_passes_every_check():
    report = run(ReferenceEngine, profile="ci")
    assert report.passed, str(report)
    assert [result.check for result in report.results] == list(CHECK_NAMES)
    assert {result.outcome for result in report.results} == {Outcome.PASSED}
    assert report.engine == "reference"
    assert report.profile == "ci"


def test_export_and_erase_refused_with_unsupported_are_skipped_not_failed():
    report = run(RefusesExportAndErase, profile="ci")
    assert report.passed, str(report)
    assert [result.check for result in report.skipped] == [
        "export",
        "erase",
        "erase_levels",
        "erase_count",
    ]
    assert "refuses export with Unsupported" in report.skipped[0].detail


def test_a_failure_names_the_check_the_call_and_both_answers():
    report = run(ReportsDown, checks=["health", "round_trip"])
    assert not report.passed
    (failure,) = report.failed
    assert failure.check == "health"
    assert (
        failure.detail == "health: health()\n  expected: ok or degraded\n  got: down (maintenance)"
    )


def test_a_random_failure_carries_hypothesis_minimal_example():
    report = run(UndercountsExplore, profile="ci", checks=["matches_reference"])
    (failure,) = report.failed
    assert failure.detail.startswith("matches_reference: explore {")
    # Hypothesis heads its example "Falsifying example:" or, since 6.16x, "Failing test case:".
    assert "Falsifying example:" in failure.detail or "Failing test case:" in failure.detail
    assert "\nstate = EngineMatchesReference()\nstate.reads_agree()\n" in failure.detail


def test_the_isolation_check_fails_one_engine_passed_as_two_users():
    shared = ReferenceEngine()
    report = run(ReferenceEngine, pair=lambda: (shared, shared), checks=["isolation"])
    (failure,) = report.failed
    assert failure.check == "isolation"
    assert "B: list" in failure.detail
    assert "nothing of A's" in failure.detail


def test_a_factory_that_fails_fails_every_check_saying_why():
    def broken() -> ReferenceEngine:
        raise RuntimeError("no database here")

    report = run(broken, checks=["health", "get"])
    assert report.engine == "unknown"
    assert [result.check for result in report.failed] == ["health", "get"]
    assert "factory()" in report.failed[0].detail
    assert "RuntimeError (not one of the contract's errors): no database here" in (
        report.failed[0].detail
    )


def test_progress_hears_each_result_in_order():
    heard: list[str] = []
    run(ReferenceEngine, checks=["get", "health"], on_result=lambda r: heard.append(r.check))
    assert heard == ["health", "get"]


def test_the_report_reads_as_a_summary():
    report = run(ListIgnoresReach, checks=["replay", "namespaces"])
    text = str(report)
    assert text.splitlines()[0] == "conformance of `reference` (default profile)"
    assert "  passed   replay" in text
    assert "  failed   namespaces" in text
    assert text.splitlines()[-1] == "1 passed, 1 failed, 0 skipped"
    assert isinstance(report, Report)


def test_unknown_check_or_profile_is_a_config_error():
    with pytest.raises(ConfigError, match="unknown conformance check nope"):
        run(ReferenceEngine, checks=["nope"])
    with pytest.raises(ConfigError, match="unknown conformance profile `fast`"):
        run(ReferenceEngine, profile="fast")


def test_check_failed_message_layout():
    error = CheckFailed("get", "get([a, b])", "[a, b]", "[b, a]")
    assert str(error) == "get: get([a, b])\n  expected: [a, b]\n  got: [b, a]"
    assert isinstance(error, AssertionError)


def test_the_docs_page_describes_every_check():
    page = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    for name in CHECK_NAMES:
        assert f"| `{name}` |" in page, name


def test_a_factory_that_makes_no_engine_is_named():
    report = run(lambda: "not an engine", checks=["health"])  # type: ignore[arg-type, return-value]
    (failure,) = report.failed
    assert failure.detail == ("health: factory()\n  expected: MemoryEngine instances\n  got: str")


class HalfSecondPerExample:
    """A stand-in for the ``time`` module, whose clocks read ``now``; the rest is the real one."""

    def __init__(self) -> None:
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now

    def monotonic(self) -> float:
        return self.now

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


def test_shrinking_stops_within_its_bound_without_asking_for_a_report(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    from hypothesis import given
    from hypothesis import strategies as st
    from hypothesis.internal.conjecture import engine

    from tinymemory.conformance.properties import bounded_shrinking, example_settings

    # Hypothesis' engine reads its clock through its `time` module: the test's clock stands
    # in, and each example takes half a second of it, so no run waits on the wall clock.
    clock = HalfSecondPerExample()
    failing: list[float] = []

    @example_settings(200)
    @given(st.lists(st.integers(), min_size=1))
    def slow_to_shrink(numbers: list[int]) -> None:
        clock.now += 0.5
        if sum(map(abs, numbers)) >= 10_000:
            failing.append(clock.now)
            raise AssertionError("too big")

    monkeypatch.setattr(engine, "time", clock)
    with bounded_shrinking(1), pytest.raises(AssertionError, match="too big") as failure:
        slow_to_shrink()
    # Once the first failure is found, the shrinking gives up soon after a second of that
    # clock (checked between its passes), where Hypothesis' own five minutes allow all.
    assert failing[-1] - failing[0] < 10  # about 5 s of it here; about 30 s unbounded
    assert any("slow_to_shrink(" in note for note in failure.value.__notes__)
    assert "PLEASE REPORT" not in capsys.readouterr().out
    from hypothesis.internal.conjecture import engine

    assert engine.MAX_SHRINKING_SECONDS == 300
