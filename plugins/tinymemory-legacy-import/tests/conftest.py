"""Shared fixtures: workspaces built on disk, a scrubbing reference engine, its stored items."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from legacy_workspaces import LegacyBuilder

import tinymemory as tm


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
