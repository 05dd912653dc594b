"""The built-in embedder ``hashing``: feature hashing of words, word pairs and character 3-grams.

:class:`HashingEmbedder` needs no model and no download, and gives the same
vectors in every process and on every machine, so vectors stored in one run stay
comparable with queries of the next. Python's ``hash()`` is randomised per
process and is never used; every hash below is 64-bit integer arithmetic done in
numpy, exact and platform-independent.

A text is folded (:func:`tinymemory.retrieval.fold`), cut into words (runs of ``[^\\W_]``, the
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
(:data:`tinymemory.retrieval.STOP_WORDS`: ``the``, ``of``, ``is``, ...), and a pair of two, weigh a
fifth as much: at full weight the words every English text shares gave
unrelated texts cosines of 0.4 to 0.6, above those of related ones with fewer
such words. No sign hashing: every bucket is a sum of positive weights, so
cosines are >= 0 and a collision only ever adds a little similarity. The bucket
sums are then L2-normalised; a text without any word is the zero vector.

Embedding is vectorised over the whole batch (:meth:`HashingEmbedder.embed_matrix`,
in :mod:`tinymemory._feature_hashing`): only folding runs per text in Python;
segmentation, hashing and summing are numpy operations on the concatenated code
points.
"""

from __future__ import annotations

from tinymemory._hashing_embedder import DEFAULT_DIMENSIONS as DEFAULT_DIMENSIONS
from tinymemory._hashing_embedder import GRAM_WEIGHT as GRAM_WEIGHT
from tinymemory._hashing_embedder import MIN_DIMENSIONS as MIN_DIMENSIONS
from tinymemory._hashing_embedder import PAIR_WEIGHT as PAIR_WEIGHT
from tinymemory._hashing_embedder import STOP_WEIGHT as STOP_WEIGHT
from tinymemory._hashing_embedder import WORD_WEIGHT as WORD_WEIGHT
from tinymemory._hashing_embedder import HashingEmbedder as HashingEmbedder
from tinymemory._hookspecs import Embedder, hookimpl

__all__ = ["DEFAULT_DIMENSIONS", "MIN_DIMENSIONS", "HashingEmbedder", "tinymemory_embedders"]


@hookimpl
def tinymemory_embedders() -> list[Embedder]:
    """The dependency-free default embedder ``hashing`` (numpy, the ``vectors`` extra, on use)."""
    return [HashingEmbedder()]
