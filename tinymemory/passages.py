"""Picking the passage of an item's text that answers a query: what a ranked hit shows.

:func:`passage` is what ``tinymemory fetch`` prints beside each hit, and is
there for any host that shows hits to a person: one line, the one holding
the most of the query's words.
"""

from __future__ import annotations

import re

__all__ = ["passage"]

_WORD = re.compile(r"[^\W_]+")
_HEADING = re.compile(r"#{1,6}(?:\s|$)")


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}


def passage(text: str, query: str) -> str:
    """The line of ``text`` holding the most words of ``query``, stripped.

    Headings (markdown ``#`` lines) and blank lines are passed over, and the
    first such line wins a tie. With no line holding a query word (a vector
    match), the first line of text that is not a heading; with only headings,
    the first line. Words are compared case-folded.
    """
    lines = [line.strip() for line in text.splitlines()]
    body = [line for line in lines if line and not _HEADING.match(line)]
    if not body:
        return next((line for line in lines if line), "")
    wanted = _words(query)
    best, held = body[0], 0
    for line in body:
        count = len(wanted & _words(line))
        if count > held:
            best, held = line, count
    return best
