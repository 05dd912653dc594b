"""context.md's briefs over a memory of general documentation, on this engine."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.plugin import default_embedder
from tinymemory.retrieval import HashingEmbedder, background, embedding_matrix
from tinymemory_sqlite import SqliteEngine

DOCS = Path(__file__).resolve().parents[3] / "docs"
#: The one page of the docs written by a user about themself.
ABOUT_ME = DOCS / "examples" / "notes" / "about-me.md"
FACTS = (
    tm.Learning(text="The user is Ada, a staff engineer on the payments team.", kind="fact"),
    tm.Learning(
        text="The user prefers answers in British English, with code before prose.",
        kind="preference",
    ),
    tm.Learning(
        text="The user is currently migrating the billing service to Rust, in the acme/billing "
        "repository.",
        kind="fact",
    ),
)
BRIEFS = tm.ContextSpec().briefs
PINNED = tm.ContextCompiler(generated_at=datetime(2025, 5, 6, tzinfo=UTC))
WHOLE = tm.ContextSpec(budget_tokens=10**6, learnings_limit=0)


@pytest.fixture(scope="module", params=["hashing", "default"])
def general_memory(request: pytest.FixtureRequest) -> Iterator[tuple[SqliteEngine, set[str]]]:
    """The docs (general documentation, and about-me.md) and the facts; the user's ids."""
    embedder = HashingEmbedder() if request.param == "hashing" else default_embedder()
    engine = SqliteEngine(":memory:", embedder=embedder)
    pages = sorted(DOCS.rglob("*.md"))
    receipts = engine.store_many(
        [tm.Document(title=page.name, body=page.read_text(encoding="utf-8")) for page in pages]
    )
    users = {r.id for page, r in zip(pages, receipts, strict=True) if page == ABOUT_ME}
    users |= {receipt.id for receipt in engine.store_many(list(FACTS))}
    yield engine, users
    engine.close()


def briefs(doc: tm.ContextDoc) -> list[tuple[str, list[tuple[str, set[int]]]]]:
    """Each brief's heading and quotes: each text with the source numbers its markers name."""
    body = doc.markdown.split("\n## Sources\n\n")[0]
    found = []
    for section in re.split(r"^## ", body, flags=re.M)[1:]:
        heading, text = section.split("\n", 1)
        quotes = re.findall(r"(.*?)((?:\[\d+\]\s*)+)", text.replace("\n", " "))
        found.append(
            (
                heading,
                [(q.strip(), {int(n) for n in re.findall(r"\d+", m)}) for q, m in quotes],
            )
        )
    return found


def test_over_general_documentation_the_briefs_quote_only_the_user(
    general_memory: tuple[SqliteEngine, set[str]],
) -> None:
    engine, users = general_memory
    doc = PINNED.compile(engine, WHOLE)
    sources = doc.markdown.split("\n## Sources\n\n")[1]
    assert [int(n) for n in re.findall(r"^\[(\d+)\] ", sources, re.M)] == list(
        range(1, len(doc.refs) + 1)
    )
    said: set[str] = set()
    quotes = [quote for _, quoted in briefs(doc) for quote in quoted]
    assert quotes  # the user's items are there to be quoted, and some are
    for text, numbers in quotes:
        assert numbers <= set(range(1, len(doc.refs) + 1))  # each marker has a source
        assert {doc.refs[n - 1] for n in numbers} <= users, text  # no documentation
        assert text not in said, text  # no quote said twice
        said.add(text)


def test_every_quote_passes_its_briefs_bars_and_is_closest_to_it(
    general_memory: tuple[SqliteEngine, set[str]],
) -> None:
    engine, _ = general_memory
    doc = PINNED.compile(engine, WHOLE)
    embedder = engine.embedder
    known = background(embedder)
    headings = [brief.heading for brief in BRIEFS]
    questions = embedding_matrix(embedder, [brief.question for brief in BRIEFS])
    bars = [known.question_bar(row) for row in questions]
    for heading, quoted in briefs(doc):
        place = headings.index(heading)
        for quote, _ in quoted:
            vector = embedding_matrix(embedder, [quote])[0]
            similarities = (questions @ vector).tolist()
            hub = float(known.sentence_bars(vector[None, :])[0])
            passing = [
                other
                for other, value in enumerate(similarities)
                if value > bars[other] and value > hub
            ]
            assert place in passing, (heading, quote)
            assert max(passing, key=lambda other: similarities[other]) == place, (heading, quote)


def test_a_page_of_documentation_about_users_is_not_quoted_a_note_about_yourself_is() -> None:
    # context.md's page holds the briefs' own questions and example facts about "the
    # user" (third person, in documentation); about-me.md speaks in the first person.
    engine = SqliteEngine(":memory:", embedder=default_embedder())
    page = DOCS / "context.md"
    engine.store(tm.Document(title=page.name, body=page.read_text(encoding="utf-8")))
    engine.store(tm.Document(title="About me", body=ABOUT_ME.read_text(encoding="utf-8")))
    doc = PINNED.compile(engine, WHOLE)
    engine.close()
    assert "The user prefers tabs over spaces" not in doc.markdown
    for brief in BRIEFS:
        assert brief.question not in doc.markdown
    quoted = [quote for _, quotes in briefs(doc) for quote, _ in quotes]
    assert len(quoted) >= 2, doc.markdown  # the note, under more than one brief
    assert all(quote in ABOUT_ME.read_text(encoding="utf-8") for quote in quoted)
