"""The plugin's README examples run as written and print what they show."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))

from doc_examples import examples  # noqa: E402

PLUGIN_README = ROOT / "plugins" / "tinymemory-sources" / "README.md"


@pytest.mark.parametrize(("code", "expected"), examples(PLUGIN_README))
def test_readme_example_runs_and_prints_what_it_shows(code: str, expected: str | None) -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "example", "exec"), {"__name__": "docs"})
    assert output.getvalue() == expected


def test_the_readme_has_its_examples() -> None:
    assert len(examples(PLUGIN_README)) == 3
