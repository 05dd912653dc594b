"""Files the tests (and the benchmark) build: office documents, a small PDF writer, hostile files.

The PDF writer is hand-made (Helvetica text, one line per ``Tj``) so the tests
need no PDF library besides the pypdf under test; the hostile files are built
by rewriting the parts of ordinary ones, as an attacker would.
"""

from __future__ import annotations

import datetime
import io
import itertools
import random
import re
import string
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence


def _pdf_string(text: str) -> bytes:
    escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
    return b"(" + escaped.encode("latin-1") + b")"


def text_pdf(
    pages: Sequence[Sequence[str]], *, title: str | None = None, declared_pages: int | None = None
) -> bytes:
    """A PDF with one page per entry of ``pages``, each line of text one line on the page.

    A page with no lines has no text (an image-only page, as a scan has).
    ``declared_pages`` makes the page tree claim another count.
    """
    objects: list[bytes] = [b"", b"", b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]
    kids: list[int] = []
    for lines in pages:
        if lines:
            shown = b" T* ".join(_pdf_string(line) + b" Tj" for line in lines)
            stream = b"BT /F1 11 Tf 14 TL 72 760 Td " + shown + b" ET"
        else:
            stream = b"0.5 g 72 72 400 600 re f"  # a filled box: something to see, no text
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        content = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content
        )
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % kid for kid in kids),
        len(kids) if declared_pages is None else declared_pages,
    )
    info = None
    if title is not None:
        objects.append(b"<< /Title " + _pdf_string(title) + b" >>")
        info = len(objects)
    return _pdf_file(objects, info)


def _pdf_file(objects: Sequence[bytes], info: int | None) -> bytes:
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    trailer = b"<< /Size %d /Root 1 0 R" % (len(objects) + 1)
    if info is not None:
        trailer += b" /Info %d 0 R" % info
    out.write(b"trailer\n" + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def encrypted_pdf() -> bytes:
    """A one-page text PDF encrypted with a user password (RC4, no crypto library needed)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.append(PdfReader(io.BytesIO(text_pdf([["secret plans"]]))))
    writer.encrypt(user_password="hunter2", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def pdf_declaring_pages(count: int) -> bytes:
    """A one-page PDF whose page tree claims ``count`` pages."""
    return text_pdf([["one real page"]], declared_pages=count)


def _saved(document: object) -> bytes:
    out = io.BytesIO()
    document.save(out)  # type: ignore[attr-defined]
    return out.getvalue()


def sample_docx(paragraphs: int = 0) -> bytes:
    """A DOCX with a title, headings, a bulleted and a numbered list, a table and prose."""
    import docx

    document = docx.Document()
    document.core_properties.title = "Quarterly notes"
    document.add_heading("Overview", level=1)
    document.add_paragraph("The quarter closed above plan.")
    document.add_paragraph("Ship the beta", style="List Bullet")
    document.add_paragraph("Hire two engineers", style="List Bullet")
    document.add_paragraph("Draft the budget", style="List Number")
    document.add_paragraph("Review the budget", style="List Number")
    document.add_heading("Figures", level=2)
    table = document.add_table(rows=2, cols=2)
    for row, cells in zip(table.rows, [("Region", "Sales"), ("North", "120")], strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    document.add_paragraph("Figures are in thousands.")
    for index in range(paragraphs):
        if index % 20 == 0:
            document.add_heading(f"Part {index // 20 + 1}", level=2)
        document.add_paragraph(f"Paragraph {index} tells of rivers, hills and the long road home.")
    return _saved(document)


def sample_pptx(slides: int = 2) -> bytes:
    """A PPTX of ``slides`` slides: a title, bullets (one indented) and notes; slide 2 a table."""
    import pptx
    from pptx.util import Inches

    presentation = pptx.Presentation()
    presentation.core_properties.title = ""
    for number in range(1, slides + 1):
        if number == 2:
            slide = presentation.slides.add_slide(presentation.slide_layouts[5])
            slide.shapes.title.text = "Targets"
            shape = slide.shapes.add_table(2, 2, Inches(1), Inches(2), Inches(6), Inches(1))
            for row, cells in enumerate([("Region", "Stores"), ("Nordics", "120")]):
                for column, text in enumerate(cells):
                    shape.table.cell(row, column).text = text
        else:
            slide = presentation.slides.add_slide(presentation.slide_layouts[1])
            slide.shapes.title.text = f"Topic {number}"
            body = slide.placeholders[1].text_frame
            body.text = f"First point of topic {number}"
            for level, text in ((1, "a detail"), (0, "second point"), (0, "third point")):
                paragraph = body.add_paragraph()
                paragraph.text = text
                paragraph.level = level
        slide.notes_slide.notes_text_frame.text = f"Say hello to slide {number}."
    return _saved(presentation)


def sample_xlsx(sheets: int = 2, rows: int = 3) -> bytes:
    """A workbook of ``sheets`` sheets: a header, then rows with text, a date, numbers, a gap."""
    import openpyxl

    workbook = openpyxl.Workbook()
    workbook.properties.title = "Stock"
    for index in range(sheets):
        sheet = workbook.active if index == 0 else workbook.create_sheet()
        sheet.title = f"Sheet {index + 1}"
        sheet.append(["Item", "Arrived", "Count", "Note"])
        for row in range(rows):
            sheet.append(
                [f"item {row}", datetime.date(2024, 1, 1 + row % 28), row * 2.5, None]
                if row % 2 == 0
                else [f"item {row}", datetime.datetime(2024, 2, 1, 9, 30), row, "ok | fine"]
            )
    return _saved(workbook)


def rewritten(package: bytes, changes: dict[str, Callable[[bytes], bytes | None]]) -> bytes:
    """``package`` with the named entries' bytes rewritten by their functions (None: left out)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(package)) as source, zipfile.ZipFile(out, "w") as target:
        for entry in source.infolist():
            data = source.read(entry)
            change = changes.get(entry.filename)
            kept = change(data) if change is not None else data
            if kept is not None:
                target.writestr(entry.filename, kept, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


#: The package relationship to its core properties (docProps/core.xml).
_CORE_PROPERTIES_RELATIONSHIP = re.compile(rb"<Relationship [^>]*/core-properties\"[^>]*/>")


def without_core_properties(package: bytes) -> bytes:
    """``package`` with no core-properties part nor relationship to one, as some tools write."""

    def unrelate(rels: bytes) -> bytes:
        kept, removed = _CORE_PROPERTIES_RELATIONSHIP.subn(b"", rels)
        assert removed == 1, rels
        return kept

    return rewritten(package, {"docProps/core.xml": lambda _: None, "_rels/.rels": unrelate})


def _laughs(level: int) -> bytes:
    inner = b"&lol;" if level == 1 else b"&lol%d;" % (level - 1)
    return b'<!ENTITY lol%d "%s">\n' % (level, inner * 10)


#: A DTD whose ``&lol9;`` expands to 10^9 ``lol``s.
BILLION_LAUGHS = (
    b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n<!ENTITY lol "lol">\n'
    + b"".join(_laughs(level) for level in range(1, 10))
    + b"]>\n"
)


def billion_laughs_docx() -> bytes:
    """A DOCX whose ``word/document.xml`` expands ``&lol9;`` to 10^9 ``lol``s."""

    def attack(xml: bytes) -> bytes:
        body = xml.split(b"?>", 1)[1]
        return BILLION_LAUGHS + body.replace(b"The quarter closed above plan.", b"&lol9;")

    return rewritten(sample_docx(), {"word/document.xml": attack})


def zip_bomb_docx(megabytes: int) -> bytes:
    """A DOCX whose ``word/document.xml`` unpacks to ``megabytes`` MB of paragraphs."""
    paragraph = b"<w:p><w:r><w:t>" + b"bomb " * 20_000 + b"</w:t></w:r></w:p>"
    return _with_document_xml(itertools.repeat(paragraph, megabytes * 1_000_000 // len(paragraph)))


def lying_size_docx() -> bytes:
    """A DOCX whose central directory says ``word/document.xml`` is 10 bytes long."""
    data = bytearray(sample_docx())
    name = b"word/document.xml"
    position = data.rfind(name)  # the central directory's copy comes last
    header = position - 46  # a central directory header is 46 bytes before its name
    assert data[header : header + 4] == b"PK\x01\x02"
    data[header + 24 : header + 28] = (10).to_bytes(4, "little")  # uncompressed size
    return bytes(data)


def xlsx_declaring(dimension: str) -> bytes:
    """A small workbook whose first sheet declares the range ``dimension`` (say A1:T100000)."""

    def declare(xml: bytes) -> bytes:
        start = xml.index(b'<dimension ref="') + len(b'<dimension ref="')
        end = xml.index(b'"', start)
        return xml[:start] + dimension.encode() + xml[end:]

    return rewritten(sample_xlsx(sheets=1), {"xl/worksheets/sheet1.xml": declare})


def xlsx_of_cells(rows: int, columns: int) -> bytes:
    """A one-sheet workbook filled with ``rows`` x ``columns`` numbers."""
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Grid"
    for row in range(rows):
        sheet.append([row * columns + column for column in range(columns)])
    return _saved(workbook)


_WORDML = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
#: A paragraph of text: three elements, nested three deep.
_TEXT = b"<w:p><w:r><w:t>the end</w:t></w:r></w:p>"


def _with_document_xml(chunks: Iterable[bytes], extra: dict[str, bytes] | None = None) -> bytes:
    """The sample DOCX with ``word/document.xml`` streamed from ``chunks``, and ``extra`` parts."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(sample_docx())) as source, zipfile.ZipFile(out, "w") as target:
        for entry in source.infolist():
            if entry.filename != "word/document.xml":
                target.writestr(entry.filename, source.read(entry), zipfile.ZIP_DEFLATED)
                continue
            info = zipfile.ZipInfo("word/document.xml")
            info.compress_type = zipfile.ZIP_DEFLATED
            with target.open(info, "w", force_zip64=True) as part:
                part.write(b'<?xml version="1.0"?><w:document ' + _WORDML + b"><w:body>")
                for chunk in chunks:
                    part.write(chunk)
                part.write(b"</w:body></w:document>")
        for name, data in (extra or {}).items():
            target.writestr(name, data, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def prose_docx(megabytes: int) -> bytes:
    """A DOCX of ``megabytes`` MB of XML: paragraphs of Zipf-drawn words, compressed ~4 to 1."""
    rng = random.Random(megabytes)
    letters = string.ascii_lowercase
    words = ["".join(rng.choices(letters, k=rng.randint(2, 7))) for _ in range(200)]
    weights = list(itertools.accumulate(1 / rank for rank in range(1, len(words) + 1)))  # Zipf

    def paragraphs() -> Iterator[bytes]:
        written = 0
        while written < megabytes * 1_000_000:
            text = " ".join(rng.choices(words, cum_weights=weights, k=10_000)).encode()
            chunk = b"<w:p><w:r><w:t>" + text + b"</w:t></w:r></w:p>"
            written += len(chunk)
            yield chunk

    return _with_document_xml(paragraphs())


def many_elements_docx(elements: int) -> bytes:
    """A DOCX of ``elements`` empty paragraphs (a random id each, so it compresses little),
    then one of text."""
    rng = random.Random(elements)
    empty = (b'<w:p w:rsidR="%08X"/>' % rng.getrandbits(32) for _ in range(elements))
    return _with_document_xml(itertools.chain(empty, [_TEXT]))


def deep_docx(depth: int) -> bytes:
    """A DOCX of text, then ``depth // 3`` tables nested each in the other's only cell, then
    text in the innermost."""
    opening = b"<w:tbl><w:tr><w:tc>" * (depth // 3)
    return _with_document_xml([_TEXT, opening, _TEXT, b"</w:tc></w:tr></w:tbl>" * (depth // 3)])


def many_parts_docx(parts: int, part_bytes: int) -> bytes:
    """The sample DOCX with ``parts`` more XML parts of ``part_bytes`` random bytes of text each."""
    rng = random.Random(parts)

    def part() -> bytes:
        text = rng.randbytes(part_bytes // 2).hex().encode()
        return b"<?xml version='1.0'?><x>" + text + b"</x>"

    return _with_document_xml([], {f"customXml/extra{n}.xml": part() for n in range(parts)})


def xml_under_another_name_docx(elements: int) -> bytes:
    """The sample DOCX with a part ``word/media/blob.bin`` holding ``elements`` XML elements."""
    rng = random.Random(elements)
    empty = b"".join(b'<p r="%08X"/>' % rng.getrandbits(32) for _ in range(elements))
    blob = b'<?xml version="1.0"?><x>' + empty + b"</x>"
    return _with_document_xml([_TEXT], {"word/media/blob.bin": blob})
