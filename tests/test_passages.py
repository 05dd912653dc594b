"""``tinymemory.passages``: the line of a text holding the most words of a query."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tinymemory.passages import passage

WORD = re.compile(r"[^\W_]+")
words = st.sampled_from(["launch", "Launch", "date", "October", "dana", "the", "x1", "été"])
lines = st.lists(words, max_size=6).map(" ".join)
headings = st.builds(lambda level, text: "#" * level + " " + text, st.integers(1, 6), lines)
texts = st.lists(st.one_of(lines, headings, st.just(""), st.just("   ")), max_size=8).map("\n".join)


def held(line: str, query: str) -> int:
    wanted = {word.casefold() for word in WORD.findall(query)}
    return len(wanted & {word.casefold() for word in WORD.findall(line)})


def is_heading(line: str) -> bool:
    return re.match(r"#{1,6}(?:\s|$)", line) is not None


@given(text=texts, query=lines)
def test_the_passage_is_the_first_body_line_holding_the_most_query_words(
    text: str, query: str
) -> None:
    shown = passage(text, query)
    stripped = [line.strip() for line in text.splitlines()]
    body = [line for line in stripped if line and not is_heading(line)]
    if not body:
        assert shown == next((line for line in stripped if line), "")
        return
    most = max(held(line, query) for line in body)
    assert shown == next(line for line in body if held(line, query) == most)


@given(text=texts, query=lines)
def test_case_does_not_change_the_passage(text: str, query: str) -> None:
    assert passage(text, query.upper()) == passage(text, query.casefold())
