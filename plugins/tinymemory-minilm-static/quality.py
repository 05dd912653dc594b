"""Print how close static models come to the transformer they were distilled from.

Labelled notes, each with questions reworded so they share no content word
with their note (the script checks it), are split in two: a ``dev`` half the
recipe was chosen on and a ``held-out`` half that is only scored. For every
model (the transformer through sentence-transformers, then each model2vec
folder given) it prints, per half: how often the note a question is about
ranks first among all notes (top-1), the mean reciprocal rank, and how far
the model's question-note similarities agree with the transformer's
(Spearman's rho over every pair). Also the folder's size and load time.

    python plugins/tinymemory-minilm-static/quality.py [MODEL_FOLDER ...]

With no folder it scores the shipped model. Needs what ``distil.py`` needs.
"""

from __future__ import annotations

import argparse
import re
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from distil import SHIPPED, bundled_minilm

Matrix = npt.NDArray[np.float64]

#: note -> (its text, questions sharing no content word with it); split in halves below.
NOTES: dict[str, tuple[str, tuple[str, ...]]] = {
    "incident": (
        "The TLS certificate of the payments gateway expired at 09:12 UTC, so every "
        "checkout request was rejected until it was renewed.",
        ("why did customers' card charges fail?", "what made buyers' purchases break?"),
    ),
    "travel": (
        "The travel budget is 1,200 EUR per trip, flights and hotel included.",
        ("how much money may I spend on a journey?", "what allowance covers airfare?"),
    ),
    "offsite": (
        "The team offsite is in Lisbon in the second week of May.",
        ("where will colleagues gather in spring?",),
    ),
    "style": (
        "The user prefers tabs over spaces for indentation.",
        ("what whitespace layout does the person like?",),
    ),
    "lunch": (
        "Friday lunch is pizza; a vegetarian menu is on request.",
        ("what food is served at the end of the workweek?",),
    ),
    "backup": (
        "Database snapshots are copied to cold storage every night and kept ninety days.",
        (
            "how long are archives of our records retained?",
            "how often are our records duplicated for safekeeping?",
        ),
    ),
    "leave": (
        "Employees receive twenty-five paid vacation days a year.",
        ("how much holiday time do staff get?",),
    ),
    "deploy": (
        "Releases ship to production on Tuesdays after the staging checks pass.",
        ("which weekday do new versions go live?",),
    ),
    "parking": (
        "Visitors park in the garage on level minus two; the gate code is at reception.",
        ("where should guests leave their cars?",),
    ),
    "license": (
        "The library is distributed under the Apache 2.0 licence.",
        ("what terms govern reuse of this software?", "which copyright permission applies?"),
    ),
    "onboarding": (
        "New hires meet their mentor on the first morning and get a laptop from IT.",
        ("what happens when someone joins the company?",),
    ),
    "expenses": (
        "Receipts must be submitted within thirty days to be reimbursed.",
        ("how soon must proof of purchase reach accounting for a refund?",),
    ),
    "security": (
        "Passwords expire after ninety days and must contain twelve characters.",
        ("how often must login secrets be changed?",),
    ),
    "kitchen": (
        "The coffee machine on the third floor is descaled every Monday.",
        ("when is the espresso maker cleaned?",),
    ),
    "printer": (
        "Colour printing needs a badge swipe at the device before the job starts.",
        ("how do I get a document out of the copier?",),
    ),
    "support": (
        "Customer tickets are answered within four business hours.",
        ("how quickly do clients hear back after they ask for help?",),
    ),
}
#: The notes the recipe was chosen on; the others are the held-out half, only scored.
DEV = ("incident", "travel", "offsite", "style", "lunch", "backup", "leave", "deploy")
STOP = frozenset(
    {
        *("a", "an", "the", "is", "are", "be", "of", "to", "in", "on", "at", "for", "and"),
        *("or", "so", "our", "my", "i", "we", "do", "does", "did", "how", "what", "when"),
        *("where", "which", "who", "why", "may", "must", "get", "this", "that", "their"),
        *("there", "it", "its", "by", "from", "with", "after", "before", "until", "every"),
        *("each", "any", "much", "many", "long", "soon", "often", "quickly", "back", "up"),
    }
)


def content(text: str) -> set[str]:
    """Its content words, each cut to four letters (a light stem)."""
    return {word[:4] for word in re.findall(r"[a-z0-9]+", text.lower()) if word not in STOP}


def check_labels() -> None:
    """Every question shares no content word with its note."""
    for name, (text, questions) in NOTES.items():
        for question in questions:
            shared = content(question) & content(text)
            if shared:
                raise SystemExit(f"{name}: {question!r} shares {sorted(shared)} with its note")


def normalised(matrix: Matrix) -> Matrix:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def similarities(embed: Callable[[list[str]], Matrix]) -> tuple[Matrix, list[str]]:
    """Every question against every note (rows: questions), and each question's note."""
    names = list(NOTES)
    notes = normalised(embed([NOTES[name][0] for name in names]))
    asked = [(name, q) for name in names for q in NOTES[name][1]]
    questions = normalised(embed([q for _, q in asked]))
    return questions @ notes.T, [name for name, _ in asked]


def ranks(scores: Matrix, about: Sequence[str]) -> list[int]:
    """The rank (1 = first) of each question's own note."""
    names = list(NOTES)
    return [
        int((row > row[names.index(note)]).sum()) + 1
        for row, note in zip(scores, about, strict=True)
    ]


def spearman(left: Matrix, right: Matrix) -> float:
    def order(values: Matrix) -> Matrix:
        return np.argsort(np.argsort(values.ravel())).astype(np.float64)

    return float(np.corrcoef(order(left), order(right))[0, 1])


def report(label: str, scores: Matrix, about: list[str], reference: Matrix, extra: str) -> None:
    for half, keep in (("dev", True), ("held-out", False)):
        rows = [index for index, note in enumerate(about) if (note in DEV) is keep]
        found = ranks(scores[rows], [about[index] for index in rows])
        top1 = sum(rank == 1 for rank in found)
        mrr = sum(1 / rank for rank in found) / len(found)
        rho = spearman(scores[rows], reference[rows])
        print(
            f"{label:<28} {half:<9} top-1 {top1:>2}/{len(found):<2} MRR {mrr:.2f}  "
            f"rho vs transformer {rho:.2f}  {extra}"
        )


def static_vectors(model: Any, texts: list[str]) -> Matrix:
    return np.asarray(model.encode(texts, use_multiprocessing=False), np.float64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[SHIPPED])
    args = parser.parse_args()
    check_labels()
    from model2vec import StaticModel
    from sentence_transformers import SentenceTransformer

    transformer = SentenceTransformer(str(bundled_minilm()), device="cpu")
    reference, about = similarities(lambda texts: transformer.encode(texts).astype(np.float64))
    report("all-MiniLM-L6-v2", reference, about, reference, "")
    for folder in args.folders:
        started = time.perf_counter()
        model = StaticModel.from_pretrained(str(folder))
        loaded = time.perf_counter() - started
        size = sum(path.stat().st_size for path in folder.iterdir() if path.is_file())
        scores, _ = similarities(partial(static_vectors, model))
        extra = f"{size / 1e6:.1f} MB, loads in {loaded * 1000:.0f} ms"
        report(folder.name, scores, about, reference, extra)


if __name__ == "__main__":
    main()
