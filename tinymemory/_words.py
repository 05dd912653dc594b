"""Words as TinyMemory's text handling compares them: folded, split, stop words known.

:func:`fold` makes ``Café``, ``CAFE`` and ``café`` one word; :func:`words`
cuts a text into its folded words (runs of letters and digits);
:data:`STOP_WORDS` are the common English words that say nothing about what a
text is about. The sqlite engine's embedder and keyword search, and the
extractive answer (:mod:`tinymemory._extractive`), all compare words this way.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["STOP_WORDS", "WORD_PATTERN", "decompose", "fold", "words"]

#: A word: a run of letters and digits (``\w`` without the underscore).
WORD_PATTERN = re.compile(r"[^\W_]+")

#: Common English words that say nothing about what a text is about, folded
#: (lower case, no diacritics), contraction fragments (``what's`` -> ``what``,
#: ``s``) included. The sqlite embedder weighs their features less; the
#: extractive answer and keyword fallbacks skip them.
# fmt: off
STOP_WORDS: frozenset[str] = frozenset({
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few",
    "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
    "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
    "itself", "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of",
    "off", "on", "once", "only", "or", "other", "our", "ours", "ourselves", "out", "over",
    "own", "same", "she", "should", "so", "some", "such", "than", "that", "the", "their",
    "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those",
    "through", "to", "too", "under", "until", "up", "very", "was", "we", "were", "what", "when",
    "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "you",
    "your", "yours", "yourself", "yourselves", "s", "t", "d", "ll", "m", "re", "ve", "don",
    "doesn", "didn", "isn", "aren", "wasn", "weren", "wouldn", "shouldn", "couldn",
})
# fmt: on


class _DropMarks(dict[int, int | None]):
    """A ``str.translate`` table deleting combining marks, filled as characters are met.

    Marks are the characters with a non-zero canonical combining class (accents,
    cedillas, ...); spacing vowel signs of Indic scripts have class 0 and stay.
    """

    def __missing__(self, code: int) -> int | None:
        value = None if unicodedata.combining(chr(code)) else code
        self[code] = value
        return value


_DROP_MARKS = _DropMarks()


def fold(text: str) -> str:
    """``text`` case-folded, compatibility-decomposed and without combining marks.

    ``Café`` and ``CAFE`` both fold to ``cafe``, ``ﬁle`` to ``file``, ``Straße``
    to ``strasse``.
    """
    text = decompose(text)
    return text if text.isascii() else text.translate(_DROP_MARKS)


def decompose(text: str) -> str:
    """:func:`fold` but keeping the combining marks (dropped later, in bulk, when embedding)."""
    if text.isascii():
        return text.lower()
    # Decomposed first, as a compatibility decomposition may yield a capital (the
    # black-letter H gives H); case folding a decomposed text leaves it decomposed.
    return unicodedata.normalize("NFKD", text).casefold()


def words(text: str) -> list[str]:
    """The folded words of ``text``, in order."""
    return WORD_PATTERN.findall(fold(text))
