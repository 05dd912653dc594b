"""The secret detectors' common ground, private-key blocks, credential markers and JWTs.

The text a detector reads (:class:`Scan`), the value rules every credential
detector shares (:func:`credential_like`, :func:`placeholder`), and the
detectors of the first two passes and of JWTs and Telegram bot tokens; the
provider catalogue is in :mod:`tinymemory_safety.providers`, credentials
found where they travel in :mod:`tinymemory_safety.assignments`.

Every pattern opens with a literal (``-----BEGIN``, ``bearer``, ``eyJ``)
rather than a look-behind, so Python's ``re`` scans for it at C speed; the
boundary on the left is checked in code. No pattern can backtrack over a
run more than once: repetitions are bounded or possessive, and the JWT
detector, whose prefix can recur inside the run it reads, steps past a run
that failed instead of rereading it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tinymemory_safety.hits import Hit
from tinymemory_safety.lookalikes import placeholder_value

REDACTED = "[REDACTED]"
PRIVATE_KEY_TOKEN = "[REDACTED_PRIVATE_KEY]"

#: The passes of the contract, in the order they run; a hit's rank names its pass.
PRIVATE_KEY_PASS = 1
MARKER_PASS = 2
SHAPE_PASS = 3
HOST_PASS = 4
PII_PASS = 5

#: Characters of a credential value after a marker or an ``api_key``.
_TOKEN_RUN = re.compile(r"(?a)[A-Za-z0-9\-_.+/~=]++")
_WORD_RUN = re.compile(r"(?a)[\w-]++")
_DIGIT = re.compile(r"\d")
DIGITS = frozenset("0123456789")
ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ").union(DIGITS)
_QUOTES = "\"'`"


#: The shortest word a long-word detector reads (provider tokens are 15 or more).
LONG_WORD = 12


class Scan:
    """The folded text a detector reads, with its ASCII-lowered twin (same length)."""

    __slots__ = ("_long", "languages", "lower", "regions", "text")

    def __init__(self, text: str, lower: str) -> None:
        self.text = text
        self.lower = lower
        self._long: list[tuple[int, int]] | None = None
        #: The regions each block of the text points to (``regions.text_regions``).
        self.regions: dict[int, tuple[str, ...]] = {}
        #: Each block's languages' regions (``regions.language_regions``).
        self.languages: dict[int, tuple[tuple[str, ...], ...]] = {}

    def long_words(self) -> list[tuple[int, int]]:
        """The spans of the white-space-separated words of :data:`LONG_WORD` or more characters.

        Provider tokens, JWTs and base64 never hold white space, so the detectors
        of those read only these spans: one C-speed split of the text, found once.
        """
        if self._long is None:
            spans = []
            at = 0
            text = self.text
            for word in text.split():
                if len(word) >= LONG_WORD:
                    at = text.find(word, at)
                    spans.append((at, at + len(word)))
                    at += len(word)
            self._long = spans
        return self._long

    def starts_word(self, at: int) -> bool:
        """Whether no ASCII letter or digit comes right before ``at``."""
        return at == 0 or self.text[at - 1] not in ALNUM

    def ends_word(self, at: int) -> bool:
        """Whether no ASCII letter or digit comes right at ``at``."""
        return at >= len(self.text) or self.text[at] not in ALNUM

    def run_before(self, at: int, chars: frozenset[str], limit: int) -> int:
        """Where the run of ``chars`` ending at ``at`` starts, looking back at most ``limit``."""
        start = at
        stop = max(0, at - limit)
        while start > stop and self.text[start - 1] in chars:
            start -= 1
        return start


def token_run(text: str, at: int) -> str:
    """The credential characters from ``at`` on; a full stop ending them ends the sentence."""
    run = _TOKEN_RUN.match(text, at)
    return "" if run is None else run.group().rstrip(".")


def has_digit(text: str) -> bool:
    """Whether ``text`` holds an ASCII digit."""
    return _DIGIT.search(text) is not None


def credential_like(value: str, *, relaxed: bool) -> bool:
    """Whether a value after a marker or key is long and varied enough to be a credential.

    The contract's floors: 4 characters when it has a digit; else 6 when
    ``relaxed`` (after ``/secret/`` or a capitalised ``Bearer``) or when it is
    not a plain alphanumeric word; else 12. So "bearer bond" and
    "api_key: required" survive.
    """
    if has_digit(value):
        return len(value) >= 4
    if relaxed or not value.isalnum():
        return len(value) >= 6
    return len(value) >= 12


def placeholder(value: str) -> bool:
    """Template values and documentation stand-ins that are not secrets (as gitleaks allows).

    ``${VAR}``, ``{{ var }}``, ``<your-key>``, ``%VAR%``, ``$VAR``, runs of one
    character (``****``, ``xxxx``), values ending in ``EXAMPLE``, and the
    stand-ins of :func:`tinymemory_safety.lookalikes.placeholder_value`
    (``sk-ant-...``, ``ghp_XXXX…``).
    """
    return (
        value[:1] in {"$", "{", "<", "%", "["}
        or len(set(value.lower())) == 1
        or value.endswith("EXAMPLE")
        or placeholder_value(value)
    )


# --- pass 1: private-key blocks --------------------------------------------------------------

_KEY_BEGIN = re.compile(r"(?a)-----BEGIN [A-Z0-9 ]{0,40}?PRIVATE KEY(?: BLOCK)?-----", re.I)
_KEY_END = re.compile(r"(?a)-----END [A-Z0-9 ]{0,40}?PRIVATE KEY(?: BLOCK)?-----", re.I)
#: A line of a key block's body: base64, a ``Name: value`` header, or blank.
_KEY_LINE = re.compile(
    r"(?a)((?:[A-Za-z0-9+/=]{1,128}+|[A-Za-z-]{1,32}+: [^\n]{0,128}+)?)[ \t]*+(?:\r?\n|\Z)"
)


def private_keys(scan: Scan) -> Iterator[Hit]:
    """PEM, OpenSSH and PGP private-key blocks, header to footer, whole."""
    if "private key" not in scan.lower:
        return
    at = 0
    ends = True  # once no END follows one BEGIN, none follows a later one
    while begin := _KEY_BEGIN.search(scan.text, at):
        end = _KEY_END.search(scan.text, begin.end()) if ends else None
        if end:
            stop = end.end()
        else:  # a block cut off before its END (a truncated paste): to the end of its body
            ends = False
            stop = _body_end(scan.text, begin.end())
        yield Hit(begin.start(), stop, PRIVATE_KEY_TOKEN, "private_key", (PRIVATE_KEY_PASS, 0))
        at = stop


def _body_end(text: str, at: int) -> int:
    """Where the body of a key block with no END line stops: after its last body line."""
    end = at
    while (line := _KEY_LINE.match(text, at)) and line.end() > at:
        at = line.end()
        if line.group(1):
            end = line.end(1)
    return end


# --- pass 2: credential markers --------------------------------------------------------------

_BEARER = re.compile(r"(?a)bearer +")


def _marker_value(scan: Scan, at: int, *, relaxed: bool) -> tuple[int, int] | None:
    """The span of the value starting at ``at`` (one quote skipped), with its fragments."""
    if at < len(scan.text) and scan.text[at] in _QUOTES:
        at += 1
    value = token_run(scan.text, at)
    if not credential_like(value, relaxed=relaxed):
        return None
    end = at + len(value)
    # Space-separated fragments that look like more of the token continue it.
    while end < len(scan.text) and scan.text[end] == " ":
        piece = token_run(scan.text, end + 1)
        if not (len(piece) >= 8 or (len(piece) >= 4 and has_digit(piece))):
            break
        end += 1 + len(piece)
    return at, end


def markers(scan: Scan) -> Iterator[Hit]:
    """The value after ``bearer `` (any case) and after ``/secret/``; the marker is kept."""
    if "bearer " in scan.lower:
        for match in _BEARER.finditer(scan.lower):
            if not scan.starts_word(match.start()):
                continue
            relaxed = scan.text[match.start()] == "B"
            span = _marker_value(scan, match.end(), relaxed=relaxed)
            if span:
                yield Hit(*span, REDACTED, "bearer", (MARKER_PASS, 0))
    at = 0
    while (found := scan.text.find("/secret/", at)) >= 0:
        at = found + len("/secret/")
        span = _marker_value(scan, at, relaxed=True)
        if span:
            yield Hit(*span, REDACTED, "secret_path", (MARKER_PASS, 1))
            at = span[1]  # a marker inside this value is redacted with it


# --- pass 3: credential shapes ---------------------------------------------------------------

_JWT_START = re.compile(r"(?a)eyJ")
_JWT = re.compile(r"(?a)eyJ[\w-]{5,}+\.[\w-]{8,}+\.[\w-]{8,}+")
_TELEGRAM = re.compile(r"(?a):A[\w-]{34}")


def token_shapes(scan: Scan) -> Iterator[Hit]:
    """JWTs and Telegram bot tokens (the provider catalogue is apart)."""
    yield from _jwts(scan)
    yield from _telegram(scan)


def _jwts(scan: Scan) -> Iterator[Hit]:
    at = 0
    while start := _JWT_START.search(scan.text, at):
        match = _JWT.match(scan.text, start.start())
        if match and scan.starts_word(start.start()):
            yield Hit(*match.span(), REDACTED, "jwt", (SHAPE_PASS, 15))
            at = match.end()
        else:  # a later "eyJ" inside this run would read the same run again
            at = _WORD_RUN.match(scan.text, start.start()).end()  # type: ignore[union-attr]


def _telegram(scan: Scan) -> Iterator[Hit]:
    if ":A" not in scan.text:
        return
    for match in _TELEGRAM.finditer(scan.text):
        start = scan.run_before(match.start(), DIGITS, 17)
        digits = match.start() - start
        if 5 <= digits <= 16 and scan.starts_word(start) and scan.ends_word(match.end()):
            yield Hit(start, match.end(), REDACTED, "telegram", (SHAPE_PASS, 16))
