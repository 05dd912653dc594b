"""The plugin's README and docs/documents.md: every example runs and prints what it shows."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinymemory.testing import Example, examples

PLUGIN = Path(__file__).resolve().parents[1]
README = PLUGIN / "README.md"
# The docs page marks its examples ```py: the core's run of every docs page has no plugin.
PAGE = PLUGIN.parents[1] / "docs" / "documents.md"
CASES = [*examples(README), *examples(PAGE, language="py")]


@pytest.mark.parametrize("example", CASES, ids=lambda example: example.name)
def test_the_example_runs_and_prints_what_it_shows(example: Example) -> None:
    printed = example.run()
    if example.expected is not None:
        assert printed == example.expected


def test_every_page_has_examples() -> None:
    assert examples(README)
    assert examples(PAGE, language="py")
