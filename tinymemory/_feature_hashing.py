"""The vectorised hashing behind :class:`tinymemory.hashing.HashingEmbedder`.

The features, weights and hashes are those its module describes; this module
holds the numpy that computes them, so that loading the plugin (for
``tinymemory --help``, say) does not load numpy.

Texts are hashed in passes of at most :data:`PASS_CHARACTERS` characters. A
text longer than :data:`SEGMENT_CHARACTERS` is cut at whitespace into segments,
hashed a pass at a time and its bucket sums added up, with the pair of words
that meet across each cut added by hand: so a text of any length takes memory
in proportion to one pass, and gets the vector it would get whole (up to the
order float sums are added in).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from typing import NamedTuple, cast

from tinymemory._numpy import require_numpy

require_numpy("the hashing embedder")

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from tinymemory._hashing_embedder import GRAM_WEIGHT, PAIR_WEIGHT, STOP_WEIGHT, WORD_WEIGHT  # noqa: E402
from tinymemory._words import STOP_WORDS, decompose  # noqa: E402

#: The most characters one vectorised pass hashes (texts of a few hundred
#: characters: a few hundred texts, which keeps the temporary arrays in the CPU's
#: caches, three times faster than one pass over thousands).
PASS_CHARACTERS = 256 * 1024
#: The most texts one pass hashes.
PASS_TEXTS = 512
#: A text longer than this is hashed by segments of about this size.
SEGMENT_CHARACTERS = 64 * 1024

_WHITESPACE = re.compile(r"\s")

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

_U64 = npt.NDArray[np.uint64]
Floats = npt.NDArray[np.float32]


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
    """The words and 3-grams of texts from :func:`tinymemory._words.decompose`.

    ``None`` when no text holds a word.
    """
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
    # A set, not np.unique: that imports numpy.ma, a start-up cost of every process.
    while len(set((hashes & np.uint64(size - 1)).tolist())) < hashes.size:
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


def embed_texts(texts: Sequence[str], dimensions: int) -> Floats:
    """The L2-normalised vectors of ``texts``, a float32 array of ``(len(texts), dimensions)``."""
    matrix = np.zeros((len(texts), dimensions), dtype=np.float32)
    batch: list[int] = []
    size = 0
    for row, text in enumerate(texts):
        if len(text) > SEGMENT_CHARACTERS:
            matrix[row] = _normalised(_long_sums(text, dimensions))[0]
            continue
        if batch and (size + len(text) > PASS_CHARACTERS or len(batch) == PASS_TEXTS):
            _embed_batch(texts, batch, matrix)
            batch, size = [], 0
        batch.append(row)
        size += len(text)
    if batch:
        _embed_batch(texts, batch, matrix)
    return matrix


def _embed_batch(texts: Sequence[str], rows: list[int], matrix: Floats) -> None:
    hashed = _hash([decompose(texts[row]) for row in rows])
    if hashed is not None:
        matrix[rows] = _normalised(_bucket_sums(len(rows), hashed, matrix.shape[1]))


def _segments(text: str) -> Iterator[str]:
    """``text`` cut before whitespace into segments of about :data:`SEGMENT_CHARACTERS`.

    A cut before a whitespace character changes no word, 3-gram or fold. A
    stretch without whitespace stays whole, however long.
    """
    start = 0
    while len(text) - start > SEGMENT_CHARACTERS:
        cut = max(text.rfind(space, start + 1, start + SEGMENT_CHARACTERS) for space in " \n")
        if cut < 0:
            found = _WHITESPACE.search(text, start + 1)
            if found is None:
                break
            cut = found.start()
        yield text[start:cut]
        start = cut
    yield text[start:]


def _long_sums(text: str, dimensions: int) -> npt.NDArray[np.float64]:
    """The bucket sums of one long text, hashed a pass of segments at a time."""
    sums = np.zeros((1, dimensions))
    last_word: _U64 | None = None  # the last word hashed so far
    batch: list[str] = []
    size = 0
    for segment in [*_segments(text), None]:
        if segment is not None and (not batch or size + len(segment) <= PASS_CHARACTERS):
            batch.append(segment)
            size += len(segment)
            continue
        hashed = _hash([decompose(part) for part in batch])
        batch, size = ([], 0) if segment is None else ([segment], len(segment))
        if hashed is None:
            continue
        # All in one row, so words of neighbouring segments pair up as in the whole text.
        hashed = hashed._replace(
            gram_rows=np.zeros_like(hashed.gram_rows), word_rows=np.zeros_like(hashed.word_rows)
        )
        sums += _bucket_sums(1, hashed, dimensions)
        if last_word is not None:
            # The pair across the cut between this pass and the last.
            words = np.concatenate((last_word, hashed.word_hashes[:1]))
            hashes, weights = _pairs(words, _is_stop(words))
            np.add.at(sums[0], _buckets(hashes, dimensions), weights)
        last_word = hashed.word_hashes[-1:]
    return sums


def _pairs(word_hashes: _U64, stop: npt.NDArray[np.bool_]) -> tuple[_U64, npt.NDArray[np.float64]]:
    """The hashes and weights of each word paired with the next."""
    hashes = _fmix64((word_hashes[:-1] * _PAIR_MUL) ^ word_hashes[1:] ^ _PAIR)
    # A pair of two stop words (`of the`) says as little as one.
    return hashes, PAIR_WEIGHT * np.where(stop[:-1] & stop[1:], STOP_WEIGHT, 1.0)


def _buckets(hashes: _U64, dimensions: int) -> npt.NDArray[np.intp]:
    # Multiply-shift maps the high 32 bits onto [0, dimensions) without a division.
    buckets = ((hashes >> np.uint64(32)) * np.uint64(dimensions)) >> np.uint64(32)
    return buckets.astype(np.intp)


def _bucket_sums(count: int, hashed: _Hashed, dimensions: int) -> npt.NDArray[np.float64]:
    """Each of ``count`` rows' weighted feature counts per bucket, not yet normalised."""
    gram_rows, grams, word_of_gram, word_rows, word_hashes = hashed
    stop = _is_stop(word_hashes)
    word_weights = np.where(stop, STOP_WEIGHT, 1.0)
    same_text = word_rows[:-1] == word_rows[1:]
    pair_hashes, pair_weights = _pairs(word_hashes, stop)
    rows = np.concatenate((word_rows, word_rows[:-1][same_text], gram_rows))
    hashes = np.concatenate((word_hashes, pair_hashes[same_text], grams))
    weights = np.concatenate(
        (
            WORD_WEIGHT * word_weights,
            pair_weights[same_text],
            GRAM_WEIGHT * word_weights[word_of_gram],
        )
    )
    cells = rows * dimensions + _buckets(hashes, dimensions)
    sums = np.bincount(cells, weights, minlength=count * dimensions)
    # Weighted, so already float64 (no copy is made), which numpy's stubs do not see.
    return sums.reshape(count, dimensions).astype(np.float64, copy=False)


def _normalised(sums: npt.NDArray[np.float64]) -> Floats:
    norms = np.sqrt(np.einsum("ij,ij->i", sums, sums))[:, None]
    np.divide(sums, norms, out=sums, where=norms > 0)
    return sums.astype(np.float32)
