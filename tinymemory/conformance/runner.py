"""Running the suite without pytest: :func:`run` and its :class:`Report`."""

from __future__ import annotations

import enum
import time
import traceback
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from tinymemory._errors import TinyMemoryError

from .checks import checks_named, random_checks_wait
from .failures import CheckFailed, CheckSkipped
from .harness import EngineMaker, PairMaker, Subject
from .profiles import keep_hypothesis_files_out_of_the_working_folder, profile_named


class Outcome(enum.Enum):
    """How a check ended."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


@attrs.frozen
class CheckResult:
    """One check's outcome, why (for a failure or a skip), and how long it took."""

    check: str
    outcome: Outcome
    detail: str = ""
    seconds: float = 0.0


@attrs.frozen
class Report:
    """The outcome of every check run against one engine."""

    engine: str
    profile: str
    results: tuple[CheckResult, ...]

    @property
    def passed(self) -> bool:
        """Whether no check failed (skipped checks do not fail an engine)."""
        return not self.failed

    @property
    def failed(self) -> tuple[CheckResult, ...]:
        """The failed checks."""
        return self._with(Outcome.FAILED)

    @property
    def skipped(self) -> tuple[CheckResult, ...]:
        """The skipped checks."""
        return self._with(Outcome.SKIPPED)

    def _with(self, outcome: Outcome) -> tuple[CheckResult, ...]:
        return tuple(result for result in self.results if result.outcome is outcome)

    def as_data(self) -> dict[str, Any]:
        """The report as plain JSON data."""
        return {
            "engine": self.engine,
            "profile": self.profile,
            "passed": self.passed,
            "results": [
                {
                    "check": result.check,
                    "outcome": result.outcome.value,
                    "detail": result.detail,
                    "seconds": result.seconds,
                }
                for result in self.results
            ],
        }

    def __str__(self) -> str:
        lines = [f"conformance of `{self.engine}` ({self.profile} profile)"]
        for result in self.results:
            lines.append(f"  {result.outcome.value:<8} {result.check} ({result.seconds:.2f} s)")
            if result.detail:
                lines.extend("           " + line for line in result.detail.splitlines())
        counts = {outcome: len(self._with(outcome)) for outcome in Outcome}
        lines.append(", ".join(f"{number} {outcome.value}" for outcome, number in counts.items()))
        return "\n".join(lines)


def _failure_detail(error: BaseException) -> str:
    """A failure's message with Hypothesis' minimal example (its notes), if any."""
    if isinstance(error, (CheckFailed, TinyMemoryError)):
        text = str(error)
    else:
        text = "".join(traceback.format_exception_only(error)).rstrip()
    notes = getattr(error, "__notes__", None) or []
    return "\n".join([text, *notes])


def _engine_id(subject: Subject) -> str:
    """The engine's id, or ``unknown`` when the factory fails (each check then says why)."""
    try:
        engine = subject.build("health")
    except CheckFailed:
        return "unknown"
    try:
        return engine.descriptor.id
    finally:
        engine.close()


def run(
    factory: EngineMaker,
    *,
    pair: PairMaker | None = None,
    profile: str | None = None,
    checks: Iterable[str] | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
    pair_hint: str = "pass run() a pair= factory building two users of one store",
) -> Report:
    """Run the suite against the engines ``factory`` builds, one fresh engine per check.

    ``pair`` builds two users of one store for the isolation check (two
    engines from ``factory`` when not given). ``profile`` picks the random
    example budget (``default``, ``ci``, ``thorough`` or ``mutation``);
    ``checks`` runs only the checks named; ``on_result`` hears each result as it comes (for
    progress); ``pair_hint`` is what the isolation check asks for when two
    engines from ``factory`` turn out to share a store. Nothing is raised
    for a failing engine: read the report.
    Once a fixed check fails, the random checks are reported skipped, saying
    why. Hypothesis keeps its files in the temporary folder unless
    ``HYPOTHESIS_STORAGE_DIRECTORY`` says otherwise.
    """
    chosen = checks_named(None if checks is None else tuple(checks))
    keep_hypothesis_files_out_of_the_working_folder()
    subject = Subject(factory, pair, profile_named(profile), pair_hint=pair_hint)
    engine_id = _engine_id(subject)
    results = []
    failed_fixed: str | None = None
    for check in chosen:
        started = time.perf_counter()
        waiting = random_checks_wait(check, failed_fixed)
        try:
            if waiting is not None:
                raise CheckSkipped(check.name, waiting)
            check.run(subject)
        except CheckSkipped as skip:
            outcome, detail = Outcome.SKIPPED, skip.reason
        except Exception as error:  # a failure, or an engine or suite error: all reported
            outcome, detail = Outcome.FAILED, _failure_detail(error)
            if check.fixed and failed_fixed is None:
                failed_fixed = check.name
        else:
            outcome, detail = Outcome.PASSED, ""
        elapsed = time.perf_counter() - started
        result = CheckResult(check.name, outcome, detail, round(elapsed, 3))
        results.append(result)
        if on_result is not None:
            on_result(result)
    return Report(engine_id, subject.profile.name, tuple(results))
