"""The scrub corpora: every positive redacted, every negative byte for byte unchanged."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from scrub_corpus import OWN_CORPUS, corpus

from tinymemory_safety import SafetyScrubber

SHARED = corpus()
OWN = corpus(OWN_CORPUS)
POSITIVES = SHARED["positives"] + OWN["positives"]
NEGATIVES = SHARED["negatives"] + OWN["negatives"]
SCRUBBER = SafetyScrubber()


@pytest.mark.parametrize("case", POSITIVES, ids=lambda case: case["id"])
def test_every_positive_is_redacted(case: dict[str, Any]) -> None:
    scrubbed = SCRUBBER.scrub_text(case["text"])
    for secret in case["must_redact"]:
        assert secret not in scrubbed.text
    assert "[REDACTED" in scrubbed.text
    assert scrubbed.redactions.total >= 1
    # A second pass finds nothing more: the tokens are not secrets.
    assert SCRUBBER.scrub_text(scrubbed.text).text == scrubbed.text


@pytest.mark.parametrize("case", NEGATIVES, ids=lambda case: case["id"])
def test_no_negative_is_touched(case: dict[str, Any]) -> None:
    scrubbed = SCRUBBER.scrub_text(case["text"])
    assert scrubbed.text == case["must_keep"]
    assert scrubbed.redactions.total == 0


def test_the_corpora_hold_both_kinds() -> None:
    assert len(SHARED["positives"]) >= 25
    assert len(SHARED["negatives"]) >= 15


def test_our_corpus_is_three_times_the_shared_one_with_several_cases_a_kind() -> None:
    assert len(OWN["positives"]) >= 3 * len(SHARED["positives"])
    assert len(OWN["negatives"]) >= 3 * len(SHARED["negatives"])
    ids = [case["id"] for case in POSITIVES + NEGATIVES]
    assert len(set(ids)) == len(ids)
    classes = Counter(case["class"] for case in OWN["positives"] + OWN["negatives"])
    assert all(count >= 5 for count in classes.values()), classes
