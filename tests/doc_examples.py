"""The python examples of a markdown page, each with the text block that shows its output.

A ```python block is run by the tests; a ```py block is illustration only
(it needs something not installed here, such as your own engine).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)


def examples(page: Path, language: str = "python") -> list[pytest.param]:
    """``(code, expected output or None)`` for each ``language`` block of ``page``.

    A plugin's page whose examples need the plugin marks them ```py (the core's
    run of every page has no plugin) and runs them from its own tests with
    ``language="py"``.
    """
    blocks = FENCE.findall(page.read_text(encoding="utf-8"))
    found = []
    for index, (written, body) in enumerate(blocks):
        if written != language:
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else ("", "")
        expected = following[1] if following[0] == "text" else None
        name = f"{page.relative_to(ROOT)}-{len(found) + 1}"
        found.append(pytest.param(body, expected, id=name))
    return found
