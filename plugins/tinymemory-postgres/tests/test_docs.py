"""The plugin's README and docs/engines/postgres.md, run as written against the tests' server."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinymemory.testing import Example, examples
from tinymemory_postgres.cluster import ThrowawayCluster

PLUGIN = Path(__file__).resolve().parents[1]
README = PLUGIN / "README.md"
# The repository's page of the engine: its examples are ```py, which the core skips.
PAGE = PLUGIN.parents[1] / "docs" / "engines" / "postgres.md"
CASES = [*examples(README), *examples(PAGE, language="py")]


@pytest.mark.parametrize("example", CASES, ids=lambda example: example.name)
def test_example_runs_and_prints_what_it_shows(
    example: Example, cluster: ThrowawayCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", cluster.socket_conninfo)
    assert example.expected is not None, "every example shows what it prints"
    assert example.run() == example.expected


def test_each_page_has_an_example() -> None:
    assert examples(README)
    assert examples(PAGE, language="py")
