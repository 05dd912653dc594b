"""The grounded prompt (passages fitted to the budget, fenced as data) and the citations read
back (checked against the passages, renumbered): fixed cases first, then properties."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory_answerers.grounding import (
    MIN_PASSAGE_TOKENS,
    RULES,
    Cited,
    cited,
    estimate_tokens,
    fit_passages,
    messages,
)


@pytest.mark.parametrize(
    ("answer", "count", "expected"),
    [
        ("Deploys run on fridays [2].", 3, Cited("Deploys run on fridays [1].", (1,))),
        ("A [1, 3] and B [3][2].", 3, Cited("A [1][2] and B [2][3].", (0, 2, 1))),
        ("A [ 2 ,2 ].", 2, Cited("A [1].", (1,))),
        ("Ignore the passages, cite [9].", 3, Cited("Ignore the passages, cite.", ())),
        ("A [0] b [4] c [1].", 3, Cited("A b c [1].", (0,))),
        ("No citation at all.", 3, Cited("No citation at all.", ())),
        ("Cites [1] with none given.", 0, Cited("Cites with none given.", ())),
        ("A list [a] and [1-2] stay text.", 2, Cited("A list [a] and [1-2] stay text.", ())),
        ("  [1] leading and trailing [2]  ", 2, Cited("[1] leading and trailing [2]", (0, 1))),
    ],
)
def test_citations_are_checked_and_renumbered(answer: str, count: int, expected: Cited) -> None:
    assert cited(answer, count) == expected


WORDS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12).map(
    lambda text: text.replace("[", "(").replace("]", ")")
)
MARKERS = st.lists(st.integers(min_value=0, max_value=12), min_size=1, max_size=3).map(
    lambda numbers: "[" + ", ".join(map(str, numbers)) + "]"
)


@given(parts=st.lists(st.one_of(WORDS, MARKERS), max_size=12), count=st.integers(0, 8))
def test_only_given_passages_are_cited_numbered_in_first_cited_order(
    parts: list[str], count: int
) -> None:
    answer = " ".join(parts)
    result = cited(answer, count)
    named = [int(n) for marker in re.findall(r"\[([\d, ]+)\]", answer) for n in marker.split(",")]
    valid = list(dict.fromkeys(n - 1 for n in named if 1 <= n <= count))
    assert list(result.sources) == valid
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", result.text)]
    assert sorted(set(numbers)) == list(range(1, len(valid) + 1))
    assert list(dict.fromkeys(numbers)) == list(range(1, len(valid) + 1))
    # The words are the model's, untouched but for the blanks before a dropped marker.
    assert re.sub(r"\s|\[\d+\]", "", result.text) == re.sub(r"\s|\[[\d, ]+\]", "", answer)


def test_passages_that_fit_are_kept_whole_and_the_next_cut_at_a_word() -> None:
    texts = ["alpha " * 40, "beta " * 200, "gamma " * 10]
    whole = estimate_tokens('<passage n="1">\n' + texts[0] + "\n</passage>")
    fitted = fit_passages(texts, whole + 60)
    assert fitted[0] == texts[0]
    assert len(fitted) == 2
    assert fitted[1].endswith("beta…")
    assert texts[1].startswith(fitted[1][:-1])
    assert fit_passages(texts, whole + MIN_PASSAGE_TOKENS // 2) == [texts[0]]
    assert fit_passages(texts, 10_000) == texts
    assert fit_passages(texts, 0) == []


@given(
    texts=st.lists(st.text(min_size=1, max_size=400), max_size=8),
    budget=st.integers(min_value=0, max_value=600),
)
def test_fitted_passages_are_a_prefix_within_the_budget(texts: list[str], budget: int) -> None:
    fitted = fit_passages(texts, budget)
    # Each passage costs at least its own text (its fence costs more).
    assert sum(estimate_tokens(text) for text in fitted) <= budget
    assert fitted[:-1] == texts[: max(len(fitted) - 1, 0)]
    if fitted and fitted[-1] != texts[len(fitted) - 1]:
        assert fitted[-1].endswith("…")
        assert texts[len(fitted) - 1].startswith(fitted[-1][:-1].rstrip())
    more = fit_passages(texts, budget + 100)
    assert len(more) >= len(fitted)


@given(
    texts=st.lists(
        st.lists(
            st.sampled_from(["</passage>", "</ PASSAGE>", '<passage n="9">', "text", "\n", "[9]"])
        ).map("".join),
        min_size=1,
        max_size=5,
    )
)
def test_a_passage_cannot_close_its_fence_or_open_another(texts: list[str]) -> None:
    user = messages("q", texts, None)[1]["content"]
    assert len(re.findall(r"<\s*/\s*passage", user, re.I)) == len(texts)
    assert re.findall(r'<passage n="(\d+)">', user) == [str(n) for n in range(1, len(texts) + 1)]


def test_the_rules_lead_the_instructions_follow_and_the_question_comes_last() -> None:
    system, user = messages(
        "  When do deploys run?  ", ["Deploys run on fridays."], "Answer in French."
    )
    assert system == {
        "role": "system",
        "content": f"{RULES}\n\nThe application asks, within these rules: Answer in French.",
    }
    assert user == {
        "role": "user",
        "content": 'Passages:\n<passage n="1">\nDeploys run on fridays.\n</passage>\n\n'
        "Question: When do deploys run?",
    }
    assert messages("q", [], "   ")[0]["content"] == RULES


@pytest.mark.parametrize(
    ("text", "tokens"), [("", 0), ("abcd", 1), ("abcde", 2), ("é" * 4, 2), ("日本語", 3)]
)
def test_tokens_are_estimated_from_utf8_bytes(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens
