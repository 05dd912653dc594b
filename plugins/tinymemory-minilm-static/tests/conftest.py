"""Shared fixtures: a sandbox per test (never the user's own data or configuration), offline."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tinymemory.testing import Sandbox

# Nothing here may reach a model hub (model2vec, the reference the vectors are held to).
os.environ["HF_HUB_OFFLINE"] = "1"


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """An isolated home, configuration and data folder in the test's folder."""
    with Sandbox(tmp_path, extra={"TINYMEMORY_SQLITE_PATH": None}).enter() as entered:
        yield entered
