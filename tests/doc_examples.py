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


def examples(page: Path) -> list[pytest.param]:
    """``(code, expected output or None)`` for each python block of ``page``."""
    blocks = FENCE.findall(page.read_text(encoding="utf-8"))
    found = []
    for index, (language, body) in enumerate(blocks):
        if language != "python":
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else ("", "")
        expected = following[1] if following[0] == "text" else None
        name = f"{page.relative_to(ROOT)}-{len(found) + 1}"
        found.append(pytest.param(body, expected, id=name))
    return found
