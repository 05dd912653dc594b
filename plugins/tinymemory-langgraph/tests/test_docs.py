"""docs/langgraph.md and the README as written: their examples print what they show, and the
README lists exactly the LangGraph tests the suite expects not to pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from langgraph_swap import EXPECTED

from tinymemory.testing import Example, examples

PLUGIN = Path(__file__).resolve().parents[1]
PAGES = [PLUGIN.parents[1] / "docs" / "langgraph.md", PLUGIN / "README.md"]


@pytest.mark.parametrize(
    "example",
    [case for page in PAGES for case in examples(page, language="py")],
    ids=lambda example: example.name,
)
def test_the_examples_print_what_they_show(example: Example) -> None:
    assert example.expected is not None
    assert example.run() == example.expected


def test_the_readme_lists_every_expected_failure() -> None:
    text = (PLUGIN / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `(test_\w+)` \|", text, re.M))
    assert listed == set(EXPECTED)
    assert f"| {len(EXPECTED)} |" in text
