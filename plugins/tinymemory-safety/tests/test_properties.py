"""Properties: a second pass changes nothing; text with no secret is unchanged; stable ids."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from scrub_corpus import corpus

import tinymemory as tm
from tinymemory.plugin import to_json
from tinymemory_safety import SafetyScrubber

SCRUBBER = SafetyScrubber()
CASES = corpus()
SECRETS = [case["text"] for case in CASES["positives"]] + [
    "Bearer abc123def",
    "bearer abcdefghijklm",
    "/secret/abc1",
    "api_key=abc123def",
    "password: hunter2",
    "4111 1111 1111 1111",
    "4111111111111111",
    "111.444.777-35",
    "GB82 WEST 1234 5698 7654 32",
    "+1 (415) 555-0132",
    "ada@example.com",
    "2a00:1450:4001:82a::200e",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n",
    "-----END RSA PRIVATE KEY-----",
    "SSN 078-05-1120",
    "aadhaar 499118665246",
]
NEGATIVES = [case["text"] for case in CASES["negatives"]]
WORDS = [
    "the",
    "a",
    "deploy",
    "notes",
    "ship",
    "it",
    "on",
    "monday",
    "release",
    "plan",
    "team",
    "review",
    "merge",
    "branch",
    "fix",
    "bug",
    "user",
    "asked",
    "for",
    "tabs",
    "prefers",
    "dark",
    "mode",
    "meeting",
    "at",
    "noon",
    "version",
    "build",
    "passed",
    "failed",
    "rollout",
    "region",
    "eu",
    "cache",
    "warm",
]
GLUE = [" ", " ", " ", "\n", ", ", ". ", ": ", "=", "-", "\u200b", "\uff11", "\t", '"', "/"]

#: Text made of secrets, their look-alikes, prose and the glue that joins them.
mixed = st.lists(
    st.one_of(
        st.sampled_from(SECRETS),
        st.sampled_from(NEGATIVES),
        st.sampled_from(WORDS),
        st.sampled_from(GLUE),
        st.integers(0, 10**20).map(str),
        st.text(max_size=12),
    ),
    max_size=30,
).map("".join)
#: Prose with no secret: words, counts and years, punctuation and the corpus's negatives.
#: (Runs of four-digit groups are left out: three of them may be an Aadhaar number.)
prose = st.lists(
    st.one_of(
        st.sampled_from(WORDS),
        st.sampled_from(NEGATIVES),
        st.integers(0, 999).map(str),
        st.integers(1900, 2100).map(lambda year: f"in {year}"),
        st.sampled_from([" ", ", ", ". ", "\n", "(", ")", "!", "?"]),
    ),
    max_size=40,
).map(" ".join)
#: Any characters but ASCII letters and digits of any script: nothing can be a secret.
no_alphanumerics = st.text(
    st.characters(
        blacklist_categories=("Nd", "Cs"),
        blacklist_characters="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    )
)


@settings(max_examples=300, deadline=None)
@given(mixed)
def test_scrubbing_twice_is_scrubbing_once(text: str) -> None:
    once = SCRUBBER.scrub_text(text).text
    again = SCRUBBER.scrub_text(once)
    assert again.text == once
    assert again.redactions.total == 0


@settings(max_examples=200, deadline=None)
@given(prose)
def test_prose_with_no_secret_is_unchanged(text: str) -> None:
    result = SCRUBBER.scrub_text(text)
    assert result.text == text
    assert result.redactions.total == 0


@settings(max_examples=200, deadline=None)
@given(no_alphanumerics)
def test_text_without_letters_or_digits_comes_back_exactly(text: str) -> None:
    assert SCRUBBER.scrub_text(text).text == text


def _kinds(text: str, evidence: str, title: str) -> list[tm.StoreItem]:
    """An item of each kind holding the texts, those an engine would refuse left out."""
    made = [
        tm.Learning(text=text, evidence=evidence or None),
        tm.Document(title=title or None, body=text),
        tm.Conversation(turns=[tm.Turn(role=tm.Role.USER, text=text)]),
    ]
    valid = []
    for item in made:
        try:
            item.validate()
        except tm.InvalidRequest:
            continue
        valid.append(item)
    return valid


items = st.builds(_kinds, mixed, mixed, mixed)


@settings(max_examples=100, deadline=None)
@given(items)
def test_a_scrubbed_item_has_one_id_so_storing_it_twice_is_a_replay(
    kinds: list[tm.StoreItem],
) -> None:
    engine = tm.ScrubbingEngine(tm.ReferenceEngine(), [SafetyScrubber()])
    for item in kinds:
        scrubbed = SCRUBBER.scrub(item)
        assert SCRUBBER.scrub(scrubbed) == scrubbed
        assert SafetyScrubber().scrub(item).fingerprint() == scrubbed.fingerprint()
        first = engine.store(item)
        assert first.id == scrubbed.fingerprint()
        assert engine.store(item).replayed
        assert engine.store(scrubbed).replayed
    stored = engine.list(tm.ListRequest(limit=10)).items
    assert len(stored) == len({to_json(SCRUBBER.scrub(item)) for item in kinds})
