"""The plugin's README and docs/documents.md: every example runs and prints what it shows."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))

from doc_examples import examples  # noqa: E402

README = ROOT / "plugins" / "tinymemory-documents" / "README.md"
# The docs page marks its examples ```py: the core's run of every docs page has no plugin.
PAGE = ROOT / "docs" / "documents.md"


def page_examples() -> list[pytest.param]:
    return [*examples(README), *examples(PAGE, language="py")]


@pytest.mark.parametrize(("code", "expected"), page_examples())
def test_the_example_runs_and_prints_what_it_shows(code: str, expected: str | None) -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "example", "exec"), {"__name__": "docs"})
    if expected is not None:
        assert output.getvalue() == expected


def test_every_page_has_examples() -> None:
    assert examples(README)
    assert examples(PAGE, language="py")
