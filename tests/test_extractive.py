"""The extractive recall answer."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory._extractive import (
    CODE_WORDS,
    MAX_SENTENCE_CHARS,
    MIN_COVERAGE,
    MIN_SHARE_OF_BEST,
    NOTHING_RELEVANT,
    TABLE_WORDS,
    Extract,
    asks_for_code,
    asks_for_table,
    extract_answer,
    extractive_answer,
    restates,
    sentences,
    stem,
)
from tinymemory._words import STOP_WORDS, fold

MARKER = re.compile(r"\[(\d+)\]")


def cited(text: str) -> list[int]:
    return [int(number) for number in MARKER.findall(text)]


def test_citations_are_numbered_in_order_of_first_use() -> None:
    passages = [
        "The office plant needs water on Mondays.",
        "Releases ship on Friday. The release checklist lives in the wiki.",
        "The user prefers tabs over spaces.",
    ]
    extract = extract_answer("When do releases ship, and what about tabs?", passages)
    assert extract == Extract(
        text="Releases ship on Friday. [1] The user prefers tabs over spaces. [2]",
        sources=(1, 2),
        snippets=("Releases ship on Friday.", "The user prefers tabs over spaces."),
    )


def test_every_cited_passage_has_its_snippet() -> None:
    passages = [
        "Alpha ships first. Nothing else here.",
        "Beta ships second.",
        "Gamma ships third. Gamma ships again.",
    ]
    extract = extract_answer("ships", passages)
    assert len(extract.sources) == len(extract.snippets) == 3
    for source, snippet in zip(extract.sources, extract.snippets, strict=True):
        for sentence in sentences(snippet):
            assert sentence in sentences(passages[source])
    assert extract.snippets[extract.sources.index(2)] == "Gamma ships third. Gamma ships again."


def test_the_answer_is_deterministic_across_processes() -> None:
    # Ties between words of equal rarity must not depend on set order (hash seed).
    script = (
        "from tinymemory._extractive import extract_answer;"
        "print(extract_answer('red green blue cyan magenta', ["
        "'Red and green. Blue and cyan.', 'Magenta and red. Green and blue.',"
        "'Cyan and magenta. Blue green red.']))"
    )
    outputs = set()
    for seed in ("1", "2", "3"):
        environment = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env=environment,
            check=True,
        )
        outputs.add(done.stdout)
    assert len(outputs) == 1
    first = extract_answer("red green blue", ["Red green blue. Blue green red."])
    assert first == extract_answer("red green blue", ["Red green blue. Blue green red."])


def test_no_shared_word_answers_nothing() -> None:
    passages = ["# Notes\n\nFirst thing. Second thing.", "Other passage."]
    extract = extract_answer("What about quantum chromodynamics?", passages)
    assert extract == Extract(text="", sources=(), snippets=())


def test_a_heading_is_never_quoted_even_when_it_matches() -> None:
    passages = ["# Budget\n\nThe travel budget is 1,200 EUR per trip.", "## Budget ##"]
    extract = extract_answer("What is the budget?", passages)
    assert extract == Extract(
        text="The travel budget is 1,200 EUR per trip. [1]",
        sources=(0,),
        snippets=("The travel budget is 1,200 EUR per trip.",),
    )
    assert extract_answer("budget", ["# Budget", "> ## Budget"]).text == ""


# The context briefs' questions over a small memory: before, all three briefs quoted
# both learnings, since each question holds `user` and nothing else was required.
BRIEF_PASSAGES = [
    "The user prefers tabs over spaces.",
    "The user works on the billing service in the acme workspace.",
]


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("Who is the user: their identity, their role, and how they like to work?", (1,)),
        ("What are the user's current projects, workspaces and repositories?", (1,)),
        ("What preferences and standing instructions has the user given?", (0,)),
        ("What important events happened recently?", ()),
    ],
)
def test_a_sentence_sharing_one_common_word_does_not_answer(
    question: str, quoted: tuple[int, ...]
) -> None:
    assert extract_answer(question, BRIEF_PASSAGES).sources == quoted


def test_coverage_is_measured_against_the_whole_question() -> None:
    # Three content words, one held: a third of the weight, just past MIN_COVERAGE.
    assert extract_answer("kiwi mango lychee", ["We had kiwi."]).sources == (0,)
    # Four: a quarter, short of it, whatever else the pool holds.
    assert extract_answer("kiwi mango lychee papaya", ["We had kiwi."]).sources == ()
    assert MIN_COVERAGE == 0.3


@pytest.mark.parametrize(
    ("forms", "stemmed"),
    [
        (("prefer", "prefers", "preference", "preferences", "preferred"), "prefer"),
        (("release", "releases", "released"), "releas"),
        (("ship", "ships", "shipping", "shipped"), "ship"),
        (("instruction", "instructions", "instructed"), "instruct"),
        (("identity", "identities"), "identity"),
        (("class", "classes"), "class"),
        (("user", "users"), "user"),
        (("use", "uses"), "use"),
        (("thing", "things"), "thing"),
    ],
)
def test_inflections_compare_equal(forms: tuple[str, ...], stemmed: str) -> None:
    assert {stem(form) for form in forms} == {stemmed}


def test_a_preference_question_finds_what_the_user_prefers() -> None:
    extract = extract_answer("Which preferences?", ["The user prefers vim."])
    assert extract.text == "The user prefers vim. [1]"


def test_passages_without_any_word_give_an_empty_answer() -> None:
    assert extract_answer("anything", ["", "--- !!!"]) == Extract(text="", sources=(), snippets=())


def test_stop_words_are_ignored() -> None:
    passages = [
        "What is it that you do with all of this?",
        "The deploy key is stored in the vault.",
    ]
    extract = extract_answer("What is the deploy key for this?", passages)
    assert extract.text == "The deploy key is stored in the vault. [1]"
    assert extract.sources == (1,)
    # Only stop words: nothing to match, so nothing answers.
    assert extract_answer("what is this?", passages).sources == ()


def test_stop_words_are_folded_common_english_words() -> None:
    assert 100 <= len(STOP_WORDS) <= 160
    assert {"the", "a", "is", "what", "of", "and", "s", "t"} <= STOP_WORDS
    assert all(fold(word) == word and word.isalpha() for word in STOP_WORDS)


def test_rarer_words_weigh_more() -> None:
    passages = [
        "The project uses Python. The project has tests. The project is old.",
        "Kubernetes runs the cluster.",
    ]
    extract = extract_answer("project kubernetes", passages, max_sentences=1)
    assert extract.text == "Kubernetes runs the cluster. [1]"


def test_a_better_ranked_passage_wins_a_tie() -> None:
    passages = ["Lunch is at noon.", "Lunch is at one."]
    assert extract_answer("lunch", passages, max_sentences=1).sources == (0,)
    assert extract_answer("lunch", passages).sources == (0, 1)


def test_more_shared_words_beat_the_rank_bonus() -> None:
    passages = ["Lunch is at noon.", "Team lunch is at one in the canteen."]
    extract = extract_answer("team lunch canteen", passages, max_sentences=1)
    assert extract.sources == (1,)


def test_a_trailing_s_is_ignored_when_matching() -> None:
    extract = extract_answer("Which editor does the user prefer?", ["Tabs. The user prefers vim."])
    assert extract.text == "The user prefers vim. [1]"


def test_duplicate_sentences_are_taken_once() -> None:
    passages = ["The build uses Bazel.", "Note: the build uses bazel!", "The build uses Bazel."]
    extract = extract_answer("build bazel", passages)
    assert extract.text == "The build uses Bazel. [1] Note: the build uses bazel! [2]"
    assert extract.sources == (0, 1)


def test_at_most_max_sentences() -> None:
    passage = " ".join(f"Cats nap in spot {number}." for number in range(10))
    assert len(cited(extract_answer("cats", [passage]).text)) == 4
    assert len(cited(extract_answer("cats", [passage], max_sentences=2).text)) == 2


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="at least one passage"):
        extract_answer("question", [])
    with pytest.raises(ValueError, match="max_sentences"):
        extract_answer("question", ["text"], max_sentences=0)


def test_a_long_sentence_is_cut_at_a_word_boundary() -> None:
    words = [f"word{number}" for number in range(200)]
    passage = " ".join(words) + ". Short one."
    (long, short) = sentences(passage)
    assert short == "Short one."
    assert len(long) <= MAX_SENTENCE_CHARS
    assert long.endswith("…")
    assert long[:-1].split(" ") == words[: len(long[:-1].split(" "))]
    extract = extract_answer("word0", [passage])
    assert extract.text == f"{long} [1]"


def test_one_endless_word_is_cut_inside() -> None:
    (cut,) = sentences("x" * 1000)
    assert cut == "x" * (MAX_SENTENCE_CHARS - 1) + "…"


def test_sentence_splitting() -> None:
    passage = (
        "## Release plan ##\n"
        "- Ship on Friday!  Then rest.\n"
        "* Ask Dr. Smith, e.g. by mail? Yes.\n"
        "> 1. Quoted item (see [3]).\n"
        "1) Numbered\titem\n"
        "\n"
        "---\n"
        'He said "done." Next line\n'
        ">= 3 replicas\n"
        "Version 1.5 is out.\n"
        "#hashtag stays"
    )
    assert sentences(passage) == [
        "Ship on Friday!",
        "Then rest.",
        "Ask Dr. Smith, e.g. by mail?",
        "Yes.",
        "Quoted item (see ).",
        "Numbered item",
        'He said "done."',
        # A hard-wrapped paragraph is one line again before it is cut.
        "Next line >= 3 replicas Version 1.5 is out.",
        "#hashtag stays",
    ]


def test_markers_in_passages_never_pose_as_citations() -> None:
    extract = extract_answer("moon landing", ["The moon landing [12] was in 1969 [[1]2]."])
    assert extract.text == "The moon landing was in 1969 . [1]"


def test_diacritics_and_case_are_folded_when_matching() -> None:
    extract = extract_answer("CAFÉ opening hours", ["Nothing. The cafe opens at eight."])
    assert extract.text == "The cafe opens at eight. [1]"


passage_text = st.lists(
    st.one_of(
        st.sampled_from(
            ["alpha", "beta", "the", "of", "[1]", "[2]", "#", "-", ".", "!", "?", "\n", " ", "é"]
        ),
        st.text(max_size=8),
    ),
    max_size=30,
).map(" ".join)


@settings(max_examples=300, deadline=None)
@given(
    question=passage_text,
    passages=st.lists(passage_text, min_size=1, max_size=5),
    max_sentences=st.integers(min_value=1, max_value=5),
)
def test_every_marker_has_a_source_and_every_source_is_cited(
    question: str, passages: list[str], max_sentences: int
) -> None:
    extract = extract_answer(question, passages, max_sentences=max_sentences)
    numbers = cited(extract.text)
    # Every [n] has a source, every source is cited, and numbers appear in first-use order.
    assert set(numbers) == set(range(1, len(extract.sources) + 1))
    assert list(dict.fromkeys(numbers)) == list(range(1, len(extract.sources) + 1))
    assert len(set(extract.sources)) == len(extract.sources)
    assert all(0 <= source < len(passages) for source in extract.sources)
    assert len(extract.snippets) == len(extract.sources)
    assert all(extract.snippets)
    assert len(numbers) <= max_sentences
    assert not extract.text or extract.text.endswith("]")
    assert extract == extract_answer(question, passages, max_sentences=max_sentences)


def test_the_recall_answer_cites_each_quoted_hit_with_its_sentences() -> None:
    import tinymemory as tm

    meta = tm.MemoryMeta(file_path="/notes/budget.md")
    hits = [
        tm.Hit(id="a" * 40, kind="learning", text="The user prefers tabs.", meta=tm.MemoryMeta()),
        tm.Hit(
            id="b" * 40,
            kind="document",
            text="# Budget\n\nThe travel budget is 1,200 EUR. Hotels are near.",
            meta=meta,
            score=0.5,
        ),
    ]
    answer = extractive_answer("What is the travel budget?", hits)
    assert answer.answer == "The travel budget is 1,200 EUR. [1]"
    assert answer.model == "extractive"
    (citation,) = answer.citations
    assert (citation.id, citation.kind, citation.snippet) == (
        "b" * 40,
        tm.ItemKind.DOCUMENT,
        "The travel budget is 1,200 EUR.",
    )
    assert (citation.meta, citation.score) == (meta, 0.5)
    # Hits, but nothing bearing on the question; and no hits at all.
    for given_hits in (hits, []):
        nothing = extractive_answer("When is the launch?", given_hits)
        assert (nothing.answer, nothing.citations) == (NOTHING_RELEVANT, ())


def test_a_sentence_holding_only_the_commoner_part_is_left_out() -> None:
    passages = [
        "The travel budget is 1,200 EUR per trip.",
        "Each team books its own travel.",
        "Travel by train under 500 km.",
        "The offsite is in Lisbon.",
    ]
    # `travel` is held by three sentences, `budget` by one: the decoys score well
    # under half of the sentence holding both, though each covers enough alone.
    extract = extract_answer("What is the travel budget?", passages)
    assert extract.text == "The travel budget is 1,200 EUR per trip. [1]"
    assert extract_answer("travel", passages).sources == (0, 1, 2)
    assert MIN_SHARE_OF_BEST == 0.5


# --- markdown, code, tables and restated questions ---------------------------------------

INCIDENT = """# Incident report: payments API outage

## Root cause

The root cause was an expired TLS certificate on the card
gateway. Card charges failed for two hours, from 09:10 to
11:10 UTC.

## Follow-up

- Renew certificates automatically, thirty days before they
  expire.
- Page the on-call engineer when a certificate has less than
  a week left.
"""


def test_the_incident_report_answers_in_whole_sentences_without_headings() -> None:
    extract = extract_answer("What was the root cause of the payments outage?", [INCIDENT])
    assert extract.text == (
        "The root cause was an expired TLS certificate on the card gateway. [1]"
    )
    follow_up = extract_answer("When are certificates renewed?", [INCIDENT])
    assert follow_up.text == (
        "Renew certificates automatically, thirty days before they expire. [1]"
    )


BUDGET_DOC = """# Travel policy

The travel budget is 1,200 EUR per trip, flights and hotel included.

Expense reports are filed in the tool like this:

```json
{"trip": "Lisbon", "budget": "2,000 EUR"}
```

    budget = "2,000 EUR"  # an indented example
"""


def test_a_documents_prose_is_preferred_over_its_code_examples() -> None:
    extract = extract_answer("What is the travel budget?", [BUDGET_DOC])
    assert extract.text == (
        "The travel budget is 1,200 EUR per trip, flights and hotel included. [1]"
    )
    assert "2,000" not in extract_answer("budget", [BUDGET_DOC]).text


@pytest.mark.parametrize(
    "question",
    [
        "Which code sets the budget?",
        "Show the budget snippet",
        "What does `budget` hold?",
        "What is the budget variable in the example?",
    ],
)
def test_code_is_quoted_when_the_question_asks_for_code(question: str) -> None:
    assert asks_for_code(question)
    assert "2,000 EUR" in extract_answer(question, [BUDGET_DOC]).text


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What does retry_delay default to?", True),
        ("How is tm.recall called?", True),
        ("What does build() return?", True),
        ("What does --json print?", True),
        ("What is the travel budget?", False),
        ("Who runs the payments team?", False),
        ("When did the outage start, and why?", False),
    ],
)
def test_what_asks_for_code(question: str, asks: bool) -> None:
    assert asks_for_code(question) is asks


def test_code_and_table_words_are_folded_words() -> None:
    for vocabulary in (CODE_WORDS, TABLE_WORDS):
        assert all(fold(word) == word and word.isalpha() for word in vocabulary)
    assert asks_for_table("Which column holds the price?")
    assert not asks_for_table("What is the price of the Pro plan?")


def source_hits(text: str, path: str, language: str) -> list[tm.Hit]:
    """One hit of a source file's ``text``, as the folder reader stores it."""
    meta = tm.MemoryMeta(file_path=path, language=language)
    return [tm.Hit(id="c" * 40, kind="document", text=text, meta=meta)]


def test_a_source_file_gives_its_values_and_its_code_only_when_code_is_asked_for() -> None:
    import tinymemory as tm

    source = "RETRY_DELAY = 2.5  # seconds between retries\n\ndef retry(call):\n    pass\n"
    hits = source_hits(source, "src/retry.py", "python")
    # A value set in code answers what the value is; the code around it does not.
    assert extractive_answer("How long between retries?", hits).answer == (
        "RETRY_DELAY = 2.5  # seconds between retries [1]"
    )
    assert "def retry" in extractive_answer("Which function retries a call?", hits).answer
    answer = extractive_answer("Which constant sets the delay between retries?", hits)
    assert answer.answer == "RETRY_DELAY = 2.5  # seconds between retries [1]"
    # A markdown file (the folder reader names its language) is prose, not code.
    doc = "# Retries\n\nThe client waits 2.5 seconds between retries."
    markdown = [
        attrs.evolve(hits[0], text=doc, meta=tm.MemoryMeta(file_path="r.md", language="markdown"))
    ]
    assert extractive_answer("How long between retries?", markdown).answer == (
        "The client waits 2.5 seconds between retries. [1]"
    )


PRICES = """## Plans

| Plan | Price | Seats |
| --- | ---: | ---: |
| Free | 0 EUR | 1 |
| Pro | 49 EUR | 5 |
| Team | 199 EUR | 25 |
"""


def test_a_table_row_answers_a_question_naming_its_column_and_row() -> None:
    extract = extract_answer("What is the price of the Pro plan?", [PRICES])
    assert extract.text == "Pro | 49 EUR | 5 [1]"
    assert extract_answer("How many seats does the Team plan have?", [PRICES]).text == (
        "Team | 199 EUR | 25 [1]"
    )
    # Naming the row but no column: not a table question, so no row is quoted.
    assert extract_answer("Tell me about Pro", [PRICES]).text == ""
    # Asking for the table quotes rows matching the question.
    assert extract_answer("Which table row lists Pro?", [PRICES]).text == "Pro | 49 EUR | 5 [1]"


CONTEXT_DOCS = """The defaults:

| heading | question |
| --- | --- |
| About the user | Who is the user: their identity, their role, and how they like to work? |
| Active work | What are the user's current projects, workspaces and repositories? |
"""


def test_a_row_or_sentence_restating_the_question_is_no_answer() -> None:
    question = "Who is the user: their identity, their role, and how they like to work?"
    echo = "- About the user: who is the user, their identity, their role, how they like to work?"
    assert extract_answer(question, [CONTEXT_DOCS, echo]).text == ""
    fact = "Ada's role is staff engineer; she likes to work in short async updates."
    assert extract_answer(question, [CONTEXT_DOCS, fact]).text == f"{fact} [1]"


@pytest.mark.parametrize(
    ("sentence", "question", "restated"),
    [
        ("What is the travel budget?", "What is the travel budget?", True),
        ("Travel budget: see below?", "What is the travel budget?", True),
        ("The travel budget is 1,200 EUR.", "What is the travel budget?", False),
        ("We had kiwi.", "kiwi mango lychee", False),
        ("Kiwi?", "kiwi mango lychee", False),
        ("What is the budget for hotels and flights in Lisbon?", "What is the budget?", False),
        # A statement of the question's words answers a yes-or-no question.
        ("The user prefers tabs.", "Does the user prefer tabs?", False),
    ],
)
def test_restates(sentence: str, question: str, restated: bool) -> None:
    assert restates(sentence, question) is restated


def test_sentences_of_other_scripts_are_cut_at_their_own_marks() -> None:
    assert sentences("東京は晴れ。予算は千二百ユーロです。") == [
        "東京は晴れ。",
        "予算は千二百ユーロです。",
    ]
    assert sentences("यह बजट है। होटल पास है।") == ["यह बजट है।", "होटल पास है।"]
    greek = "Ο προϋπολογισμός είναι 1.200 ευρώ. Το ξενοδοχείο είναι κοντά."  # noqa: RUF001
    assert sentences(greek) == [greek[:34], greek[35:]]
    assert sentences("Mr. J. R. Smith met Dr. Jones. He agreed.") == [
        "Mr. J. R. Smith met Dr. Jones.",
        "He agreed.",
    ]


# --- the answer over drawn markdown documents ---------------------------------------------

from test_text_blocks import ALL_WORDS, Drawn, documents  # noqa: E402

from tinymemory._text_blocks import BlockKind  # noqa: E402

QUOTE = re.compile(r" \[\d+\](?: |$)")


@settings(max_examples=100, deadline=None)
@given(
    docs=st.lists(documents(), min_size=1, max_size=3),
    question=st.lists(st.sampled_from(ALL_WORDS), min_size=1, max_size=4).map(" ".join),
)
def test_every_quote_is_a_whole_prose_sentence_or_a_named_table_row(
    docs: list[Drawn], question: str
) -> None:
    extract = extract_answer(question, [doc.markdown for doc in docs])
    quoted = [part for part in QUOTE.split(extract.text) if part]
    prose = {
        sentence
        for doc in docs
        for kind, text in doc.blocks
        if kind is BlockKind.PROSE
        for sentence in sentences(text)
    }
    rows = {text for doc in docs for kind, text in doc.blocks if kind is BlockKind.TABLE_ROW}
    code = {text for doc in docs for kind, text in doc.blocks if kind is BlockKind.CODE}
    assert not asks_for_code(question)
    for part in quoted:
        # Whole sentences of the unwrapped source, or table rows; never a heading
        # alone, never a code line (no code was asked for).
        assert part in prose or part in rows
        assert part not in code or part in prose
        assert not restates(part, question)


PDF_TEXT = """Postmortem: search cluster outage
On 9 June the search cluster stopped answering for 40 minutes.
A full disk on the primary node halted indexing.
Release notes
Version 4.2 requires PostgreSQL 15 or newer."""


@pytest.mark.parametrize(
    ("text", "question", "quoted"),
    [
        (PDF_TEXT, "How long did the search cluster stop answering?",
         "On 9 June the search cluster stopped answering for 40 minutes."),
        (PDF_TEXT, "Which PostgreSQL version does 4.2 require?",
         "Version 4.2 requires PostgreSQL 15 or newer."),
        ("# Mileage\n\nCars are refunded 0.30 EUR per km.", "What is the mileage refund for cars?",
         "Cars are refunded 0.30 EUR per km."),
        ("Opening hours\nThe library opens at 8:00 on weekdays.", "When does the library open?",
         "The library opens at 8:00 on weekdays."),
    ],
)  # fmt: skip
def test_a_heading_is_never_quoted_inside_a_sentence(text: str, question: str, quoted: str) -> None:
    """A title on a line of its own (PDF text, a plain note) is a heading, as markdown's is."""
    assert extract_answer(question, [text]).text == f"{quoted} [1]"


def test_a_hard_wrapped_line_is_not_a_title() -> None:
    wrapped = "The library on the second floor opens from\nMonday to Friday at 8:00."
    assert sentences(wrapped) == [
        "The library on the second floor opens from Monday to Friday at 8:00."
    ]


CONFIG = """[server]
port = 8443
workers = 6

backup:
  retention_days: 45
"""


@pytest.mark.parametrize(
    ("question", "quoted"),
    [
        ("Which port does the server listen on?", "port = 8443"),
        ("How many days are backups kept?", "retention_days: 45"),
    ],
)
def test_a_value_set_in_configuration_answers_what_it_is(question: str, quoted: str) -> None:
    """A key names the value with its section or parent key (``[server]``, ``backup:``)."""
    hits = source_hits(CONFIG, "conf/settings.toml", "toml")
    assert extractive_answer(question, hits).answer == f"{quoted} [1]"
