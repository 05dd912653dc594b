"""The scrub corpus: a copy of the shared reference's scrub-cases.json, beside these tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).with_name("scrub-cases.json")


def corpus() -> dict[str, Any]:
    """The corpus: ``positives`` (what must vanish) and ``negatives`` (what must stay)."""
    data: dict[str, Any] = json.loads(CORPUS.read_text(encoding="utf-8"))
    return data
