"""Print how fast, and how completely, the documents plugin converts office files.

Generates four files (a 50-page PDF, a 200-paragraph DOCX, a 50-slide PPTX,
a 5-sheet x 2,000-row XLSX), then converts each in one run with:

- this plugin (``tinymemory.convert``),
- markitdown, when it is installed (it never is a dependency),
- the bare library's own text extraction (the floor): pypdf
  ``extract_text``, python-docx paragraphs and cells, python-pptx text
  frames and notes, openpyxl read-only rows.

For each it prints the median wall time of ``--runs`` runs and the share of
the source's words found in the output (words counted with repeats, so an
output that drops a repeated word loses it). Targets: faster than markitdown
with no lower word share, and within 2x of the floor.

Run it in a venv of its own, so markitdown stays out of every other one::

    python3 -m venv /tmp/convert-bench
    /tmp/convert-bench/bin/pip install -e . -e "plugins/tinymemory-documents[office]" \\
        "markitdown[pdf,docx,pptx,xlsx]"
    /tmp/convert-bench/bin/python benchmarks/convert_bench.py [--runs 3]
"""

from __future__ import annotations

import argparse
import collections
import datetime
import io
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import tinymemory as tm

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plugins/tinymemory-documents/tests"))
from fixture_files import text_pdf  # the tests' own PDF writer

_WORDS = re.compile(r"\w+")
VOCABULARY = [
    *("river", "hill", "road", "stone", "field", "market", "harbour", "winter", "summer"),
    *("garden", "lantern", "signal", "engine", "ledger", "orbit", "copper", "meadow"),
    *("canyon", "thunder", "willow"),
]


def _sentence(seed: int, length: int = 9) -> str:
    return " ".join(VOCABULARY[(seed * 7 + step * 3) % len(VOCABULARY)] for step in range(length))


def build_pdf() -> tuple[bytes, str]:
    pages = [
        [f"{page}.{line} {_sentence(page + line)}" for line in range(45)] for page in range(50)
    ]
    return text_pdf(pages), "\n".join(line for page in pages for line in page)


def build_docx() -> tuple[bytes, str]:
    import docx

    document = docx.Document()
    words: list[str] = []
    for index in range(200):
        if index % 20 == 0:
            heading = f"Section {index // 20}"
            document.add_heading(heading, level=1)
            words.append(heading)
        text = f"{index} {_sentence(index, 14)}"
        document.add_paragraph(text)
        words.append(text)
    table = document.add_table(rows=20, cols=4)
    for row_index, row in enumerate(table.rows):
        for column, cell in enumerate(row.cells):
            cell.text = f"r{row_index}c{column} {VOCABULARY[(row_index + column) % 20]}"
            words.append(cell.text)
    return _saved(document), "\n".join(words)


def build_pptx() -> tuple[bytes, str]:
    import pptx

    presentation = pptx.Presentation()
    words: list[str] = []
    for number in range(50):
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = f"Slide topic {number}"
        body = slide.placeholders[1].text_frame
        bullets = [f"{number}.{item} {_sentence(number + item, 6)}" for item in range(6)]
        body.text = bullets[0]
        for bullet in bullets[1:]:
            body.add_paragraph().text = bullet
        notes = f"notes {number} {_sentence(number, 10)}"
        slide.notes_slide.notes_text_frame.text = notes
        words += [slide.shapes.title.text, *bullets, notes]
    return _saved(presentation), "\n".join(words)


def build_xlsx() -> tuple[bytes, str]:
    import openpyxl

    workbook = openpyxl.Workbook()
    words: list[str] = []
    for sheet_index in range(5):
        sheet = workbook.active if sheet_index == 0 else workbook.create_sheet()
        sheet.title = f"Data {sheet_index}"
        header = ["id", "name", "place", "count", "price", "date"]
        sheet.append(header)
        words += header
        for row in range(2000):
            values = [
                row,
                VOCABULARY[row % 20],
                VOCABULARY[(row * 3) % 20],
                row % 97,
                row + 0.5,
                datetime.date(2024, 1 + row % 12, 1 + row % 28),
            ]
            sheet.append(values)
            words += [str(value) for value in values]
    return _saved(workbook), "\n".join(words)


def _saved(document: object) -> bytes:
    out = io.BytesIO()
    document.save(out)  # type: ignore[attr-defined]
    return out.getvalue()


# --- the floors: each library's own text extraction -------------------------------


def floor_pdf(path: Path) -> str:
    from pypdf import PdfReader

    return "\f".join(page.extract_text() for page in PdfReader(path).pages)


def floor_docx(path: Path) -> str:
    import docx

    document = docx.Document(str(path))
    texts = [paragraph.text for paragraph in document.paragraphs]
    texts += [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    return "\n".join(texts)


def floor_pptx(path: Path) -> str:
    import pptx

    texts = []
    for slide in pptx.Presentation(str(path)).slides:
        texts += [shape.text_frame.text for shape in slide.shapes if shape.has_text_frame]
        if slide.has_notes_slide:
            texts.append(slide.notes_slide.notes_text_frame.text)
    return "\n".join(texts)


def floor_xlsx(path: Path) -> str:
    import openpyxl

    workbook = openpyxl.load_workbook(path, read_only=True, data_only=True)
    lines = [
        " | ".join("" if value is None else str(value) for value in row)
        for sheet in workbook.worksheets
        for row in sheet.iter_rows(values_only=True)
    ]
    workbook.close()
    return "\n".join(lines)


FORMATS: dict[str, tuple[Callable[[], tuple[bytes, str]], Callable[[Path], str]]] = {
    "pdf": (build_pdf, floor_pdf),
    "docx": (build_docx, floor_docx),
    "pptx": (build_pptx, floor_pptx),
    "xlsx": (build_xlsx, floor_xlsx),
}


def word_share(source: str, output: str) -> float:
    """The share of the source's words (with repeats) that the output holds."""
    wanted = collections.Counter(_WORDS.findall(source.lower()))
    found = collections.Counter(_WORDS.findall(output.lower()))
    return sum(min(count, found[word]) for word, count in wanted.items()) / sum(wanted.values())


def timed(convert: Callable[[], str], runs: int) -> tuple[float, str]:
    times, output = [], ""
    for _ in range(runs):
        start = time.perf_counter()
        output = convert()
        times.append(time.perf_counter() - start)
    return statistics.median(times), output


def markitdown_converter() -> Callable[[Path], str] | None:
    try:
        from markitdown import MarkItDown
    except ImportError:
        return None
    converter = MarkItDown()
    return lambda path: converter.convert(str(path)).text_content


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per converter (median shown)")
    args = parser.parse_args()
    markitdown = markitdown_converter()
    print(f"load average before: {os.getloadavg()}")
    print(f"median of {args.runs} runs; share = source words found in the output")
    header = f"{'file':<5} {'size':>8}  {'converter':<10} {'time':>8} {'share':>7}  ratio"
    print(header)
    print("-" * len(header))
    with tempfile.TemporaryDirectory() as folder:
        for kind, (build, floor) in FORMATS.items():
            data, source = build()
            path = Path(folder) / f"bench.{kind}"
            path.write_bytes(data)
            tm.convert(path)  # warm: the plugins load and the library imports once
            floor(path)
            ours, ours_text = timed(lambda path=path: tm.convert(path).body.content, args.runs)
            bare, bare_text = timed(lambda path=path, floor=floor: floor(path), args.runs)
            rows = [("plugin", ours, ours_text, f"{ours / bare:.2f}x the floor")]
            rows.append(("floor", bare, bare_text, ""))
            if markitdown is not None:
                markitdown(path)
                theirs, their_text = timed(lambda path=path: markitdown(path), args.runs)
                rows.append(("markitdown", theirs, their_text, f"{theirs / ours:.1f}x the plugin"))
            else:
                rows.append(("markitdown", float("nan"), "", "not installed (see the docstring)"))
            for name, seconds, text, ratio in rows:
                share = f"{word_share(source, text):7.1%}" if text else "      -"
                print(f"{kind:<5} {len(data):>8,}  {name:<10} {seconds:>7.3f}s {share}  {ratio}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
