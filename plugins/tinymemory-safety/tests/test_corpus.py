"""The scrub corpora: every positive redacted, every negative byte for byte unchanged."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from generate_class_corpus import OUT as CLASS_CORPUS
from generate_class_corpus import render
from scrub_corpus import OWN_CORPUS, corpus

from tinymemory_safety import SafetyScrubber

SHARED = corpus()
OWN = corpus(OWN_CORPUS)
CLASSES = corpus(CLASS_CORPUS)
#: Round three's classes: only the dev half is asserted; the held-out half is only scored
#: (benchmarks/scrub_bench.py).
DEV = {
    kind: [case for case in CLASSES[kind] if case["split"] == "dev"]
    for kind in ("positives", "negatives")
}
POSITIVES = SHARED["positives"] + OWN["positives"] + DEV["positives"]
NEGATIVES = SHARED["negatives"] + OWN["negatives"] + DEV["negatives"]
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


def test_the_class_corpus_is_what_its_generator_writes() -> None:
    assert CLASS_CORPUS.read_text(encoding="utf-8") == render()


def test_the_class_corpus_has_both_halves_of_every_class_with_several_members() -> None:
    for kind in ("positives", "negatives"):
        halves: dict[str, Counter[str]] = {
            "dev": Counter(),
            "heldout": Counter(),
            "heldout2": Counter(),
            "heldout3": Counter(),
            "heldout4": Counter(),
            "heldout5": Counter(),  # phones and number look-alikes only
        }
        for case in CLASSES[kind]:
            halves[case["split"]][case["class"]] += 1
        assert (
            set(halves["dev"])
            == set(halves["heldout"])
            == set(halves["heldout2"])
            == set(halves["heldout3"])
            == set(halves["heldout4"])
            >= set(halves["heldout5"])
        )
        assert all(count >= 2 for half in halves.values() for count in half.values()), halves
    held = {case["text"] for case in CLASSES["positives"] if case["split"] != "dev"}
    assert held.isdisjoint(case["text"] for case in DEV["positives"])
