"""The extractive recall answer: the passages' sentences that bear on the question.

No model is involved. Each relevant passage (best first) is read as blocks
(:mod:`tinymemory._text_blocks`): markdown unwrapped, so a hard-wrapped
paragraph or list item is one line again and inline markup is reduced to its
text. Prose blocks are cut into whole sentences. Headings are never quoted
(they name a topic, they answer nothing). Code lines (and every line of a
source file) are quoted only when the question asks for code
(:func:`asks_for_code`), so a document's prose is preferred over its code
examples; table rows only when the question asks for a table
(:func:`asks_for_table`) or names one of the row's column headers and a word
of the row itself (a value in a table).

A source file's lines are quoted besides when they set a value (an assignment, a keyword
default, a YAML or TOML key), matched with the names of the section or keys
they are under: a value held in code or configuration answers what it is.
A prose sentence keeps the words of the heading it is under as its context.

Each candidate scores the question's content words it holds, compared by a
light stem (``prefers``, ``preference`` and ``preferred`` are one word), rarer
words weighing more, plus a small bonus for its passage's rank. A sentence
bears on the question when the words it holds carry at least
:data:`MIN_COVERAGE` of the question's whole weight, a question word found in
no sentence weighing as much as the rarest; so a sentence sharing only a word
every brief asks about (``user``) answers nothing. A sentence that only
restates the question (:func:`restates`) is no answer either. The best
bearing sentence is quoted, then the few scoring at least
:data:`MIN_SHARE_OF_BEST` of it that hold every question word it holds or
one it lacks (headings counted, but for a heading's number the sentence states
otherwise): a decoy holding part of what the best holds
(the topic, an older version's numbers, but not the subject) is left out.
Each is followed by a citation marker ``[n]``.

A question asking for a value (:func:`asked_value`: ``how many``, ``how
often``, ``when``, a price; English wh-phrases) is answered only from the
first quoted sentence stating a value of that kind (a number, a frequency,
a time, an amount of money); a number, version or capitalised weekday or
month the question names (:func:`named_values`) must be held by letters by
the sentence, its heading or its table header. Both tell a topical
neighbour (the subject without the value asked, or another version's,
year's or day's value) from the answer, with any embedder.

With an ``embedder`` (the one the engine searched with) that is
meaning-aware (:mod:`tinymemory.retrieval._background`: a synonym probe, so
feature hashing is not), meaning chooses: the question and the first
:data:`MAX_MEANING_CANDIDATES` candidates (bearing ones first) are embedded
in one call; of the sentences quoted by words and those holding too few of
the question's words that are closer to the question than every unrelated
background sentence and closer to it than to every unrelated background
question, those that hold at least half of the question's content words (a
sentence quoted by words needs to only when a value is asked: a question of
several parts asking for none is answered part by part) (by
letters, or in meaning: a pair of words closer than either is to every
unrelated background word; a word asking for a value is held by a sentence
stating one), so a topical neighbour holding nothing of what is asked is no
answer, the closest to the question is quoted first, then the other
sentences quoted by words that may stand beside it and hold as much. No bar
is a number: each compares the embedder's similarities with each other, so
any embedder (a third party's too) and any increasing map of its
similarities answer and refuse alike. When nothing qualifies, the answer is
empty and cites nothing.
The result depends only on the arguments (and the embedder's vectors), so
the same question over the same hits always gives the same answer.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

import attrs

from tinymemory._operations import Citation, Hit, RecallAnswer
from tinymemory._text_blocks import BlockKind, text_blocks
from tinymemory._words import STOP_WORDS, fold, words
from tinymemory.retrieval._background import background, embedded, pairwise

if TYPE_CHECKING:
    from tinymemory._hookspecs import Embedder

__all__ = [
    "MAX_MEANING_CANDIDATES",
    "MAX_SENTENCE_CHARS",
    "MIN_COVERAGE",
    "MIN_SHARE_OF_BEST",
    "NOTHING_RELEVANT",
    "ASKING_WORDS",
    "CODE_WORDS",
    "MARKUP_LANGUAGES",
    "TABLE_WORDS",
    "Extract",
    "Asking",
    "asked_value",
    "asks_for_code",
    "asks_for_table",
    "extract_answer",
    "extractive_answer",
    "named_values",
    "restates",
    "sentences",
    "stem",
]

#: What an extractive recall answers when no sentence bears on the question.
NOTHING_RELEVANT = "Nothing stored answers this question."
#: The ``model`` an extractive answer names.
EXTRACTIVE_MODEL = "extractive"
#: The longest sentence quoted whole; a longer run of text without a sentence
#: end (a PDF's unpunctuated blob) is cut at a word boundary and ends in ``…``.
MAX_SENTENCE_CHARS = 400
#: The share of the question's word weight a sentence must hold to be quoted.
MIN_COVERAGE = 0.3
#: The least a quoted sentence scores beside the best one: a sentence sharing
#: only the commoner half of the question (``travel`` of "travel budget") is
#: left out when another holds it all.
MIN_SHARE_OF_BEST = 0.5
#: The most candidates embedded to answer by meaning (the first, best passages first).
MAX_MEANING_CANDIDATES = 64

#: Words of a question asking for code (folded).
CODE_WORDS = frozenset({
    "code", "command", "commands", "function", "functions", "method", "methods", "class",
    "classes", "snippet", "script", "syntax", "signature", "import", "cli", "shell",
    "terminal", "decorator", "argument", "arguments", "parameter", "parameters", "variable",
    "variables", "constant", "constants", "def", "module", "source", "implementation",
    "implemented", "implement", "programmatically", "api",
})  # fmt: skip
#: Words of a question asking for a table's values (folded).
TABLE_WORDS = frozenset({
    "table", "tables", "column", "columns", "row", "rows", "cell", "cells", "spreadsheet",
    "sheet", "sheets", "workbook",
})  # fmt: skip
#: Words asking for something, whatever it is (folded).
ASKING_WORDS = frozenset({"show", "tell", "give", "explain", "describe", "know", "please"})
# A code-like token: a call, dotted or snake_case name, camelCase, a flag, an operator.
_CODE_TOKEN = re.compile(
    r"`|\w\(|[A-Za-z]\w*\.[A-Za-z_]\w*|[A-Za-z0-9]_[A-Za-z0-9]|[a-z][A-Z]|(?:^|\s)--?[a-z]"
    r"|==|->|::|=>|[{};]"
)
# A sentence end: . ! ? and the CJK, Devanagari and Arabic marks, maybe closed by a
# quote or bracket. One class, so the scan tries one pattern at each position; which
# ends need whitespace after them is settled in `_split_line`.
_SENTENCE_END = re.compile(
    r"[.!?\u3002\uff01\uff1f\u0964\u0965\u061f]+[\"'\u201d\u2019)\]\u300d\u300f]*\s*"
)
#: Marks ending a sentence whatever follows (CJK full stop, exclamation, question marks).
_ENDS_WITHOUT_SPACE = frozenset("\u3002\uff01\uff1f")
# Abbreviations whose period does not end a sentence (folded, without the period).
_ABBREVIATIONS = frozenset({
    "e.g", "i.e", "mr", "mrs", "ms", "dr", "prof", "vs", "cf", "etc", "approx", "fig", "no",
    "st", "jr", "sr", "inc", "ltd", "co", "al", "resp", "incl", "ca",
})  # fmt: skip
_INITIALS = re.compile(r"\(?(?:[^\W\d_]\.)*[^\W\d_]")
_QUESTION_MARKS = ("?", "\uff1f", "\u061f")
# A TOML or INI section line, and a YAML key opening a mapping (nothing after the colon).
_SECTION = re.compile(r"\[\[?\s*([\w.\- ]+?)\s*\]\]?")
_OPENS_MAPPING = re.compile(r"(?:-\s+)?[\"']?([A-Za-z_][\w.\-]*)[\"']?\s*:(?:\s*#.*)?")
# A value set in code or configuration: ``name = value`` (an assignment, a keyword
# default, ``name: type = value``), not ``==``; or ``key: value`` opening a line (YAML).
_ASSIGNMENT = re.compile(
    r"[A-Za-z_][\w.]*\s*(?::\s*[\w\[\]., |]+?)?\s*(?<![=!<>])=(?!=)\s*\S"
    r"|^\s*(?:-\s+)?[\"']?[A-Za-z_][\w.-]*[\"']?\s*:\s+\S"
)
# Citation-like markers already in a passage; removed so every [n] of an answer is ours.
_MARKER = re.compile(r"\[\s*\d+\s*\]")
_SPACES = re.compile(r"\s+")
_DIGIT = re.compile(r"\d")
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


def asks_for_code(question: str) -> bool:
    """Whether ``question`` asks for code: a word such as ``function`` or ``command``
    (:data:`CODE_WORDS`), or a code-like token (``retry_delay``, ``tm.recall``,
    ``build()``, ``--json``, a backtick)."""
    return bool(CODE_WORDS.intersection(words(question))) or bool(_CODE_TOKEN.search(question))


def asks_for_table(question: str) -> bool:
    """Whether ``question`` asks for a table: a word such as ``table`` or ``column``
    (:data:`TABLE_WORDS`)."""
    return bool(TABLE_WORDS.intersection(words(question)))


#: Number words (folded): a quantity written out.
NUMBER_WORDS = frozenset({
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy",
    "eighty", "ninety", "hundred", "thousand", "million", "billion", "dozen", "half",
    "once", "twice", "single", "double",
})  # fmt: skip
#: Words saying how often (folded).
FREQUENCY_WORDS = frozenset({
    "every", "daily", "weekly", "monthly", "yearly", "annually", "hourly",
    "nightly", "quarterly", "fortnightly", "biweekly", "once", "twice", "times",
})  # fmt: skip
#: Units of time (stems): ``per day``, ``a week`` say how often.
_TIME_UNITS = frozenset({"second", "minute", "hour", "day", "night", "week", "month", "year"})
#: Weekday and month names (folded): values of a calendar, told apart by letters only.
CALENDAR_NAMES = frozenset({
    "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
})  # fmt: skip
#: Words naming a time (folded), besides numbers and :data:`CALENDAR_NAMES`.
TIME_WORDS = FREQUENCY_WORDS | frozenset({
    "today", "tomorrow", "yesterday", "tonight", "noon", "midday", "midnight", "morning",
    "afternoon", "evening", "night", "dawn", "dusk", "weekend", "weekends", "weekday",
    "weekdays", "spring", "summer", "autumn", "winter", "immediately", "now", "before",
    "after", "until", "since", "during", "within", "second", "seconds", "minute",
    "minutes", "hour", "hours", "day", "days", "week", "weeks", "month", "months", "year",
    "years", "quarter",
})  # fmt: skip
#: Words of a question asking for an amount of money (folded).
MONEY_QUESTION_WORDS = frozenset({
    "cost", "costs", "price", "prices", "priced", "fee", "fees", "charge", "charged",
    "pay", "paid", "spend", "spent", "salary", "wage", "wages", "budget", "fine", "fare",
})  # fmt: skip
#: Currency words and codes (folded); ``free`` states a price too.
CURRENCY_WORDS = frozenset({
    "eur", "euro", "euros", "usd", "dollar", "dollars", "gbp", "pound", "pounds", "chf",
    "franc", "francs", "jpy", "yen", "cny", "yuan", "inr", "rupee", "rupees", "sek", "nok",
    "dkk", "kr", "cent", "cents", "free",
})  # fmt: skip
_CURRENCY_SIGNS = frozenset("$€£¥₹")
#: ``how`` + one of these asks for a quantity; ``often`` for a frequency.
_HOW_QUANTITY = frozenset({
    "many", "much", "long", "far", "big", "large", "small", "old", "late", "soon", "early",
    "tall", "high", "wide", "deep", "heavy", "fast", "often", "frequently",
})  # fmt: skip
#: ``what`` or ``which`` + one of these asks for a time.
_WHAT_TIME = frozenset({"time", "date", "day", "year", "month", "hour"})


@attrs.frozen
class Asking:
    """The kind of value a question asks for (English wh-phrases; see :func:`asked_value`)."""

    #: ``quantity``, ``frequency``, ``money``, ``time``, or empty: no value asked.
    kind: str = ""
    #: The stems of the words asking it (``how many``: ``many``), which name no content.
    words: frozenset[str] = frozenset()


def asked_value(question: str) -> Asking:
    """The kind of value ``question`` asks for, read from its wh-phrase (English only):
    ``how many``/``much``/``long``/``soon``/... a quantity, ``how often`` a frequency,
    ``how much`` or ``what``/``which`` with a word of money (``cost``, ``price``,
    ``fee``, :data:`MONEY_QUESTION_WORDS`) an amount of money, ``when`` and
    ``what time``/``date``/``year`` a time. Any other question asks for no kind."""
    found = words(question)
    money = bool(MONEY_QUESTION_WORDS.intersection(found))
    for place, word in enumerate(found):
        following = found[place + 1] if place + 1 < len(found) else ""
        if word == "how" and following in _HOW_QUANTITY:
            if following in ("often", "frequently"):
                kind = "frequency"
            elif following == "much" and money:
                kind = "money"
            else:
                kind = "quantity"
            return Asking(kind, frozenset({stem(following)}))
        if word == "when":
            return Asking("time")
        if word in ("what", "which"):
            if following in _WHAT_TIME:
                return Asking("time", frozenset({stem(following)}))
            return Asking("money") if money else Asking()
        if word in ("who", "where", "why"):
            return Asking()
    return Asking()


def _states(sentence: _Sentence, kind: str) -> bool:
    """Whether ``sentence`` (its own text) states a value of ``kind`` (:func:`asked_value`)."""
    if not kind:
        return True
    found = set(words(sentence.text))
    number = any(word[0].isdigit() for word in found) or bool(NUMBER_WORDS & found)
    if kind == "quantity":
        return number
    if kind == "frequency":
        plural_days = {f"{name}s" for name in CALENDAR_NAMES}
        ordered = words(sentence.text)
        rate = any(
            word in ("per", "a", "an", "each") and stem(after) in _TIME_UNITS | CALENDAR_NAMES
            for word, after in itertools.pairwise(ordered)
        )
        return rate or bool((FREQUENCY_WORDS | plural_days) & found)
    if kind == "money":
        return bool(CURRENCY_WORDS & found) or any(c in _CURRENCY_SIGNS for c in sentence.text)
    # ``may`` is a month only beside a number, which counts anyway.
    named = TIME_WORDS | CALENDAR_NAMES - {"may"}
    return number or bool(named & (found | {stem(word) for word in found}))


# A run of a question's text holding a digit, joined by marks inside it: ``5.2``,
# ``6204-2RS``, ``C112``, ``/v1``.
_NUMBERED = re.compile(r"[^\W_]*\d[^\W_]*(?:[.\-/:][^\W_]+)*")


def named_values(question: str) -> tuple[tuple[str, ...], ...]:
    """The values ``question`` names, as runs of folded words: each run holding a digit
    (a number, a version, a year, a room: ``5.2`` is ``("5", "2")``), and each weekday
    or month name written with a capital, not opening the question (``Sundays``:
    ``("sunday",)``). A sentence
    answers only if it, its heading or its table header holds each (:func:`_names`):
    an embedder puts values of one scale close together (2026 and 2027, Sunday and
    weekday, 5.1 and 5.2), so they are told apart by letters, never by meaning."""
    runs = [tuple(words(match.group())) for match in _NUMBERED.finditer(question)]
    for match in re.finditer(r"[^\W\d_]+", question):
        token = match.group()
        opening = not question[: match.start()].strip()  # any word is capitalised there
        if token[0].isupper() and not opening and stem(fold(token)) in CALENDAR_NAMES:
            runs.append((stem(fold(token)),))
    return tuple(dict.fromkeys(run for run in runs if run))


def _names(sentence: _Sentence, named: tuple[tuple[str, ...], ...]) -> bool:
    """Whether ``sentence``, its heading or its table header holds every run of ``named``."""
    if not named:
        return True
    held = f" {sentence.key} {' '.join(words(sentence.heading))} "
    stems = sentence.words | sentence.context
    return all(f" {' '.join(run)} " in held or (len(run) == 1 and run[0] in stems) for run in named)


def content_stems(text: str) -> frozenset[str]:
    """The stems of ``text``'s words that are not stop words."""
    return frozenset(stem(word) for word in words(text) if word not in STOP_WORDS)


def restates(sentence: str, question: str) -> bool:
    """Whether ``sentence`` only restates ``question``: it is itself a question (it ends
    with a question mark), holding at least half of the question's content words
    and fewer words of its own than of the question's. A statement made of the
    question's words is an answer (``The user prefers tabs.`` to ``Does the user
    prefer tabs?``)."""
    return _restates(content_stems(sentence), content_stems(question), sentence)


def _restates(held: frozenset[str], asked: frozenset[str], sentence: str) -> bool:
    if not sentence.endswith(_QUESTION_MARKS):
        return False
    shared = len(held & asked)
    return 2 * shared >= len(asked) and len(held) - shared < shared


def sentences(passage: str) -> list[str]:
    """The prose sentences of ``passage``, read as markdown: whole sentences, in order.

    Paragraphs and list items are unwrapped and their inline markup reduced
    to text (:mod:`tinymemory._text_blocks`), then cut at ``.``, ``!`` or
    ``?`` before whitespace (not after an abbreviation, an initial or before a
    lower-case word) and at CJK and other scripts' sentence ends. Headings,
    code and table rows are not prose. Bracketed numbers (``[3]``) are
    removed, whitespace runs become one space, and pieces without a letter or
    digit are skipped. A sentence longer than :data:`MAX_SENTENCE_CHARS` is
    cut at a word boundary and ends in ``…``.
    """
    found: list[str] = []
    for block in text_blocks(passage):
        if block.kind is BlockKind.PROSE:
            found.extend(_split_prose(block.text))
    return found


def _split_prose(text: str) -> list[str]:
    found = []
    for piece in _split_line(text):
        piece = _clean(piece)
        if any(char.isalnum() for char in piece):
            found.append(_cut(piece))
    return found


def _split_line(line: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(line):
        if end.end() < len(line):
            if not line[end.end() - 1].isspace() and line[end.start()] not in _ENDS_WITHOUT_SPACE:
                continue  # `1.5`, `example.com`: no space after the mark
            if not _ends_sentence(line, end.start(), end.end()):
                continue
        pieces.append(line[start : end.end()])
        start = end.end()
    pieces.append(line[start:])
    return pieces


def _ends_sentence(line: str, stop: int, following: int) -> bool:
    """Whether the mark at ``stop`` ends a sentence: not a period after an abbreviation
    or an initial (``Dr.``, ``e.g.``, ``J.``), nor a mark before a lower-case word."""
    if line[following].islower():
        return False
    if line[stop] != ".":
        return True
    token = line[line.rfind(" ", 0, stop) + 1 : stop]
    return token.lower().lstrip("(") not in _ABBREVIATIONS and not _INITIALS.fullmatch(token)


def _clean(text: str) -> str:
    if "[" not in text:
        return text.strip()
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
    #: The stems it matches the question with (a table row's with its header's).
    words: frozenset[str]
    #: The stems of its own words that are not stop words.
    content: frozenset[str]
    #: The stems of the heading it is under: what it is about, which scores nothing.
    context: frozenset[str] = frozenset()
    #: The heading it is under, as written.
    heading: str = ""

    @classmethod
    def of(
        cls, passage: int, position: int, text: str, header: str = "", heading: str = ""
    ) -> _Sentence:
        found = words(text)
        content = {stem(word) for word in found if word not in STOP_WORDS}
        stems = content.union(map(stem, STOP_WORDS.intersection(found)))
        if header:
            stems.update(map(stem, words(header)))
        context = frozenset(map(stem, words(heading)))
        joined = " ".join(found)
        content_ = frozenset(content)
        return cls(passage, position, text, joined, frozenset(stems), content_, context, heading)


def _candidates(
    question: str, wanted: frozenset[str], passages: Sequence[str], code: Collection[int]
) -> list[_Sentence]:
    """The sentences, code lines and table rows that may answer ``question``, in order."""
    want_code = asks_for_code(question)
    want_table = asks_for_table(question)
    pool: list[_Sentence] = []
    for index, passage in enumerate(passages):
        found: list[tuple[str, str, str]] = []  # (text, header, heading)
        if index in code:
            found = [
                (_cut(_clean(line)), header, "")
                for line, header in _code_lines(passage)
                # Without code asked for, a value set in code answers what it is.
                if want_code or _ASSIGNMENT.search(line)
            ]
        else:
            heading = ""  # the section a sentence is under names what it is about
            for block in text_blocks(passage):
                if block.kind is BlockKind.HEADING:
                    heading = block.text
                elif block.kind is BlockKind.PROSE:
                    found.extend((text, "", heading) for text in _split_prose(block.text))
                elif block.kind is BlockKind.CODE and want_code:
                    found.append((_cut(_clean(block.text)), "", heading))
                elif block.kind is BlockKind.TABLE_ROW and (
                    want_table or _names_a_value(wanted, block.text, block.header)
                ):
                    found.append((_cut(_clean(block.text)), block.header, heading))
        for text, header, heading in found:
            sentence = _Sentence.of(index, len(pool), text, header, heading)
            if sentence.content and not _restates(sentence.content, wanted, text):
                pool.append(sentence)
    return pool


def _code_lines(source: str) -> list[tuple[str, str]]:
    """Each line of ``source`` with what encloses it: the names of its TOML or INI
    ``[section]`` and of the YAML keys it is indented under (``retention: 45`` under
    ``backup:`` is the backup's retention)."""
    lines: list[tuple[str, str]] = []
    section = ""
    parents: list[tuple[int, str]] = []  # (indent, key) of the open YAML mappings
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        while parents and parents[-1][0] >= indent:
            parents.pop()
        if heading := _SECTION.fullmatch(stripped):
            section, parents = heading.group(1), []
        lines.append((line, " ".join([section, *(key for _, key in parents)]).strip()))
        if opened := _OPENS_MAPPING.fullmatch(stripped):
            parents.append((indent, opened.group(1)))
    return lines


def _names_a_value(wanted: frozenset[str], row: str, header: str) -> bool:
    """Whether the question names one of the row's column headers and a word of the row."""
    return bool(wanted & content_stems(header)) and bool(wanted & content_stems(row))


def extract_answer(
    question: str,
    passages: Sequence[str],
    *,
    max_sentences: int = 4,
    code: Collection[int] = (),
    embedder: Embedder | None = None,
) -> Extract:
    """The answer to ``question`` quoted from ``passages`` (relevant texts, best first).

    At most ``max_sentences`` distinct sentences bearing on the question (see the
    module docstring), best first. Sources are numbered in order of first use.
    ``code`` holds the indices of passages that are source code: each of their
    lines is a code line. With an ``embedder``, when no sentence holds enough of
    the question's words, the sentences closest to it in meaning. Empty, citing
    nothing, when no sentence bears on the question. ``ValueError`` for no
    passages or ``max_sentences`` below 1.
    """
    if not passages:
        raise ValueError("an answer needs at least one passage")
    if max_sentences < 1:
        raise ValueError(f"max_sentences must be at least 1, not {max_sentences}")
    # The words naming the answer's form (code, a table) or the asking say nothing
    # of its content: left out, they would weigh as words no sentence holds.
    asking = asked_value(question)
    wanted = content_stems(question) - _FORM_STEMS - asking.words
    named = named_values(question)
    pool = [
        sentence
        for sentence in _candidates(question, wanted, passages, code)
        if _names(sentence, named)
    ]
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
    if embedder is not None and wanted and background(embedder).meaning_aware:
        return _cite(
            _by_meaning(
                question, wanted, asking.words, asking.kind, pool, scored, embedder, max_sentences
            )
        )
    return _cite(_stating(_by_words(scored, wanted, max_sentences), asking.kind))


def _by_words(
    scored: list[tuple[float, int, int, _Sentence]], wanted: frozenset[str], max_sentences: int
) -> list[_Sentence]:
    """The best bearing sentence, then the distinct ones scoring at least
    :data:`MIN_SHARE_OF_BEST` of it that may stand beside it (:func:`_holds_as_much`)."""
    chosen: list[_Sentence] = []
    seen: set[str] = set()
    for score, *_, sentence in scored:
        if -score < MIN_SHARE_OF_BEST * -scored[0][0]:
            break  # sorted: every sentence after this one scores less
        if sentence.key in seen or not _holds_as_much(sentence, chosen, wanted):
            continue
        seen.add(sentence.key)
        chosen.append(sentence)
        if len(chosen) == max_sentences:
            break
    return chosen


def _holds_as_much(sentence: _Sentence, chosen: list[_Sentence], wanted: frozenset[str]) -> bool:
    """Whether ``sentence`` may stand beside the first chosen one: it holds every question
    word that one holds, or one it lacks (another part of the question), counting the
    words of the heading each is under. A sentence holding only part of what the first
    holds (the question's topic but not its subject: an older release beside the one
    asked about) is a decoy."""
    if not chosen:
        return True
    held = wanted & (sentence.words | _own_context(sentence))
    first = wanted & (chosen[0].words | _own_context(chosen[0]))
    return first <= held or not held <= first


def _own_context(sentence: _Sentence) -> frozenset[str]:
    """The heading's words a sentence is about: all but the heading's numbers the sentence
    states otherwise. "In 2026, parents received 12 weeks" under "Leave policy 2027" is
    about 2026: a number of the heading's shape in the sentence (a year, a version)
    overrides the heading's."""
    stated = {_DIGIT.sub("0", word) for word in sentence.content if _DIGIT.search(word)}
    return frozenset(
        word
        for word in sentence.context
        if not _DIGIT.search(word)
        or word in sentence.content
        or _DIGIT.sub("0", word) not in stated
    )


def _by_meaning(
    question: str,
    wanted: frozenset[str],
    asking: frozenset[str],
    kind: str,
    pool: list[_Sentence],
    scored: list[tuple[float, int, int, _Sentence]],
    embedder: Embedder,
    max_sentences: int,
) -> list[_Sentence]:
    """The answer by a meaning-aware ``embedder`` (see the module): of the sentences
    :func:`_by_words` quotes and those holding too few of the question's words that pass
    both background bars, those covering the question (:func:`_covering`), the one
    closest to the question, then the ones :func:`_by_words` quotes that may stand
    beside it."""

    # The bearing sentences first, so none is left out of the embedded few.
    bearing = [entry[-1] for entry in scored]
    shown = {id(sentence) for sentence in bearing}
    candidates = [*bearing, *(sentence for sentence in pool if id(sentence) not in shown)]
    candidates = candidates[:MAX_MEANING_CANDIDATES]
    if not candidates:
        return []
    known = background(embedder)
    vectors = embedded(embedder, [question, *(sentence.text for sentence in candidates)])
    similarities = vectors[1:] @ vectors[0]
    passes = (similarities > known.question_bar(vectors[0])) & (
        similarities > known.sentence_bars(vectors[1:])
    )
    # By words, the sentences _by_words quotes (a decoy is not one); by meaning, those
    # holding too few of the question's words that pass both background bars.
    by_words = _by_words(scored, wanted, max_sentences)
    quoted = {id(sentence) for sentence in by_words}
    judged = [
        index
        for index, ok in enumerate(passes.tolist())
        if (ok and id(candidates[index]) not in shown) or id(candidates[index]) in quoted
    ]
    covering = _covering(
        question,
        asking,
        kind,
        [candidates[index] for index in judged],
        embedder,
    )
    admitted = {id(candidates[index]) for index, ok in zip(judged, covering, strict=True) if ok}
    if not kind:
        # A question asking for no value (a description of several parts: "who is the
        # user: their identity, their role, and how they like to work?") is answered part
        # by part: a sentence its words quote answers one part, without half of them all.
        admitted |= quoted
    eligible = [
        (float(similarity), -index)
        for index, similarity in enumerate(similarities)
        if id(candidates[index]) in admitted
    ]
    if not eligible:
        return []
    best = candidates[-max(eligible)[1]]
    chosen = [best]
    for sentence in by_words:
        if len(chosen) == max_sentences:
            break
        if (
            sentence.key != best.key
            and id(sentence) in admitted
            and _holds_as_much(sentence, chosen, wanted)
        ):
            chosen.append(sentence)
    return _stating(chosen, kind)


def _stating(chosen: list[_Sentence], kind: str) -> list[_Sentence]:
    """``chosen`` from its first sentence stating a value of ``kind`` (:func:`asked_value`)
    on: an answer opens with the value asked (the others may answer another part of the
    question); none when no sentence states one."""
    for place, sentence in enumerate(chosen):
        if _states(sentence, kind):
            return chosen[place:]
    return []


def _covering(
    question: str,
    asking: frozenset[str],
    kind: str,
    chosen: list[_Sentence],
    embedder: Embedder,
) -> list[bool]:
    """Per sentence of ``chosen``, whether it holds at least half of the question's
    content words: by letters (a stem it or the heading it is under holds), or in
    meaning, when a pair of the question's word and one of the sentence's (or its
    heading's) words is closer than either word is to every unrelated background word
    (:meth:`~tinymemory.retrieval.Background.word_bars`; either word's own bar, since
    the background's few hundred words may hold a near-synonym of one of them: ``team``
    for ``crew``). The words asking for a value (``asking``: ``many`` of ``how many``)
    are held by a sentence stating a value of that ``kind``, and only by one.

    This tells a sentence answering the question from its topical neighbour: "Books may
    be borrowed for three weeks" is close to "How many vacation days do interns get?"
    as a whole, but holds nothing of ``vacation`` or ``interns``. One embed call for
    every word at stake, none when ``chosen`` is empty.
    """
    if not chosen:
        return []
    asked = [
        word
        for word in dict.fromkeys(words(question))
        if word not in STOP_WORDS and stem(word) not in _FORM_STEMS
    ]
    owns = [
        [
            word
            for word in dict.fromkeys(words(f"{one.heading} {one.text}"))
            if word not in STOP_WORDS
        ]
        for one in chosen
    ]
    missing = [
        [
            word
            for word in asked
            if stem(word) not in one.words | one.context
            and not (stem(word) in asking and _states(one, kind))
        ]
        for one in chosen
    ]
    # An asking word a sentence lacks is lacking in meaning too: what it asks is a value.
    lacking = list(
        dict.fromkeys(word for found in missing for word in found if stem(word) not in asking)
    )
    if not lacking:
        return [2 * (len(asked) - len(lacks)) >= len(asked) for lacks in missing]
    texts = list(dict.fromkeys([*lacking, *(word for own in owns for word in own)]))
    vectors = embedded(embedder, texts)
    row = {text: index for index, text in enumerate(texts)}
    bars = background(embedder).word_bars(texts, vectors)
    covering = []
    for own, lacks in zip(owns, missing, strict=True):
        addressed = len(asked) - len(lacks)
        meant = [word for word in lacks if stem(word) not in asking]
        if meant and own:
            asked_rows = [row[word] for word in meant]
            own_rows = [row[word] for word in own]
            near = pairwise(vectors[asked_rows], vectors[own_rows])
            related = (near > bars[asked_rows][:, None]) | (near > bars[own_rows][None, :])
            addressed += int(related.any(axis=1).sum())
        covering.append(2 * addressed >= len(asked))
    return covering


def extractive_answer(
    question: str, hits: Sequence[Hit], *, embedder: Embedder | None = None
) -> RecallAnswer:
    """A recall answer quoted from ``hits`` (the relevant items, best first), with no model.

    The answer is :func:`extract_answer` over the hits' texts (a hit with a
    ``file_path`` and a ``language`` other than markup, :data:`MARKUP_LANGUAGES`,
    is a source file: code), by meaning with ``embedder`` (the engine's) when no
    sentence holds enough of the question's words. Each cited hit becomes a
    citation whose snippet is the sentences quoted from it. With no sentence
    bearing on the question it is :data:`NOTHING_RELEVANT`, citing nothing.
    """
    code = [index for index, hit in enumerate(hits) if _is_source_code(hit)]
    texts = [hit.text for hit in hits]
    extract = extract_answer(question, texts, code=code, embedder=embedder) if hits else None
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


#: ``meta.language`` values of files that are prose in markup, not code.
MARKUP_LANGUAGES = frozenset({"markdown", "restructuredtext", "html", "text", "asciidoc", "org"})


def _is_source_code(hit: Hit) -> bool:
    language = hit.meta.language
    return language is not None and language not in MARKUP_LANGUAGES and bool(hit.meta.file_path)


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


_FORM_STEMS = frozenset(stem(word) for word in CODE_WORDS | TABLE_WORDS | ASKING_WORDS)


def _rarity(wanted: frozenset[str], pool: list[_Sentence]) -> dict[str, float]:
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
