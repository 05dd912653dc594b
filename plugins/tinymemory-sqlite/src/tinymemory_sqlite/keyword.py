"""FTS5 queries built from a user's words, never from their syntax.

The query text is cut into words here and each word is written as an FTS5
string, so a quote, a star, ``NEAR``, ``AND``, ``-``, ``:`` or a stray
parenthesis is searched for as text (or dropped as punctuation), never read
as query syntax.
"""

from __future__ import annotations

import re
import unicodedata

from .answer import STOP_WORDS

#: The most distinct words of a query that are searched for.
MAX_QUERY_WORDS = 32
_WORD = re.compile(r"[^\W_]+")


def query_words(text: str) -> list[str]:
    """The distinct words of ``text``, lower-cased, in order, at most :data:`MAX_QUERY_WORDS`."""
    words = dict.fromkeys(word.lower() for word in _WORD.findall(text))
    return list(words)[:MAX_QUERY_WORDS]


def all_of(words: list[str]) -> str:
    """An FTS5 query matching texts holding every word."""
    return " ".join(_quoted(word) for word in words)


def any_of(words: list[str]) -> str:
    """An FTS5 query matching texts holding any word, stop words dropped unless that is all."""
    content = [word for word in words if _folded(word) not in STOP_WORDS] or words
    return " OR ".join(_quoted(word) for word in content)


def _quoted(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def _folded(word: str) -> str:
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(char for char in decomposed if not unicodedata.combining(char))
