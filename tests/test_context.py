"""The context.md compiler: gathering, layout, ranking, trimming, and the budget always holding."""

from __future__ import annotations

import logging
import math
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory._context import (
    BRIEF_INSTRUCTIONS,
    DEFAULT_BRIEFS,
    Brief,
    ContextCompiler,
    ContextDoc,
    ContextSpec,
    _Line,
    _render,
    _Section,
    _shorten,
    compile_context,
    estimate_tokens,
)
from tinymemory._engine import EngineDescriptor, EngineHealth, EngineWrapper, MemoryEngine
from tinymemory._errors import EngineError, InvalidRequest, Unavailable
from tinymemory._items import Learning, StoreItem, StoreReceipt
from tinymemory._meta import ItemKind, MemoryMeta, MetaFilter
from tinymemory._namespace import Namespace, Reach
from tinymemory._operations import (
    Citation,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    Hit,
    ListPage,
    ListRequest,
    RecallAnswer,
    RecallRequest,
)
from tinymemory._timestamps import format_timestamp
from tinymemory._wire import to_data
from tinymemory.conformance import strategies as tms
from tinymemory.reference import ReferenceEngine
from tinymemory.retrieval import extractive_answer
from tinymemory.retrieval._background import BACKGROUND_SENTENCES

AT = datetime(2025, 5, 6, 7, 8, 9, 750000, tzinfo=UTC)
PINNED = ContextCompiler(AT)


class ScriptedEngine(MemoryEngine):
    """Answers each brief's question as scripted and lists the given learnings, recording calls."""

    def __init__(
        self,
        answers: dict[str, RecallAnswer | Exception] | None = None,
        learnings: list[Hit] | None = None,
        list_error: Exception | None = None,
    ) -> None:
        self.answers = answers or {}
        self.learnings = learnings or []
        self.list_error = list_error
        self.recalls: list[RecallRequest] = []
        self.lists: list[ListRequest] = []

    @property
    def descriptor(self) -> EngineDescriptor:
        return EngineDescriptor(id="scripted", label="Scripted", description="for tests")

    def health(self) -> EngineHealth:
        return EngineHealth.ok()

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        self.recalls.append(request)
        answer = self.answers.get(request.question, RecallAnswer(answer="nothing"))
        if isinstance(answer, Exception):
            raise answer
        kinds = request.filter.kinds
        if kinds and not any(citation.kind in kinds for citation in answer.citations):
            return RecallAnswer(answer="nothing")  # the answer's items are not admitted
        return answer

    def handle_list(self, request: ListRequest) -> ListPage:
        self.lists.append(request)
        if self.list_error is not None:
            raise self.list_error
        start = int(request.cursor or 0)
        end = start + request.limit
        more = str(end) if end < len(self.learnings) else None
        return ListPage(items=self.learnings[start:end], next_cursor=more)

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        raise AssertionError("context does not fetch")

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        raise AssertionError("context does not store")

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        raise AssertionError("context does not forget")


def answer(text: str, *ids: str, kind: ItemKind = ItemKind.LEARNING) -> RecallAnswer:
    """An answer citing ``ids``, learnings unless told (a brief about the user quotes
    a document only when it is written in the first person)."""
    citations = [Citation(id=item_id, kind=kind, snippet="s", meta=MemoryMeta()) for item_id in ids]
    return RecallAnswer(answer=text, citations=citations)


def learning(
    item_id: str, text: str, confidence: float | None = 0.8, at: datetime | None = None
) -> Hit:
    return Hit(
        id=item_id,
        kind=ItemKind.LEARNING,
        text=text,
        meta=MemoryMeta(observed_at=at),
        confidence=confidence,
    )


QUESTIONS = [brief.question for brief in DEFAULT_BRIEFS]


# --- the spec -------------------------------------------------------------------------------


def test_the_spec_defaults():
    spec = ContextSpec()
    assert (spec.budget_tokens, spec.learnings_limit, spec.reach) == (1500, 20, None)
    assert [(brief.heading, brief.question) for brief in spec.briefs] == [
        (
            "About the user",
            "Who is the user: their identity, their role, and how they like to work?",
        ),
        ("Active work", "What are the user's current projects, workspaces and repositories?"),
        (
            "Preferences and standing instructions",
            "What preferences and standing instructions has the user given?",
        ),
        ("Recent important events", "What important events happened recently?"),
    ]
    assert all(brief.filter == MetaFilter() for brief in spec.briefs)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (ContextSpec(budget_tokens=0), "budget_tokens must be positive"),
        (
            ContextSpec(briefs=[Brief(heading=" ", question="q")]),
            "every brief needs a heading and a question",
        ),
        (
            ContextSpec(briefs=[Brief(heading="h", question="")]),
            "every brief needs a heading and a question",
        ),
    ],
)
def test_a_malformed_spec_is_the_only_error(spec, message):
    engine = ScriptedEngine()
    with pytest.raises(InvalidRequest) as caught:
        PINNED.compile(engine, spec)
    assert caught.value.message == message
    assert engine.recalls == []


def test_wrong_types_are_refused_at_construction():
    with pytest.raises(InvalidRequest):
        ContextSpec(budget_tokens=-1)
    with pytest.raises(InvalidRequest):
        ContextSpec(briefs=["About the user"])  # type: ignore[list-item]
    with pytest.raises(InvalidRequest):
        ContextSpec(reach="root")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest):
        Brief(heading="h", question="q", filter={})  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest):
        PINNED.compile(ScriptedEngine(), {"budget_tokens": 10})  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest):
        ContextCompiler(datetime(2025, 1, 1))  # a naive time is refused, never guessed


# --- gathering --------------------------------------------------------------------------------


def test_an_engine_with_nothing_yields_an_empty_document():
    doc = PINNED.compile(ReferenceEngine())
    assert doc == ContextDoc(markdown="", tokens=0, generated_at=AT, engine="reference", refs=())


def test_a_document_always_writes_its_refs():
    # The original writes `refs` even when empty; only optionals are left out.
    doc = PINNED.compile(ReferenceEngine())
    assert to_data(doc) == {
        "markdown": "",
        "tokens": 0,
        "generated_at": format_timestamp(AT),
        "engine": "reference",
        "refs": [],
    }


def test_each_brief_is_one_recall_with_limit_8_and_the_instructions():
    engine = ScriptedEngine()
    spec = ContextSpec(
        briefs=[Brief(heading="H", question="Q", filter=MetaFilter(workspace="acme"))],
        learnings_limit=0,
    )
    PINNED.compile(engine, spec)
    assert engine.recalls == [
        RecallRequest(
            question="Q",
            filter=MetaFilter(workspace="acme"),
            limit=8,
            instructions=BRIEF_INSTRUCTIONS,
        )
    ]
    assert BRIEF_INSTRUCTIONS == (
        "Answer briefly, as markdown bullet points suitable for a context brief. "
        "State only what the stored items support."
    )
    assert engine.lists == []


def test_the_specs_reach_replaces_each_briefs_only_when_set():
    mine = Reach.of("agent:a")
    brief = Brief(heading="H", question="Q", filter=MetaFilter(reach=Reach.exact("agent:b")))
    engine = ScriptedEngine()
    PINNED.compile(engine, ContextSpec(briefs=[brief], reach=mine))
    PINNED.compile(engine, ContextSpec(briefs=[brief]))
    assert [request.filter.reach for request in engine.recalls] == [mine, Reach.exact("agent:b")]
    assert [request.filter for request in engine.lists] == [
        MetaFilter(kinds=("learning",), reach=mine),
        MetaFilter(kinds=("learning",)),
    ]
    assert {request.limit for request in engine.lists} == {100}


def test_a_failing_brief_is_logged_and_skipped(caplog):
    engine = ScriptedEngine(
        {
            QUESTIONS[0]: Unavailable("engine is restarting"),
            QUESTIONS[1]: answer("- works on tinymemory", "a"),
            QUESTIONS[2]: RuntimeError("a bug in the engine"),
            QUESTIONS[3]: answer("- shipped", "b"),
        }
    )
    with caplog.at_level(logging.WARNING, logger="tinymemory._context"):
        doc = PINNED.compile(engine)
    assert "## About the user" not in doc.markdown
    assert "## Preferences and standing instructions" not in doc.markdown
    assert "## Active work\n\n- works on tinymemory\n" in doc.markdown
    assert doc.refs == ("a", "b")
    warnings = [record for record in caplog.records if record.name == "tinymemory._context"]
    # One warning per failed recall: a brief about the user recalls twice (learnings and
    # conversations, then documents).
    assert [record.levelno for record in warnings] == [logging.WARNING] * 4
    assert "About the user" in warnings[0].getMessage()
    assert "unavailable: engine is restarting" in warnings[0].getMessage()
    assert warnings[2].exc_info is not None


def test_an_answer_that_is_blank_or_cites_nothing_is_skipped():
    engine = ScriptedEngine(
        {
            QUESTIONS[0]: answer(" \n ", "a"),
            QUESTIONS[1]: answer("uncited claim"),
            QUESTIONS[2]: answer("\n  - kept, trimmed \n\n", "c"),
        }
    )
    doc = PINNED.compile(engine)
    assert doc.refs == ("c",)
    assert "uncited" not in doc.markdown
    assert "## Preferences and standing instructions\n\n- kept, trimmed\n" in doc.markdown


def test_a_failed_learnings_listing_leaves_learnings_out(caplog):
    engine = ScriptedEngine(
        {QUESTIONS[0]: answer("- a", "x")},
        learnings=[learning("l1", "fact")],
        list_error=EngineError("listing broke"),
    )
    with caplog.at_level(logging.WARNING, logger="tinymemory._context"):
        doc = PINNED.compile(engine)
    assert "Learnings" not in doc.markdown
    assert doc.refs == ("x",)
    assert any("listing broke" in record.getMessage() for record in caplog.records)


def test_learnings_are_read_page_by_page_up_to_50_pages():
    hits = [learning(f"l{n}", f"fact {n}", confidence=n / 6000) for n in range(5100)]
    engine = ScriptedEngine(learnings=hits)
    doc = PINNED.compile(engine, ContextSpec(briefs=[], learnings_limit=3, budget_tokens=10**6))
    assert len(engine.lists) == 50
    assert [request.cursor for request in engine.lists[:3]] == [None, "100", "200"]
    # Only the first 5000 were read, so the most confident are 4999, 4998, 4997.
    assert doc.refs == ("l4999", "l4998", "l4997")


def test_learnings_rank_newest_first_then_most_confident_and_ties_keep_order():
    day = datetime(2025, 1, 1, tzinfo=UTC)
    hits = [
        learning("undated-low", "u1", confidence=0.1),
        learning("old", "o", confidence=1.0, at=day),
        learning("undated-high", "u2", confidence=0.9),
        learning("new-low", "n1", confidence=0.2, at=day + timedelta(days=1)),
        learning("new-high", "n2", confidence=0.7, at=day + timedelta(days=1)),
        learning("new-none", "n3", confidence=None, at=day + timedelta(days=1)),
        learning("new-high-2", "n4", confidence=0.7, at=day + timedelta(days=1)),
        Hit(id="doc", kind=ItemKind.DOCUMENT, text="not a learning", meta=MemoryMeta()),
    ]
    doc = PINNED.compile(ScriptedEngine(learnings=hits), ContextSpec(briefs=[]))
    assert doc.refs == (
        "new-high",
        "new-high-2",
        "new-low",
        "new-none",
        "old",
        "undated-high",
        "undated-low",
    )
    capped = PINNED.compile(
        ScriptedEngine(learnings=hits), ContextSpec(briefs=[], learnings_limit=2)
    )
    assert capped.refs == ("new-high", "new-high-2")


# --- layout -----------------------------------------------------------------------------------


def test_the_exact_layout():
    engine = ScriptedEngine(
        {
            QUESTIONS[0]: answer("- Ada, a Rust developer", "d1", "d2"),
            QUESTIONS[3]: answer("- shipped v2", "d2", "d3"),
        },
        learnings=[learning("l1", "prefers\ttabs\n over  spaces"), learning("d1", "again")],
    )
    doc = ContextCompiler(datetime(2025, 5, 6, 9, 8, 9, 999999, tzinfo=timezone_plus_2())).compile(
        engine
    )
    # "Recent important events" rests on d2, which "About the user" quotes: it is left
    # out. Every source is numbered once; the learnings point into the list too.
    body = (
        "\n"
        "# Context\n"
        "\n## About the user\n\n- Ada, a Rust developer\n"
        "\n## Learnings\n\n"
        "- prefers tabs over spaces [3]\n"
        "- again [1]\n"
        "\n## Sources\n\n"
        "[1] s (`d1`)\n"
        "[2] s (`d2`)\n"
        "[3] learning (`l1`)\n"
    )
    front = (
        "---\ngenerated_at: 2025-05-06T07:08:09Z\nengine: scripted\ntokens: {}\n"
        "refs: [d1, d2, l1]\n---\n"
    )
    tokens = math.ceil(len(front.format(99) + body) / 4)
    assert doc.markdown == front.format(tokens) + body
    assert doc.tokens == tokens == estimate_tokens(doc.markdown)
    assert doc.refs == ("d1", "d2", "l1")
    assert doc.engine == "scripted"
    assert doc.generated_at == datetime(2025, 5, 6, 7, 8, 9, 999999, tzinfo=UTC)


def timezone_plus_2():
    from datetime import timezone

    return timezone(timedelta(hours=2))


def test_estimate_tokens_counts_characters_not_bytes():
    assert [estimate_tokens(text) for text in ("", "a", "abcd", "abcde", "🙂🙂🙂🙂🙂")] == [
        0,
        1,
        1,
        2,
        2,
    ]


def test_the_reported_tokens_settle_to_a_fixed_point():
    # A body whose frontmatter count moves from two digits to three.
    for size in range(300, 420):
        md, tokens, _ = _render([_Section("A", "x" * size, ("i",))], [], 10**6, "e", AT)
        assert re.search(r"^tokens: (\d+)$", md, re.M).group(1) == str(tokens)
        assert tokens == estimate_tokens(md)


# --- trimming -------------------------------------------------------------------------------------


def test_learnings_are_trimmed_first_from_the_end():
    briefs = [_Section("A", "x" * 100, ("a",))]
    learnings = [_Line(f"l{n}", f"learning number {n}") for n in range(10)]
    _, full_tokens, _ = _render(briefs, learnings, 10**6, "e", AT)
    md, tokens, refs = _render(briefs, learnings, full_tokens - 10, "e", AT)
    assert tokens <= full_tokens - 10
    assert "x" * 100 + "\n" in md  # the brief is untouched
    kept = re.findall(r"^- learning number (\d+) \[\d+\]$", md, re.M)
    assert kept == [str(n) for n in range(len(kept))]
    assert 0 < len(kept) < 10
    assert refs == ("a", *(f"l{n}" for n in range(len(kept))))


def test_the_last_brief_is_shortened_with_the_ellipsis_allowance_quirk():
    # N tokens over the budget is 4N characters, plus the ellipsis' 3 bytes used as a
    # char count: 5 over keeps 200 - 23 = 177 characters, 35 over keeps 200 - 143 = 57.
    briefs = [_Section("A", "x" * 200, ("id1",))]
    _, full, _ = _render(briefs, [], 10**6, "eng", AT)
    md, tokens, _ = _render(briefs, [], full - 5, "eng", AT)
    assert "\n" + "x" * 177 + "…\n" in md
    assert tokens <= full - 5
    md, tokens, _ = _render(briefs, [], full - 35, "eng", AT)
    assert "\n" + "x" * 57 + "…\n" in md
    assert tokens <= full - 35


def test_earlier_briefs_keep_their_text_and_too_short_a_brief_is_dropped():
    briefs = [_Section("A", "a" * 100, ("1",)), _Section("B", "b" * 100, ("2",))]
    _, full, _ = _render(briefs, [], 10**6, "e", AT)
    # Over by 6: B keeps 100 - (24 + 3) = 73 characters.
    md, tokens, refs = _render(briefs, [], full - 6, "e", AT)
    assert "\n" + "a" * 100 + "\n" in md
    assert "\n" + "b" * 73 + "…\n" in md
    assert tokens <= full - 6
    assert refs == ("1", "2")
    # Over by 16: B would keep 100 - (64 + 3) = 33 < 40 characters, so it goes.
    md, tokens, refs = _render(briefs, [], full - 16, "e", AT)
    assert "\n" + "a" * 100 + "\n" in md
    assert "## B" not in md
    assert refs == ("1",)


def test_everything_trimmed_is_an_empty_document():
    assert _render([_Section("A", "a" * 100, ("1",))], [_Line("l", "x")], 10, "e", AT) == (
        "",
        0,
        (),
    )


@pytest.mark.parametrize(
    ("text", "keep", "shortened"),
    [
        ("aaaa bbbb cccc", 12, "aaaa bbbb…"),  # the last space is past half: cut back to it
        ("aaaaaaaaaaa bb", 14, "aaaaaaaaaaa…"),  # cut back even when all of it is kept
        ("aa bbbbbbbbbbbbbbb", 18, "aa bbbbbbbbbbbbbbb…"),  # space before half: kept whole
        ("aaaa   \n\t   bbbbbbbbbbb", 12, "aaaa…"),  # cut back, then trimmed at the end
        # Measured in bytes: the space is at char 10 of 26 but byte 20 of 36.
        ("é" * 10 + " " + "a" * 15, 26, "é" * 10 + "…"),
        ("e" * 10 + " " + "a" * 15, 26, "e" * 10 + " " + "a" * 15 + "…"),
        # Rust whitespace, not Python's: U+001F is no break, U+3000 is.
        ("aaaaaaa\x1fbbb", 11, "aaaaaaa\x1fbbb…"),
        ("aaaaaaa\u3000bbb", 11, "aaaaaaa…"),
    ],
)
def test_shortening(text, keep, shortened):
    assert _shorten(text, keep) == shortened


def test_learning_lines_collapse_rust_whitespace_only():
    md, _, _ = _render([], [_Line("l", " a\u3000\u3000b\x1fc \n d ")], 10**6, "e", AT)
    assert "\n- a b\x1fc d [1]\n" in md


# --- the budget always holds ------------------------------------------------------------


@st.composite
def engines(draw: st.DrawFn) -> ReferenceEngine:
    engine = ReferenceEngine()
    for item in draw(st.lists(tms.store_items(), max_size=8)):
        engine.store(item)
    for text in draw(st.lists(tms.texts(60), max_size=6)):
        engine.store(Learning(text=f"user {text}", meta=MemoryMeta(observed_at=AT)))
    return engine


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    engine=engines(),
    share=st.floats(0.0, 1.2),
    learnings_limit=st.integers(0, 30),
    reach=st.none() | tms.reaches(2),
)
def test_the_document_never_exceeds_its_budget(engine, share, learnings_limit, reach):
    spec = ContextSpec(budget_tokens=10**9, learnings_limit=learnings_limit, reach=reach)
    full = PINNED.compile(engine, spec)
    # Budgets around the untrimmed size, where trimming has work to do.
    budget = max(1, round(full.tokens * share))
    doc = PINNED.compile(engine, attrs.evolve(spec, budget_tokens=budget))
    assert doc.tokens <= budget
    assert doc.tokens == estimate_tokens(doc.markdown)
    visible = engine.list(ListRequest(limit=1000, filter=MetaFilter(reach=reach))).items
    assert set(doc.refs) <= set(full.refs) <= {hit.id for hit in visible}
    if doc.markdown:
        assert doc.markdown.startswith(
            "---\ngenerated_at: 2025-05-06T07:08:09Z\nengine: reference\n"
        )
        assert f"\ntokens: {doc.tokens}\n" in doc.markdown
        headings = re.findall(r"^## (.+)$", doc.markdown, re.M)
        full_headings = re.findall(r"^## (.+)$", full.markdown, re.M)
        assert headings[-1] == full_headings[-1] == "Sources"  # the list of sources ends it
        # Trimmed from the end (before the sources), order kept.
        assert headings[:-1] == full_headings[: len(headings) - 1]
        listed = re.findall(r"^\[(\d+)\] ", doc.markdown.split("\n## Sources\n")[1], re.M)
        assert listed == [str(n) for n in range(1, len(doc.refs) + 1)]  # one per ref, in order
    else:
        assert (doc.tokens, doc.refs) == (0, ())
    if budget >= full.tokens:
        assert doc == full


# --- entry points and docs ------------------------------------------------------------------------


def test_compile_stamps_the_current_time():
    before = datetime.now(UTC).replace(microsecond=0)
    engine = ReferenceEngine()
    engine.store(Learning(text="The user likes tea"))
    doc = compile_context(engine)
    assert before <= doc.generated_at <= datetime.now(UTC)
    assert tm.compile_context is compile_context
    assert tm.ContextSpec is ContextSpec
    stamp = re.search(r"^generated_at: (\S+)$", doc.markdown, re.M).group(1)
    assert stamp == doc.generated_at.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_a_reach_confines_the_whole_document():
    engine = ReferenceEngine()
    engine.store(Learning(text="user mine", meta=MemoryMeta(namespace="agent:a")))
    engine.store(Learning(text="user theirs", meta=MemoryMeta(namespace="agent:b")))
    doc = PINNED.compile(engine, ContextSpec(reach=Reach.of(Namespace.parse("agent:a"))))
    assert "mine" in doc.markdown
    assert "theirs" not in doc.markdown


def test_spec_is_a_frozen_value():
    spec = ContextSpec()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        spec.budget_tokens = 3  # type: ignore[misc]


class AnswersExtractively(EngineWrapper):
    """The reference engine answering as the sqlite and postgres engines do: extractively."""

    def __init__(self) -> None:
        super().__init__(ReferenceEngine())

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        page = self.fetch(
            FetchRequest(query=request.question, filter=request.filter, limit=request.limit)
        )
        return extractive_answer(request.question, page.hits)


def test_a_brief_never_quotes_the_docs_that_list_its_own_question():
    # With the project's docs stored, "About the user" once quoted context.md's table
    # row listing that very question, as if it were a fact about the user.
    engine = AnswersExtractively()
    docs = Path(__file__).resolve().parent.parent / "docs" / "context.md"
    engine.store(tm.Document(title="context.md", body=docs.read_text(encoding="utf-8")))
    fact = "The user is Ada; her role is staff engineer and she likes to work in short updates."
    engine.store(tm.Learning(text=fact))
    doc = PINNED.compile(engine, ContextSpec(learnings_limit=0))
    about = doc.markdown.split("## About the user\n\n")[1].split("\n\n## ")[0]
    assert about.strip() == f"{fact} [1]"
    for brief in DEFAULT_BRIEFS:
        assert brief.question not in doc.markdown


def test_over_general_documentation_no_item_is_quoted_twice_and_every_marker_has_a_source():
    engine = AnswersExtractively()
    for page in sorted((Path(__file__).resolve().parent.parent / "docs").glob("*.md")):
        engine.store(tm.Document(title=page.name, body=page.read_text(encoding="utf-8")))
    engine.store(tm.Learning(text="The user is Ada, a staff engineer who likes short updates."))
    doc = PINNED.compile(engine, ContextSpec(budget_tokens=10**6))
    body, sources = doc.markdown.split("\n## Sources\n\n")
    listed = re.findall(r"^\[(\d+)\] .*\(`([0-9a-f]{8})`\)$", sources, re.M)
    assert [int(n) for n, _ in listed] == list(range(1, len(doc.refs) + 1))
    assert [short for _, short in listed] == [ref[:8] for ref in doc.refs]
    briefs = re.split(r"^## ", body, flags=re.M)[1:]
    quoted: list[int] = []
    for brief in briefs:
        markers = {int(n) for n in re.findall(r"\[(\d+)\]", brief)}
        assert markers <= set(range(1, len(doc.refs) + 1))  # each points into the list
        if not brief.startswith("Learnings"):
            assert not markers & set(quoted), brief  # no item under two briefs
            quoted.extend(markers)


# --- relevance: each quote under the one brief whose recall bars it passes closest ----------

JUDGED = ContextCompiler(AT, embedder=tm.retrieval.HashingEmbedder())
#: About the user, by the hashing embedder's bars too (it shares "user", "role", "work").
ROLE = "The user's role is staff engineer; she likes to work in short updates."
#: A background sentence is, by construction, no closer to a question than the closest
#: background sentence: it never passes the bar, whatever the embedder.
UNRELATED = BACKGROUND_SENTENCES[3]
#: "About the user" answered with the role, then the unrelated sentence.
ROLE_AND_UNRELATED = {QUESTIONS[0]: answer(f"- {ROLE} [1]\n- {UNRELATED} [2]", "a", "b")}


def test_a_quote_no_closer_than_an_unrelated_background_sentence_is_left_out():
    engine = ScriptedEngine(ROLE_AND_UNRELATED)
    doc = JUDGED.compile(engine, ContextSpec(learnings_limit=0))
    assert f"## About the user\n\n- {ROLE} [1]\n" in doc.markdown
    assert UNRELATED not in doc.markdown
    assert doc.refs == ("a",)
    # Unjudged (an engine with no embedder of its own, none given), both are kept.
    assert UNRELATED in PINNED.compile(engine, ContextSpec(learnings_limit=0)).markdown


def test_a_quote_goes_under_the_brief_it_is_closest_to_whatever_the_order():
    preference = "The user's standing instructions: preferences for tabs over spaces."
    engine = ScriptedEngine(
        {
            QUESTIONS[0]: answer(f"{preference} [1] {ROLE} [2]", "p", "a"),
            QUESTIONS[2]: answer(f"{preference} [1]", "p"),
        }
    )
    doc = JUDGED.compile(engine, ContextSpec(learnings_limit=0))
    about = doc.markdown.split("## About the user\n\n")[1].split("\n\n## ")[0]
    assert about == f"{ROLE} [1]"
    assert f"## Preferences and standing instructions\n\n{preference} [2]\n" in doc.markdown


def test_an_unmarked_answer_is_kept_only_when_every_citation_belongs_to_the_brief():
    unrelated = BACKGROUND_SENTENCES[0]
    fact = ROLE
    cited = [
        Citation(id=i, kind=ItemKind.LEARNING, snippet=text, meta=MemoryMeta())
        for i, text in (("a", fact), ("b", unrelated))
    ]
    spec = ContextSpec(briefs=DEFAULT_BRIEFS[:1], learnings_limit=0)
    both = RecallAnswer(answer=f"From 2 stored items: {fact} | {unrelated}", citations=cited)
    assert JUDGED.compile(ScriptedEngine({QUESTIONS[0]: both}), spec).markdown == ""
    alone = RecallAnswer(answer=f"From 1 stored item: {fact}", citations=cited[:1])
    doc = JUDGED.compile(ScriptedEngine({QUESTIONS[0]: alone}), spec)
    assert f"## About the user\n\nFrom 1 stored item: {fact}\n" in doc.markdown


class HasEmbedder(ScriptedEngine):
    """An engine recalling with an embedder of its own, as the sqlite and postgres ones do."""

    embedder = tm.retrieval.HashingEmbedder()


def test_the_engines_own_embedder_judges_through_a_wrapper():
    doc = PINNED.compile(
        EngineWrapper(HasEmbedder(ROLE_AND_UNRELATED)), ContextSpec(learnings_limit=0)
    )
    assert f"{ROLE} [1]" in doc.markdown
    assert UNRELATED not in doc.markdown


# --- briefs about the user: only the user's own items, each quote said once --------------

ABOUT_ME = (
    "# About me\n\nI am Ada, tech lead.\nMy projects: the parser.\nStanding instruction: cite."
)


def test_a_document_is_the_users_when_most_of_its_statements_are_in_the_first_person():
    from tinymemory._context import _first_person

    assert _first_person(ABOUT_ME)  # the heading names it; 2 of 3 statements speak as "I"
    assert _first_person("I like tea. I work mornings. Cite sources.")
    manual = "Install it with pip. The user's role is read from the config. I/O is buffered."
    assert not _first_person(manual)  # one "I" of three statements
    assert not _first_person("# Me\n\nThe user prefers tabs. Tabs are wide.")
    assert not _first_person("")


def document(item_id: str, text: str) -> Citation:
    return Citation(id=item_id, kind=ItemKind.DOCUMENT, snippet=text, meta=MemoryMeta())


class HoldsDocuments(ScriptedEngine):
    """Scripted answers, and documents ``get`` reads whole."""

    def __init__(self, answers: dict[str, RecallAnswer], documents: dict[str, str]) -> None:
        super().__init__(answers)
        self.documents = documents

    def handle_get(self, request: tm.GetRequest) -> list[Hit]:
        return [
            Hit(id=i, kind=ItemKind.DOCUMENT, text=self.documents[i], meta=MemoryMeta())
            for i in request.ids
            if i in self.documents
        ]


def test_a_brief_about_the_user_quotes_a_document_only_when_it_is_the_users():
    manual = "The user's role is read from the config file. It is cached."
    cited = [document("note", ABOUT_ME), document("manual", manual)]
    reply = RecallAnswer(
        answer="- I am Ada, tech lead. [1]\n- The user's role is read from the config. [2]",
        citations=cited,
    )
    engine = HoldsDocuments({QUESTIONS[0]: reply}, {"note": ABOUT_ME, "manual": manual})
    doc = PINNED.compile(engine, ContextSpec(learnings_limit=0))
    assert "## About the user\n\n- I am Ada, tech lead. [1]\n\n## Sources" in doc.markdown
    assert doc.refs == ("note",)
    # A brief of one's own (about_user=False) quotes whatever its recall cites.
    own = Brief(heading="Config", question=QUESTIONS[0])
    doc = PINNED.compile(engine, ContextSpec(briefs=[own], learnings_limit=0))
    assert "The user's role is read from the config. [2]" in doc.markdown
    assert engine.recalls[-1].filter.kinds == ()  # one recall, the brief's own filter


def test_a_brief_about_the_user_recalls_learnings_and_documents_apart_within_its_kinds():
    engine = ScriptedEngine()
    PINNED.compile(engine, ContextSpec(briefs=DEFAULT_BRIEFS[:1], learnings_limit=0))
    assert [request.filter.kinds for request in engine.recalls] == [
        (ItemKind.LEARNING, ItemKind.CONVERSATION),
        (ItemKind.DOCUMENT,),
    ]
    only = attrs.evolve(DEFAULT_BRIEFS[0], filter=MetaFilter(kinds=[ItemKind.DOCUMENT]))
    engine = ScriptedEngine()
    PINNED.compile(engine, ContextSpec(briefs=[only], learnings_limit=0))
    assert [request.filter.kinds for request in engine.recalls] == [(ItemKind.DOCUMENT,)]


def test_one_item_may_be_cited_under_two_briefs_but_no_quote_is_said_twice():
    identity, projects = "I am Ada, tech lead.", "My projects: the parser."
    cited = [document("note", ABOUT_ME)]
    engine = HoldsDocuments(
        {
            QUESTIONS[0]: RecallAnswer(answer=f"{identity} [1]", citations=cited),
            QUESTIONS[1]: RecallAnswer(answer=f"{identity} [1] {projects} [1]", citations=cited),
        },
        {"note": ABOUT_ME},
    )
    doc = PINNED.compile(engine, ContextSpec(learnings_limit=0))
    assert f"## About the user\n\n{identity} [1]\n" in doc.markdown
    assert f"## Active work\n\n{projects} [1]\n" in doc.markdown
    assert doc.markdown.count(identity) == 1
    assert doc.refs == ("note",)


def test_the_sources_list_names_files_from_the_folder_holding_them_all():
    def cited(item_id: str, path: str) -> Citation:
        return Citation(
            id=item_id, kind=ItemKind.LEARNING, snippet="s", meta=MemoryMeta(file_path=path)
        )

    reply = RecallAnswer(
        answer="- a [1]\n- b [2]",
        citations=[cited("a" * 40, "/home/ada/notes/me.md"), cited("b" * 40, "/home/ada/w/x.md")],
    )
    doc = PINNED.compile(ScriptedEngine({QUESTIONS[0]: reply}), ContextSpec(learnings_limit=0))
    assert "[1] notes/me.md (`aaaaaaaa`)\n[2] w/x.md (`bbbbbbbb`)\n" in doc.markdown
    alone = RecallAnswer(answer="- a [1]", citations=[cited("a" * 40, "/home/ada/notes/me.md")])
    doc = PINNED.compile(ScriptedEngine({QUESTIONS[0]: alone}), ContextSpec(learnings_limit=0))
    assert doc.markdown.endswith("[1] me.md (`aaaaaaaa`)\n")
