"""The scrub corpora: the shared reference's scrub-cases.json, and our own, beside these tests.

``scrub-cases.json`` is a copy of the shared corpus (round one);
``scrub-cases-own.json`` is this plugin's own, more than three times its
size, each case naming its ``class`` (what the benchmark reports by) and
its ``kind``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).with_name("scrub-cases.json")
OWN_CORPUS = Path(__file__).with_name("scrub-cases-own.json")


def corpus(path: Path = CORPUS) -> dict[str, Any]:
    """A corpus: ``positives`` (what must vanish) and ``negatives`` (what must stay)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
