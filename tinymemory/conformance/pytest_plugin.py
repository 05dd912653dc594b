"""The pytest plugin (entry point ``pytest11``): run the suite against any installed engine.

``pytest --tinymemory-engine=ID`` from any folder collects the whole suite
against that engine, with no test files of your own. Options:

``--tinymemory-settings=JSON``
    the engine's settings as a JSON object, shaped like its table in the
    config file (``endpoint``, ``scope_root``, ``tenant_root``, ``headers``;
    any other key is an engine option, such as ``{"path": ":memory:"}``).
    Without it the suite uses the throwaway test settings the engine's
    factory offers (the sqlite engine: files in a temporary folder), so it
    never writes to a user's memory; the header line says which.
``--tinymemory-peer-settings=JSON``
    settings of a second user of the same backing store, for the isolation
    check (without it, isolation runs between two engines built alike).
``--tinymemory-profile=default|ci|thorough|mutation``
    how many random examples the property checks and the state machine try.

A key for the engine comes from ``TINYMEMORY_API_KEY``, never from an option.
A failing check's line in pytest's short summary says what differed first.
This module imports nothing heavy, since pytest loads it in every run.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Generator
from pathlib import Path
from typing import TYPE_CHECKING

import attrs
import pytest

from tinymemory._errors import TinyMemoryError
from tinymemory._settings import EngineSettings
from tinymemory.conformance import MISSING_HYPOTHESIS

if TYPE_CHECKING:
    from tinymemory.conformance.installed import InstalledEngine


@attrs.frozen
class EngineTarget:
    """The engine the options name, how the suite builds it, and the profile."""

    engine: InstalledEngine
    profile: str | None


TARGET_KEY = pytest.StashKey[EngineTarget]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--tinymemory-*`` options."""
    group = parser.getgroup("tinymemory", "TinyMemory engine conformance")
    group.addoption(
        "--tinymemory-engine",
        metavar="ID",
        help="run the TinyMemory conformance suite against the installed engine ID",
    )
    group.addoption(
        "--tinymemory-settings",
        metavar="JSON",
        help="the engine's settings as a JSON object (its config table)",
    )
    group.addoption(
        "--tinymemory-peer-settings",
        metavar="JSON",
        help="settings of a second user of the same store, for the isolation check",
    )
    group.addoption(
        "--tinymemory-profile",
        # The names of profiles.PROFILES, written out: pytest loads this module in every
        # run, and it imports nothing of the suite until asked (a test holds it to that).
        choices=("default", "ci", "thorough", "mutation"),
        help="random example budget (default: $TINYMEMORY_CONFORMANCE_PROFILE or default)",
    )


def _settings(engine: str, option: str, text: str | None) -> EngineSettings | None:
    from tinymemory._registry import settings_from_json

    if text is None:
        return None
    try:
        return settings_from_json(engine, text, option)
    except TinyMemoryError as error:
        raise pytest.UsageError(error.message) from None


def pytest_configure(config: pytest.Config) -> None:
    """With ``--tinymemory-engine``, check the options and collect the suite."""
    engine = config.getoption("tinymemory_engine")
    if engine is None:
        return
    if importlib.util.find_spec("hypothesis") is None:
        raise pytest.UsageError(MISSING_HYPOTHESIS)
    from tinymemory._registry import list_engines
    from tinymemory._settings import EngineCredential
    from tinymemory.conformance.installed import InstalledEngine
    from tinymemory.conformance.profiles import (
        keep_hypothesis_files_out_of_the_working_folder,
        profile_named,
    )

    installed = [descriptor.id for descriptor in list_engines()]
    if engine not in installed:
        names = ", ".join(sorted(installed)) or "none"
        raise pytest.UsageError(f"no installed engine `{engine}`; installed engines: {names}")
    profile = config.getoption("tinymemory_profile")
    try:
        profile_named(profile)
    except TinyMemoryError as error:
        raise pytest.UsageError(error.message) from None
    settings = _settings(engine, "--tinymemory-settings", config.getoption("tinymemory_settings"))
    peer = _settings(
        engine, "--tinymemory-peer-settings", config.getoption("tinymemory_peer_settings")
    )
    keep_hypothesis_files_out_of_the_working_folder()
    target = InstalledEngine(
        engine,
        EngineCredential.from_env(),
        settings=settings,
        peer_settings=peer,
        fallback=EngineSettings(),
        settings_option="--tinymemory-settings",
        peer_option="--tinymemory-peer-settings=JSON",
        fallback_named="empty settings",
    )
    config.stash[TARGET_KEY] = EngineTarget(engine=target, profile=profile)
    suite = Path(__file__).with_name("installed_engine.py")
    if config.args_source is not pytest.Config.ArgsSource.ARGS:
        config.args[:] = [str(suite)]
        return
    # The suite lives outside the rootdir, so pytest names its tests with an empty
    # path (``::TestInstalledEngine::test_paging``): such a node id, pasted back,
    # runs that test alone.
    config.args[:] = [str(suite) + arg if arg.startswith("::") else arg for arg in config.args]
    if not any(_names_suite(arg, suite) for arg in config.args):
        config.args.append(str(suite))


def _names_suite(arg: str, suite: Path) -> bool:
    """Whether a command-line argument is the suite's file or one of its tests."""
    try:
        return Path(arg.split("::")[0]).resolve() == suite.resolve()
    except OSError:
        return False


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the throwaway engines' temporary folder."""
    target = config.stash.get(TARGET_KEY, None)
    if target is not None:
        target.engine.close()


def pytest_report_header(config: pytest.Config) -> str | None:
    """Name the engine, the profile and the settings under test."""
    target = config.stash.get(TARGET_KEY, None)
    if target is None:
        return None
    from tinymemory.conformance.profiles import profile_named

    profile = profile_named(target.profile).name
    return (
        f"tinymemory conformance: engine `{target.engine.engine_id}`, {profile} profile, "
        f"{target.engine.settings_used}"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed check's line in the short summary: the check and what differed, not a class path."""
    report = yield
    failures = sys.modules.get("tinymemory.conformance.failures")
    error = call.excinfo.value if call.excinfo is not None else None
    crash = getattr(report.longrepr, "reprcrash", None)
    if failures is not None and isinstance(error, failures.CheckFailed) and crash is not None:
        crash.message = error.summary
    return report
