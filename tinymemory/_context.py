"""``context.md``: a token-budgeted brief compiled from an engine, for the start of a session.

:func:`compile_context` asks the engine one ``recall`` per :class:`Brief` (in
order), then lists the latest learnings, and renders them under ``# Context``
with a frontmatter recording when, from which engine, how many tokens and
which items it cites. Tokens are estimated at four characters each; when the
document is over ``budget_tokens`` the learnings go first, one at a time from
the end, then the last brief is shortened and finally dropped, so earlier
briefs keep their text longest.

Engine failures never fail the document: a brief whose recall fails is
skipped and logged (logger ``tinymemory._context``), a failed learnings
listing leaves the learnings out, and an engine with nothing to say yields an
empty document. Only a malformed spec is an error.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Iterable
from datetime import UTC, datetime

import attrs

from tinymemory._engine import EngineWrapper, MemoryEngine
from tinymemory._errors import InvalidRequest, TinyMemoryError
from tinymemory._hookspecs import Embedder
from tinymemory._meta import ItemKind, MetaFilter, as_filter
from tinymemory._namespace import Reach
from tinymemory._operations import Citation, Hit, ListRequest, RecallAnswer, RecallRequest
from tinymemory._timestamps import format_whole_seconds, to_utc
from tinymemory._validators import count, instance_of, required_str, str_tuple, to_tuple_of

__all__ = [
    "DEFAULT_BRIEFS",
    "Brief",
    "ContextCompiler",
    "ContextDoc",
    "ContextSpec",
    "compile_context",
    "estimate_tokens",
]

logger = logging.getLogger("tinymemory._context")

#: Characters per estimated token.
CHARS_PER_TOKEN = 4
#: Most citations one brief's recall gathers.
BRIEF_CITATIONS = 8
#: What every brief's recall is asked to do.
BRIEF_INSTRUCTIONS = (
    "Answer briefly, as markdown bullet points suitable for a context brief. "
    "State only what the stored items support."
)
#: Page size, and most pages, of the learnings listing.
LEARNINGS_PAGE = 100
LEARNINGS_MAX_PAGES = 50
#: A shortened brief with fewer characters left than this is dropped instead.
MIN_BRIEF_CHARS = 40
_ELLIPSIS = "…"
#: A citation marker in an answer: ``[3]``.
_MARKER = re.compile(r"\[(\d+)\]")
#: A quote of a marked answer: text up to and with the run of markers that ends it.
_QUOTE = re.compile(r".*?\[\d+\](?:\s*\[\d+\])*")
#: The longest a source's name runs in the sources list.
_LABEL_CHARS = 80
# The original subtracts the ellipsis' UTF-8 length (3 bytes) from a count of
# characters when it shortens a brief; kept, so documents come out the same.
_ELLIPSIS_ALLOWANCE = len(_ELLIPSIS.encode("utf-8"))
# Rust's `char::is_whitespace` (Unicode White_Space). Python's `str.isspace`
# also counts U+001C..U+001F, which would split, trim and cut differently.
_WHITESPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_SPACE_RUN = re.compile(f"[{_WHITESPACE}]+")
_LEADING = re.compile(f"\\A[{_WHITESPACE}]+")
_TRAILING = re.compile(f"[{_WHITESPACE}]+\\Z")


def estimate_tokens(text: str) -> int:
    """The tokens ``text`` is estimated to take: its characters over four, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@attrs.frozen(kw_only=True)
class Brief:
    """One section of the document: a heading, and the question recalled to fill it."""

    heading: str = attrs.field(validator=required_str)
    question: str = attrs.field(validator=required_str)
    #: Which items the answer may draw on.
    filter: MetaFilter = attrs.field(factory=MetaFilter, converter=as_filter)


#: The four briefs a spec holds unless told otherwise.
DEFAULT_BRIEFS = (
    Brief(
        heading="About the user",
        question="Who is the user: their identity, their role, and how they like to work?",
    ),
    Brief(
        heading="Active work",
        question="What are the user's current projects, workspaces and repositories?",
    ),
    Brief(
        heading="Preferences and standing instructions",
        question="What preferences and standing instructions has the user given?",
    ),
    Brief(
        heading="Recent important events",
        question="What important events happened recently?",
    ),
)


def _briefs(values: Iterable[Brief]) -> tuple[Brief, ...]:
    return to_tuple_of(Brief, "briefs", values)


@attrs.frozen(kw_only=True)
class ContextSpec:
    """How a ``context.md`` is compiled.

    ``budget_tokens`` bounds the whole document, frontmatter included;
    ``briefs`` are its sections in order; ``learnings_limit`` caps the
    learnings listed after them (0 lists none); ``reach``, when set, confines
    every read to one node's reach (none reads every namespace but the
    ``service:`` sandboxes).
    """

    budget_tokens: int = attrs.field(default=1500, validator=count)
    briefs: tuple[Brief, ...] = attrs.field(default=DEFAULT_BRIEFS, converter=_briefs)
    learnings_limit: int = attrs.field(default=20, validator=count)
    reach: Reach | None = attrs.field(default=None, validator=instance_of(Reach, optional=True))

    def validate(self) -> None:
        """Refuse a zero budget, or a brief with a blank heading or question."""
        if self.budget_tokens == 0:
            raise InvalidRequest("budget_tokens must be positive")
        for brief in self.briefs:
            if not brief.heading.strip() or not brief.question.strip():
                raise InvalidRequest("every brief needs a heading and a question")


@attrs.frozen(kw_only=True)
class ContextDoc:
    """A compiled ``context.md``: the markdown, its tokens, when and from what, what it cites.

    ``markdown`` is empty when the engine had nothing to say; ``refs`` are the
    ids it cites, in order of first citation.
    """

    markdown: str
    tokens: int = attrs.field(validator=count)
    generated_at: datetime = attrs.field(converter=to_utc)
    engine: str
    # A factory default, so the JSON form writes `refs` even when empty.
    refs: tuple[str, ...] = attrs.field(factory=tuple, converter=str_tuple)

    def __repr__(self) -> str:
        """Short: the markdown's size and opening, not the whole text escaped."""
        opening = self.markdown.split("\n", 1)[0]
        return (
            f"ContextDoc({len(self.markdown):,} chars, {self.tokens} tokens, "
            f"engine={self.engine!r}, refs={len(self.refs)}, opens={opening!r})"
        )

    def _repr_markdown_(self) -> str:
        from tinymemory._display import context_markdown

        return context_markdown(self)


@attrs.frozen
class _Section:
    heading: str
    body: str
    refs: tuple[str, ...]
    #: The id each of the body's ``[n]`` markers names (marker n is ``markers[n - 1]``).
    markers: tuple[str, ...] = ()
    #: What the sources list calls each ref, by id.
    labels: tuple[tuple[str, str], ...] = ()


@attrs.frozen
class _Line:
    id: str
    text: str


class ContextCompiler:
    """Compiles ``context.md`` documents, stamped now or at a fixed ``generated_at``.

    Pin ``generated_at`` for reproducible output (tests, golden files).
    ``embedder`` judges which quotes are relevant to a brief (docs/context.md):
    by default the engine's own (an ``embedder`` attribute, as the sqlite and
    postgres engines have, through any wrapper); with none, quotes are not judged.
    """

    def __init__(
        self, generated_at: datetime | None = None, *, embedder: Embedder | None = None
    ) -> None:
        self.generated_at = None if generated_at is None else to_utc(generated_at)
        self.embedder = embedder

    def compile(self, engine: MemoryEngine, spec: ContextSpec | None = None) -> ContextDoc:
        """Compile ``spec`` (the defaults when ``None``) against ``engine``.

        Raises ``InvalidRequest`` for a malformed spec, and for nothing else.
        """
        spec = ContextSpec() if spec is None else spec
        if not isinstance(spec, ContextSpec):
            raise InvalidRequest(f"`spec` must be a ContextSpec, not {type(spec).__name__}")
        spec.validate()
        generated_at = self.generated_at or datetime.now(UTC)
        engine_id = engine.descriptor.id
        embedder = self.embedder or _engine_embedder(engine)
        briefs = _gather_briefs(engine, spec, embedder)
        learnings = _gather_learnings(engine, spec)
        markdown, tokens, refs = _render(
            briefs, learnings, spec.budget_tokens, engine_id, generated_at
        )
        logger.debug("compiled context engine=%s tokens=%d refs=%d", engine_id, tokens, len(refs))
        return ContextDoc(
            markdown=markdown,
            tokens=tokens,
            generated_at=generated_at,
            engine=engine_id,
            refs=refs,
        )


def compile_context(engine: MemoryEngine, spec: ContextSpec | None = None) -> ContextDoc:
    """Compile ``spec`` (the defaults when ``None``) against ``engine``, stamped now."""
    return ContextCompiler().compile(engine, spec)


# --- gathering ------------------------------------------------------------------------


def _engine_embedder(engine: MemoryEngine) -> Embedder | None:
    """The embedder ``engine`` (or the engine a wrapper hands to) recalls with, if any."""
    while isinstance(engine, EngineWrapper):
        engine = engine.inner
    own = getattr(engine, "embedder", None)
    return own if isinstance(own, Embedder) else None


def _gather_briefs(
    engine: MemoryEngine, spec: ContextSpec, embedder: Embedder | None
) -> list[_Section]:
    answers = [(brief, _brief_answer(engine, spec, brief)) for brief in spec.briefs]
    relevance = _relevance(embedder, [brief.question for brief in spec.briefs])
    sections = []
    quoted: set[str] = set()
    for place, (brief, answer) in enumerate(answers):
        if answer is None:
            continue
        body = _trim(answer.answer)
        if not body or not answer.citations:
            logger.debug("context brief %r skipped: nothing cited", brief.heading)
            continue
        section = _unquoted(brief.heading, body, answer.citations, quoted, relevance, place)
        if section is None:
            logger.debug("context brief %r skipped: nothing relevant left", brief.heading)
            continue
        quoted.update(section.refs)
        sections.append(section)
    return sections


def _brief_answer(engine: MemoryEngine, spec: ContextSpec, brief: Brief) -> RecallAnswer | None:
    """The engine's answer to ``brief``'s question, or None (logged) when its recall failed."""
    filter = brief.filter if spec.reach is None else attrs.evolve(brief.filter, reach=spec.reach)
    request = RecallRequest(
        question=brief.question,
        filter=filter,
        limit=BRIEF_CITATIONS,
        instructions=BRIEF_INSTRUCTIONS,
    )
    try:
        return engine.recall(request)
    except TinyMemoryError as error:
        logger.warning("context brief %r skipped: %s", brief.heading, error)
    except Exception:
        # Not a contract error, so an engine bug: still only this brief is lost.
        logger.warning("context brief %r skipped: the engine failed", brief.heading, exc_info=True)
    return None


class _Relevance:
    """Which brief a quoted text belongs to: of the briefs whose recall bars for an
    answering sentence it passes (closer to the question than every unrelated background
    sentence, the question closer to it than every background question: the embedder's
    own background, docs/recall.md), the one whose question it is closest to."""

    def __init__(self, embedder: Embedder, questions: list[str]) -> None:
        from tinymemory.retrieval import background, embedding_matrix

        self._embedder = embedder
        self._questions = embedding_matrix(embedder, questions)
        self._background = background(embedder)
        self._bars = [self._background.question_bar(row) for row in self._questions]

    def homes(self, texts: list[str]) -> list[int | None]:
        """Per text, the place of the brief it belongs to, or None when it passes no bar."""
        from tinymemory.retrieval import embedding_matrix

        if not texts:
            return []
        vectors = embedding_matrix(self._embedder, texts)
        similarities = vectors @ self._questions.T
        hubs = self._background.sentence_bars(vectors).tolist()
        homes: list[int | None] = []
        for row, hub in zip(similarities.tolist(), hubs, strict=True):
            passing = [
                place
                for place, value in enumerate(row)
                if value > self._bars[place] and value > hub
            ]
            homes.append(max(passing, key=lambda place: row[place]) if passing else None)
        return homes


def _relevance(embedder: Embedder | None, questions: list[str]) -> _Relevance | None:
    """The briefs' relevance judge, or None (logged) without vectors or with a failing
    embedder: the briefs are then the engine's answers as they are."""
    if embedder is None or not questions:
        return None
    try:
        return _Relevance(embedder, questions)
    except Exception as error:
        logger.warning(
            "context briefs unjudged: %s", error, exc_info=not isinstance(error, TinyMemoryError)
        )
        return None


def _unquoted(
    heading: str,
    body: str,
    citations: tuple[Citation, ...],
    quoted: set[str],
    relevance: _Relevance | None,
    place: int,
) -> _Section | None:
    """The brief less what is not relevant to it or an earlier brief quoted; None when
    nothing is left.

    An answer with ``[n]`` markers is cut into quotes, each ending in its markers;
    a quote is kept when its markers name only items no earlier brief quoted and,
    with ``relevance``, its text belongs to this brief (a line's text after its
    last marker rests on nothing and goes). An answer with no markers rests on
    all its citations, so it is kept whole only when none of them was quoted
    before and, with ``relevance``, every one's text belongs to this brief.
    """
    markers = tuple(citation.id for citation in citations)
    labels = tuple((citation.id, _label(citation)) for citation in citations)
    if not _MARKER.search(body):
        if quoted.intersection(markers):
            return None
        if relevance is not None and any(
            home != place for home in relevance.homes([c.snippet for c in citations])
        ):
            return None
        return _Section(heading, body, tuple(dict.fromkeys(markers)), markers, labels)
    lines = [
        [(found.group(0), _named(found.group(0), markers)) for found in _QUOTE.finditer(line)]
        for line in body.split("\n")
    ]
    texts = [_MARKER.sub("", quote).strip() for line in lines for quote, _ in line]
    homes = iter(relevance.homes(texts) if relevance is not None else [place] * len(texts))
    kept: list[str] = []
    refs: dict[str, None] = {}
    for line in lines:
        chosen = []
        for quote, named in line:
            if next(homes) == place and named and quoted.isdisjoint(named):
                chosen.append(quote.strip())
                refs.update(dict.fromkeys(named))
        if chosen:
            kept.append(" ".join(chosen))
    if not refs:
        return None
    return _Section(heading, "\n".join(kept), tuple(refs), markers, labels)


def _named(quote: str, markers: tuple[str, ...]) -> list[str]:
    """The ids a quote's ``[n]`` markers name (markers past the citations name nothing)."""
    numbers = [int(found.group(1)) for found in _MARKER.finditer(quote)]
    return [markers[n - 1] for n in numbers if 1 <= n <= len(markers)]


def _label(citation: Citation) -> str:
    """What a source is called in the list: its file, its link, or its text's first line."""
    meta = citation.meta
    named = meta.file_path or meta.url
    if named:
        return named
    first = next((line.strip() for line in citation.snippet.splitlines() if line.strip()), "")
    first = first.lstrip("#").strip()
    return first if len(first) <= _LABEL_CHARS else first[: _LABEL_CHARS - 1] + _ELLIPSIS


def _gather_learnings(engine: MemoryEngine, spec: ContextSpec) -> list[_Line]:
    if spec.learnings_limit == 0:
        return []
    listing_filter = MetaFilter(kinds=(ItemKind.LEARNING,), reach=spec.reach)
    hits: list[Hit] = []
    cursor: str | None = None
    for _ in range(LEARNINGS_MAX_PAGES):
        try:
            page = engine.list(
                ListRequest(filter=listing_filter, limit=LEARNINGS_PAGE, cursor=cursor)
            )
        except Exception as error:
            logger.warning(
                "context learnings skipped: %s",
                error,
                exc_info=not isinstance(error, TinyMemoryError),
            )
            return []
        hits.extend(hit for hit in page.items if hit.kind is ItemKind.LEARNING)
        cursor = page.next_cursor
        if cursor is None:
            break
    ranked = _rank_learnings(hits)[: spec.learnings_limit]
    return [_Line(id=hit.id, text=_one_line(hit.text)) for hit in ranked]


def _rank_learnings(hits: list[Hit]) -> list[Hit]:
    """Newest first with undated last, then most confident (missing is 0); ties keep order."""

    def confidence(hit: Hit) -> float:
        value = hit.confidence or 0.0
        return math.inf if math.isnan(value) else value

    by_confidence = sorted(hits, key=confidence, reverse=True)
    epoch = datetime(1, 1, 1, tzinfo=UTC)
    return sorted(
        by_confidence,
        key=lambda hit: (hit.meta.observed_at is not None, hit.meta.observed_at or epoch),
        reverse=True,
    )


# --- rendering --------------------------------------------------------------------------


def _render(
    briefs: list[_Section],
    learnings: list[_Line],
    budget: int,
    engine: str,
    generated_at: datetime,
) -> tuple[str, int, tuple[str, ...]]:
    """The document within ``budget``: learnings trimmed first, then the last brief."""
    briefs, learnings = list(briefs), list(learnings)
    while True:
        markdown, tokens, refs = _compose(briefs, learnings, engine, generated_at)
        if tokens <= budget:
            return markdown, tokens, refs
        if learnings:
            learnings.pop()
            continue
        # There is a brief: with none and no learnings the document is empty and fits.
        last = briefs[-1]
        overflow = (tokens - budget) * CHARS_PER_TOKEN
        keep = max(0, len(last.body) - (overflow + _ELLIPSIS_ALLOWANCE))
        if keep < MIN_BRIEF_CHARS:
            briefs.pop()
        else:
            briefs[-1] = attrs.evolve(last, body=_shorten(last.body, keep))


def _shorten(text: str, keep: int) -> str:
    """The first ``keep`` characters, cut back to the last whitespace when that lies past
    half of them (measured in UTF-8 bytes, as the original does), with an ellipsis."""
    cut = text[:keep]
    spaces = list(_SPACE_RUN.finditer(cut))
    if spaces:
        space = spaces[-1].end() - 1
        if len(_utf8(cut[:space])) * 2 > len(_utf8(cut)):
            cut = cut[:space]
    return _TRAILING.sub("", cut) + _ELLIPSIS


def _compose(
    briefs: list[_Section], learnings: list[_Line], engine: str, generated_at: datetime
) -> tuple[str, int, tuple[str, ...]]:
    """The whole document, frontmatter included, untrimmed; its tokens and refs.

    Every source is numbered once, in order of first citation (briefs, then
    learnings); a brief's ``[n]`` markers and each learning's line point into
    the numbered list of sources that ends the document.
    """
    if not briefs and not learnings:
        return "", 0, ()
    refs: dict[str, None] = {}
    labels: dict[str, str] = {}
    for brief in briefs:
        refs.update(dict.fromkeys(brief.refs))
        labels.update(brief.labels)
    refs.update(dict.fromkeys(line.id for line in learnings))
    number = {ref: index for index, ref in enumerate(refs, start=1)}
    parts = ["# Context\n"]
    for brief in briefs:
        parts.append(f"\n## {brief.heading}\n\n{_trim(_renumbered(brief, number))}\n")
    if learnings:
        parts.append("\n## Learnings\n\n")
        for line in learnings:
            parts.append(f"- {_one_line(line.text)} [{number[line.id]}]\n")
            labels.setdefault(line.id, "learning")
    parts.append("\n## Sources\n\n")
    for ref, index in number.items():
        label = _one_line(labels.get(ref, ""))
        parts.append(f"[{index}] {label} (`{ref[:8]}`)\n" if label else f"[{index}] `{ref[:8]}`\n")
    body = "".join(parts)
    cited = tuple(refs)
    # The frontmatter states the document's own tokens, which it is part of:
    # start from a draft reporting 0, then re-render until the count holds.
    tokens = estimate_tokens(_frontmatter(engine, generated_at, 0, cited) + "\n" + body)
    markdown = ""
    for _ in range(8):
        markdown = _frontmatter(engine, generated_at, tokens, cited) + "\n" + body
        settled = estimate_tokens(markdown)
        if settled == tokens:
            break
        tokens = settled
    return markdown, estimate_tokens(markdown), cited


def _renumbered(brief: _Section, number: dict[str, int]) -> str:
    """The brief's body with each ``[n]`` pointing into the document's list of sources."""

    def point(found: re.Match[str]) -> str:
        index = int(found.group(1))
        if 1 <= index <= len(brief.markers) and brief.markers[index - 1] in number:
            return f"[{number[brief.markers[index - 1]]}]"
        return found.group(0)

    return _MARKER.sub(point, brief.body)


def _frontmatter(engine: str, generated_at: datetime, tokens: int, refs: tuple[str, ...]) -> str:
    return (
        f"---\ngenerated_at: {format_whole_seconds(generated_at)}\nengine: {engine}\n"
        f"tokens: {tokens}\nrefs: [{', '.join(refs)}]\n---\n"
    )


def _trim(text: str) -> str:
    return _TRAILING.sub("", _LEADING.sub("", text))


def _one_line(text: str) -> str:
    return " ".join(part for part in _SPACE_RUN.split(text) if part)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")
