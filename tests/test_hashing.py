"""The hashing embedder and the embedder-output check ``embedding_matrix``."""

from __future__ import annotations

import itertools
import math
import tracemalloc
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory import ConfigError, EngineError, hashing
from tinymemory import _feature_hashing as feature_hashing
from tinymemory.plugin import Embedder
from tinymemory.retrieval import STOP_WORDS, HashingEmbedder, embedding_matrix, fold, words

MASK = (1 << 64) - 1
CHAR = 0x243F6A8885A308D3
WORD = 0xB7E151628AED2A6B
PAIR = 0x6A09E667F3BCC909
GRAM = 0x9E3779B97F4A7C15
PAIR_MUL = 0xBB67AE8584CAA73B


def fmix64(h: int) -> int:
    h ^= h >> 33
    h = h * 0xFF51AFD7ED558CCD & MASK
    h ^= h >> 33
    h = h * 0xC4CEB9FE1A85EC53 & MASK
    return h ^ h >> 33


def reference(text: str, dimensions: int = 256) -> npt.NDArray[np.float32]:
    """The vector the module docstring describes, one feature at a time in plain Python."""
    sums = [0.0] * dimensions

    def add(hashed: int, weight: float) -> None:
        sums[(hashed >> 32) * dimensions >> 32] += weight

    found = words(text)
    hashes = []
    for word in found:
        factor = 0.2 if word in STOP_WORDS else 1.0
        total = sum(fmix64((j << 21 | ord(char)) ^ CHAR) for j, char in enumerate(word)) & MASK
        hashes.append(fmix64(total ^ WORD))
        add(hashes[-1], 1.0 * factor)
        padded = f" {word} "
        for i in range(len(word)):
            a, b, c = (ord(char) for char in padded[i : i + 3])
            add(fmix64((a << 42 | b << 21 | c) ^ GRAM), 0.5 * factor)
    for (first, second), (one, other) in zip(
        itertools.pairwise(hashes), itertools.pairwise(found), strict=True
    ):
        factor = 0.2 if one in STOP_WORDS and other in STOP_WORDS else 1.0
        add(fmix64((first * PAIR_MUL & MASK) ^ second ^ PAIR), 0.5 * factor)
    norm = math.sqrt(sum(value * value for value in sums))
    return np.array([value / norm if norm else 0.0 for value in sums], dtype=np.float32)


EMBEDDER = HashingEmbedder()
SAMPLES = [
    "The user prefers tabs over spaces.",
    "Café au lait, s'il vous plaît — ﬁne \u210cilbert STRASSE Straße",
    "naïve façade: déjà-vu (ΟΔΥΣΣΕΥΣ) Москва 東京 2024_01 x of the",
    "a",
    "",
]


def cosine(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    return float(np.dot(a, b))


def test_the_embedder_is_an_embedder() -> None:
    assert isinstance(EMBEDDER, Embedder)
    assert EMBEDDER.name == "hashing"
    assert EMBEDDER.dimensions == 256
    assert HashingEmbedder(16).dimensions == 16
    assert repr(EMBEDDER) == "HashingEmbedder(dimensions=256)"


@pytest.mark.parametrize("dimensions", [15, 0, -3, True, 256.0, "256"])
def test_bad_dimensions_are_a_config_error(dimensions: Any) -> None:
    with pytest.raises(ConfigError, match="dimensions"):
        HashingEmbedder(dimensions)


def test_the_vectorised_hashing_is_the_documented_one() -> None:
    matrix = EMBEDDER.embed_matrix(SAMPLES)
    for row, text in zip(matrix, SAMPLES, strict=True):
        np.testing.assert_allclose(row, reference(text), atol=1e-6)


def test_fixed_values_catch_a_change_of_hashing() -> None:
    # Computed once. Stored vectors depend on them: a change must be deliberate.
    fox, dog = EMBEDDER.embed_matrix(["The quick brown fox", "the lazy brown dog"])
    assert int(np.argmax(fox)) == 196
    assert int(np.argmax(dog)) == 94
    assert round(cosine(fox, dog), 4) == 0.3617
    assert np.flatnonzero(EMBEDDER.embed_matrix(["cat"])[0]).tolist() == [76, 137, 155, 240]
    small = HashingEmbedder(16).embed_matrix(["cat"])[0]
    # The word (weight 1.0) and its three 3-grams (0.5 each), normalised.
    assert np.flatnonzero(small).tolist() == [4, 8, 9, 15]
    np.testing.assert_allclose(small[[4, 8, 9, 15]], np.array([2, 1, 1, 1]) / math.sqrt(7))


def test_similar_texts_are_closer_than_unrelated_ones() -> None:
    base, near, far = EMBEDDER.embed_matrix(
        [
            "The user prefers dark mode in the editor",
            "User preference: the editor should use dark mode",
            "Quarterly revenue grew by twelve percent in Europe",
        ]
    )
    assert cosine(base, near) > 0.6
    assert cosine(base, far) < 0.2


def test_shared_stop_words_do_not_make_texts_similar() -> None:
    question, answer, chatter = EMBEDDER.embed_matrix(
        [
            "Who is the owner of the billing service?",
            "The billing service is owned by the payments team.",
            "The meeting is on the first of the month and it is in the office of the team.",
        ]
    )
    # At full weight `is`, `the` and `of` alone made the chatter as close (0.70) as the answer.
    assert cosine(question, answer) > 0.5
    assert cosine(question, chatter) < 0.35


def test_inflections_share_character_grams() -> None:
    prefer, preferred, unrelated = EMBEDDER.embed_matrix(["prefer", "preferred", "banana"])
    assert cosine(prefer, preferred) > 0.3
    assert cosine(prefer, unrelated) < cosine(prefer, preferred)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("café", "cafe"),
        ("CAFÉ", "cafe"),
        ("Cafe\u0301", "café"),
        ("Straße", "strasse"),
        ("ﬁle", "file"),
        ("Ångström", "angstrom"),
    ],
)
def test_case_and_diacritics_are_folded(left: str, right: str) -> None:
    a, b = EMBEDDER.embed_matrix([left, right])
    np.testing.assert_array_equal(a, b)
    assert a.any()


def test_fold() -> None:
    assert fold("Café ÉTÉ") == "cafe ete"
    assert fold("\u210c") == "h"
    assert words("Déjà-vu, snake_case 42!") == ["deja", "vu", "snake", "case", "42"]


def test_vectors_are_unit_length_float32() -> None:
    matrix = EMBEDDER.embed_matrix(SAMPLES[:-1])
    assert matrix.dtype == np.float32
    assert matrix.shape == (4, 256)
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, rtol=1e-6)
    assert (matrix >= 0).all()  # no sign hashing


@pytest.mark.parametrize("text", ["", "   ", "!!! --- ...", "_", "\u0301\u0301", "\n\t"])
def test_a_text_without_words_is_the_zero_vector(text: str) -> None:
    assert not EMBEDDER.embed_matrix([text]).any()
    assert EMBEDDER.embed([text]) == [[0.0] * 256]


def test_no_texts() -> None:
    assert EMBEDDER.embed_matrix([]).shape == (0, 256)
    assert EMBEDDER.embed([]) == []
    assert embedding_matrix(EMBEDDER, []).shape == (0, 256)


def test_embed_agrees_with_embed_matrix() -> None:
    vectors = EMBEDDER.embed(SAMPLES)
    assert isinstance(vectors, list)
    assert all(isinstance(value, float) for value in vectors[0])
    matrix = EMBEDDER.embed_matrix(SAMPLES)
    np.testing.assert_array_equal(np.array(vectors, dtype=np.float32), matrix)


def test_a_text_gets_the_same_vector_in_any_batch() -> None:
    texts = [
        f"note {i}: the user likes {'tea' if i % 2 else 'café'} ☕ no. {i}" for i in range(1300)
    ]
    texts[700] = ""
    batch = EMBEDDER.embed_matrix(texts)  # several chunks
    for index in (0, 511, 512, 699, 700, 701, 1299):
        np.testing.assert_array_equal(batch[index], EMBEDDER.embed_matrix([texts[index]])[0])


def test_lone_surrogates_do_not_break_embedding() -> None:
    vector = EMBEDDER.embed_matrix(["bad \udc80 byte"])[0]
    np.testing.assert_array_equal(vector, EMBEDDER.embed_matrix(["bad byte"])[0])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=5))
def test_any_batch_matches_the_reference(texts: list[str]) -> None:
    matrix = EMBEDDER.embed_matrix(texts)
    assert np.isfinite(matrix).all()
    for row, text in zip(matrix, texts, strict=True):
        np.testing.assert_allclose(row, reference(text), atol=1e-6)
        np.testing.assert_array_equal(row, EMBEDDER.embed_matrix([fold(text)])[0])


# embedding_matrix


class Foreign:
    name = "foreign"
    dimensions = 3

    def __init__(self, vectors: Any) -> None:
        self.vectors = vectors

    def embed(self, texts: Sequence[str]) -> Any:
        return self.vectors


class ForeignMatrix(Foreign):
    def embed_matrix(self, texts: Sequence[str]) -> Any:
        return self.vectors


def test_as_matrix_uses_embed_matrix_of_the_hashing_embedder() -> None:
    np.testing.assert_array_equal(
        embedding_matrix(EMBEDDER, SAMPLES), EMBEDDER.embed_matrix(SAMPLES)
    )


@pytest.mark.parametrize("kind", [Foreign, ForeignMatrix])
def test_as_matrix_normalises_a_foreign_embedders_rows(kind: type[Foreign]) -> None:
    matrix = embedding_matrix(kind([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0]]), ["a", "b"])
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(matrix, [[0.6, 0.8, 0.0], [0.0, 0.0, 0.0]], rtol=1e-6)


def test_as_matrix_leaves_the_embedders_array_alone() -> None:
    own = np.array([[3.0, 4.0, 0.0]])
    np.testing.assert_allclose(embedding_matrix(ForeignMatrix(own), ["a"]), [[0.6, 0.8, 0.0]])
    np.testing.assert_array_equal(own, [[3.0, 4.0, 0.0]])


@pytest.mark.parametrize("size", [1e-300, 1e300])
def test_as_matrix_normalises_tiny_and_huge_vectors(size: float) -> None:
    matrix = embedding_matrix(Foreign([[3 * size, 4 * size, 0.0]]), ["a"])
    np.testing.assert_allclose(matrix, [[0.6, 0.8, 0.0]], rtol=1e-6)


@pytest.mark.parametrize(
    ("vectors", "complaint"),
    [
        ([[1.0, 0.0, 0.0]], "shape"),
        ([[1.0, 0.0], [0.0, 1.0]], "shape"),
        ([1.0, 0.0, 0.0], "shape"),
        (None, "shape"),
        ([[1.0, 0.0, 0.0], [1.0, 0.0]], "other than vectors"),
        ([[1.0, 0.0, 0.0], ["x", 0.0, 0.0]], "other than vectors"),
        ([[1.0, 0.0, 0.0], [math.nan, 0.0, 0.0]], "non-finite"),
        ([[1.0, 0.0, 0.0], [0.0, -math.inf, 0.0]], "non-finite"),
    ],
)
@pytest.mark.parametrize("kind", [Foreign, ForeignMatrix])
def test_as_matrix_rejects_bad_output(kind: type[Foreign], vectors: Any, complaint: str) -> None:
    with pytest.raises(EngineError, match=complaint) as caught:
        embedding_matrix(kind(vectors), ["a", "b"])
    assert "`foreign`" in caught.value.message


def test_as_matrix_rejects_bad_dimensions() -> None:
    class Broken(Foreign):
        dimensions = 0

    with pytest.raises(EngineError, match="`foreign` has invalid dimensions"):
        embedding_matrix(Broken([]), ["a"])


def test_an_embedders_own_failure_passes_through() -> None:
    class Failing(Foreign):
        def embed(self, texts: Sequence[str]) -> Any:
            raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        embedding_matrix(Failing(None), ["a"])


def test_weights_favour_words() -> None:
    assert hashing.WORD_WEIGHT > hashing.PAIR_WEIGHT
    assert hashing.WORD_WEIGHT > hashing.GRAM_WEIGHT
    assert 0 < hashing.STOP_WEIGHT < 1


def test_a_subclass_of_the_hashing_embedder_is_checked() -> None:
    class Overriding(HashingEmbedder):
        def embed_matrix(self, texts: Sequence[str]) -> Any:
            return np.full((len(texts), self.dimensions), np.nan, dtype=np.float32)

    with pytest.raises(EngineError, match="`hashing` returned a vector with non-finite values"):
        embedding_matrix(Overriding(), ["a"])


# --- long texts, by segments ---------------------------------------------------

#: Words chosen so that cuts fall between stop words, non-ASCII words and a long run.
LONG_WORDS = ["of", "the", "Café", "lantern", "x" * 70, "naïve", "and", "東京", "to"]


def test_a_long_text_gets_the_vector_it_gets_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tiny segments and passes, so one text of a few kilobytes crosses many cuts:
    # between segments of one pass, between passes, and a stretch longer than a segment.
    monkeypatch.setattr(feature_hashing, "SEGMENT_CHARACTERS", 40)
    monkeypatch.setattr(feature_hashing, "PASS_CHARACTERS", 100)
    text = "\n".join(
        " ".join(LONG_WORDS[(line * 7 + n) % len(LONG_WORDS)] for n in range(line % 9 + 1))
        for line in range(120)
    )
    assert len(list(feature_hashing._segments(text))) > 40
    matrix = EMBEDDER.embed_matrix(["short one", text, "the other short one"])
    np.testing.assert_allclose(matrix[1], reference(text), atol=1e-6)
    np.testing.assert_array_equal(
        matrix[[0, 2]], EMBEDDER.embed_matrix(["short one", "the other short one"])
    )


def test_a_text_without_whitespace_is_one_segment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feature_hashing, "SEGMENT_CHARACTERS", 40)
    text = "ab" * 100 + " tail"
    assert list(feature_hashing._segments(text)) == ["ab" * 100, " tail"]
    np.testing.assert_allclose(EMBEDDER.embed_matrix([text])[0], reference(text), atol=1e-6)


def test_embedding_a_long_text_takes_bounded_memory() -> None:
    # 8 MB of text: hashed whole, the temporary arrays took about 90 bytes a character.
    text = " ".join(f"word{n % 5000} of the text" for n in range(400_000))
    assert len(text) > 8_000_000
    tracemalloc.start()
    try:
        EMBEDDER.embed_matrix([text])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024
