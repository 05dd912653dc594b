"""Form checks for one labelled recall split; nothing is ranked, fetched or recalled.

    python benchmarks/recall_sets/validate_set.py benchmarks/recall_sets/blind

The split folder holds ``corpus.json`` and ``questions.json`` in the schema that
``benchmarks/recall_splits.py`` reads. The files are written with that module's
own ``build`` into a temporary folder and read back through ``tinymemory.convert``
(the installed document converters), so every check sees the text recall would
store. Checked:

- both files load, every corpus entry has the fields of its format, every
  question has the fields of its kind and names a file of the corpus;
- an answerable question's fact (and a decoy question's decoy) appears verbatim
  in its file's text, and at least one sentence holds the fact without the
  decoy (``right`` could never be met otherwise);
- a ``reworded`` question shares no content word with any sentence holding its
  fact (lowercased, stop words dropped, plural/-ing/-ed endings cut; a stem that
  begins another of five letters or more counts as shared);
- an ``unanswerable`` question carries no file or fact and no single sentence
  holds all its content words; the closest sentence is printed so a reader can
  confirm the answer is absent. One that shares no content word with the corpus
  is off its topics (not a neighbour): a warning, not a form error.

Prints a summary and exits 1 on any form error.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

import tinymemory as tm

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from recall_splits import KINDS, build  # type: ignore[import-not-found]

FIELDS = {
    "docx": {"format", "blocks"},
    "xlsx": {"format", "sheet", "rows"},
    "pptx": {"format", "slides"},
    "pdf": {"format", "lines"},
    "html": {"format", "text"},
    "text": {"format", "text"},
}
STOP_TEXT = """
a about above after again all also am an and any are as at be been before being below
between both but by can could did do does doing down during each else ever every few for
from further had has have having he her here hers him his how i if in into is it its
itself just least less long many may me might more most much must my no nor not now of
off on once one only or other our ours out over own same shall she should so some
someone something such than that the their theirs them then there these they this those
through to too under until up upon us very was we were what when where whether which
while who whom whose why will with within would yet you your yours
"""
STOP_WORDS = frozenset(STOP_TEXT.split())
SHARED_PREFIX = 5
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
ABBREVIATION = re.compile(r"(?:^|\s)[A-Z][a-z]?\.$")


def stem(word: str) -> str:
    """``word`` without a simple plural, -ing or -ed ending, nor a final e."""
    for ending, replacement in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            word = word[: -len(ending)] + replacement
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def content_words(text: str) -> set[str]:
    """The stems of ``text``'s words that are not stop words."""
    return {stem(w) for w in re.findall(r"[a-z0-9]+", text.casefold()) if w not in STOP_WORDS}


def shared(question: set[str], sentence: set[str]) -> set[str]:
    """The question's stems that the sentence holds, or that begin one of its stems."""
    found = set()
    for q in question:
        for s in sentence:
            short, longer = sorted((q, s), key=len)
            if q == s or (len(short) >= SHARED_PREFIX and longer.startswith(short)):
                found.add(q)
    return found


def sentences(text: str) -> list[str]:
    """``text`` cut into lines, then sentences (not after a short abbreviation)."""
    out: list[str] = []
    for line in text.splitlines():
        pieces: list[str] = []
        for piece in SENTENCE_END.split(line.strip()):
            if pieces and ABBREVIATION.search(pieces[-1]):
                pieces[-1] += " " + piece
            else:
                pieces.append(piece)
        out.extend(p for p in pieces if p)
    return out


def check_corpus(corpus: object) -> list[str]:
    """Form errors of the corpus JSON."""
    if not isinstance(corpus, dict) or not corpus:
        return ["corpus.json: not a non-empty object of file name to spec"]
    errors = []
    for name, spec in corpus.items():
        form = spec.get("format") if isinstance(spec, dict) else None
        if form not in FIELDS:
            errors.append(f"corpus {name}: unknown format {form!r}")
        elif set(spec) != FIELDS[form]:
            errors.append(f"corpus {name}: fields {sorted(spec)}, expected {sorted(FIELDS[form])}")
    return errors


def check_question(number: int, question: object, corpus: dict[str, object]) -> list[str]:
    """Form errors of one question's fields."""
    where = f"question {number}"
    if not isinstance(question, dict) or not isinstance(question.get("text"), str):
        return [f"{where}: not an object with a text"]
    kind = question.get("kind")
    if kind not in KINDS:
        return [f"{where}: kind {kind!r} not one of {KINDS}"]
    if kind == "unanswerable":
        expected = {"text", "kind"}
    elif kind == "decoy":
        expected = {"text", "file", "fact", "decoy", "kind"}
    else:
        expected = {"text", "file", "fact", "kind"}
    if set(question) != expected:
        return [f"{where} ({kind}): fields {sorted(question)}, expected {sorted(expected)}"]
    if kind != "unanswerable" and question["file"] not in corpus:
        return [f"{where}: file {question['file']!r} is not in corpus.json"]
    return []


def read_back(split: Path) -> dict[str, str]:
    """Each corpus file's text as the installed converters read it."""
    texts = {}
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work)
        build(str(split.resolve()), folder)
        for path in sorted(folder.iterdir()):
            texts[path.name] = tm.convert(path).body.text or ""
    return texts


def main(split: Path) -> int:
    """Check ``split``; print the findings and a summary; 1 on a form error."""
    try:
        corpus = json.loads((split / "corpus.json").read_text("utf-8"))
        questions = json.loads((split / "questions.json").read_text("utf-8"))
    except (OSError, ValueError) as error:
        print(f"error: {error}")
        return 1
    errors = check_corpus(corpus)
    if not isinstance(questions, list):
        errors.append("questions.json: not a list")
    else:
        for number, question in enumerate(questions, start=1):
            errors += check_question(number, question, corpus)
    if errors:
        print("\n".join(f"error: {e}" for e in errors))
        return 1
    texts = read_back(split)
    by_file = {name: sentences(text) for name, text in texts.items()}
    corpus_words = content_words(" ".join(texts.values()))
    notes: list[str] = []
    warnings: list[str] = []
    for number, question in enumerate(questions, start=1):
        kind, asked = question["kind"], content_words(question["text"])
        where = f"q{number} {kind}"
        if kind == "unanswerable":
            if not asked & corpus_words:
                warnings.append(f"{where}: shares no content word with the corpus (off topic)")
                continue
            best = max(
                ((len(asked & content_words(s)), n, s) for n, ss in by_file.items() for s in ss),
                key=lambda row: row[0],
            )
            if best[0] == len(asked):
                errors.append(f"{where}: {best[1]} holds all its words, may answer it: {best[2]!r}")
            notes.append(f"{where}: {question['text']!r}; closest {best[1]}: {best[2]!r}")
            continue
        fact, decoy, text = question["fact"], question.get("decoy", ""), texts[question["file"]]
        if fact not in text:
            errors.append(f"{where}: fact {fact!r} not verbatim in {question['file']}")
            continue
        if decoy and decoy not in text:
            errors.append(f"{where}: decoy {decoy!r} not verbatim in {question['file']}")
        holding = [s for s in by_file[question["file"]] if fact in s]
        if not holding:
            errors.append(f"{where}: fact {fact!r} crosses a line in {question['file']}")
            continue
        if decoy and all(decoy.casefold() in s.casefold() for s in holding):
            errors.append(f"{where}: every sentence with the fact also holds the decoy")
        elsewhere = sorted(n for n, t in texts.items() if n != question["file"] and fact in t)
        if elsewhere:
            notes.append(f"{where}: fact {fact!r} also appears in {', '.join(elsewhere)}")
        if kind == "reworded":
            common = set().union(*(shared(asked, content_words(s)) for s in holding))
            if common:
                errors.append(f"{where}: shares {sorted(common)} with {holding}")
            else:
                notes.append(f"{where}: no shared content word; {question['text']!r} / {holding}")
    unused = sorted(set(corpus) - {q.get("file") for q in questions})
    counts = Counter(q["kind"] for q in questions)
    formats = Counter(spec["format"] for spec in corpus.values())
    print("\n".join(notes))
    print(f"split: {split}")
    print(f"files: {len(corpus)} ({', '.join(f'{k} {v}' for k, v in sorted(formats.items()))})")
    print(f"files no question names: {', '.join(unused) or 'none'}")
    print(f"questions: {len(questions)} ({', '.join(f'{k} {counts[k]}' for k in KINDS)})")
    print("\n".join(f"warning: {w}" for w in warnings) or "warnings: none")
    print("\n".join(f"error: {e}" for e in errors) or "form: ok")
    return 1 if errors else 0


if __name__ == "__main__":
    if len(sys.argv) != 2 or not Path(sys.argv[1]).is_dir():
        sys.exit("usage: validate_set.py SPLIT_FOLDER (e.g. benchmarks/recall_sets/blind)")
    sys.exit(main(Path(sys.argv[1])))
