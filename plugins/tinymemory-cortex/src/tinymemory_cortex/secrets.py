"""Every configured secret out of a server's words, in every form a server may echo it.

A server that quotes a request back (an error naming the header it refused,
the URL it could not route, the token it could not parse) may spell a secret
as sent, URL-encoded (``%2B``, ``+`` for a space), JSON-escaped, in another
case (a proxy lowercasing header values), or base64-encoded (the ``user:pass``
of Basic auth, a token wrapped by a gateway). :class:`Redactor` replaces each
of those spellings of each secret by ``***``, case-insensitively.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

#: Shorter values are not redacted: they would mangle ordinary words.
SHORTEST_SECRET = 4
#: The shortest word of a value taken as a secret of its own (a scheme such as
#: ``Basic`` or ``Bearer`` is shorter, and stays readable).
SHORTEST_WORD = 8
MASK = "***"


def spellings(secret: str) -> set[str]:
    """The forms of ``secret`` a server may echo (each matched in any case)."""
    forms = {secret, quote(secret, safe=""), quote(secret), quote_plus(secret)}
    forms.add(json.dumps(secret, ensure_ascii=False)[1:-1])
    forms.add(json.dumps(secret)[1:-1])
    raw = secret.encode("utf-8")
    for encoded in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        forms.add(encoded.decode("ascii"))
        forms.add(encoded.decode("ascii").rstrip("="))
    # A value such as "Basic dXNlcjpwYXNz" or "Token abc": its words are secrets of their own.
    for word in secret.split():
        if word != secret and len(word) >= SHORTEST_WORD:
            forms |= spellings(word)
    # Basic credentials: the user and the password inside the base64 of `user:pass`.
    for word in secret.split():
        decoded = _base64_text(word)
        if decoded is not None and ":" in decoded:
            for part in (decoded, *decoded.split(":", 1)):
                if len(part) >= SHORTEST_SECRET:
                    forms |= spellings(part)
    return {form for form in forms if len(form) >= SHORTEST_SECRET}


def _base64_text(word: str) -> str | None:
    if len(word) < 8 or len(word) % 4 or not re.fullmatch(r"[A-Za-z0-9+/_-]+=*", word):
        return None
    try:
        return base64.b64decode(word.replace("-", "+").replace("_", "/"), validate=True).decode(
            "utf-8"
        )
    except ValueError:
        return None


def _pattern(secrets: Iterable[str]) -> re.Pattern[str] | None:
    forms = {form for secret in secrets if secret for form in spellings(secret)}
    if not forms:
        return None
    # Longest first, so a secret's encoded form is taken whole before a part of it.
    ordered = sorted(forms, key=lambda form: (-len(form), form))
    return re.compile("|".join(map(re.escape, ordered)), re.IGNORECASE)


class Redactor:
    """Takes the configured secrets (header values, the endpoint's query values) out of text."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._pattern = _pattern(secrets)

    def redact(self, text: str, *more: str) -> str:
        """``text`` with every spelling of the configured secrets, and of ``more``, as ``***``."""
        for pattern in (self._pattern, _pattern(more)):
            if pattern is not None:
                text = pattern.sub(MASK, text)
        return text

    def __repr__(self) -> str:
        return "Redactor(***)"
