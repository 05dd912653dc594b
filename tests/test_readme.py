"""The README's examples run as written and print what it shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)


def examples() -> list[tuple[str, str | None]]:
    """Each python block with the text block right after it, if any."""
    blocks = FENCE.findall(README.read_text(encoding="utf-8"))
    found = []
    for index, (language, body) in enumerate(blocks):
        if language != "python":
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else ("", "")
        found.append((body, following[1] if following[0] == "text" else None))
    return found


def test_the_readme_has_examples():
    assert len(examples()) >= 5


@pytest.mark.parametrize(("code", "expected"), examples())
def test_readme_example_runs_and_prints_what_it_shows(code, expected, monkeypatch):
    monkeypatch.delenv("TINYMEMORY_API_KEY", raising=False)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, str(README), "exec"), {"__name__": "readme"})
    if expected is not None:
        assert output.getvalue() == expected
