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
    python benchmarks/context_briefs.py --folder /usr/share/doc [--files 2000]

With ``--folder``, the memory is a fixed sample of that folder's text files
(gzip opened) and about-me.md instead of ``docs/``: documentation nobody here
wrote, a check from outside.
"""

from __future__ import annotations

import argparse
import gzip
import random
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


def docs_pages() -> list[tuple[str, str]]:
    """Every page of ``docs/``: its name and text."""
    return [(page.name, page.read_text(encoding="utf-8")) for page in sorted(DOCS.rglob("*.md"))]


def folder_pages(folder: Path, most: int) -> list[tuple[str, str]]:
    """A fixed sample of ``most`` UTF-8 text files under ``folder`` (gzip opened), and
    about-me.md: a memory of documentation nobody here wrote."""
    found = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.is_symlink():
            continue
        try:
            raw = path.read_bytes()
            text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
        except (OSError, ValueError, EOFError):
            continue
        if text.strip() and "\x00" not in text and len(text) <= 200_000:
            found.append((path.name, text))
    random.Random(46).shuffle(found)
    about = DOCS / "examples" / "notes" / USER_PAGE
    return [*found[:most], (USER_PAGE, about.read_text(encoding="utf-8"))]


def score(
    embedder: tm.plugin.Embedder, facts: tuple[tuple[str, str], ...], pages: list[tuple[str, str]]
) -> str:
    engine = SqliteEngine(":memory:", embedder=embedder)
    documents = [tm.Document(title=name, body=text) for name, text in pages]
    receipts = [
        receipt
        for start in range(0, len(documents), tm.MAX_STORE_MANY)
        for receipt in engine.store_many(documents[start : start + tm.MAX_STORE_MANY])
    ]
    about = {
        receipt.id for (name, _), receipt in zip(pages, receipts, strict=True) if name == USER_PAGE
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
    parser.add_argument(
        "--folder",
        type=Path,
        help="a folder of documentation nobody here wrote (say /usr/share/doc) instead of docs/",
    )
    parser.add_argument("--files", type=int, default=2000, help="files sampled from --folder")
    arguments = parser.parse_args()
    pages = (
        docs_pages()
        if arguments.folder is None
        else folder_pages(arguments.folder, arguments.files)
    )
    embedders = {"hashing": HashingEmbedder(), "default": default_embedder()}
    for split, facts in SPLITS.items():
        if arguments.split not in ("all", split):
            continue
        for name, embedder in embedders.items():
            label = name if name == "hashing" else f"default ({embedder.name})"
            print(f"{split:<8} {label:<24} {score(embedder, facts, pages)}")
            if arguments.folder is None:
                print(f"{'':<8} {'':<24} past the bars: {passing(embedder, facts)}")
    own = [name for name, text in pages if _first_person(text)]
    print(f"pages in the first person: {len(own)}/{len(pages)} ({', '.join(own)})")


if __name__ == "__main__":
    main()
