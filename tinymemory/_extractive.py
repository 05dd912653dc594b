"""The extractive recall answer: the passages' sentences that bear on the question.

No model is involved. The relevant passages (best first) are cut into
sentences (headings are not sentences: they name a topic, they answer
nothing). Each sentence scores the question's content words it holds, compared
by a light stem (``prefers``, ``preference`` and ``preferred`` are one word),
rarer words weighing more, plus a small bonus for its passage's rank. A
sentence bears on the question when the words it holds carry at least
:data:`MIN_COVERAGE` of the question's whole weight, a question word found in
no sentence weighing as much as the rarest; so a sentence sharing only a word
every brief asks about (``user``) answers nothing. The best few such
sentences scoring at least :data:`MIN_SHARE_OF_BEST` of the best one's score,
each followed by a citation marker ``[n]``, are the answer; when
none bears on the question the answer is empty and cites nothing. The result
depends only on the arguments, so the same question over the same hits always
gives the same answer.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence

import attrs

from tinymemory._operations import Citation, Hit, RecallAnswer
from tinymemory._words import STOP_WORDS, words

__all__ = [
    "MAX_SENTENCE_CHARS",
    "MIN_COVERAGE",
    "MIN_SHARE_OF_BEST",
    "NOTHING_RELEVANT",
    "Extract",
    "extract_answer",
    "extractive_answer",
    "sentences",
    "stem",
]

#: What an extractive recall answers when no sentence bears on the question.
NOTHING_RELEVANT = "Nothing stored answers this question."
#: The ``model`` an extractive answer names.
EXTRACTIVE_MODEL = "extractive"
#: The longest sentence quoted whole; a longer one is cut at a word boundary.
MAX_SENTENCE_CHARS = 400
#: The share of the question's word weight a sentence must hold to be quoted.
MIN_COVERAGE = 0.3
#: The least a quoted sentence scores beside the best one: a sentence sharing
#: only the commoner half of the question (``travel`` of "travel budget") is
#: left out when another holds it all.
MIN_SHARE_OF_BEST = 0.5

# Markdown structure at a line's start: quote marks, list bullets.
_LINE_MARK = re.compile(r"(?:>(?=[\s>]|$)|[-*+•](?=\s)|\d{1,3}[.)](?=\s))\s*")
# A markdown heading: one to six hashes, then a space or the line's end.
_HEADING = re.compile(r"#{1,6}(?:\s|$)")
# A sentence ends at . ! or ? (maybe closed by a quote or bracket) before whitespace.
_SENTENCE_END = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*\s+")
# Abbreviations whose period does not end a sentence.
_ABBREVIATION = re.compile(r"(?:^|\W)(?:e\.g|i\.e|mr|mrs|ms|dr|prof|vs|cf)\.$", re.IGNORECASE)
# Citation-like markers already in a passage; removed so every [n] of an answer is ours.
_MARKER = re.compile(r"\[\s*\d+\s*\]")
_SPACES = re.compile(r"\s+")
# How much a passage's rank adds to a matching sentence's score: the best passage's
# sentences score 10% more, the second's 5%, ... enough to settle near-ties only.
_RANK_BONUS = 0.1


@attrs.frozen
class Extract:
    """An extractive answer and the passages it quotes."""

    #: The answer: sentences, each followed by its citation marker `` [n]``.
    text: str
    #: Indices into the passages, in citation order (``[1]`` is ``sources[0]``).
    sources: tuple[int, ...]
    #: Per source, the sentences taken from it, in its own order, joined by a space.
    snippets: tuple[str, ...]


def sentences(passage: str) -> list[str]:
    """``passage`` cut into sentences: at line breaks and at ``.``, ``!``, ``?`` before whitespace.

    Markdown headings are left out (they name a topic, they answer nothing),
    quote marks and list bullets at line starts are dropped (a quoted heading
    is left out too), whitespace runs become one space, bracketed numbers (``[3]``) are
    removed, and pieces without a letter or digit are skipped. A sentence
    longer than :data:`MAX_SENTENCE_CHARS` is cut at a word boundary and ends in ``…``.
    """
    found: list[str] = []
    for line in passage.splitlines():
        line = line.strip()
        while mark := _LINE_MARK.match(line):  # `> - item` has two
            line = line[mark.end() :]
        if _HEADING.match(line):
            continue
        for piece in _split_line(line):
            piece = _clean(piece)
            if any(char.isalnum() for char in piece):
                found.append(_cut(piece))
    return found


def _split_line(line: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(line):
        stop = end.start()  # the first . ! or ?
        # Room for the longest abbreviation and the non-word character before it.
        if line[stop] == "." and _ABBREVIATION.search(line, max(0, stop - 5), stop + 1):
            continue
        pieces.append(line[start : end.end()])
        start = end.end()
    pieces.append(line[start:])
    return pieces


def _clean(text: str) -> str:
    # Removing one marker can join two halves into another (`[[1]2]`), hence the loop.
    while _MARKER.search(text):
        text = _MARKER.sub(" ", text)
    return _SPACES.sub(" ", text).strip()


def _cut(sentence: str) -> str:
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    head = sentence[: MAX_SENTENCE_CHARS - 1]
    if not sentence[MAX_SENTENCE_CHARS - 1].isspace():
        space = head.rfind(" ")
        if space > 0:  # else one endless word: cut inside it
            head = head[:space]
    return (head.rstrip(" ,;:-") or head) + "…"


@attrs.frozen
class _Sentence:
    passage: int
    position: int
    text: str
    #: Its folded words in order: the same words count as the same sentence.
    key: str
    words: frozenset[str]

    @classmethod
    def of(cls, passage: int, position: int, text: str) -> _Sentence:
        found = words(text)
        return cls(passage, position, text, " ".join(found), frozenset(map(stem, found)))


def extract_answer(question: str, passages: Sequence[str], *, max_sentences: int = 4) -> Extract:
    """The answer to ``question`` quoted from ``passages`` (relevant texts, best first).

    At most ``max_sentences`` distinct sentences bearing on the question (see the
    module docstring), best first. Sources are numbered in order of first use.
    Empty, citing nothing, when no sentence bears on the question.
    ``ValueError`` for no passages or ``max_sentences`` below 1.
    """
    if not passages:
        raise ValueError("an answer needs at least one passage")
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, not {max_sentences}")
    pool = [
        _Sentence.of(index, position, text)
        for index, passage in enumerate(passages)
        for position, text in enumerate(sentences(passage))
    ]
    wanted = {stem(word) for word in words(question) if word not in STOP_WORDS}
    weights = _rarity(wanted, pool)
    # Summed in sorted order: set order varies between processes, float sums may not.
    whole = sum(weights[word] for word in sorted(wanted))

    scored: list[tuple[float, int, int, _Sentence]] = []
    for sentence in pool:
        match = sum(weights[word] for word in sorted(wanted & sentence.words))
        if match > 0 and match >= MIN_COVERAGE * whole:
            score = match * (1 + _RANK_BONUS / (1 + sentence.passage))
            scored.append((-score, sentence.passage, sentence.position, sentence))
    scored.sort(key=lambda entry: entry[:3])

    chosen: list[_Sentence] = []
    seen: set[str] = set()
    for score, *_, sentence in scored:
        if -score < MIN_SHARE_OF_BEST * -scored[0][0]:
            break  # sorted: every sentence after this one scores less
        if sentence.key in seen:
            continue
        seen.add(sentence.key)
        chosen.append(sentence)
        if len(chosen) == max_sentences:
            break
    return _cite(chosen)


def extractive_answer(question: str, hits: Sequence[Hit]) -> RecallAnswer:
    """A recall answer quoted from ``hits`` (the relevant items, best first), with no model.

    The answer is :func:`extract_answer` over the hits' texts; each cited hit
    becomes a citation whose snippet is the sentences quoted from it. With no
    sentence bearing on the question it is :data:`NOTHING_RELEVANT`, citing nothing.
    """
    extract = extract_answer(question, [hit.text for hit in hits]) if hits else None
    if extract is None or not extract.sources:
        return RecallAnswer(answer=NOTHING_RELEVANT, model=EXTRACTIVE_MODEL)
    citations = [
        Citation(
            id=hits[index].id,
            kind=hits[index].kind,
            snippet=snippet,
            meta=hits[index].meta,
            score=hits[index].score,
        )
        for index, snippet in zip(extract.sources, extract.snippets, strict=True)
    ]
    return RecallAnswer(answer=extract.text, citations=citations, model=EXTRACTIVE_MODEL)


#: Endings taken off a word before it is compared, longest first; ``ies``/``ied`` become ``y``.
_ENDINGS = (
    "ations", "ation", "ences", "ence", "ances", "ance", "ments", "ment",
    "ings", "ing", "ions", "ion", "ies", "ied", "ed", "s",
)  # fmt: skip
#: The fewest letters an ending may leave.
_MIN_STEM = 3


@functools.lru_cache(maxsize=1 << 16)  # texts repeat their words; stems are pure
def stem(word: str) -> str:
    """``word`` (folded) reduced for comparison, so inflections of one word compare equal.

    One ending of :data:`_ENDINGS` is taken off when at least three letters stay
    (never the ``s`` of ``ss``), then a final ``e`` (words of four letters or
    more) and one letter of a doubled final consonant other than ``s``:
    ``prefers``, ``preference`` and ``preferred`` give ``prefer``; ``releases``
    and ``released`` give ``releas``; ``shipping`` gives ``ship``.
    """
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= _MIN_STEM:
            if ending == "s" and word.endswith("ss"):
                break
            word = word[: -len(ending)] + ("y" if ending in ("ies", "ied") else "")
            break
    if len(word) > _MIN_STEM and word.endswith("e"):
        word = word[:-1]
    if len(word) > _MIN_STEM and word[-1] == word[-2] and word[-1] not in "aeious":
        word = word[:-1]
    return word


def _rarity(wanted: set[str], pool: list[_Sentence]) -> dict[str, float]:
    """Each question word's weight: ``ln(1 + sentences / sentences holding it)``.

    A word no sentence holds weighs as a word one sentence holds would: it
    still counts in the question's whole weight, which a sentence must cover.
    """
    holding = dict.fromkeys(wanted, 0)
    for sentence in pool:
        for word in wanted & sentence.words:
            holding[word] += 1
    return {
        word: math.log(1 + max(len(pool), 1) / max(count, 1)) for word, count in holding.items()
    }


def _cite(chosen: list[_Sentence]) -> Extract:
    number: dict[int, int] = {}
    parts: list[str] = []
    for sentence in chosen:
        marker = number.setdefault(sentence.passage, len(number) + 1)
        parts.append(f"{sentence.text} [{marker}]")
    sources = tuple(number)
    in_passage_order = sorted(chosen, key=lambda sentence: sentence.position)
    snippets = tuple(
        " ".join(sentence.text for sentence in in_passage_order if sentence.passage == source)
        for source in sources
    )
    return Extract(text=" ".join(parts), sources=sources, snippets=snippets)
