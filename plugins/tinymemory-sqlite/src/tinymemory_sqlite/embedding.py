"""The default embedder: feature hashing of words, word pairs and character 3-grams.

:class:`HashingEmbedder` needs no model and no download, and gives the same
vectors in every process and on every machine, so vectors stored in one run stay
comparable with queries of the next. Python's ``hash()`` is randomised per
process and is never used; every hash below is 64-bit integer arithmetic done in
numpy, exact and platform-independent.

A text is folded (:func:`fold`), cut into words (runs of ``[^\\W_]``, the
letters and digits) and turned into features, each added to one of
``dimensions`` buckets:

* each word ``w``, weight 1.0, hash
  ``h(w) = fmix64(sum_j fmix64((j << 21 | ord(w[j])) ^ CHAR) ^ WORD)``;
* each pair of neighbouring words ``w1 w2``, weight 0.5, hash
  ``fmix64((h(w1) * PAIR_MUL) ^ h(w2) ^ PAIR)``;
* each 3-gram ``abc`` of each word padded with a space (`` w ``), weight 0.5,
  hash ``fmix64((ord(a) << 42 | ord(b) << 21 | ord(c)) ^ GRAM)``

(``fmix64`` is MurmurHash3's 64-bit finaliser, all arithmetic is mod 2**64;
``CHAR``, ``WORD``, ``PAIR``, ``GRAM`` and ``PAIR_MUL`` are the constants below,
distinct so that the word ``cat`` and the 3-gram ``cat`` land in unrelated
buckets). A feature's bucket is ``(hash >> 32) * dimensions >> 32``.

Words carry the meaning, so they weigh most; a pair adds word order and
phrases at half weight. The 3-grams of the word padded with a boundary space
(`` cat `` gives `` ca``, ``cat``, ``at ``) let inflections and typos still
match (``prefer``/``preferred``), at half weight: a word of n letters has n
of them, so they would otherwise drown the words. The features of a stop word
(:data:`STOP_WORDS`: ``the``, ``of``, ``is``, ...), and a pair of two, weigh a
fifth as much: at full weight the words every English text shares gave
unrelated texts cosines of 0.4 to 0.6, above those of related ones with fewer
such words. No sign hashing: every bucket is a sum of positive weights, so
cosines are >= 0 and a collision only ever adds a little similarity. The bucket
sums are then L2-normalised; a text without any word is the zero vector.

Embedding is vectorised over the whole batch (:meth:`HashingEmbedder.embed_matrix`):
only folding runs per text in Python; segmentation, hashing and summing are numpy
operations on the concatenated code points.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import NamedTuple, cast

import numpy as np
import numpy.typing as npt

from tinymemory import ConfigError, EngineError
from tinymemory.plugin import Embedder

__all__ = [
    "DEFAULT_DIMENSIONS",
    "MIN_DIMENSIONS",
    "STOP_WORDS",
    "WORD_PATTERN",
    "HashingEmbedder",
    "as_matrix",
    "fold",
    "words",
]

#: Vector size of the default embedder.
DEFAULT_DIMENSIONS = 256
#: Fewer buckets than this would make nearly every text collide with every other.
MIN_DIMENSIONS = 16
#: A word: a run of letters and digits (``\w`` without the underscore).
WORD_PATTERN = re.compile(r"[^\W_]+")

#: Feature weights (see the module docstring for why).
WORD_WEIGHT = 1.0
PAIR_WEIGHT = 0.5
GRAM_WEIGHT = 0.5
#: Factor on a stop word's features, and on a pair of two stop words.
STOP_WEIGHT = 0.2

#: Common English words that say nothing about what a text is about, folded
#: (lower case, no diacritics), contraction fragments (``what's`` -> ``what``,
#: ``s``) included. Their features weigh :data:`STOP_WEIGHT` as much; the
#: extractive answer and the engine's keyword fallback skip them.
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

# Seeds and the pair multiplier: arbitrary odd 64-bit constants (the fractions of
# pi, e, sqrt 2, the golden ratio and sqrt 3). Changing any of them changes every
# vector, so stored vectors would no longer match new queries: they are part of the
# format, like the weights and the stop words.
_CHAR = np.uint64(0x243F6A8885A308D3)
_WORD = np.uint64(0xB7E151628AED2A6B)
_PAIR = np.uint64(0x6A09E667F3BCC909)
_GRAM = np.uint64(0x9E3779B97F4A7C15)
_PAIR_MUL = np.uint64(0xBB67AE8584CAA73B)
_FMIX_1 = np.uint64(0xFF51AFD7ED558CCD)
_FMIX_2 = np.uint64(0xC4CEB9FE1A85EC53)
_SPACE = np.uint64(ord(" "))

# Texts per vectorised pass (see embed_matrix).
_CHUNK = 512

_U64 = npt.NDArray[np.uint64]
_Floats = npt.NDArray[np.float32]


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
    text = _decompose(text)
    return text if text.isascii() else text.translate(_DROP_MARKS)


def _decompose(text: str) -> str:
    """:func:`fold` but keeping the combining marks (dropped later, in bulk, when embedding)."""
    if text.isascii():
        return text.lower()
    # Decomposed first, as a compatibility decomposition may yield a capital (the
    # black-letter H gives H); case folding a decomposed text leaves it decomposed.
    return unicodedata.normalize("NFKD", text).casefold()


def words(text: str) -> list[str]:
    """The folded words of ``text``, in order."""
    return WORD_PATTERN.findall(fold(text))


def _fmix64(h: _U64) -> _U64:
    """MurmurHash3's finaliser: every input bit reaches every output bit."""
    h = h ^ (h >> np.uint64(33))
    h = h * _FMIX_1
    h = h ^ (h >> np.uint64(33))
    h = h * _FMIX_2
    return h ^ (h >> np.uint64(33))


# Word characters (alphanumeric, which is what `[^\W_]` matches) among the ASCII codes.
_ASCII_ALNUM = np.array([chr(code).isalnum() for code in range(128)], dtype=bool)


def _classify(
    codes: npt.NDArray[np.uint32],
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_] | None]:
    """Whether each code point is a word character, and whether it is a combining
    mark (``None`` when the text is ASCII, so holds none).
    """
    is_word = _ASCII_ALNUM[np.minimum(codes, 127)]
    wide = np.flatnonzero(codes >= 128)
    if not wide.size:
        return is_word, None
    # Classify each distinct non-ASCII character once.
    distinct, inverse = np.unique(codes[wide], return_inverse=True)
    chars = [chr(code) for code in distinct.tolist()]
    is_word[wide] = np.array([char.isalnum() for char in chars], dtype=bool)[inverse]
    is_mark = np.zeros(codes.shape, dtype=bool)
    is_mark[wide] = np.array([unicodedata.combining(char) != 0 for char in chars])[inverse]
    return is_word, is_mark


class _Hashed(NamedTuple):
    """The hashed words and 3-grams of a batch of texts."""

    gram_rows: npt.NDArray[np.intp]  # per 3-gram (one per word character), its text
    grams: _U64
    word_of_gram: npt.NDArray[np.intp]  # per 3-gram, the index of its word
    word_rows: npt.NDArray[np.intp]  # per word, its text
    word_hashes: _U64


def _hash(decomposed: Sequence[str]) -> _Hashed | None:
    """The words and 3-grams of texts from :func:`_decompose`; ``None`` when none holds a word."""
    # One string: a space before the first text and after every text, so no
    # word or 3-gram spans two texts and every character has two neighbours.
    joined = " " + " ".join(decomposed) + " "
    codes = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    lengths = np.fromiter((len(text) + 1 for text in decomposed), np.intp, len(decomposed))
    lengths[0] += 1  # the leading space counts to the first text
    text_of = np.repeat(np.arange(len(decomposed)), lengths)

    is_word, is_mark = _classify(codes)
    if is_mark is not None and is_mark.any():
        # What fold() does per text with str.translate, several times faster.
        keep = ~is_mark
        codes, is_word, text_of = codes[keep], is_word[keep], text_of[keep]
    at = np.flatnonzero(is_word)  # positions of word characters
    if at.size == 0:
        return None
    mid = codes[at].astype(np.uint64)
    starts_word = ~is_word[at - 1]
    # Outside the word a neighbour is the boundary mark, whatever it was.
    left = np.where(starts_word, _SPACE, codes[at - 1])  # uint64, as _SPACE is
    right = np.where(is_word[at + 1], codes[at + 1], _SPACE)
    grams = _fmix64((left << np.uint64(42) | mid << np.uint64(21) | right) ^ _GRAM)

    # `at` lists word characters only, so each word is a contiguous run of it.
    first = np.flatnonzero(starts_word)  # index in `at` of each word's first letter
    word_of = np.cumsum(starts_word) - 1
    offset = (np.arange(at.size) - first[word_of]).view(np.uint64)  # >= 0: same bits
    letters = _fmix64((offset << np.uint64(21) | mid) ^ _CHAR)
    # Each word's sum as a difference of running sums (wrapping, like the sum itself):
    # much faster than np.add.reduceat over many short runs.
    running = np.concatenate((np.zeros(1, np.uint64), np.cumsum(letters)))
    ends = np.append(first[1:], at.size)
    word_hashes = _fmix64((running[ends] - running[first]) ^ _WORD)
    rows = text_of[at]
    return _Hashed(rows, grams, word_of, rows[first], word_hashes)


def _stop_table() -> _U64:
    """The stop words' hashes, each at the slot its low bits name, in the fewest
    slots (a power of two) where no two share one: a lookup is one read.
    """
    hashes = cast(_Hashed, _hash(sorted(STOP_WORDS))).word_hashes
    size = 256
    while np.unique(hashes & np.uint64(size - 1)).size < hashes.size:
        size *= 2
    # An empty slot holds a value whose low bits are not its index: never a match.
    table = np.arange(1, size + 1, dtype=np.uint64)
    table[hashes & np.uint64(size - 1)] = hashes
    return table


_STOP_TABLE = _stop_table()
_STOP_MASK = np.uint64(_STOP_TABLE.size - 1)


def _is_stop(word_hashes: _U64) -> npt.NDArray[np.bool_]:
    is_stop: npt.NDArray[np.bool_] = _STOP_TABLE[word_hashes & _STOP_MASK] == word_hashes
    return is_stop


class HashingEmbedder:
    """Deterministic feature-hashing embedder; ``dimensions`` at least 16."""

    name: str = "hashing"
    dimensions: int

    def __init__(self, dimensions: int = DEFAULT_DIMENSIONS) -> None:
        if isinstance(dimensions, bool) or not isinstance(dimensions, int):
            raise ConfigError(f"embedder dimensions must be an integer, not {dimensions!r}")
        if dimensions < MIN_DIMENSIONS:
            raise ConfigError(
                f"embedder dimensions must be at least {MIN_DIMENSIONS}, not {dimensions}"
            )
        self.dimensions = dimensions

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimensions={self.dimensions})"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text (zero for a text without words)."""
        return self.embed_matrix(texts).tolist()  # type: ignore[no-any-return]

    def embed_matrix(self, texts: Sequence[str]) -> _Floats:
        """The vectors as a float32 array of shape ``(len(texts), dimensions)``."""
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        # Batches of a few hundred texts keep the temporary arrays in the CPU's
        # caches: three times faster than one pass over thousands.
        for start in range(0, len(texts), _CHUNK):
            chunk = [_decompose(text) for text in texts[start : start + _CHUNK]]
            hashed = _hash(chunk)
            if hashed is not None:
                matrix[start : start + len(chunk)] = self._vectors(len(chunk), hashed)
        return matrix

    def _vectors(self, count: int, hashed: _Hashed) -> _Floats:
        gram_rows, grams, word_of_gram, word_rows, word_hashes = hashed
        stop = _is_stop(word_hashes)
        word_weights = np.where(stop, STOP_WEIGHT, 1.0)
        same_text = word_rows[:-1] == word_rows[1:]
        pair_hashes = _fmix64(
            (word_hashes[:-1][same_text] * _PAIR_MUL) ^ word_hashes[1:][same_text] ^ _PAIR
        )
        # A pair of two stop words (`of the`) says as little as one.
        pair_weights = np.where((stop[:-1] & stop[1:])[same_text], STOP_WEIGHT, 1.0)
        rows = np.concatenate((word_rows, word_rows[:-1][same_text], gram_rows))
        hashes = np.concatenate((word_hashes, pair_hashes, grams))
        weights = np.concatenate(
            (
                WORD_WEIGHT * word_weights,
                PAIR_WEIGHT * pair_weights,
                GRAM_WEIGHT * word_weights[word_of_gram],
            )
        )
        dim = self.dimensions
        # Multiply-shift maps the high 32 bits onto [0, dimensions) without a division.
        buckets = ((hashes >> np.uint64(32)) * np.uint64(dim)) >> np.uint64(32)
        cells = rows * dim + buckets.astype(np.intp)
        matrix = np.bincount(cells, weights, minlength=count * dim).reshape(count, dim)
        norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None]
        np.divide(matrix, norms, out=matrix, where=norms > 0)
        return matrix.astype(np.float32)


def as_matrix(embedder: Embedder, texts: Sequence[str]) -> _Floats:
    """``embedder``'s vectors for ``texts`` as a checked float32 matrix, rows L2-normalised.

    Uses the embedder's ``embed_matrix`` when it has one, else ``embed``. A
    result that is not ``len(texts)`` rows of ``dimensions`` finite numbers is
    the embedder's failure: ``EngineError`` naming it. Zero rows stay zero.
    """
    if type(embedder) is HashingEmbedder:
        # Its matrix is checked and normalised by construction; checking it again
        # would cost a third of the embedding time.
        return embedder.embed_matrix(texts)
    name = getattr(embedder, "name", type(embedder).__name__)
    dimensions = getattr(embedder, "dimensions", None)
    if isinstance(dimensions, bool) or not isinstance(dimensions, int) or dimensions < 1:
        raise EngineError(f"embedder `{name}` has invalid dimensions {dimensions!r}")
    if not texts:
        return np.zeros((0, dimensions), dtype=np.float32)
    embed_matrix = getattr(embedder, "embed_matrix", None)
    raw = embed_matrix(texts) if callable(embed_matrix) else embedder.embed(texts)
    try:
        # A copy: the rows are scaled in place, and the array may be the embedder's own.
        matrix = np.array(raw, dtype=np.float64)
    except (TypeError, ValueError) as error:
        # A ragged list or non-numbers cannot form a matrix.
        raise EngineError(f"embedder `{name}` returned something other than vectors") from error
    expected = (len(texts), dimensions)
    if matrix.shape != expected:
        raise EngineError(
            f"embedder `{name}` returned vectors of shape {matrix.shape}, expected {expected}"
        )
    if not np.isfinite(matrix).all():
        raise EngineError(f"embedder `{name}` returned a vector with non-finite values")
    # Scaled to a largest entry of 1 first, so squaring neither overflows nor underflows.
    largest = np.abs(matrix).max(axis=1, keepdims=True)
    np.divide(matrix, largest, out=matrix, where=largest > 0)
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None]
    np.divide(matrix, norms, out=matrix, where=norms > 0)
    return matrix.astype(np.float32)
