"""Cutting a long document into pieces for ranking.

An engine that ranks a long document by pieces returns one hit per document:
its best piece, tagged with the piece's pages and section. The rules (the
reference notes' "Document chunking"):

- a form feed (``\\f``) ends a page; pages are counted from 1;
- a text is cut into *units* after every form feed and, within a page, before
  every markdown heading line; a stretch of nothing but whitespace joins the
  unit after it (whitespace at the very end joins the unit before it);
- units are packed greedily, in order, into pieces of at most ``target`` in
  ``size``; a unit over the target is cut after blank lines, then after line
  ends, then between characters, and its parts are packed like units;
- the pieces are contiguous slices: joined in order they give the text back.

Greedy packing with a measure that adds up ends each piece at the last unit
or part boundary within the target, so the cut looks backwards from the
longest prefix that fits rather than walking every unit: a text of many tiny
lines or pages costs no more than one long line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterator

import attrs

from tinymemory._errors import InvalidRequest

#: The page break.
PAGE_BREAK = "\f"
#: The longest section title a piece carries.
MAX_SECTION_CHARS = 120

# A heading line: up to 3 spaces, 1 to 6 `#`, a space, and a title that is still
# there once trimmed and stripped of trailing `#` (so: something other than `#`
# and whitespace, or whitespace between two `#`).
_TITLE_LEFT = r"(?=[^\n\f]*?(?:[^\s#]|#[^\S\n\f]+#))"
_HEADING_AT = re.compile(r" {0,3}#{1,6} " + _TITLE_LEFT)
# Elsewhere a heading follows a line end or a page break. The pattern opens with
# its first `#` and looks back for the line start from there: the regex engine
# skips to a literal far faster than it tries a look-behind at every position.
_HEADING_AFTER = re.compile(
    r"#(?:(?<=[\n\f]#)|(?<=[\n\f] #)|(?<=[\n\f]  #)|(?<=[\n\f]   #))#{0,5} " + _TITLE_LEFT
)
_HEADING_LINE = re.compile(r" {0,3}#{1,6} ([^\n\f]*)")
_NOT_SPACE = re.compile(r"\S")
_BLANK_LINES = re.compile(r"\n\n+")

# The levels of a unit over the target: its blank-line segments, their lines,
# and the lines' parts cut between characters.
_UNIT, _SEGMENT, _LINE = 0, 1, 2


def utf8_size(text: str) -> int:
    """The length of ``text`` in UTF-8 bytes."""
    # surrogatepass: a lone surrogate is measured (3 bytes) rather than raising.
    return len(text.encode("utf-8", "surrogatepass"))


@attrs.frozen
class Piece:
    """One contiguous slice of a document, with where it lies in it."""

    #: The slice itself.
    text: str
    #: Its offset in the document text, in characters.
    start: int
    #: ``(first, last)`` page of the piece, 1-based; None when the text has no page break.
    pages: tuple[int, int] | None = None
    #: The heading title in effect where the piece starts (at its first non-whitespace
    #: character); None before any heading.
    section: str | None = None

    def tags(self) -> tuple[str, ...]:
        """Read-side tags: ``page:3`` or ``page:3-5``, then ``section:<title>`` when known."""
        tags: list[str] = []
        if self.pages is not None:
            first, last = self.pages
            tags.append(f"page:{first}" if first == last else f"page:{first}-{last}")
        if self.section is not None:
            tags.append(f"section:{self.section}")
        return tuple(tags)


def cut_pieces(text: str, target: int, size: Callable[[str], int] = utf8_size) -> list[Piece]:
    """Cut ``text`` into contiguous pieces of at most ``target`` each, measured by ``size``.

    ``size`` must add up over concatenation and count every character at least
    1, as UTF-8 and JSON-escaped lengths do. A piece is over the target only
    when it is a single character that is. An empty text has no pieces.

    A piece's pages run from the page of its first non-whitespace character to
    that of its last, and its section is the heading in effect at the first one
    (so whitespace before a heading counts in the heading's section and page); a
    piece of only whitespace goes by its first and last characters.

    Raises:
        InvalidRequest: ``target`` is below 1.
    """
    if target < 1:
        raise InvalidRequest(f"piece target must be at least 1, not {target}")
    cutter = _Cutter(text, target, size)
    return [cutter.piece(start, end) for start, end in cutter.spans()]


def _heading_starts(text: str) -> list[int]:
    """Where each heading line of ``text`` starts, in order."""
    starts = [0] if _HEADING_AT.match(text) else []
    for match in _HEADING_AFTER.finditer(text):
        start = match.start()
        while text[start - 1] == " ":
            start -= 1
        starts.append(start)
    return starts


class _Cutter:
    """One text being cut: the searches that find where each piece ends.

    Every search is bounded by the piece at hand (or, for a unit's end, done
    once per unit), which keeps the whole cut linear in the text.
    """

    def __init__(self, text: str, target: int, size: Callable[[str], int]) -> None:
        self.text = text
        self.target = target
        self.size = size
        self.headings = _heading_starts(text)
        # Past the last non-whitespace character: no unit starts at or after it, as
        # whitespace at the end joins the unit before it.
        self.content_end = len(text.rstrip())
        self.paged = PAGE_BREAK in text
        self._breaks_before = 0  # page breaks before `_counted_to`, for `_page`
        self._counted_to = 0
        self._titles: dict[int, str] = {}

    # --- where pieces end ---------------------------------------------------------

    def spans(self) -> Iterator[tuple[int, int]]:
        """``(start, end)`` of each piece, in order."""
        length = len(self.text)
        start = 0
        unit = (0, self._unit_end(0))  # the unit holding `start`
        while start < length:
            fit = start + self._fit(start, length)
            if fit >= length:
                yield start, length
                return
            end, unit = self._end(start, fit, unit)
            yield start, end
            start = end

    def _end(self, start: int, fit: int, unit: tuple[int, int]) -> tuple[int, tuple[int, int]]:
        """Where the piece from ``start`` ends: its last unit or part boundary up to ``fit``.

        Also returns the unit the next piece starts in.
        """
        # Past `cap`, a segment starting at or before `fit` is over the target, so
        # no forward search needs to look further.
        cap = min(len(self.text), fit + self.target + 1)
        unit_start, unit_end = unit
        if unit_end <= fit:
            unit_start = self._last_unit_start(unit_end, fit)
            unit_end = self._unit_end(unit_start)
            inner = None
            if not self._fits(unit_start, unit_end):
                inner = self._last_inside(_UNIT, unit_start, unit_end, unit_start, fit, cap)
            return (unit_start if inner is None else inner), (unit_start, unit_end)
        # The piece starts inside or at the start of a unit it cannot hold whole.
        inner = self._last_inside(_UNIT, unit_start, unit_end, start, fit, cap)
        # Only a measure that breaks the contract of `size` finds nothing here.
        return (fit if inner is None else inner), unit

    def _last_inside(
        self, level: int, outer_start: int, outer_end: int, low: int, high: int, cap: int
    ) -> int | None:
        """The last part boundary in ``(low, high]`` inside an over-target span at ``level``.

        The span ``text[outer_start:outer_end]`` holds ``high``; its end may be
        capped at ``cap``.
        """
        start = max(low, outer_start)
        if level == _LINE:
            cut = start + self._fit(start, outer_end)
            return cut if cut <= high else None
        limit = min(outer_end, cap)
        if level == _UNIT:
            boundary = self._last_blank_end(start, high)
            inner_start = start if boundary is None else boundary
            inner_end = self._next_blank_end(high, limit)
        else:
            boundary = self._last_line_end(start, high)
            inner_start = start if boundary is None else boundary
            inner_end = self._next_line_end(high, limit)
        if self._fits(inner_start, inner_end):
            return boundary
        inner = self._last_inside(level + 1, inner_start, inner_end, start, high, cap)
        return boundary if inner is None else inner

    def _fits(self, start: int, end: int) -> bool:
        # Every character counts at least 1: a longer span cannot fit, unmeasured.
        return end - start <= self.target and self.size(self.text[start:end]) <= self.target

    def _fit(self, start: int, stop: int) -> int:
        """The length of the longest prefix of ``text[start:stop]`` within the target.

        At least one character, even when that one alone is over the target.
        """
        # The measure adds up, so a prefix that fits is kept and only what follows it
        # is measured next; each character counts at least 1, so no more characters
        # than the room left can fit.
        position, room = start, self.target
        step = min(stop - position, room)
        while step > 0:
            measured = self.size(self.text[position : position + step])
            if measured <= room:
                position += step
                room -= measured
                step = min(stop - position, room)
            elif step == 1:
                break
            else:
                # Characters are mostly alike in size: shrink in proportion.
                step = max(1, min(step - 1, step * room // measured))
        return max(position - start, 1)

    # --- units ----------------------------------------------------------------------

    def _last_unit_start(self, known: int, high: int) -> int:
        """The last unit start in ``[known, high]``, ``known`` being a unit start."""
        text = self.text
        high = min(high, self.content_end - 1)
        # The last cut of any kind (page or heading) at or before `high`...
        page = text.rfind(PAGE_BREAK, known - 1, high)
        cut = max(known, page + 1)
        index = bisect_right(self.headings, high) - 1
        if index >= 0:
            cut = max(cut, self.headings[index])
        if cut == known:
            return known
        # ...is a unit start only after something other than whitespace; otherwise
        # the unit starts at the first cut after the last such character.
        content = len(text[known:cut].rstrip())
        if content == 0:
            return known
        return self._next_cut(known + content - 1, cut)

    def _unit_end(self, start: int) -> int:
        """Where the unit starting at ``start`` ends."""
        found = _NOT_SPACE.search(self.text, start)
        if found is None:  # a text of nothing but whitespace
            return len(self.text)
        end = self._next_cut(found.start(), len(self.text))
        return end if end < self.content_end else len(self.text)

    def _next_cut(self, position: int, limit: int) -> int:
        """The first page or heading cut after ``position``, or ``limit`` when none comes first."""
        index = bisect_right(self.headings, position)
        if index < len(self.headings):
            limit = min(limit, self.headings[index])
        page = self.text.find(PAGE_BREAK, position, limit)
        return limit if page < 0 else page + 1

    # --- blank lines and line ends --------------------------------------------------

    def _last_blank_end(self, low: int, high: int) -> int | None:
        """The last end of a run of blank lines in ``(low, high]``."""
        text = self.text
        found = text.rfind("\n\n", max(low - 1, 0), high)
        if found < 0:
            return None
        if found + 2 < len(text) and text[found + 2] == "\n":
            # The run goes on past `high`: look before the run instead.
            run_start = low + len(text[low:found].rstrip("\n"))
            found = text.rfind("\n\n", max(low - 1, 0), run_start)
            if found < 0:
                return None
        return found + 2

    def _next_blank_end(self, high: int, limit: int) -> int:
        """The first end of a run of blank lines after ``high``, or ``limit``."""
        # From `high - 1`, so that a run going on past `high` is found whole.
        found = _BLANK_LINES.search(self.text, high - 1, limit)
        return limit if found is None else found.end()

    def _last_line_end(self, low: int, high: int) -> int | None:
        """The last line end in ``(low, high]``."""
        found = self.text.rfind("\n", low, high)
        return None if found < 0 else found + 1

    def _next_line_end(self, high: int, limit: int) -> int:
        """The first line end after ``high``, or ``limit``."""
        found = self.text.find("\n", high, limit)
        return limit if found < 0 else found + 1

    # --- what a piece carries ---------------------------------------------------------

    def piece(self, start: int, end: int) -> Piece:
        """The piece ``text[start:end]`` with its pages and section."""
        text = self.text[start:end]
        lead = len(text) - len(text.lstrip())
        if lead == len(text):
            first, last = start, end - 1
        else:
            first, last = start + lead, start + len(text.rstrip()) - 1
        pages = (self._page(first), self._page(last)) if self.paged else None
        return Piece(text=text, start=start, pages=pages, section=self._section(first))

    def _page(self, position: int) -> int:
        # Asked in increasing order, so counting goes on from the last answer.
        self._breaks_before += self.text.count(PAGE_BREAK, self._counted_to, position)
        self._counted_to = position
        return self._breaks_before + 1

    def _section(self, position: int) -> str | None:
        index = bisect_right(self.headings, position) - 1
        if index < 0:
            return None
        heading = self.headings[index]
        if heading not in self._titles:
            self._titles[heading] = _title(self.text, heading)
        return self._titles[heading]


def _title(text: str, heading: int) -> str:
    """The title of the heading line starting at ``heading``, cut to its longest."""
    line = _HEADING_LINE.match(text, heading)
    title = line.group(1).strip().rstrip("#").rstrip() if line else ""
    # Trimmed again after the cut, so that a tag never ends in a space.
    return title[:MAX_SECTION_CHARS].rstrip()
