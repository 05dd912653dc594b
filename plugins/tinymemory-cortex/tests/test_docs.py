"""The plugin's README and docs/engines/cortexdb.md, run as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinymemory.testing import Example, examples

PLUGIN = Path(__file__).resolve().parents[1]
README = PLUGIN / "README.md"
# The docs page marks its examples ```py: the core skips them.
PAGE = PLUGIN.parents[1] / "docs" / "engines" / "cortexdb.md"
CASES = [*examples(README), *examples(PAGE, language="py")]


@pytest.mark.parametrize("example", CASES, ids=lambda example: example.name)
def test_example_runs_and_prints_what_it_shows(example: Example) -> None:
    assert example.expected is not None
    assert example.run() == example.expected


def test_every_setting_is_documented() -> None:
    from tinymemory_cortex.plugin import OPTIONS

    page = PAGE.read_text(encoding="utf-8")
    for name in (*OPTIONS, "endpoint", "scope_root", "headers", "tenant_root"):
        assert f"`{name}`" in page
