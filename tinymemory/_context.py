"""``context.md``: a token-budgeted brief compiled from an engine, for the start of a session.

:func:`compile_context` asks the engine one ``recall`` per :class:`Brief` (in
order; two for a brief about the user, whose quotes must rest on the user's own
items), then lists the latest learnings, and renders them under ``# Context``
with a frontmatter recording when, from which engine, how many tokens and
which items it cites. Tokens are estimated at four characters each; when the
document is over ``budget_tokens`` the learnings go first, one at a time from
the end, then the last brief is shortened and finally dropped, so earlier
briefs keep their text longest.

Engine failures never fail the document: a recall that fails is logged
(logger ``tinymemory._context``) and its answer left out, a failed learnings
listing leaves the learnings out, and an engine with nothing to say yields an
empty document. Only a malformed spec is an error.
"""

from __future__ import annotations

import logging
import math
import os
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

import attrs

from tinymemory._engine import EngineWrapper, MemoryEngine
from tinymemory._errors import InvalidRequest, TinyMemoryError
from tinymemory._hookspecs import Embedder
from tinymemory._meta import ItemKind, MetaFilter, as_filter
from tinymemory._namespace import Reach
from tinymemory._operations import (
    Citation,
    GetRequest,
    Hit,
    ListRequest,
    RecallAnswer,
    RecallRequest,
)
from tinymemory._timestamps import format_whole_seconds, to_utc
from tinymemory._validators import count, instance_of, required_str, str_tuple, to_tuple_of

if TYPE_CHECKING:
    from tinymemory._brief_relevance import BriefJudge

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
    #: Whether the brief is about the user: it then quotes only what the user wrote or
    #: what was learned about them (docs/context.md), as the default briefs do.
    about_user: bool = attrs.field(default=False, validator=instance_of(bool, optional=False))


#: The four briefs a spec holds unless told otherwise.
DEFAULT_BRIEFS = (
    Brief(
        heading="About the user",
        question="Who is the user: their identity, their role, and how they like to work?",
        about_user=True,
    ),
    Brief(
        heading="Active work",
        question="What are the user's current projects, workspaces and repositories?",
        about_user=True,
    ),
    Brief(
        heading="Preferences and standing instructions",
        question="What preferences and standing instructions has the user given?",
        about_user=True,
    ),
    Brief(
        heading="Recent important events",
        question="What important events happened recently?",
        about_user=True,
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
    #: The refs that are files, by id: their labels are file paths.
    files: tuple[str, ...] = ()


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
    answers = [(brief, _brief_answers(engine, spec, brief)) for brief in spec.briefs]
    relevance = _relevance(spec, embedder)
    own = _UserItems(engine, spec.reach)
    sections = []
    said = _Said()
    for place, (brief, replies) in enumerate(answers):
        parts = []
        for answer in replies:
            body = _trim(answer.answer)
            if not body or not answer.citations:
                continue
            judge = _Judge(relevance, place, own if brief.about_user else None)
            part = _unquoted(brief.heading, body, answer.citations, said, judge)
            if part is not None:
                said.add(part)
                parts.append(part)
        if not parts:
            logger.debug("context brief %r skipped: nothing relevant left", brief.heading)
            continue
        sections.append(_joined(parts))
    return sections


def _brief_answers(engine: MemoryEngine, spec: ContextSpec, brief: Brief) -> list[RecallAnswer]:
    """The engine's answers to ``brief``'s question: one recall, or for a brief about the
    user one over learnings and conversations and one over documents (each within the
    brief's own kinds), so a memory's documents do not crowd out what was learned. A
    failed recall (logged) gives no answer."""
    filter = brief.filter if spec.reach is None else attrs.evolve(brief.filter, reach=spec.reach)
    filters = [filter]
    if brief.about_user:
        allowed = filter.kinds or tuple(ItemKind)
        groups = [(ItemKind.LEARNING, ItemKind.CONVERSATION), (ItemKind.DOCUMENT,)]
        filters = [
            attrs.evolve(filter, kinds=kinds)
            for group in groups
            if (kinds := tuple(kind for kind in group if kind in allowed))
        ]
    answers = []
    for each in filters:
        request = RecallRequest(
            question=brief.question,
            filter=each,
            limit=BRIEF_CITATIONS,
            instructions=BRIEF_INSTRUCTIONS,
        )
        try:
            answers.append(engine.recall(request))
        except TinyMemoryError as error:
            logger.warning("context brief %r: a recall failed: %s", brief.heading, error)
        except Exception:
            # Not a contract error, so an engine bug: still only this recall is lost.
            logger.warning(
                "context brief %r: a recall failed: the engine failed", brief.heading, exc_info=True
            )
    return answers


def _relevance(spec: ContextSpec, embedder: Embedder | None) -> BriefJudge | None:
    """The briefs' judge (tinymemory._brief_relevance), or None (logged) without vectors
    or with a failing embedder: the briefs are then the engine's answers as they are."""
    if embedder is None or not spec.briefs:
        return None
    try:
        from tinymemory._brief_relevance import BriefJudge

        return BriefJudge(embedder, [brief.question for brief in spec.briefs])
    except Exception as error:
        logger.warning(
            "context briefs unjudged: %s", error, exc_info=not isinstance(error, TinyMemoryError)
        )
        return None


class _Said:
    """What the briefs so far have said: each quote's text once, and the items an answer
    without markers quoted whole (that answer rests on every item it cites)."""

    def __init__(self) -> None:
        self.texts: set[str] = set()
        self.cited: set[str] = set()
        self.whole: set[str] = set()

    def add(self, section: _Section) -> None:
        self.cited.update(section.refs)
        if _MARKER.search(section.body):
            self.texts.update(_quote_key(quote) for quote in _QUOTE.findall(section.body))
        else:
            self.whole.update(section.refs)


def _quote_key(quote: str) -> str:
    """A quote's text without its markers, its whitespace runs collapsed, case folded."""
    return _one_line(_MARKER.sub("", quote)).casefold()


class _UserItems:
    """Which cited items are the user's own or about them (docs/context.md): learnings and
    conversations, and documents written in the first person singular (more of their
    statements speak as "I", "me" or "my" than not). Documents are read whole with one
    ``get`` per answer; one that cannot be read is not the user's (logged)."""

    def __init__(self, engine: MemoryEngine, reach: Reach | None) -> None:
        self._engine = engine
        self._reach = reach
        self._known: dict[str, bool] = {}

    def judge(self, citations: tuple[Citation, ...]) -> dict[str, bool]:
        """Per cited id, whether the item is the user's own or about them."""
        unread = [
            c.id for c in citations if c.kind is ItemKind.DOCUMENT and c.id not in self._known
        ]
        if unread:
            self._known.update(dict.fromkeys(unread, False))
            try:
                hits = self._engine.get(
                    GetRequest(ids=tuple(dict.fromkeys(unread)), reach=self._reach)
                )
            except Exception as error:
                logger.warning(
                    "context: cited documents unread: %s",
                    error,
                    exc_info=not isinstance(error, TinyMemoryError),
                )
                hits = []
            self._known.update((hit.id, _first_person(hit.text)) for hit in hits)
        return {
            c.id: c.kind is not ItemKind.DOCUMENT or self._known.get(c.id, False) for c in citations
        }


#: A statement of a text: up to a stop and a space, or a line's end.
_STATEMENT_END = re.compile(r"(?<=[.!?])\s+|\n")
#: A word by which a writer speaks of themself (English, first person singular).
_FIRST_PERSON = re.compile(r"\b(?:I|[Mm](?:e|y|ine|yself))\b")


def _first_person(text: str) -> bool:
    """Whether more of ``text``'s statements (its sentences and lines with a letter, not its
    markdown headings, which name it) speak in the first person singular than not."""
    statements = [
        part
        for part in _STATEMENT_END.split(text)
        if any(char.isalpha() for char in part) and not part.lstrip().startswith("#")
    ]
    speaking = sum(1 for part in statements if _FIRST_PERSON.search(part))
    return 2 * speaking > len(statements)


@attrs.frozen
class _Judge:
    """Whether a brief keeps a quote: its home by ``relevance`` is the brief at ``place``
    (when there is a judge), and with ``own`` every item it rests on is the user's."""

    relevance: BriefJudge | None
    place: int
    own: _UserItems | None

    def keeps(
        self, texts: list[str], named: list[list[str]], citations: tuple[Citation, ...]
    ) -> list[bool]:
        homes = (
            self.relevance.homes(texts) if self.relevance is not None else [self.place] * len(texts)
        )
        users = self.own.judge(citations) if self.own is not None else {}
        return [
            home == self.place and bool(ids) and all(users.get(i, True) for i in ids)
            for home, ids in zip(homes, named, strict=True)
        ]


def _unquoted(
    heading: str, body: str, citations: tuple[Citation, ...], said: _Said, judge: _Judge
) -> _Section | None:
    """The answer less what is not relevant to the brief or was said before; None when
    nothing is left.

    An answer with ``[n]`` markers is cut into quotes, each ending in its markers;
    a quote is kept when the judge keeps it, no earlier quote said the same, and
    no item it names was quoted whole before (a line's text after its last marker
    rests on nothing and goes). An answer with no markers quotes all its
    citations whole, so it is kept only when none of them was cited before and
    the judge keeps every one's text.
    """
    markers = tuple(citation.id for citation in citations)
    labels = tuple((citation.id, _label(citation)) for citation in citations)
    files = tuple(citation.id for citation in citations if citation.meta.file_path)
    if not _MARKER.search(body):
        if said.cited.intersection(markers):
            return None
        if not all(
            judge.keeps([c.snippet for c in citations], [[c.id] for c in citations], citations)
        ):
            return None
        return _Section(heading, body, tuple(dict.fromkeys(markers)), markers, labels, files)
    lines = [
        [(found.group(0), _named(found.group(0), markers)) for found in _QUOTE.finditer(line)]
        for line in body.split("\n")
    ]
    quotes = [quote for line in lines for quote in line]
    texts = [_MARKER.sub("", quote).strip() for quote, _ in quotes]
    verdicts = iter(judge.keeps(texts, [named for _, named in quotes], citations))
    kept: list[str] = []
    refs: dict[str, None] = {}
    for line in lines:
        chosen = []
        for quote, named in line:
            if (
                next(verdicts)
                and _quote_key(quote) not in said.texts
                and said.whole.isdisjoint(named)
            ):
                chosen.append(quote.strip())
                refs.update(dict.fromkeys(named))
        if chosen:
            kept.append(" ".join(chosen))
    if not refs:
        return None
    return _Section(heading, "\n".join(kept), tuple(refs), markers, labels, files)


def _joined(parts: list[_Section]) -> _Section:
    """One brief's sections as one: bodies one after another, each later part's ``[n]``
    shifted past the markers before it."""
    first, *rest = parts
    body, refs, markers = first.body, dict.fromkeys(first.refs), first.markers
    labels, files = first.labels, first.files
    for part in rest:
        shifted = _shifted(part.body, len(markers))
        body = f"{body}\n{shifted}"
        refs.update(dict.fromkeys(part.refs))
        markers += part.markers
        labels += part.labels
        files += part.files
    return _Section(first.heading, body, tuple(refs), markers, labels, files)


def _shifted(body: str, offset: int) -> str:
    """``body`` with every ``[n]`` marker made ``[n + offset]``."""
    return _MARKER.sub(lambda found: f"[{int(found.group(1)) + offset}]", body)


def _named(quote: str, markers: tuple[str, ...]) -> list[str]:
    """The ids a quote's ``[n]`` markers name (markers past the citations name nothing)."""
    numbers = [int(found.group(1)) for found in _MARKER.finditer(quote)]
    return [markers[n - 1] for n in numbers if 1 <= n <= len(markers)]


def _label(citation: Citation) -> str:
    """What a source is called in the list: its file (made relative to the other cited
    files' folder when the document is composed), its link, or its text's first line."""
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
    files: set[str] = set()
    for brief in briefs:
        refs.update(dict.fromkeys(brief.refs))
        for ref, label in brief.labels:
            labels.setdefault(ref, label)
        files.update(brief.files)
    labels.update(_relative_files({ref: labels[ref] for ref in refs if ref in files}))
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


def _relative_files(paths: dict[str, str]) -> dict[str, str]:
    """Each file path relative to the deepest folder holding every one of them, so the
    sources list reads the same wherever the files live (one file: its name). Paths
    that share no folder (absolute and relative, two drives) stay as they are."""
    try:
        root = os.path.commonpath([os.path.dirname(path) for path in paths.values()])
    except ValueError:
        return paths
    if not root:
        return paths
    return {ref: os.path.relpath(path, root) for ref, path in paths.items()}


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
