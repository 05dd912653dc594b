"""Records that set a credential: a directive naming a header or a secret, then its value.

Configuration files and command lines set headers and secrets with a
directive and white space, no ``=`` or ``:`` between the name and the value,
so the assignment rules do not read them:

- nginx ``proxy_set_header Authorization "Bearer …";``, ``add_header
  X-Auth-Token …;``, Apache ``RequestHeader set Cookie "…"``, HAProxy
  ``http-request set-header X-Api-Key …`` (``Bearer\\ …``), Caddy
  ``header_up Authorization "…"``, a Dockerfile's ``ENV API_TOKEN …``;
- a record of a header's name and its value as two fields, Envoy's
  ``{key: "Authorization", value: "…"}`` or ``name: X-Api-Key`` then
  ``value: …`` on the next line.

The rule: at a line's start, one to three directive words (the first of them
written as a directive), then a name that
names a credential (``Authorization``, ``Proxy-Authorization``, or a key
:func:`tinymemory_safety.assignments.is_secret_key` takes: ``X-Api-Key``,
``Cookie``, ``AZURE_CLIENT_SECRET``), then the value. A directive word is
written as configuration writes them (``proxy_set_header``, ``http-request``,
``RequestHeader``: a ``_``, a ``-`` or a capital inside) or is a verb that
sets (``set``, ``add``, ``append``, ``header``, ``env``...). Only the value
goes, after its scheme (``Bearer``, ``Basic``, ``Token``); the name and the
rest of the line stay. A value that is a variable (``$http_authorization``,
``{env.TOKEN}``), a placeholder or a word of prose stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tinymemory_safety.assignments import is_secret_key, is_value
from tinymemory_safety.credentials import REDACTED, SHAPE_PASS, Scan, credential_like
from tinymemory_safety.hits import Hit

#: Headers that carry credentials though their names end in no secret's word.
_AUTH_NAMES = frozenset({"authorization", "proxy-authorization"})
#: Verbs that set a value, written as plain words.
_SETTERS = frozenset(
    {"set", "add", "append", "merge", "setifempty", "header", "headers", "env", "setenv",
     "arg", "param", "define", "export"}
)  # fmt: skip
#: A line's indent (and a list's dash) before its first word.
_LINE_START = re.compile(r"(?a)[ \t]*+(?:-[ \t]++)?(?=[A-Za-z])")
#: A word of the line (maybe quoted) and the white space after it.
_WORD = re.compile(r"(?a)([\"']?)([A-Za-z][\w-]{0,63}+)\1([ \t]++)")
#: The most directive words before the name (``http-request set-header NAME``).
_MOST_WORDS = 3
#: A record's value field (``value:``), a literal to look for.
_VALUE_FIELD = re.compile(r"(?a)value[\"']?[ \t]*+:[ \t]*+")
#: The field before it holding a header's name (read back from the value field).
_NAME_FIELD = re.compile(
    r"(?a)\b(?:key|name|header)[\"']?[ \t]*+:[ \t]*+([\"']?)([A-Za-z][\w-]{1,63}+)\1[ \t]*+"
    r"(?:,[ \t]*+|\r?\n[ \t]*+(?:-[ \t]++)?)[\"']?$"
)
#: How far before a value field its name field may open.
_NAME_FIELD_REACH = 128
#: A scheme before the credentials; HAProxy escapes the space (``Bearer\ token``).
_SCHEME = re.compile(r"(?a)[A-Za-z][\w-]{1,24}+(?:\\? )++")
_QUOTED = {quote: re.compile(f"(?a){quote}([^{quote}\\n]{{1,1024}}+){quote}") for quote in "\"'`"}
_UNQUOTED = re.compile(r"(?a)[^\s;\"'`]{1,1024}+")


def _credential_name(name: str) -> bool:
    return name.lower() in _AUTH_NAMES or is_secret_key(name)


def _directive_word(word: str) -> bool:
    """A word configuration writes: ``proxy_set_header``, ``http-request``, ``RequestHeader``."""
    return (
        "_" in word
        or "-" in word
        or any(char.isupper() for char in word[1:])
        or word.lower() in _SETTERS
    )


def _value(scan: Scan, at: int) -> tuple[int, int] | None:
    """The span of the credentials at ``at``: inside its quotes, after its scheme."""
    text = scan.text
    quoted = _QUOTED.get(text[at : at + 1])
    if quoted is not None:
        found = quoted.match(text, at)
        if found is None:
            return None
        start, end = found.span(1)
    else:
        scheme = _SCHEME.match(text, at)
        found = _UNQUOTED.match(text, at if scheme is None else scheme.end())
        if found is None:
            found = _UNQUOTED.match(text, at)
        if found is None:
            return None
        start, end = found.span()
        if scheme is not None and start > at:
            return _checked(scan, start, end)
    scheme = _SCHEME.match(text, start, end)
    if scheme is not None and scheme.end() < end:
        start = scheme.end()
    return _checked(scan, start, end)


def _checked(scan: Scan, start: int, end: int) -> tuple[int, int] | None:
    """``(start, end)`` when the text there may be a credential: no variable, word or stand-in."""
    text = scan.text
    value = text[start:end]
    if value.isalpha() and (value.islower() or value[1:].islower()):
        return None  # a word of prose
    if not is_value(text, start, end) or not credential_like(value, relaxed=False):
        return None
    return start, end


def _directive(scan: Scan, at: int) -> Iterator[Hit]:
    """The value a line's directive words (from ``at``) set for a credential's name."""
    text = scan.text
    words: list[str] = []
    while len(words) <= _MOST_WORDS and (word := _WORD.match(text, at)) is not None:
        at = word.end()
        name = word.group(2)
        if not words and not _directive_word(name):
            return  # a line of prose or code: its first word is no directive
        if words and _credential_name(name) and any(map(_directive_word, words)):
            if text[at : at + 1] not in {"=", ":", "\n", "\r", ""}:
                span = _value(scan, at)
                if span is not None:
                    yield Hit(*span, REDACTED, "credential_directive", (SHAPE_PASS, 92))
            return
        words.append(name)


def _directive_lines(scan: Scan) -> Iterator[Hit]:
    """The values set on each line that opens with a directive word (lines found by ``find``)."""
    text = scan.text
    at = 0
    while True:
        first = _LINE_START.match(text, at)
        if first is not None:
            yield from _directive(scan, first.end())
        found = text.find("\n", at)
        if found < 0:
            return
        at = found + 1


def credential_directives(scan: Scan) -> Iterator[Hit]:
    """Values a directive or a name/value record sets for a credential header or secret."""
    lower = scan.lower
    text = scan.text
    yield from _directive_lines(scan)
    if "value" in lower:
        for field in _VALUE_FIELD.finditer(text):
            opening = max(0, field.start() - _NAME_FIELD_REACH)
            found = _NAME_FIELD.search(text, opening, field.start())
            if found is not None and _credential_name(found.group(2)):
                span = _value(scan, field.end())
                if span is not None:
                    yield Hit(*span, REDACTED, "credential_directive", (SHAPE_PASS, 92))
