"""The examples of docs/safety.md, of the plugin's README and of the root README's section.

The core's tests run only ``python`` blocks of the root README and docs/,
without this plugin installed, so those pages show the plugin's examples as
``py`` blocks; here, with the plugin installed, they run and must print what
the page shows.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import enter

from tinymemory.testing import Sandbox, reset_plugins

ROOT = Path(__file__).resolve().parents[3]
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)
SAFETY_SECTION = re.compile(r"^## Secrets and personal data\n(.*?)(?=^## )", re.S | re.M)


def blocks(text: str, language: str, name: str) -> list[pytest.param]:
    """``(code, expected output or None)`` for each ``language`` block of ``text``."""
    found = FENCE.findall(text)
    examples = []
    for index, (fence, body) in enumerate(found):
        if fence != language:
            continue
        following = found[index + 1] if index + 1 < len(found) else ("", "")
        expected = following[1] if following[0] == "text" else None
        examples.append(pytest.param(body, expected, id=f"{name}-{len(examples) + 1}"))
    return examples


def _readme_section() -> str:
    match = SAFETY_SECTION.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert match, "the root README has a safety section"
    return match.group(1)


EXAMPLES = [
    *blocks((ROOT / "docs" / "safety.md").read_text(encoding="utf-8"), "py", "safety.md"),
    *blocks(
        (ROOT / "plugins" / "tinymemory-safety" / "README.md").read_text(encoding="utf-8"),
        "python",
        "plugin-README",
    ),
    *blocks(_readme_section(), "py", "README"),
]


@pytest.fixture(autouse=True)
def _installed_plugins_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The installed plugins, no user configuration, the default policy."""
    config = tmp_path / "config.toml"
    config.write_text('engine = "reference"\n', encoding="utf-8")
    enter(Sandbox(tmp_path / "sandbox", {"TINYMEMORY_CONFIG": str(config)}), monkeypatch)
    reset_plugins()
    yield
    reset_plugins()


def test_every_page_has_examples() -> None:
    assert len(EXAMPLES) >= 6


@pytest.mark.parametrize(("code", "expected"), EXAMPLES)
def test_example_runs_and_prints_what_it_shows(code: str, expected: str | None) -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "example", "exec"), {"__name__": "docs"})
    if expected is not None:
        assert output.getvalue() == expected
