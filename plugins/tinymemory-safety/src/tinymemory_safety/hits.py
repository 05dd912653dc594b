"""What a detector found, and how the overlapping finds of one pass are settled.

The detectors of a pass run over the whole folded text and report spans;
nothing is replaced until all of them have spoken. Of overlapping spans the
earliest wins, then the longest, then the class listed first (an IBAN before
a card, a card before a bare CPF or CNPJ). The winners are spliced onto the
original text before the next pass reads it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import NamedTuple

from tinymemory_safety.folding import Folded


class Hit(NamedTuple):
    """A span of the folded text to replace by ``token``, found by class ``kind``."""

    start: int
    end: int
    token: str
    kind: str
    #: The pass, then the class's rank inside it (lower wins a tie).
    rank: tuple[int, int]


def settle(hits: Iterable[Hit]) -> list[Hit]:
    """The hits that stand, by start: no two overlap (see the module's rules)."""
    ordered = sorted(hits, key=lambda hit: (hit.start, hit.start - hit.end, hit.rank))
    starts: list[int] = []
    taken: list[Hit] = []
    for hit in ordered:
        at = bisect.bisect_left(starts, hit.start)
        if at > 0 and taken[at - 1].end > hit.start:
            continue
        if at < len(taken) and taken[at].start < hit.end:
            continue
        starts.insert(at, hit.start)
        taken.insert(at, hit)
    return taken


def splice(original: str, folded: Folded, hits: list[Hit], *, compact: bool = False) -> str:
    """``original`` with each settled hit's original characters replaced by its token.

    ``compact``: no replacement is longer, in UTF-8 bytes, than what it replaces
    (the token if it fits, else ``[REDACTED]``, else a ``*`` a character), so
    the text never grows.
    """
    pieces = []
    done = 0
    for hit in hits:
        start, end = folded.original_span(hit.start, hit.end)
        pieces.append(original[done:start])
        pieces.append(_compact(hit.token, original[start:end]) if compact else hit.token)
        done = end
    pieces.append(original[done:])
    return "".join(pieces)


#: The shortest token that still says what happened.
_SHORT_TOKEN = "[REDACTED]"


def _compact(token: str, replaced: str) -> str:
    """``token``, or a shorter stand-in when ``token`` is longer than ``replaced`` (UTF-8)."""
    room = len(replaced.encode("utf-8", "surrogatepass"))
    for candidate in (token, _SHORT_TOKEN):
        if len(candidate) <= room:  # tokens are ASCII: characters are bytes
            return candidate
    return "*" * len(replaced)
