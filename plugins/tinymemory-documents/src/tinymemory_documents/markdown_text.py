"""Pieces of markdown every converter writes the same way: tables, headings, tidy text."""

from __future__ import annotations

import re
from collections.abc import Sequence

_SPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[ \t]+\n")
_BLANK_RUNS = re.compile(r"\n{3,}")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$", re.M)


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (line ends too) made one space, trimmed."""
    return _SPACE.sub(" ", text).strip()


def tidy(text: str) -> str:
    """Trailing spaces dropped (but a hard break's two), blank-line runs squeezed, trimmed."""
    lines = _TRAILING.sub(_keep_hard_break, text.replace("\r\n", "\n"))
    return _BLANK_RUNS.sub("\n\n", lines).strip()


def _keep_hard_break(found: re.Match[str]) -> str:
    return found.group() if found.group() == "  \n" else "\n"


def table_cell(text: str) -> str:
    """A cell's text on one line, its pipes escaped."""
    return one_line(text).replace("|", "\\|")


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """A markdown table whose first row is the header; short rows are padded with empty cells.

    Empty for no rows. Cells are taken as they are: pass them through
    :func:`table_cell` first.
    """
    if not rows:
        return ""
    width = max(len(row) for row in rows)
    if width == 0:
        return ""
    lines = []
    for index, row in enumerate(rows):
        cells = [*row, *([""] * (width - len(row)))]
        lines.append("|" + "|".join(f" {cell} " if cell else " " for cell in cells) + "|")
        if index == 0:
            lines.append("|" + " --- |" * width)
    return "\n".join(lines)


def first_heading(markdown: str) -> str | None:
    """The text of the first ATX heading (``# Title``) of ``markdown``, or None."""
    found = _HEADING.search(markdown)
    return found.group(2).strip() if found else None


def without_title_heading(markdown: str, title: str) -> str:
    """``markdown`` less its opening heading when that heading says ``title``.

    A document is shown as ``# title`` then its body, so a body that opens
    with its own title would show it twice. The heading goes only when it is
    the first thing in the body and something follows it.
    """
    found = _HEADING.match(markdown.lstrip("\n"))
    if found is None or one_line(found.group(2)).casefold() != one_line(title).casefold():
        return markdown
    rest = markdown.lstrip("\n")[found.end() :].strip("\n")
    return rest if rest.strip() else markdown
