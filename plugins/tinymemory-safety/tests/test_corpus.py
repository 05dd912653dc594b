"""The scrub corpus: every positive redacted, every negative byte for byte unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from scrub_corpus import corpus

from tinymemory_safety import SafetyScrubber

CASES = corpus()
SCRUBBER = SafetyScrubber()


@pytest.mark.parametrize("case", CASES["positives"], ids=lambda case: case["id"])
def test_every_positive_is_redacted(case: dict[str, Any]) -> None:
    scrubbed = SCRUBBER.scrub_text(case["text"])
    for secret in case["must_redact"]:
        assert secret not in scrubbed.text
    assert "[REDACTED" in scrubbed.text
    assert scrubbed.redactions.total >= 1
    # A second pass finds nothing more: the tokens are not secrets.
    assert SCRUBBER.scrub_text(scrubbed.text).text == scrubbed.text


@pytest.mark.parametrize("case", CASES["negatives"], ids=lambda case: case["id"])
def test_no_negative_is_touched(case: dict[str, Any]) -> None:
    scrubbed = SCRUBBER.scrub_text(case["text"])
    assert scrubbed.text == case["must_keep"]
    assert scrubbed.redactions.total == 0


def test_the_corpus_holds_both_kinds() -> None:
    assert len(CASES["positives"]) >= 25
    assert len(CASES["negatives"]) >= 15
