"""The plugin's README and docs/engines/cortexdb.md, run as written."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))

from doc_examples import examples  # noqa: E402

README = ROOT / "plugins" / "tinymemory-cortex" / "README.md"
PAGE = ROOT / "docs" / "engines" / "cortexdb.md"  # its examples are ```py: the core skips them
CASES = [*examples(README), *examples(PAGE, language="py")]


@pytest.mark.parametrize(("code", "expected"), CASES)
def test_example_runs_and_prints_what_it_shows(code: str, expected: str | None) -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "example", "exec"), {"__name__": "docs"})
    assert expected is not None
    assert output.getvalue() == expected


def test_every_setting_is_documented() -> None:
    from tinymemory_cortex.plugin import OPTIONS

    page = (ROOT / "docs" / "engines" / "cortexdb.md").read_text(encoding="utf-8")
    for name in (*OPTIONS, "endpoint", "scope_root", "headers", "tenant_root"):
        assert f"`{name}`" in page
