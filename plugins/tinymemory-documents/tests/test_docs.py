"""The plugin's README and docs/documents.md: every python example runs and prints what it shows."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))

from doc_examples import examples  # noqa: E402

PAGES = [ROOT / "plugins" / "tinymemory-documents" / "README.md", ROOT / "docs" / "documents.md"]


@pytest.mark.parametrize(("code", "expected"), [case for page in PAGES for case in examples(page)])
def test_the_example_runs_and_prints_what_it_shows(code: str, expected: str | None) -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "example", "exec"), {"__name__": "docs"})
    if expected is not None:
        assert output.getvalue() == expected


def test_every_page_has_examples() -> None:
    assert all(examples(page) for page in PAGES)
