"""The pytest plugin (entry point ``pytest11``): run the suite against any installed engine.

``pytest --tinymemory-engine=ID`` from any folder collects the whole suite
against that engine, with no test files of your own. Options:

``--tinymemory-settings=JSON``
    the engine's settings as a JSON object, shaped like its table in the
    config file (``endpoint``, ``scope_root``, ``tenant_root``, ``headers``;
    any other key is an engine option, such as ``{"path": ":memory:"}``).
``--tinymemory-peer-settings=JSON``
    settings of a second user of the same backing store, for the isolation
    check (without it, isolation runs between two engines built alike).
``--tinymemory-profile=default|ci|thorough``
    how many random examples the property checks and the state machine try.

A key for the engine comes from ``TINYMEMORY_API_KEY``, never from an option.
This module imports nothing heavy, since pytest loads it in every run.
"""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

from tinymemory._errors import TinyMemoryError
from tinymemory._settings import EngineSettings


@attrs.frozen
class EngineTarget:
    """The engine the options name, its settings and the profile."""

    engine: str
    settings: EngineSettings
    peer_settings: EngineSettings | None
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
        choices=("default", "ci", "thorough"),
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
    from tinymemory._registry import list_engines
    from tinymemory.conformance.profiles import profile_named

    installed = [descriptor.id for descriptor in list_engines()]
    if engine not in installed:
        names = ", ".join(sorted(installed)) or "none"
        raise pytest.UsageError(f"no installed engine `{engine}`; installed engines: {names}")
    profile = config.getoption("tinymemory_profile")
    try:
        profile_named(profile)
    except TinyMemoryError as error:
        raise pytest.UsageError(error.message) from None
    config.stash[TARGET_KEY] = EngineTarget(
        engine=engine,
        settings=_settings(engine, "--tinymemory-settings", config.getoption("tinymemory_settings"))
        or EngineSettings(),
        peer_settings=_settings(
            engine, "--tinymemory-peer-settings", config.getoption("tinymemory_peer_settings")
        ),
        profile=profile,
    )
    suite = str(Path(__file__).with_name("installed_engine.py"))
    if config.args_source is pytest.Config.ArgsSource.ARGS:
        config.args.append(suite)
    else:
        config.args[:] = [suite]


def pytest_report_header(config: pytest.Config) -> str | None:
    """Name the engine and profile under test."""
    target = config.stash.get(TARGET_KEY, None)
    if target is None:
        return None
    from tinymemory.conformance.profiles import profile_named

    profile = profile_named(target.profile).name
    return f"tinymemory conformance: engine `{target.engine}`, {profile} profile"
