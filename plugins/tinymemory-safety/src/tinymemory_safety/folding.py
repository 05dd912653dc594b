"""Text as the detectors see it: invisible characters dropped, look-alike digits folded.

A secret split by a zero-width space, or a card number typed in fullwidth
digits, must not slip past a pattern written for ASCII. The detectors match on
the folded text; :meth:`Folded.original_span` maps a hit back onto the text
the caller gave, so the redaction is spliced into the original characters and
everything outside a hit comes back exactly as it was.
"""

from __future__ import annotations

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
_INVISIBLE = re.compile(f"[{INVISIBLE}]")
#: ASCII letters lowered, one character for one (``str.lower`` may change lengths).
ASCII_LOWER = {code: code + 32 for code in range(ord("A"), ord("Z") + 1)}


@attrs.frozen
class Folded:
    """The folded ``text`` and, when characters were dropped, where each one came from."""

    text: str
    #: ``origin[i]`` is the index in the original of folded character ``i``
    #: (one entry past the end too); ``None`` when nothing was dropped.
    origin: list[int] | None = None

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        """The original characters a folded span ``[start, end)`` came from."""
        if self.origin is None:
            return start, end
        if end == start:
            return self.origin[start], self.origin[start]
        return self.origin[start], self.origin[end - 1] + 1


def fold(text: str) -> Folded:
    """``text`` folded for matching (ASCII text is its own folding)."""
    if text.isascii():
        return Folded(text)
    folded = text.translate(_FOLD)
    if not _INVISIBLE.search(folded):
        return Folded(folded)
    origin = [index for index, char in enumerate(folded) if char not in INVISIBLE]
    origin.append(len(text))
    return Folded(_INVISIBLE.sub("", folded), origin)
