"""A tiny model2vec model, built offline in a folder, for tests and benchmarks.

:func:`build_tiny_model2vec` writes a word-level model (``tokenizer.json``,
``model.safetensors``, ``config.json``) with model2vec's own writer, so the
``model2vec`` embedder loads it exactly as it loads a downloaded one. Words are
given meaning by the *senses* they share: each sense is a random direction,
and a word's vector is the sum of its senses' directions plus a little noise
of its own. Two texts with no word in common are then near when their words
share senses, which is what a real model learns from text and what feature
hashing cannot do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: The senses of the default vocabulary: words in one sense are near each other.
SENSES: Mapping[str, Sequence[str]] = {
    "payment": (
        "card",
        "cards",
        "charge",
        "charges",
        "charged",
        "payment",
        "payments",
        "pay",
        "checkout",
        "billing",
        "purchase",
        "purchases",
        "transaction",
        "transactions",
        "gateway",
    ),
    "failure": (
        "fail",
        "failed",
        "fails",
        "failure",
        "error",
        "errors",
        "outage",
        "broke",
        "broken",
        "rejected",
        "declined",
        "down",
        "expired",
        "incident",
    ),
    "security": ("certificate", "tls", "ssl", "https", "handshake", "expired", "renewed"),
    "customer": ("customer", "customers", "client", "clients", "user", "users", "buyers"),
    "cause": ("why", "cause", "because", "reason", "root", "caused", "incident", "report", "so"),
    "travel": ("travel", "trip", "trips", "flight", "flights", "hotel", "budget", "eur"),
    "meeting": ("offsite", "meeting", "team", "lisbon", "agenda", "may", "week"),
    "code": ("tabs", "spaces", "indentation", "style", "formatting", "editor"),
    "food": ("lunch", "pizza", "menu", "dinner", "restaurant", "vegetarian"),
}


def build_tiny_model2vec(
    folder: str | Path,
    *,
    senses: Mapping[str, Sequence[str]] = SENSES,
    words: Sequence[str] = (),
    dimensions: int = 128,
    noise: float = 0.15,
    seed: int = 0,
) -> Path:
    """Write a tiny model2vec model into ``folder`` (made if missing); the folder.

    ``senses`` maps a sense's name to the words that carry it (a word may carry
    several); each pair of :data:`tinymemory.retrieval.SYNONYMS` is a sense too,
    as a real model knows common synonyms (the probe by which recall tells a
    meaning-aware embedder); ``words`` adds words with no sense (each its own
    direction). The
    vocabulary is lowercase whole words; a text's words outside it are ignored.
    Deterministic for one ``seed``. Needs model2vec (this distribution's
    dependency); downloads nothing.
    """
    import numpy as np
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    from tinymemory.retrieval import SYNONYMS

    if dimensions < 2:
        raise ValueError(f"dimensions must be at least 2, not {dimensions}")
    senses = {**senses, **{f"synonyms-{a}": (a, b) for a, b in SYNONYMS}}
    carried: dict[str, list[str]] = {}
    for sense, members in senses.items():
        for word in members:
            carried.setdefault(_word(word), []).append(sense)
    for word in words:
        carried.setdefault(_word(word), [])
    random = np.random.default_rng(seed)
    directions = {sense: _unit(random.standard_normal(dimensions)) for sense in senses}
    unknown = "[UNK]"
    vocabulary = {unknown: 0, **{word: index + 1 for index, word in enumerate(sorted(carried))}}
    vectors = np.zeros((len(vocabulary), dimensions), dtype=np.float32)
    for word, index in vocabulary.items():
        if word == unknown:
            continue
        own = _unit(random.standard_normal(dimensions))
        meaning = np.zeros(dimensions)
        for sense in carried[word]:
            meaning += directions[sense]
        vectors[index] = meaning + (noise if carried[word] else 1.0) * own
    tokenizer = Tokenizer(models.WordLevel(vocab=vocabulary, unk_token=unknown))
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.NFKD(), normalizers.StripAccents(), normalizers.Lowercase()]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    target = Path(folder)
    StaticModel(vectors, tokenizer, normalize=True).save_pretrained(target)
    return target


def _word(word: str) -> str:
    if not word.isalnum() or word != word.lower():
        raise ValueError(f"`{word}` is not a lowercase word of letters and digits")
    return word


def _unit(vector: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    import numpy as np

    return np.asarray(vector / np.linalg.norm(vector), dtype=np.float64)
