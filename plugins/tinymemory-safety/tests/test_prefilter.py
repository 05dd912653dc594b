"""The pre-filter: it rules out plain prose, and never a text a detector would change.

Fixed cases first (each trigger of the module's list, every positive of both
corpora, plain prose), then the rule's two premises checked over the detectors
themselves (every provider token pattern that could match plain text is at
least :data:`TOKEN_RUN` long; every ASCII noun of the stated-secret detector is
a trigger word), then a property: over texts made of plain characters and of
the triggers' own fragments, the pre-filter ruling a text out means the
detectors, run anyway, leave it as it is.
"""

from __future__ import annotations

import re
import re._parser as sre_parse  # the regex parser: each pattern's shortest match
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scrub_corpus import OWN_CORPUS, corpus

import tinymemory as tm
from tinymemory_safety import HostPattern, Policy, SafetyScrubber, scrubber
from tinymemory_safety.assignments import SECRET_NOUN
from tinymemory_safety.credentials import _JWT
from tinymemory_safety.prefilter import SECRET_WORDS, TOKEN_RUN, may_hold_secret
from tinymemory_safety.providers import _COMPILED
from tinymemory_safety.secret_names import password_terms

POSITIVES = corpus()["positives"] + corpus(OWN_CORPUS)["positives"]
PLAIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz \t\n\r.,!?'\""


@pytest.mark.parametrize("case", POSITIVES, ids=lambda case: case["id"])
def test_no_positive_of_the_corpora_is_ruled_out(case: dict[str, Any]) -> None:
    assert may_hold_secret(case["text"])


@pytest.mark.parametrize(
    "text",
    [
        "Meeting with Anna on Tuesday, bring the slides.",
        "Remember: nothing",  # a colon alone is enough to run the detectors
        "",
        "the keyboard and the monkey",  # a noun inside a word is no noun
        "a" * (TOKEN_RUN - 1),
    ],
)
def test_plain_prose(text: str) -> None:
    assert may_hold_secret(text) == (":" in text)


@pytest.mark.parametrize(
    "text",
    [
        "Bearer abcdefghij",
        "bearer abcdefghijklmnop",
        "password 'hunterhunter'",
        "GRANT ALL IDENTIFIED BY 'hunterhunter'",
        "the wifi code is hunterhunter",
        "My PIN is secret",
        "Mot de passe est hunterhunter",
        "AKIAABCDEFGHIJKLMNOP",  # an AWS key id of letters alone
        "x" * TOKEN_RUN,
        "abcdefghij.klmnopqrst",  # letters and dots make one run
        "note 1",
        "café",
        "a_b",
        "a-b",
        "mail@host",
    ],
)
def test_each_trigger(text: str) -> None:
    assert may_hold_secret(text)


def _mandatory_characters(pattern: str) -> set[str]:
    """The characters a pattern's top level matches literally: every match holds them."""
    return {chr(value) for op, value in sre_parse.parse(pattern) if op is sre_parse.LITERAL}


@pytest.mark.parametrize(
    ("kind", "pattern"),
    [(kind, pattern) for kind, pattern, _, _ in _COMPILED] + [("jwt", _JWT)],
    ids=lambda value: value if isinstance(value, str) else value.pattern[:24],
)
def test_every_token_pattern_needs_a_long_run_or_a_character_prose_lacks(
    kind: str, pattern: re.Pattern[str]
) -> None:
    shortest = sre_parse.parse(pattern.pattern).getwidth()[0]
    unusual = _mandatory_characters(pattern.pattern) - set(PLAIN)
    assert shortest >= TOKEN_RUN or unusual, kind


def test_every_ascii_secret_noun_is_a_trigger_word() -> None:
    opening = "(?P<noun>"
    noun = SECRET_NOUN[SECRET_NOUN.index(opening) + len(opening) :]
    # The words for a password in every language open the alternation, each escaped.
    generated = "".join(re.escape(term) + "|" for term in password_terms())
    assert noun.startswith(generated)
    noun = noun.removeprefix(generated)
    for term in password_terms():
        assert not term.isascii() or term.split()[0].encode() in SECRET_WORDS, term
    alternatives = re.findall(r"[a-z][a-z ]*", noun.replace("(?:", "|").replace(")?", "|"))
    firsts = {phrase.split()[0] for phrase in alternatives if phrase.strip()}
    assert {word for word in firsts if len(word) > 1} - {
        word.decode() for word in SECRET_WORDS
    } <= {"contrase", "has", "number"}  # ``contrase[ñn]a``, ``has[łl]o``; "pin number"
    assert {b"contrasena", b"haslo", b"pin"} <= SECRET_WORDS


#: Plain characters and the fragments the triggers are made of, so generated texts
#: come near every detector that plain text can reach.
FRAGMENTS = [
    *PLAIN,
    *sorted(word.decode() for word in SECRET_WORDS),
    "bearer ",
    "Bearer ",
    "password",
    "identified by ",
    " is ",
    "wifi ",
    "AKIA",
    "AIza",
    "SK",
    "EAAB",
    "eyJ",
    "hvs.",
    "dp.pt.",
    "sl.",
    "dapi",
    "pat",
    "SG.",
    "'",
    "hunterhunter",
    "abcdefabcdef",
    "ABCDEFGHIJKLMNOP",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join))
def test_a_text_ruled_out_is_one_the_detectors_leave_alone(
    text: str,
) -> None:
    if may_hold_secret(text):
        return
    every_detector = SafetyScrubber()
    original = scrubber.may_hold_secret
    scrubber.may_hold_secret = lambda _: True  # type: ignore[assignment]
    try:
        scrubbed = every_detector.scrub_text(text)
    finally:
        scrubber.may_hold_secret = original
    assert scrubbed.text == text


def test_a_clean_batch_comes_back_as_the_same_items() -> None:
    items = [tm.Learning(text="plain notes, nothing more"), tm.Document(body="a day out.")]
    assert all(
        new is old for new, old in zip(SafetyScrubber().scrub_many(items), items, strict=True)
    )


class CountingScrubber(SafetyScrubber):
    """Records every item its detectors are run on."""

    def __init__(self, policy: Policy | None = None) -> None:
        super().__init__(policy)
        self.scrubbed: list[tm.StoreItem] = []

    def scrub(self, item: tm.StoreItem) -> tm.StoreItem:
        self.scrubbed.append(item)
        return super().scrub(item)


def test_a_batch_mixing_secrets_and_plain_items_scrubs_exactly_the_first() -> None:
    clean = tm.Learning(text="plain notes")
    leaky = tm.Learning(text="my wifi password is hunter22")
    plain_document = tm.Document(title="a day out", body="nothing to see.")
    linked = tm.Learning(text="plain", meta=tm.MemoryMeta(url="https://example.com/?key=abc"))
    counting = CountingScrubber()
    scrubbed = counting.scrub_many([clean, leaky, plain_document, linked])
    assert counting.scrubbed == [leaky, linked]
    assert scrubbed[0] is clean
    assert scrubbed[2] is plain_document
    assert isinstance(scrubbed[1], tm.Learning)
    assert "hunter22" not in scrubbed[1].text


def test_a_host_pattern_scrubs_every_item() -> None:
    counting = CountingScrubber(Policy(patterns=[HostPattern(name="ticket", pattern="T-[0-9]+")]))
    items = [tm.Learning(text="plain notes"), tm.Learning(text="see ticket")]
    counting.scrub_many(items)
    assert counting.scrubbed == items


texts = st.lists(st.sampled_from(FRAGMENTS), max_size=20).map("".join)


@settings(max_examples=300, deadline=None)
@given(texts, texts)
def test_two_texts_joined_by_a_line_break_are_ruled_out_only_when_each_is(
    first: str, second: str
) -> None:
    if not may_hold_secret(f"{first}\n{second}"):
        assert not may_hold_secret(first)
        assert not may_hold_secret(second)


learnings = st.builds(
    lambda text, evidence: tm.Learning(text=text or "x", evidence=evidence), texts, texts
)
items = st.one_of(
    learnings,
    st.builds(lambda title, body: tm.Document(title=title, body=body or "x"), texts, texts),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(items, min_size=1, max_size=12))
def test_a_batch_scrubs_as_its_items_do_one_by_one(batch: list[tm.StoreItem]) -> None:
    alone = [SafetyScrubber().scrub(item) for item in batch]
    together = SafetyScrubber().scrub_many(batch)
    assert together == alone
    for new, old in zip(together, batch, strict=True):
        assert (new is old) == (new == old)
