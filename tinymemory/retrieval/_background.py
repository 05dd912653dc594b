"""Bars from the embedder in use: a background of unrelated texts, measured once per embedder.

A similarity means nothing alone: one embedder gives unrelated sentences a
cosine of 0.0, another 0.3, a third (a static model) 0.5. So no bar of
recall is a number. Each is a comparison with what the same embedder gives
texts known to be unrelated, for the same question or the same sentence:

- a stored text is close to a question when it is closer than every
  passage of :data:`BACKGROUND_SENTENCES` (:func:`question_bar`, recall's
  relevance), or when one of its windows of sentences is closer than every
  window of as many sentences slid over the background
  (:meth:`Background.window_bar`: like is compared with like, whatever the
  text's length), a sentence when it is closer than every one of those
  sentences (the question's own null: :meth:`Background.question_bar`);
- a sentence answers a question only if, besides, the question is closer to it
  than every :data:`BACKGROUND_QUESTIONS` question (the sentence's own null:
  :meth:`Background.sentence_bars`), so that a sentence close to anything
  asked (a "hub") answers nothing;
- a word of the question is held in meaning by a sentence when one of the
  sentence's words is closer to it than every unrelated word of
  :data:`VOCABULARY` (:meth:`Background.word_bars`; the extractive answer
  asks a sentence to hold at least half of the question's words);
- an embedder is meaning-aware (:attr:`Background.meaning_aware`) when so
  many of the :data:`SYNONYMS` (pairs of words that share no letters' run,
  only their sense) put their partner closer than most other pairs' words
  that an embedder knowing no meaning would do as well with chance at most
  :data:`PROBE_FALSE_POSITIVES`: a sign test.

Every decision compares similarities of one embedder with each other, never
with a constant, so it stays the same when the embedder's similarities are
all mapped through any increasing function (``0.9 + 0.1c``, ``c**3``). The
background is measured once per embedder identity and stored
(:func:`stored_path`, under the user's cache folder), then kept per embedder
object for the process (a process keeps a few); an embedder declaring no
``identity`` is measured once per process. :func:`embedded` keeps the vectors
of the texts recall embeds (candidate sentences) per embedder object.
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from tinymemory._words import STOP_WORDS, words
from tinymemory.retrieval._vectors import embedding_matrix

if TYPE_CHECKING:
    from tinymemory._hookspecs import Embedder
    from tinymemory.retrieval._vectors import Floats
else:
    Floats = Any

#: Statements about subjects of their own (nature, history, crafts; then working life,
#: the register of what a memory holds), one subject each.
BACKGROUND_SENTENCES = (
    "The lighthouse keeper logs every ship that passes before dawn.",
    "Honeybees dance to tell the hive where the flowers are.",
    "The choir rehearses the winter concert on Thursday evenings.",
    "Basalt columns form when thick lava cools slowly and cracks.",
    "The bakery sells sourdough loaves until noon on Sundays.",
    "Marathon runners drink water at stations every five kilometres.",
    "The museum's bronze statue was cast in the seventeenth century.",
    "Saturn's rings are made of ice and dust.",
    "The village well was dug by hand and lined with stone.",
    "Penguins huddle together to survive the Antarctic winter.",
    "The violin's strings are tuned in perfect fifths.",
    "A sundial tells the time by the shadow of its gnomon.",
    "The orchard's apple harvest starts in late September.",
    "Chess players record each move in algebraic notation.",
    "The cathedral's stained glass windows depict old legends.",
    "Glaciers carve U-shaped valleys as they move downhill.",
    "The ferry to the island leaves twice a day in summer.",
    "Tomato seedlings need plenty of light to grow strong stems.",
    "The knitting circle meets at the library on Wednesdays.",
    "Owls can turn their heads almost all the way around.",
    "The old mill ground wheat with water from the river.",
    "Coral reefs shelter a quarter of all marine species.",
    "The puppet theatre performs fairy tales for children.",
    "Volcanic ash makes the soil around the crater fertile.",
    "The pottery kiln is fired to a thousand degrees overnight.",
    "Migrating geese fly south in a V formation.",
    "The tailor shortened the sleeves of the wool coat.",
    "Cacti store water in their thick, waxy stems.",
    "The rowing club trains on the lake at six in the morning.",
    "A comet's tail always points away from the sun.",
    "The gardener prunes the roses at the end of winter.",
    "Medieval scribes copied manuscripts by candlelight.",
    # Notes of working life, on subjects of their own: a memory's neighbours in register.
    "The third-floor printer jams when it is fed thick envelopes.",
    "Meeting room Aurora seats twelve and has a video screen.",
    "The coffee machine in the kitchen is descaled every Monday.",
    "Fire drills take place twice a year without warning.",
    "Lost umbrellas are kept at reception for a month.",
    "The summer party will have a jazz band on the terrace.",
    "Recycling bins for glass stand next to the lifts.",
    "The guest wifi password changes on the first of each month.",
    "Pull requests need two approvals before they are merged.",
    "The nightly build compiles the mobile app for both platforms.",
    "Plants on the balcony are watered by the facilities team.",
    "The mail room sorts incoming post before ten o'clock.",
)
#: Questions about other subjects than :data:`BACKGROUND_SENTENCES` and each other.
BACKGROUND_QUESTIONS = (
    "Which bird lays the largest egg?",
    "How tall is the tallest redwood tree?",
    "Who painted the ceiling of the chapel?",
    "What do whales eat in the polar seas?",
    "How many keys does a grand piano have?",
    "Why do leaves change colour in autumn?",
    "Where do sea turtles lay their eggs?",
    "When was the first bicycle built?",
    "How is cheese aged in caves?",
    "What makes a rainbow appear after rain?",
    "Which mountain range has the highest peaks?",
    "How do spiders spin their webs?",
    "Who wrote the oldest surviving epic poem?",
    "How long does a snail live?",
    "What colour is a giraffe's tongue?",
    "Why does bread dough rise?",
    "How deep is the deepest ocean trench?",
    "Which planet has the longest day?",
    "How are church bells tuned?",
    "What do foxes hunt at night?",
    "Where did the game of polo begin?",
    "How do salmon find their home river?",
    "Why do cats purr?",
    "What is amber made of?",
    # Questions of working life, on subjects of their own.
    "Who fixes the printer when it jams?",
    "How many people fit in the big meeting room?",
    "When is the coffee machine cleaned?",
    "Where are lost umbrellas kept?",
    "What music will play at the summer party?",
    "What is the guest wifi password?",
    "How many approvals does a pull request need?",
    "When does the mail room sort the post?",
    "Which team waters the balcony plants?",
    "Where do I throw away glass bottles?",
    "How often are fire drills held?",
    "What does the nightly build compile?",
)
#: Pairs of words sharing one sense and no run of three letters: the meaning probe.
SYNONYMS = (
    ("car", "automobile"), ("physician", "doctor"), ("big", "large"), ("begin", "start"),
    ("purchase", "buy"), ("quick", "fast"), ("wage", "salary"), ("ill", "sick"),
    ("shut", "close"), ("mistake", "error"), ("journey", "trip"), ("reply", "answer"),
    ("rubbish", "garbage"), ("child", "kid"), ("present", "gift"), ("hat", "cap"),
)  # fmt: skip
#: Background sentences per background passage: a stored piece holds several sentences,
#: and a longer text's cosine to a short question is lower by any embedder's averaging.
PASSAGE_SENTENCES = 4
#: The meaning probe's false-positive rate: how often an embedder that knows no meaning
#: (each word's partner no likelier than another word to be its nearest) passes it.
PROBE_FALSE_POSITIVES = 0.01
#: Embedders whose backgrounds a process keeps (the most recently used).
_KEPT = 8
#: The version of the stored form (a change of the texts above changes the file's key too).
_FORMAT = 2


def _vocabulary() -> tuple[str, ...]:
    return tuple(
        sorted({word for text in BACKGROUND_SENTENCES for word in words(text)} - STOP_WORDS)
    )


#: The content words of :data:`BACKGROUND_SENTENCES`: the unrelated words a question's word
#: is compared with (:meth:`Background.word_bars`).
VOCABULARY = _vocabulary()


@attrs.frozen
class Background:
    """An embedder's background: its unrelated texts' vectors and whether it knows meaning."""

    #: Rows of :data:`BACKGROUND_SENTENCES`.
    sentences: Floats = attrs.field(eq=False, repr=False)
    #: Rows of :data:`BACKGROUND_QUESTIONS`.
    questions: Floats = attrs.field(eq=False, repr=False)
    #: Rows of the background sentences joined :data:`PASSAGE_SENTENCES` at a time.
    passages: Floats = attrs.field(eq=False, repr=False)
    #: Whether synonyms sharing no letters lie closer than unrelated words (see the module).
    meaning_aware: bool
    #: Rows of :data:`VOCABULARY`.
    words: Floats = attrs.field(eq=False, repr=False)
    #: Per window size ``n`` from 1 to :data:`PASSAGE_SENTENCES` (entry ``n - 1``), rows of
    #: every run of ``n`` consecutive background sentences, joined (:func:`windows`).
    windows: tuple[Floats, ...] = attrs.field(eq=False, repr=False)

    def question_bar(self, question: Floats) -> float:
        """The highest similarity of the ``question`` vector to an unrelated sentence."""
        return float((self.sentences @ question).max())

    def passage_bar(self, question: Floats) -> float:
        """The highest similarity of the ``question`` vector to an unrelated passage."""
        return float((self.passages @ question).max())

    def window_bar(self, question: Floats, size: int) -> float:
        """The highest similarity of the ``question`` vector to a window of ``size``
        consecutive background sentences (1 to :data:`PASSAGE_SENTENCES`)."""
        return float((self.windows[size - 1] @ question).max())

    def sentence_bars(self, sentences: Floats) -> Floats:
        """Per row of ``sentences``, its highest similarity to an unrelated question."""
        bars: Floats = pairwise(sentences, self.questions).max(axis=1)
        return bars

    def word_bars(self, asked: Sequence[str], vectors: Floats) -> Floats:
        """Per word of ``asked`` (its row of ``vectors``), its highest similarity to an
        unrelated word of :data:`VOCABULARY`, leaving out the background words that are
        the same word (one holds the other's stem: ``keep`` and ``keeper``)."""
        import numpy as np

        similarity = pairwise(vectors, self.words)
        for row, word in enumerate(asked):
            similarity[row, _same_word(word)] = -np.inf
        bars: Floats = similarity.max(axis=1)
        return bars


def pairwise(rows: Floats, other: Floats) -> Floats:
    """The similarities of each of ``rows`` to each of ``other`` (unit rows), a matrix.

    Summed in numpy's own loop, not by the BLAS: these products are small (tens of
    rows by a few hundred), and a multi-threaded BLAS wakes its threads for each, which
    on a busy machine cost recall tens of milliseconds a call."""
    import numpy as np

    products: Floats = np.einsum("ij,kj->ik", rows, other)
    return products


@functools.lru_cache(maxsize=1 << 14)
def _same_word(word: str) -> list[int]:
    """The columns of :data:`VOCABULARY` that are ``word`` itself, inflected or derived."""
    root = _stem(word)
    return [
        column
        for column, (known, known_root) in enumerate(_vocabulary_stems())
        if root in known or known_root in word
    ]


def _stem(word: str) -> str:
    from tinymemory._extractive import stem

    return stem(word)


@functools.cache
def _vocabulary_stems() -> tuple[tuple[str, str], ...]:
    return tuple((known, _stem(known)) for known in VOCABULARY)


_lock = threading.Lock()
_kept: dict[int, tuple[Embedder, Background]] = {}


def background(embedder: Embedder) -> Background:
    """``embedder``'s :class:`Background`: kept for the process; read from the store
    (:func:`stored_path`) when the embedder declares an ``identity``, else embedded on
    first use (and then stored)."""
    with _lock:
        kept = _kept.get(id(embedder))
        if kept is not None and kept[0] is embedder:
            return kept[1]
    path = stored_path(embedder)
    made = _read(path, embedder.dimensions) if path is not None else None
    if made is None:
        made = _measure(embedder)
        if path is not None:
            _write(path, made)
    with _lock:
        _kept.pop(id(embedder), None)
        _kept[id(embedder)] = (embedder, made)
        while len(_kept) > _KEPT:
            del _kept[next(iter(_kept))]
    return made


#: Texts whose vectors a process keeps per embedder (:func:`embedded`): the candidate
#: sentences of the passages recalled often, so a transformer embeds each once.
KEPT_TEXTS = 4096
_texts: dict[int, tuple[Embedder, OrderedDict[str, Floats]]] = {}


def embedded(embedder: Embedder, texts: Sequence[str]) -> Floats:
    """``embedding_matrix(embedder, texts)``, embedding only the texts whose vectors the
    process does not keep yet (in one call), and keeping the last :data:`KEPT_TEXTS`."""
    import numpy as np

    with _lock:
        entry = _texts.get(id(embedder))
        if entry is None or entry[0] is not embedder:
            entry = (embedder, OrderedDict())
            _texts[id(embedder)] = entry
            while len(_texts) > _KEPT:
                del _texts[next(iter(_texts))]
        kept = entry[1]
        missing = list(dict.fromkeys(text for text in texts if text not in kept))
    fresh = dict(zip(missing, embedding_matrix(embedder, missing), strict=True)) if missing else {}
    with _lock:
        kept.update(fresh)
        rows = [fresh[text] if text in fresh else kept[text] for text in texts]
        for text in texts:
            if text in kept:
                kept.move_to_end(text)
        while len(kept) > KEPT_TEXTS:
            kept.popitem(last=False)
    if not rows:
        return embedding_matrix(embedder, [])
    matrix: Floats = np.stack(rows)
    return matrix


def windows(sentences: Sequence[str], size: int) -> list[str]:
    """Every run of ``size`` consecutive ``sentences``, joined by a space, in order (the
    whole text when it has fewer)."""
    if len(sentences) <= size:
        return [" ".join(sentences)] if sentences else []
    return [" ".join(sentences[start : start + size]) for start in range(len(sentences) - size + 1)]


def _windows() -> list[list[str]]:
    return [windows(BACKGROUND_SENTENCES, size) for size in range(1, PASSAGE_SENTENCES + 1)]


def _passages() -> list[str]:
    return [
        " ".join(BACKGROUND_SENTENCES[start : start + PASSAGE_SENTENCES])
        for start in range(0, len(BACKGROUND_SENTENCES), PASSAGE_SENTENCES)
    ]


def _measure(embedder: Embedder) -> Background:
    probes = [word for pair in SYNONYMS for word in pair]
    parts = (
        BACKGROUND_SENTENCES,
        BACKGROUND_QUESTIONS,
        _passages(),
        probes,
        VOCABULARY,
        *_windows(),
    )
    matrix = embedding_matrix(embedder, [text for part in parts for text in part])
    rows = []
    start = 0
    for part in parts:
        rows.append(matrix[start : start + len(part)])
        start += len(part)
    sentences, questions, passages, probe, vocabulary, *slid = rows
    knows = _knows_synonyms(probe[0::2], probe[1::2])
    return Background(sentences, questions, passages, knows, vocabulary, tuple(slid))


def _knows_synonyms(left: Floats, right: Floats) -> bool:
    """The meaning probe, a sign test: a pair wins when its partner is closer to its first
    word than most of the other pairs' words are. An embedder that knows no meaning makes
    each pair win with chance one half, so the number of wins is binomial (n pairs, 1/2);
    the embedder knows meaning when so many win that such an embedder would do as well
    with chance at most :data:`PROBE_FALSE_POSITIVES` (14 of 16 pairs)."""
    similarity = left @ right.T
    matched = similarity.diagonal()[:, None]
    others = ~_identity(len(left))
    beaten = ((matched > similarity) & others).sum(axis=1)
    wins = int((2 * beaten > len(left) - 1).sum())
    return wins >= _least_wins(len(left), PROBE_FALSE_POSITIVES)


def _least_wins(pairs: int, rate: float) -> int:
    """The fewest wins of ``pairs`` coin flips that chance reaches with probability at
    most ``rate``."""
    tail = 0.0
    for wins in range(pairs, -1, -1):
        tail += math.comb(pairs, wins) / 2**pairs
        if tail > rate:
            return wins + 1
    return 0


def _identity(size: int) -> Any:
    import numpy as np

    return np.eye(size, dtype=bool)


def _fingerprint() -> str:
    texts = [*BACKGROUND_SENTENCES, *BACKGROUND_QUESTIONS, *(a + " " + b for a, b in SYNONYMS)]
    key = "\n".join([str(_FORMAT), str(PASSAGE_SENTENCES), str(PROBE_FALSE_POSITIVES), *texts])
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def store_folder() -> Path:
    """Where backgrounds are stored: ``$TINYMEMORY_CACHE``, else
    ``$XDG_CACHE_HOME/tinymemory``, else ``~/.cache/tinymemory``; a ``backgrounds``
    folder in it."""
    root = os.environ.get("TINYMEMORY_CACHE")
    if not root:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        root = str(Path(xdg) / "tinymemory")
    return Path(root) / "backgrounds"


def stored_path(embedder: Embedder) -> Path | None:
    """The file holding ``embedder``'s background: named by a hash of its declared
    ``identity`` (which names its model, as a memory records it) and of the background's
    texts. None for an embedder without one: ``name:dimensions`` does not say which model
    made the vectors, so its background is measured once per process."""
    identity = getattr(embedder, "identity", None)
    if not isinstance(identity, str) or not identity:
        return None
    name = hashlib.sha256(identity.encode()).hexdigest()[:32]
    return store_folder() / f"{name}-{_fingerprint()}.npz"


def _read(path: Path, dimensions: int) -> Background | None:
    """The background stored at ``path``, or None when there is none, or one that is
    unreadable or not of ``dimensions`` (then it is measured again and stored anew)."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as stored:
            made = Background(
                stored["sentences"],
                stored["questions"],
                stored["passages"],
                bool(stored["meaning_aware"]),
                stored["words"],
                tuple(stored[f"windows_{size}"] for size in range(1, PASSAGE_SENTENCES + 1)),
            )
    except (OSError, KeyError, ValueError):
        return None
    shapes = [made.sentences.shape, made.questions.shape, made.passages.shape, made.words.shape]
    shapes += [slid.shape for slid in made.windows]
    counts = [
        len(BACKGROUND_SENTENCES),
        len(BACKGROUND_QUESTIONS),
        len(_passages()),
        len(VOCABULARY),
        *map(len, _windows()),
    ]
    return made if shapes == [(count, dimensions) for count in counts] else None


def _write(path: Path, made: Background) -> None:
    import numpy as np

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        spare = path.with_name(f"{path.stem}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
        arrays: dict[str, Any] = {
            "sentences": made.sentences,
            "questions": made.questions,
            "passages": made.passages,
            "meaning_aware": np.array(made.meaning_aware),
            "words": made.words,
        }
        arrays.update({f"windows_{size}": slid for size, slid in enumerate(made.windows, 1)})
        np.savez(spare, **arrays)
        os.replace(spare, path)
    except OSError:
        return  # a read-only home: the background is measured again in the next process


def question_bar(embedder: Embedder, question: Floats) -> float:
    """How close to ``question`` (its vector by ``embedder``) a stored text must be to bear
    on it: closer than every unrelated passage of ``embedder``'s :class:`Background`."""
    return background(embedder).passage_bar(question)
