"""The office converter: PDF, DOCX, PPTX and XLSX to markdown, on generated and real files."""

from __future__ import annotations

import datetime
import io
from pathlib import Path

import pytest
from conftest import OFFICE_SUITE
from fixture_files import (
    sample_docx,
    sample_pptx,
    sample_xlsx,
    text_pdf,
    without_core_properties,
)

import tinymemory as tm
from tinymemory.retrieval import cut_pieces
from tinymemory_documents import DocumentFormat, Limits, OfficeConverter


def test_a_pdf_is_its_text_layer_page_by_page_joined_by_form_feeds() -> None:
    data = text_pdf(
        [["Chapter one", "The  river   rose."], [], ["Chapter three", "It fell again."]],
        title="River log",
    )
    document = tm.convert(data, name="log.pdf")
    assert document.body.text == (
        "Chapter one\nThe river rose.\n\f\n\fChapter three\nIt fell again."
    )
    assert (document.title, document.mime) == ("River log", "application/pdf")


@pytest.mark.parametrize("pages", [2, 3, 5])
@pytest.mark.parametrize("heading", ["Risks", "4. Risks and costs", "RISKS"])
def test_a_heading_closing_a_page_never_runs_into_the_next_pages_first_line(
    pages: int, heading: str
) -> None:
    """Every page ends its last line, so a viewer that draws no form feed keeps them apart."""
    texts = [[f"Page {n} opens here.", f"{heading} {n}"] for n in range(1, pages + 1)]
    body = tm.convert(text_pdf(texts), name="plan.pdf").body.text
    assert body.count("\f") == pages - 1  # the page count stays true
    lines = body.replace("\f", "").splitlines()
    for n in range(1, pages):
        at = lines.index(f"{heading} {n}")
        assert lines[at + 1] == f"Page {n + 1} opens here."


def test_the_pages_of_a_pdf_are_what_cut_pieces_tags() -> None:
    pages = [[f"page {number} " + "words " * 60] for number in range(1, 6)]
    document = tm.convert(text_pdf(pages), name="five.pdf")
    pieces = cut_pieces(document.body.text, 700)
    assert [piece.tags() for piece in pieces] == [(f"page:{number}",) for number in range(1, 6)]
    assert [piece.text.split()[:2] for piece in pieces] == [
        ["page", str(number)] for number in range(1, 6)
    ]


def test_a_pdf_without_a_title_is_named_by_its_file() -> None:
    assert tm.convert(text_pdf([["no title here"]]), name="plain.pdf").title == "plain.pdf"


def test_a_pdf_with_no_text_layer_is_an_invalid_request() -> None:
    with pytest.raises(
        tm.InvalidRequest, match=r"`scan.pdf` has no text layer \(a scanned PDF\?\)"
    ):
        tm.convert(text_pdf([[], []]), name="scan.pdf")


def test_a_pdf_over_the_page_limit_is_refused() -> None:
    converter = OfficeConverter(Limits(max_pages=3))
    with pytest.raises(tm.InvalidRequest, match="declares 4 pages, over the limit of 3"):
        tm.convert(text_pdf([["x"]] * 4), name="long.pdf", converters=[converter])


def test_a_docx_keeps_headings_lists_and_tables_in_document_order() -> None:
    document = tm.convert(sample_docx(), name="notes.docx")
    assert document.body.text == (
        "# Overview\n\n"
        "The quarter closed above plan.\n\n"
        "- Ship the beta\n- Hire two engineers\n\n"
        "1. Draft the budget\n2. Review the budget\n\n"
        "## Figures\n\n"
        "| Region | Sales |\n| --- | --- |\n| North | 120 |\n\n"
        "Figures are in thousands."
    )
    assert document.title == "Quarterly notes"
    assert document.mime == DocumentFormat.DOCX.mime


def test_a_docx_without_a_title_is_titled_by_its_first_heading() -> None:
    import docx

    made = docx.Document(io.BytesIO(sample_docx()))
    made.core_properties.title = ""
    out = io.BytesIO()
    made.save(out)
    assert tm.convert(out.getvalue(), name="n.docx").title == "Overview"


def test_a_docx_without_core_properties_is_titled_by_its_first_heading() -> None:
    # python-docx makes up a core-properties part titled "Word Document" for such a file.
    document = tm.convert(without_core_properties(sample_docx()), name="n.docx")
    assert document.title == "Overview"


def test_a_pptx_without_core_properties_is_titled_by_its_first_slide() -> None:
    # python-pptx makes up a core-properties part titled "PowerPoint Presentation".
    document = tm.convert(without_core_properties(sample_pptx()), name="deck.pptx")
    assert document.title == "Topic 1"


def test_a_pptx_is_a_section_per_slide_with_body_tables_and_notes() -> None:
    document = tm.convert(sample_pptx(3), name="deck.pptx")
    assert document.body.text == (
        "## Slide 1: Topic 1\n\n"
        "- First point of topic 1\n  - a detail\n- second point\n- third point\n\n"
        "Notes:\n\nSay hello to slide 1.\n\n"
        "## Slide 2: Targets\n\n"
        "| Region | Stores |\n| --- | --- |\n| Nordics | 120 |\n\n"
        "Notes:\n\nSay hello to slide 2.\n\n"
        "## Slide 3: Topic 3\n\n"
        "- First point of topic 3\n  - a detail\n- second point\n- third point\n\n"
        "Notes:\n\nSay hello to slide 3."
    )
    assert document.title == "Topic 1"  # no title of its own: the first slide's
    sections = [piece.section for piece in cut_pieces(document.body.text, 120)]
    assert "Slide 2: Targets" in sections


def test_an_xlsx_is_a_table_per_sheet_with_iso_dates_and_empty_cells_empty() -> None:
    document = tm.convert(sample_xlsx(sheets=2, rows=3), name="stock.xlsx")
    table = (
        "| Item | Arrived | Count | Note |\n"
        "| --- | --- | --- | --- |\n"
        "| item 0 | 2024-01-01 | 0 | |\n"
        "| item 1 | 2024-02-01T09:30:00 | 1 | ok \\| fine |\n"
        "| item 2 | 2024-01-03 | 5 | |"
    )
    assert document.body.text == f"## Sheet 1\n\n{table}\n\n## Sheet 2\n\n{table}"
    assert document.title == "Stock"
    for never in ("None", "nan", "NaN", "45292"):
        assert never not in document.body.text


def test_an_xlsx_keeps_only_the_used_range() -> None:
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet["C3"] = "corner"
    sheet["D5"] = datetime.date(2020, 2, 29)
    sheet["B8"] = None  # touched, never filled
    out = io.BytesIO()
    workbook.save(out)
    document = tm.convert(out.getvalue(), name="sparse.xlsx")
    assert document.body.text == (
        "## Sheet\n\n| corner | |\n| --- | --- |\n| | |\n| | 2020-02-29 |"
    )
    assert document.title == "sparse.xlsx"


def test_an_office_file_with_no_text_is_an_invalid_request() -> None:
    import docx

    out = io.BytesIO()
    docx.Document().save(out)
    with pytest.raises(tm.InvalidRequest, match=r"`blank\.docx` holds no text to convert"):
        tm.convert(out.getvalue(), name="blank.docx")


# --- files saved by a real office suite (LibreOffice 7.4; see the README) -------------

REAL_FILES = [
    ("report.docx", "Field report", "report.docx.expected.md"),
    ("report.pdf", "Field report", "report.pdf.expected.txt"),
    ("deck.pptx", "Launch plan", "deck.pptx.expected.md"),
    ("budget.xlsx", "Team budget", "budget.xlsx.expected.md"),
]


@pytest.mark.parametrize(("file", "title", "expected"), REAL_FILES)
def test_files_saved_by_libreoffice_convert_to_their_expected_text(
    file: str, title: str, expected: str
) -> None:
    document = tm.convert(OFFICE_SUITE / file)
    want = (OFFICE_SUITE / expected).read_text(encoding="utf-8").removesuffix("\n")
    assert document.body.text == want
    assert document.title == title
    assert document.meta.file_path == str((OFFICE_SUITE / file).resolve())
    assert document.meta.source.kind is tm.SourceKind.FILE


def test_the_libreoffice_files_hold_what_their_sources_say() -> None:
    """The expected texts are checked against the sources, not only against past output."""
    pdf = (OFFICE_SUITE / "report.pdf.expected.txt").read_text(encoding="utf-8")
    assert pdf.count("\f") == 1  # the source's page break before "Next steps"
    assert pdf.split("\f")[1].startswith("Next steps")
    docx_text = (OFFICE_SUITE / "report.docx.expected.md").read_text(encoding="utf-8")
    # The title heading is the document's title, shown once: not in the body.
    assert not docx_text.startswith("# Field report")
    for line in ("## Findings", "- The bridge needs repair.",
                 "2. Schedule the repair crew.", "| East | 2 | flooded |"):  # fmt: skip
        assert line in docx_text.splitlines()
    xlsx_text = (OFFICE_SUITE / "budget.xlsx.expected.md").read_text(encoding="utf-8")
    assert "| Laptops | 2024-01-31 | 3 | 1250.5 | 3751.5 |" in xlsx_text  # a cached formula
    pptx_text = (OFFICE_SUITE / "deck.pptx.expected.md").read_text(encoding="utf-8")
    assert "Mention the survey of forty shops." in pptx_text


def test_a_real_file_round_trips_through_a_path_and_its_bytes_alike(tmp_path: Path) -> None:
    data = (OFFICE_SUITE / "report.docx").read_bytes()
    assert (
        tm.convert(data, name="report.docx").body == tm.convert(OFFICE_SUITE / "report.docx").body
    )
    renamed = tmp_path / "no-extension"
    renamed.write_bytes(data)
    assert tm.convert(renamed).mime == DocumentFormat.DOCX.mime  # the zip's parts decide


# --- a title shown once; slides titled by text boxes ------------------------------------


def _docx(title: str | None, heading: tuple[str, str] | None, text: str = "Body text.") -> bytes:
    """A DOCX with ``title`` in its properties, opening with ``heading`` (text, style)."""
    import docx

    document = docx.Document()
    document.core_properties.title = title or ""
    if heading is not None:
        document.add_paragraph(heading[0], style=heading[1])
    document.add_paragraph(text)
    document.add_heading("Later", level=2)
    document.add_paragraph("More text.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


@pytest.mark.parametrize("style", ["Title", "Heading 1", "Heading 2"])
@pytest.mark.parametrize("written", ["Travel policy", "travel  POLICY", " Travel policy "])
def test_a_docx_whose_first_heading_is_its_title_shows_the_title_once(
    style: str, written: str
) -> None:
    document = tm.convert(_docx("Travel policy", (written, style)), name="policy.docx")
    shown = document.render_text()
    assert document.title == "Travel policy"
    assert shown.casefold().count("travel policy") == 1, shown
    assert shown.startswith("# Travel policy\n\nBody text.")
    assert "## Later" in shown  # only the opening heading goes


@pytest.mark.parametrize(
    ("title", "heading"),
    [
        ("Travel policy", ("Scope", "Heading 1")),  # another heading: kept
        ("Travel policy", None),  # no heading
        (None, ("Travel policy", "Title")),  # no title of its own: nothing to repeat
    ],
)
def test_a_docx_heading_that_is_not_its_title_is_kept(
    title: str | None, heading: tuple[str, str] | None
) -> None:
    document = tm.convert(_docx(title, heading), name="policy.docx")
    if heading is not None:
        assert document.body.text.startswith(f"# {heading[0]}")
    else:
        assert document.body.text.startswith("Body text.")


def _blank_deck(slides: list[list[tuple[str, int | None, float]]]) -> bytes:
    """A deck on the blank layout: per slide, text boxes of (text, font points, inches down)."""
    import pptx
    from pptx.util import Inches, Pt

    presentation = pptx.Presentation()
    presentation.core_properties.title = ""
    for boxes in slides:
        slide = presentation.slides.add_slide(presentation.slide_layouts[6])  # blank
        for text, points, down in boxes:
            box = slide.shapes.add_textbox(Inches(1), Inches(down), Inches(8), Inches(1))
            frame = box.text_frame
            for number, line in enumerate(text.split("\n")):
                paragraph = frame.paragraphs[0] if number == 0 else frame.add_paragraph()
                run = paragraph.add_run()
                run.text = line
                if points is not None:
                    run.font.size = Pt(points)
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("boxes", "title"),
    [
        # The largest font wins, wherever it sits.
        ([("Body line one", 18, 1.0), ("Quarterly plan", 40, 2.5)], "Quarterly plan"),
        # No sizes set: the topmost, in any order of creation.
        ([("Lower text", None, 4.0), ("Top title", None, 0.5)], "Top title"),
        # Equal sizes: the topmost.
        ([("Second", 24, 2.0), ("First", 24, 1.0), ("Third", 24, 3.0)], "First"),
        # A box of several paragraphs is body text, never a title.
        ([("One\nTwo\nThree", 44, 0.5), ("The real title", 20, 2.0)], "The real title"),
    ],
)
def test_a_slide_titled_by_a_text_box_gets_that_title(
    boxes: list[tuple[str, int | None, float]], title: str
) -> None:
    body = tm.convert(_blank_deck([boxes, boxes]), name="deck.pptx").body.text
    sections = body.split("\n\n## ")
    assert body.startswith(f"## Slide 1: {title}\n")
    assert sections[1].startswith(f"Slide 2: {title}\n")
    assert body.count(title) == 2  # the title box is not repeated as text
    for text, _, _ in boxes:
        if text != title:
            assert text.split("\n")[0] in sections[0]


def test_a_slide_of_long_text_only_keeps_its_number_as_heading() -> None:
    long = "word " * 40
    body = tm.convert(_blank_deck([[(long.strip(), 20, 1.0)]]), name="deck.pptx").body.text
    assert body.startswith("## Slide 1\n\nword word")
