"""FTS5 queries built from a user's words, never from their syntax.

The query text is cut into words here and each word is written as an FTS5
string, so a quote, a star, ``NEAR``, ``AND``, ``-``, ``:`` or a stray
parenthesis is searched for as text (or dropped as punctuation), never read
as query syntax.
"""

from __future__ import annotations

from tinymemory.retrieval import STOP_WORDS, WORD_PATTERN, fold

#: The most distinct words of a query that are searched for.
MAX_QUERY_WORDS = 32


def query_words(text: str) -> list[str]:
    """The distinct words of ``text``, lower-cased, in order, at most :data:`MAX_QUERY_WORDS`."""
    words = dict.fromkeys(word.lower() for word in WORD_PATTERN.findall(text))
    return list(words)[:MAX_QUERY_WORDS]


def content_words(words: list[str]) -> list[str]:
    """``words`` without stop words, unless that leaves none."""
    return [word for word in words if fold(word) not in STOP_WORDS] or words


def all_of(words: list[str]) -> str:
    """An FTS5 query matching texts holding every word."""
    return " ".join(phrase(word) for word in words)


def any_of(words: list[str]) -> str:
    """An FTS5 query matching texts holding any word."""
    return " OR ".join(phrase(word) for word in words)


def phrase(word: str) -> str:
    """``word`` as an FTS5 string."""
    return '"' + word.replace('"', '""') + '"'
