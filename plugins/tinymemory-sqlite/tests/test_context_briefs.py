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


@pytest.fixture(scope="module", params=["hashing", "default"])
def general_memory(request: pytest.FixtureRequest) -> Iterator[SqliteEngine]:
    embedder = HashingEmbedder() if request.param == "hashing" else default_embedder()
    engine = SqliteEngine(":memory:", embedder=embedder)
    pages = sorted(DOCS.rglob("*.md"))
    engine.store_many(
        [tm.Document(title=page.name, body=page.read_text(encoding="utf-8")) for page in pages]
    )
    engine.store_many(list(FACTS))
    yield engine
    engine.close()


def quotes(brief: str) -> list[tuple[str, set[int]]]:
    """A brief's quotes: each text with the source numbers its markers name."""
    found = re.findall(r"(.*?)((?:\[\d+\]\s*)+)", brief.replace("\n", " "))
    return [(text.strip(), {int(n) for n in re.findall(r"\d+", marks)}) for text, marks in found]


def test_every_quote_passes_its_briefs_bar_and_no_other(general_memory: SqliteEngine) -> None:
    doc = PINNED.compile(general_memory, tm.ContextSpec(budget_tokens=10**6, learnings_limit=0))
    embedder = general_memory.embedder
    known = background(embedder)
    headings = [brief.heading for brief in BRIEFS]
    questions = embedding_matrix(embedder, [brief.question for brief in BRIEFS])
    bars = [known.question_bar(row) for row in questions]
    body = doc.markdown.split("\n## Sources\n\n")[0]
    seen: set[int] = set()
    for section in re.split(r"^## ", body, flags=re.M)[1:]:
        heading, text = section.split("\n", 1)
        place = headings.index(heading)
        for quote, numbers in quotes(text):
            vector = embedding_matrix(embedder, [quote])[0]
            similarities = (questions @ vector).tolist()
            hub = float(known.sentence_bars(vector[None, :])[0])
            passing = [
                other
                for other, value in enumerate(similarities)
                if value > bars[other] and value > hub
            ]
            assert place in passing, (heading, quote)  # relevant: past recall's bars
            assert max(passing, key=lambda other: similarities[other]) == place, (heading, quote)
            assert not numbers & seen, (heading, quote)  # no item under two briefs
            seen |= numbers


def test_a_doc_sentence_nearer_another_brief_is_not_quoted_as_active_work() -> None:
    # Fixed case, hashing: recall for "Active work" cites a legacy-import sentence (it
    # holds "current") beside the fact about current work; the sentence lies nearer
    # another brief's question, so only the fact is quoted there.
    engine = SqliteEngine(":memory:", embedder=HashingEmbedder())
    legacy = DOCS / "legacy-import.md"
    engine.store(tm.Document(title=legacy.name, body=legacy.read_text(encoding="utf-8")))
    engine.store(FACTS[2])
    doc = PINNED.compile(engine, tm.ContextSpec(learnings_limit=0))
    active = doc.markdown.split("## Active work\n\n")[1].split("\n\n## ")[0]
    assert re.fullmatch(re.escape(FACTS[2].text) + r" \[\d+\]", active)
    assert "Optional columns" not in doc.markdown
    engine.close()
