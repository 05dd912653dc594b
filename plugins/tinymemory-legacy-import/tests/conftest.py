"""Shared fixtures: workspaces built on disk, a scrubbing reference engine, its stored items."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from legacy_workspaces import LegacyBuilder

import tinymemory as tm
from tinymemory.testing import Sandbox


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """An isolated home, configuration and data folder: no test reads the user's own."""
    with Sandbox(tmp_path / "sandbox").enter() as entered:
        yield entered


@pytest.fixture
def builder(tmp_path: Path) -> Iterator[LegacyBuilder]:
    """A current-schema workspace with a chunk store at ``tmp_path / "ws"``, closed at the end."""
    built = LegacyBuilder(tmp_path / "ws", chunks=True)
    yield built
    built.close()


@pytest.fixture
def engine() -> Iterator[tm.MemoryEngine]:
    """The reference engine, as build_engine hands it out (scrubbing)."""
    with tm.build_engine("reference") as built:
        yield built
