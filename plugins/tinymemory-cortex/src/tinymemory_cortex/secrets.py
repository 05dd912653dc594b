"""Every configured secret out of a server's words, whole or in part, in every form it may take.

A server that quotes a request back (an error naming the header it refused,
the URL it could not route, the token it could not parse) may spell a secret
as sent, URL-encoded (``%2B``, ``+`` for a space), JSON-escaped, in hex, in
another case (a proxy lowercasing header values), or base64-encoded (the
``user:pass`` of Basic auth, a token wrapped by a gateway, the whole
``Authorization`` value), and it may quote only **part** of it (the first
11 characters of a key). :class:`Redactor` replaces every run of
:data:`SHORTEST_RUN` or more characters of any of those spellings by
``***``, case-insensitively.

Base64 of a part of a secret is a run of the base64 of the secret itself
only when the part starts at a multiple of 3 bytes; so each secret is also
encoded from its second and its third byte on (the three alignments), which
makes every part's base64, but for its last group of at most 3 characters,
a run of one of them.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

#: A secret shorter than this is taken out only whole: it would mangle ordinary words.
SHORTEST_SECRET = 4
#: The shortest part of a secret (of any of its spellings) that is taken out: 7 characters
#: of a key may stay, 8 never do. Short enough that no usable part of a key survives
#: (8 characters of base64 are 48 bits), long enough that ordinary words rarely match.
SHORTEST_RUN = 8
MASK = "***"


def spellings(secret: str) -> set[str]:
    """The forms of ``secret`` a server may echo (each matched in any case, and in part)."""
    forms: set[str] = set()
    for value in _values(secret):
        forms |= {value, quote(value, safe=""), quote(value), quote_plus(value)}
        forms.add(json.dumps(value, ensure_ascii=False)[1:-1])
        forms.add(json.dumps(value)[1:-1])
        raw = value.encode("utf-8")
        forms.add(raw.hex())
        for start in range(3):  # the three base64 alignments
            for encode in (base64.b64encode, base64.urlsafe_b64encode):
                forms.add(encode(raw[start:]).decode("ascii").rstrip("="))
    return {form for form in forms if len(form) >= SHORTEST_SECRET}


def _values(secret: str) -> set[str]:
    """``secret``, and the user and password inside a ``Basic`` credential's ``user:pass``."""
    values = {secret}
    for word in secret.split():
        decoded = _base64_text(word)
        if decoded is not None and ":" in decoded:
            values |= {part for part in (decoded, *decoded.split(":", 1)) if part}
    return values


def _base64_text(word: str) -> str | None:
    if len(word) < 8 or len(word) % 4 or not re.fullmatch(r"[A-Za-z0-9+/_-]+=*", word):
        return None
    try:
        return base64.b64decode(word.replace("-", "+").replace("_", "/"), validate=True).decode(
            "utf-8"
        )
    except ValueError:
        return None


class _Forms:
    """The spellings of some secrets, ready to find in text: whole short ones, runs of long ones."""

    def __init__(self, secrets: Iterable[str]) -> None:
        forms = {form for secret in secrets if secret for form in spellings(secret)}
        self.runs = {
            form[start : start + SHORTEST_RUN].lower()
            for form in forms
            if len(form) >= SHORTEST_RUN
            for start in range(len(form) - SHORTEST_RUN + 1)
        }
        short = sorted((form for form in forms if len(form) < SHORTEST_RUN), key=len, reverse=True)
        self.short = re.compile("|".join(map(re.escape, short)), re.IGNORECASE) if short else None

    def covered(self, text: str) -> list[bool]:
        """For each character of ``text``, whether it lies in a secret's spelling or run."""
        marked = [False] * len(text)
        if self.runs:
            lowered = text.lower()
            for start in range(len(text) - SHORTEST_RUN + 1):
                if lowered[start : start + SHORTEST_RUN] in self.runs:
                    marked[start : start + SHORTEST_RUN] = [True] * SHORTEST_RUN
        if self.short is not None:
            for found in self.short.finditer(text):
                marked[found.start() : found.end()] = [True] * (found.end() - found.start())
        return marked


@functools.lru_cache(maxsize=64)
def _forms(secrets: tuple[str, ...]) -> _Forms:
    return _Forms(secrets)


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every stretch that spells a run of one of ``secrets`` as one ``***``."""
    marked = _forms(tuple(sorted({secret for secret in secrets if secret}))).covered(text)
    if not any(marked):
        return text
    out: list[str] = []
    for index, char in enumerate(text):
        if not marked[index]:
            out.append(char)
        elif index == 0 or not marked[index - 1]:
            out.append(MASK)
    return "".join(out)


class Redactor:
    """Takes the configured secrets (header values, the endpoint's query values) out of text."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._secrets = tuple(secret for secret in secrets if secret)

    def redact(self, text: str, *more: str) -> str:
        """``text`` with every spelling of the configured secrets, and of ``more``, in part too."""
        return redact(text, (*self._secrets, *more))

    def __repr__(self) -> str:
        return "Redactor(***)"
