"""The browser tests' set-up: one headless Chromium for the session, the README's memory with
what the tests page, filter and forget through, and ``tinymemory ui`` serving it.

The memory is built once (``template``); the read-only server serves a copy for the whole
session, and each write test a copy of its own, so a forget never reaches another test.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .browser_harness import (
    Browser,
    BrowserMissing,
    Memory,
    UiServer,
    chromium,
    seeded_memory,
    serving,
)


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    """Headless Chromium for the whole session (a new profile; downloads into its folder)."""
    folder = tmp_path_factory.mktemp("chromium")
    try:
        driver = chromium(folder / "profile", folder / "downloads")
    except BrowserMissing as missing:
        pytest.fail(str(missing), pytrace=False)
    try:
        yield Browser(driver, folder / "downloads")
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Memory:
    """The tests' memory, built once."""
    return seeded_memory(tmp_path_factory.mktemp("template") / "home")


@pytest.fixture(scope="session")
def memory(template: Memory, tmp_path_factory: pytest.TempPathFactory) -> Memory:
    """The memory the read-only server serves (a copy of the template)."""
    return template.copy(tmp_path_factory.mktemp("served") / "home")


@pytest.fixture(scope="session")
def ui(memory: Memory) -> Iterator[UiServer]:
    """``tinymemory ui`` (read-only) on ``memory``, for the session; it must exit 0 on SIGTERM."""
    with serving(memory.home) as server:
        yield server


@pytest.fixture
def writable(template: Memory, tmp_path: Path) -> Memory:
    """A memory of the test's own, to forget from."""
    return template.copy(tmp_path / "home")


@pytest.fixture
def write_ui(writable: Memory) -> Iterator[UiServer]:
    """``tinymemory ui --write`` on the test's own memory."""
    with serving(writable.home, "--write") as server:
        yield server
