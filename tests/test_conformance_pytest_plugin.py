"""The pytest plugin and the base test class, run as a plugin author runs them."""

from __future__ import annotations

import resource
import subprocess
import sys

import pytest

from tinymemory.conformance import CHECK_NAMES

QUIET = ("-p", "no:cacheprovider", "--tinymemory-profile=ci")


def test_the_option_runs_the_whole_suite_from_an_empty_folder(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    result = pytester.runpytest_subprocess("--tinymemory-engine=reference", *QUIET)
    result.assert_outcomes(passed=len(CHECK_NAMES))
    result.stdout.fnmatch_lines(
        [
            "tinymemory conformance: engine `reference`, ci profile, the engine's throwaway test"
            " settings, in a temporary folder removed afterwards"
        ]
    )
    assert not (pytester.path / ".hypothesis").exists()


def test_a_node_id_pasted_back_runs_that_check_alone(pytester: pytest.Pytester):
    listed = pytester.runpytest_subprocess(
        "--tinymemory-engine=reference", "--collect-only", "-q", *QUIET
    )
    (node,) = [line for line in listed.stdout.lines if line.endswith("::test_paging")]
    result = pytester.runpytest_subprocess("--tinymemory-engine=reference", node, "-v", *QUIET)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["::TestInstalledEngine::test_paging PASSED*"])


def test_settings_given_are_named_in_the_header(pytester: pytest.Pytester):
    result = pytester.runpytest_subprocess(
        "--tinymemory-engine=reference", "--tinymemory-settings={}", "-k", "health", *QUIET
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "tinymemory conformance: engine `reference`, ci profile, the settings of"
            " --tinymemory-settings"
        ]
    )


def test_the_suite_runs_beside_tests_named_on_the_command_line(pytester: pytest.Pytester):
    pytester.makepyfile(test_own="def test_own(): pass")
    result = pytester.runpytest_subprocess(
        "--tinymemory-engine=reference", "-k", "own or health", "test_own.py", *QUIET
    )
    result.assert_outcomes(passed=2)


def test_without_the_option_nothing_is_added(pytester: pytest.Pytester):
    pytester.makepyfile(test_own="def test_own(): pass")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (
            ["--tinymemory-engine=nope"],
            "*no installed engine `nope`; installed engines: *reference*",
        ),
        (
            ["--tinymemory-engine=reference", "--tinymemory-settings={bad"],
            "*--tinymemory-settings is not valid JSON*",
        ),
        (
            ["--tinymemory-engine=reference", "--tinymemory-peer-settings=[1]"],
            "*--tinymemory-peer-settings must be a JSON object*",
        ),
        (
            ["--tinymemory-engine=reference", '--tinymemory-settings={"endpoint": 3}'],
            "*`endpoint` must be a string*",
        ),
    ],
)
def test_bad_options_are_usage_errors(pytester: pytest.Pytester, options, message):
    result = pytester.runpytest_subprocess(*options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_a_subclass_runs_the_suite_against_its_own_engine(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_mine="""
        from tinymemory import EngineHealth, ReferenceEngine, Unsupported
        from tinymemory.conformance import ConformanceTests

        class DownEngine(ReferenceEngine):
            def health(self):
                return EngineHealth.down("maintenance")

            def handle_export(self, request):
                raise Unsupported("no export here")

        class TestMine(ConformanceTests):
            profile = "ci"

            def make_engine(self):
                return DownEngine()
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfs")
    result.assert_outcomes(passed=len(CHECK_NAMES) - 5, failed=1, skipped=4)
    result.stdout.fnmatch_lines(
        [
            "*health: health()",
            "*expected: ok or degraded",
            "*got: down (maintenance)",
            "FAILED test_mine.py::TestMine::test_health - health: expected ok or degraded;*",
            "SKIPPED*: the engine refuses export with Unsupported",
            "SKIPPED*: the fixed check `health` failed; the random checks run"
            " once every fixed check passes",
        ]
    )


def test_a_subclass_without_make_engine_says_what_is_missing(pytester: pytest.Pytester):
    pytester.makepyfile(
        test_mine="""
        from tinymemory.conformance import ConformanceTests

        class TestMine(ConformanceTests):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "health")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*TestMine must define make_engine()*"])


def test_the_plugin_loads_no_suite_until_asked():
    # pytest imports the plugin in every run where tinymemory is installed.
    code = (
        "import sys, tinymemory.conformance.pytest_plugin; "
        "print(sorted(m for m in sys.modules if m == 'hypothesis' or m.startswith("
        "('tinymemory.conformance.', 'tinymemory.reference')) and not m.endswith('pytest_plugin')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_a_broken_engine_fails_fast_through_pytest_on_the_default_profile(
    pytester: pytest.Pytester,
):
    # The product path: every check, the default profile; the fixed check that builds the
    # fault fails and the random checks wait, so no shrinking runs.
    pytester.makepyfile(
        test_broken="""
        from tinymemory import ReferenceEngine
        from tinymemory.conformance import ConformanceTests

        class CitesTooMuch(ReferenceEngine):
            def handle_recall(self, request):
                return super().handle_recall(type(request)(
                    question=request.question, filter=request.filter, limit=request.limit + 2
                ))

        class TestBroken(ConformanceTests):
            profile = "default"

            def make_engine(self):
                return CitesTooMuch()
        """
    )
    # The child's CPU seconds, not the wall clock's: a loaded machine stretches the one only.
    started = children_cpu_seconds()
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert children_cpu_seconds() - started < 60
    result.assert_outcomes(passed=len(CHECK_NAMES) - 4, failed=1, skipped=3)
    result.stdout.fnmatch_lines(
        ["FAILED test_broken.py::TestBroken::test_recall - recall: expected 1 to 5 cita*"]
    )


def test_without_hypothesis_the_suite_names_the_extra_to_install(pytester: pytest.Pytester):
    pytester.makeconftest("import sys\nsys.modules['hypothesis'] = None\n")
    result = pytester.runpytest_subprocess(
        "-p", "no:hypothesispytest", "--tinymemory-engine=reference"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    code = (
        "import sys; sys.modules['hypothesis'] = None\n"
        "from tinymemory.conformance import ConformanceTests"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 1
    assert (
        "the TinyMemory conformance suite needs Hypothesis: pip install 'tinymemory[conformance]'"
    ) in done.stderr


def test_the_profile_option_offers_every_profile(pytester: pytest.Pytester):
    from tinymemory.conformance.profiles import PROFILES

    result = pytester.runpytest_subprocess("--help")
    assert f"--tinymemory-profile={{{','.join(PROFILES)}}}" in result.stdout.str()


def children_cpu_seconds() -> float:
    """CPU seconds (user and system) of every child process waited for so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime
