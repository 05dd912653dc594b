"""The plugin's README examples run as written and print what they show."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinymemory.testing import Example, examples

PLUGIN_README = Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.parametrize("example", examples(PLUGIN_README), ids=lambda example: example.name)
def test_readme_example_runs_and_prints_what_it_shows(example: Example) -> None:
    assert example.run() == example.expected


def test_the_readme_has_its_examples() -> None:
    assert len(examples(PLUGIN_README)) == 3
