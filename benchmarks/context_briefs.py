"""How relevant context.md's briefs are over a memory of general documentation.

The memory: every markdown page under this repository's ``docs/`` (general
documentation; ``docs/examples/notes/about-me.md`` is the one page about a
user) plus one split's learnings about the user, in a throwaway SQLite engine.
For each split (``dev`` was looked at while building the briefs' bars,
``heldout`` is only scored) and embedder (``hashing``; the installed default,
the static model when ``tinymemory-minilm-static`` is installed), it prints,
counted over the default briefs' quotes (a quote: text up to its ``[n]``
markers): quotes from a user source (a learning or about-me.md), quotes from
any other page (documentation: not about the user), the briefs shown, and the
user's learnings quoted somewhere out of those stored. Then, per brief, how
many sentences of the documentation pass that brief's bars (recall's bars
for an answering sentence, the ones the briefs use) and how many of the
split's learnings do: what any bar from the embedder's background can tell
(the briefs about the user quote documentation only when it is written in the
first person, docs/context.md; the last line names the pages that are).

    python benchmarks/context_briefs.py [--split dev|heldout]
"""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime
from pathlib import Path

import tinymemory as tm
from tinymemory._context import _first_person
from tinymemory.plugin import default_embedder
from tinymemory.retrieval import HashingEmbedder, background, embedding_matrix
from tinymemory_sqlite import SqliteEngine

DOCS = Path(__file__).resolve().parent.parent / "docs"
USER_PAGE = "about-me.md"
SPLITS = {
    "dev": (
        ("The user is Ada Lovelace, a staff engineer on the payments team.", "fact"),
        ("The user prefers answers in British English, with code before prose.", "preference"),
        (
            "The user is currently migrating the billing service to Rust, in the acme/billing "
            "repository.",
            "fact",
        ),
    ),
    "heldout": (
        ("The user is Bruno Silva, a data scientist in the Lisbon office.", "fact"),
        ("The user prefers metric units and ISO dates in every answer.", "preference"),
        ("The user is building a churn model in the analytics/churn repository.", "fact"),
        ("Standing instruction from the user: never book meetings before ten.", "preference"),
    ),
}
QUOTE = re.compile(r"(.*?)((?:\[\d+\]\s*)+)")
#: A sentence of the documentation: up to a stop and a space, or a blank line.
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")


def score(embedder: tm.plugin.Embedder, facts: tuple[tuple[str, str], ...]) -> str:
    engine = SqliteEngine(":memory:", embedder=embedder)
    pages = sorted(DOCS.rglob("*.md"))
    receipts = engine.store_many(
        [tm.Document(title=page.name, body=page.read_text(encoding="utf-8")) for page in pages]
    )
    about = {
        receipt.id for page, receipt in zip(pages, receipts, strict=True) if page.name == USER_PAGE
    }
    learned = {
        receipt.id
        for receipt in engine.store_many(
            [tm.Learning(text=text, kind=kind) for text, kind in facts]
        )
    }
    compiler = tm.ContextCompiler(generated_at=datetime(2025, 5, 6, tzinfo=UTC))
    doc = compiler.compile(engine, tm.ContextSpec(budget_tokens=10**6, learnings_limit=0))
    engine.close()
    body = doc.markdown.split("\n## Sources\n\n")[0]
    user = other = 0
    quoted: set[str] = set()
    shown = []
    for section in re.split(r"^## ", body, flags=re.M)[1:]:
        heading, text = section.split("\n", 1)
        shown.append(heading.split()[0])
        for _, marks in QUOTE.findall(text.replace("\n", " ")):
            ids = {doc.refs[int(n) - 1] for n in re.findall(r"\d+", marks)}
            quoted |= ids
            if ids <= learned | about:
                user += 1
            else:
                other += 1
    return (
        f"user quotes {user:>2}, documentation quotes {other:>2}, "
        f"learnings quoted {len(quoted & learned)}/{len(learned)}, briefs: {', '.join(shown)}"
    )


def passing(embedder: tm.plugin.Embedder, facts: tuple[tuple[str, str], ...]) -> str:
    """Per brief: documentation sentences past its bars / all, the split's learnings too."""
    sentences = [
        sentence.strip()
        for page in sorted(DOCS.rglob("*.md"))
        for sentence in SENTENCE_END.split(page.read_text(encoding="utf-8"))
        if len(sentence.strip()) > 20
    ]
    known = background(embedder)
    rows = []
    for brief in tm.ContextSpec().briefs:
        question = embedding_matrix(embedder, [brief.question])[0]
        counts = []
        for texts in (sentences, [text for text, _ in facts]):
            vectors = embedding_matrix(embedder, texts)
            similarity = vectors @ question
            past = (similarity > known.question_bar(question)) & (
                similarity > known.sentence_bars(vectors)
            )
            counts.append(f"{int(past.sum())}/{len(texts)}")
        rows.append(f"{brief.heading.split()[0]} docs {counts[0]} learnings {counts[1]}")
    return "; ".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--split", choices=[*SPLITS, "all"], default="all")
    chosen = parser.parse_args().split
    embedders = {"hashing": HashingEmbedder(), "default": default_embedder()}
    for split, facts in SPLITS.items():
        if chosen not in ("all", split):
            continue
        for name, embedder in embedders.items():
            label = name if name == "hashing" else f"default ({embedder.name})"
            print(f"{split:<8} {label:<24} {score(embedder, facts)}")
            print(f"{'':<8} {'':<24} past the bars: {passing(embedder, facts)}")
    pages = sorted(DOCS.rglob("*.md"))
    own = [page.name for page in pages if _first_person(page.read_text(encoding="utf-8"))]
    print(f"pages in the first person: {len(own)}/{len(pages)} ({', '.join(own)})")


if __name__ == "__main__":
    main()
