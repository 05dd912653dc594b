"""Text as the detectors see it: one layer of what hides a secret's shape undone.

A secret split by a zero-width space, a card typed in fullwidth digits, a
password inside a JSON string escaped into a log line (``\\"password\\":``),
a password percent-encoded into a URL's parameter (``%3A...%40``), or a
token hard-wrapped across lines (an email, an 80-column terminal, each line
opened by ``> `` or an indent) must not slip past a pattern written for the
plain form. :func:`fold` drops the invisible characters and the escaping
backslashes before quotes, decodes ``%XX`` of URL punctuation and, when asked,
joins the lines a hard wrap cut inside a token; the detectors match on that;
:meth:`Folded.original_span` maps a hit back onto the text the caller gave,
so a redaction covers the original characters (a wrapped token whole, its
line breaks too) and everything outside a hit comes back exactly as it was.
"""

from __future__ import annotations

import bisect
import re

import attrs

#: Zero-width and other invisible characters removed before matching.
INVISIBLE = "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u2060\u2061\u2062\u2063\u2064\ufeff"


def _folds() -> dict[int, str]:
    table = {}
    for zero in (0xFF10, 0x0660, 0x06F0, 0x0966):  # fullwidth, Arabic-Indic (two), Devanagari
        for digit in range(10):
            table[zero + digit] = str(digit)
    table.update({0xFF0E: ".", 0xFF0D: "-", 0xFF0F: "/", 0xFF1A: ":", 0xFF0B: "+"})
    return table


#: One character for one: each look-alike digit or separator to its ASCII form.
_FOLD = _folds()
#: ASCII letters lowered, one character for one (``str.lower`` may change lengths).
ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


#: What one fold undoes: invisible characters, escaping backslashes before a quote or
#: slash (every layer: ``\\\\\\"`` is a quote), JSON's ``\\u00XX`` escapes of the
#: punctuation a credential's key and value are set apart by (``\\u003d`` for ``=``,
#: ``\\u0026`` for ``&``, ``\\u0022`` for a quote: what Go's and .NET's encoders
#: write), and ``%XX`` of URL punctuation.
_SPECIAL = re.compile(
    f"[{INVISIBLE}]+"
    + r'|\\u00(?:2[267Ff]|3[ADad]|40)|\\++(?=["/])|%(?:2[13-6A-Fa-f]|3[ABDFabdf]|40)'
)
#: Where a hard wrap may have cut a token: a run of credential characters ending a line,
#: the next line's lead (any characters but letters and digits: a quote marker, an indent,
#: a comment's ``//``, ``#``, ``--``, ``;``, `` * ``), a run opening the next line.
_WRAP = re.compile(r"(?a)([\w+/=.-]++)\n([^\w\n]{0,12}+)([\w+/=.-]++)")
#: A line's lead: what a prefix repeated on every line of a wrapped block may be.
_LEAD = re.compile(r"(?a)[^\w\n]{0,12}+")
_TOKEN_RUN = re.compile(r"(?a)[\w+/=.-]++")
#: A chat line's lead: maybe a quote marker, maybe a time (``[14:02]``, ``14:02:09``), then
#: the speaker (``<kbaier>``, ``Amaka:``, ``Ana Silva:``). A token a speaker pasted goes on
#: after the same speaker's tag on the next line, whatever the tag holds.
_CHAT_LEAD = re.compile(
    r"[^\w\n]{0,12}?(?:\[\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?\][ \t]*"
    r"|\d{1,2}:\d{2}(?::\d{2})?[ \t]+)?"
    r"(?:<[^\W\d][\w.|@-]{0,31}>|[^\W\d_][\w.'-]{0,31}(?: [^\W\d_][\w.'-]{0,31}){0,2}:)[ \t]+"
)
_DIGIT = re.compile(r"\d")
#: The shortest line a wrap leaves: wrap columns are 64 to 132 in practice.
WRAP_COLUMN = 40
#: The shortest token a joined wrap can make: the shortest provider tokens are 15 long.
WRAPPED_TOKEN = 16


@attrs.frozen
class Folded:
    """The folded ``text`` and, when characters were dropped or decoded, where each came from.

    Each change is a run of the original, ``[at[i], stop[i])``, that became
    ``size[i]`` (0 or 1) characters at folded index ``to[i]``; every other
    folded character maps one for one.
    """

    text: str
    to: list[int] = attrs.field(factory=list)
    at: list[int] = attrs.field(factory=list)
    stop: list[int] = attrs.field(factory=list)
    size: list[int] = attrs.field(factory=list)

    def _start(self, index: int) -> int:
        change = bisect.bisect_right(self.to, index) - 1
        if change < 0:
            return index
        if self.size[change] and self.to[change] == index:
            return self.at[change]
        return self.stop[change] + index - self.to[change] - self.size[change]

    def _end(self, index: int) -> int:
        """Where the folded character ``index`` ends in the original."""
        change = bisect.bisect_right(self.to, index) - 1
        if change < 0:
            return index + 1
        if self.size[change] and self.to[change] == index:
            return self.stop[change]
        return self.stop[change] + index - self.to[change] - self.size[change] + 1

    def folded_index(self, index: int) -> int:
        """Where the original character ``index`` lies in the folded text.

        Inside a run that was dropped or decoded: where its replacement starts.
        """
        change = bisect.bisect_right(self.at, index) - 1
        if change < 0:
            return index
        if index < self.stop[change]:
            return self.to[change]
        return self.to[change] + self.size[change] + index - self.stop[change]

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters a folded span ``[start, end)`` came from."""
        if not self.to:
            return start, end
        if end == start:
            first = self._start(start)
            return first, first
        return self._start(start), self._end(end - 1)


def wrap_breaks(text: str) -> list[tuple[int, int]]:
    """The line breaks (with the next line's prefix) a hard wrap made inside a token.

    A break is one when the line before it is at least :data:`WRAP_COLUMN`
    long and opens with the same prefix as the next, and the runs of credential
    characters on both sides make a token: :data:`WRAPPED_TOKEN` characters or
    more, with a digit, and neither side a word of prose (letters, lowercase or capitalised).
    """
    breaks = []
    at = 0
    while (found := _WRAP.search(text, at)) is not None:
        at = found.end(1) + 1  # the next line's run may end a line too
        newline = found.end(1)
        line_start = text.rfind("\n", 0, newline) + 1
        left = found.group(1)
        if newline - line_start < WRAP_COLUMN:
            continue
        # The prefix is what the line and the next both open with: a token's own
        # first characters (``-``, ``/``, ``+``) on the next line are not part of it.
        lead, follow = _chat_lead(text, line_start), _chat_lead(text, newline + 1)
        if lead and follow:
            # A speaker's tag opens both lines (times may differ): the token goes on after
            # it, and only when the same speaker says it.
            if _DIGIT.sub("0", lead) != _DIGIT.sub("0", follow):
                continue
            goes_on = newline + 1 + len(follow)
        else:
            lead = _LEAD.match(text, line_start).group()  # type: ignore[union-attr]
            goes_on = found.start(2) + len(_common_prefix(lead, found.group(2)))
        right_run = _TOKEN_RUN.match(text, goes_on)
        if right_run is None:
            continue  # the next line opens with more than the prefix: no token goes on
        right = right_run.group()
        joined = left + right
        if len(joined) < WRAPPED_TOKEN or not any(char.isdigit() for char in joined):
            continue
        if _prose_word(left) or _prose_word(right):
            continue  # a word of prose on either side ("the", "Thanks"): the line ended there
        if not (_alnum(left) and _alnum(right)):
            continue  # a rule (``---``), a path's slash: no token goes on
        breaks.append((newline, goes_on))
    return breaks


def _chat_lead(text: str, line_start: int) -> str:
    """The chat lead (:data:`_CHAT_LEAD`) the line at ``line_start`` opens with, or ``""``."""
    found = _CHAT_LEAD.match(text, line_start)
    return "" if found is None else found.group()


def _common_prefix(first: str, second: str) -> str:
    at = 0
    while at < min(len(first), len(second)) and first[at] == second[at]:
        at += 1
    return first[:at]


def _prose_word(run: str) -> bool:
    """A word as prose writes it: letters, all lowercase or capitalised."""
    return run.isalpha() and (run.islower() or (run[0].isupper() and run[1:].islower()))


def _alnum(run: str) -> bool:
    return any(char.isalnum() for char in run)


def fold(text: str, breaks: list[tuple[int, int]] | None = None) -> Folded:
    """``text`` folded for matching; ``breaks`` (:func:`wrap_breaks`): lines joined there too."""
    if text.isascii() and "\\" not in text and "%" not in text and not breaks:
        return Folded(text)
    text_folded = text if text.isascii() else text.translate(_FOLD)
    changes = [
        (found.start(), found.end(), _decoded(found.group()))
        for found in _SPECIAL.finditer(text_folded)
    ]
    if breaks:
        changes += [(start, end, "") for start, end in breaks]
        changes.sort()
    if not changes:
        return Folded(text_folded)
    pieces: list[str] = []
    folded = Folded("")
    done = length = 0
    for start, end, replacement in changes:
        if start < done:
            continue  # overlapping: a wrap break inside an escape's run
        pieces.append(text_folded[done:start])
        length += start - done
        folded.to.append(length)
        folded.at.append(start)
        folded.stop.append(end)
        folded.size.append(len(replacement))
        pieces.append(replacement)
        length += len(replacement)
        done = end
    pieces.append(text_folded[done:])
    return attrs.evolve(folded, text="".join(pieces))


def _decoded(special: str) -> str:
    """What one special run stands for: nothing (invisible, backslashes) or a decoded
    ``%XX`` or ``\\u00XX``."""
    if special.startswith("%"):
        return chr(int(special[1:], 16))
    if special.startswith("\\u"):
        return chr(int(special[2:], 16))
    return ""
