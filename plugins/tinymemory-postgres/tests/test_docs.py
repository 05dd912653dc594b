"""The plugin's README and docs/engines/postgres.md, run as written against the tests' server."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

from tinymemory_postgres.cluster import ThrowawayCluster

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))

from doc_examples import examples  # noqa: E402

README = ROOT / "plugins" / "tinymemory-postgres" / "README.md"
PAGE = ROOT / "docs" / "engines" / "postgres.md"  # its examples are ```py: the core skips them
CASES = [*examples(README), *examples(PAGE, language="py")]


@pytest.mark.parametrize(("code", "expected"), CASES)
def test_example_runs_and_prints_what_it_shows(
    code: str, expected: str | None, cluster: ThrowawayCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", cluster.socket_conninfo)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "example", "exec"), {"__name__": "docs"})
    assert expected is not None, "every example shows what it prints"
    assert output.getvalue() == expected


def test_each_page_has_an_example() -> None:
    assert examples(README)
    assert examples(PAGE, language="py")
