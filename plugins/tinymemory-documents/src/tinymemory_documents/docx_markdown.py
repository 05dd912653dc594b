"""DOCX: the body in document order, with python-docx.

Headings (``Title`` and ``Heading N`` styles, or a paragraph outline level)
become ``#`` headings; numbered and bulleted paragraphs (numbering on the
paragraph or its style, whose format is read from the numbering part) become
``1.``/``-`` items indented two spaces a level; tables become markdown
tables, a cell spanning columns written once.
"""

from __future__ import annotations

import io
import re
from typing import TYPE_CHECKING, Any

from tinymemory_documents.limits import Deadline
from tinymemory_documents.markdown_text import markdown_table, one_line, table_cell

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from docx.table import Table
    from docx.text.paragraph import Paragraph

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_HEADING_STYLE = re.compile(r"heading\s*([1-9])$", re.I)


def docx_markdown(data: bytes, deadline: Deadline) -> tuple[str, str | None]:
    """The markdown of the document's body and its own title (core properties)."""
    import docx
    from docx.table import Table

    document = docx.Document(io.BytesIO(data))
    formats = _list_formats(document)
    blocks: list[str] = []
    list_run: list[str] = []
    numbers = _ListNumbers()
    for block in document.iter_inner_content():
        deadline.check()
        if isinstance(block, Table):
            blocks.extend(_flush(list_run))
            if table := _table(block):
                blocks.append(table)
            continue
        text = one_line(block.text)
        if not text:
            continue
        level = _heading_level(block)
        numbering = None if level else _numbering(block)
        if numbering is not None:
            num_id, depth = numbering
            if num_id != numbers.list_id:  # another list: its own block
                blocks.extend(_flush(list_run))
            number = numbers.next(num_id, depth)
            ordered = formats.get((num_id, depth), "bullet") not in ("bullet", "none")
            marker = f"{number}." if ordered else "-"
            list_run.append(f"{'  ' * depth}{marker} {text}")
            continue
        numbers.list_id = None
        blocks.extend(_flush(list_run))
        blocks.append(f"{'#' * level} {text}" if level else text)
    blocks.extend(_flush(list_run))
    title = document.core_properties.title
    return "\n\n".join(blocks), title or None


class _ListNumbers:
    """The running number of each level of the list being written."""

    def __init__(self) -> None:
        self.list_id: str | None = None
        self.counts: list[int] = []

    def next(self, list_id: str, depth: int) -> int:
        if list_id != self.list_id:
            self.list_id, self.counts = list_id, []
        del self.counts[depth + 1 :]  # a shallower item restarts the deeper levels
        self.counts.extend([0] * (depth + 1 - len(self.counts)))
        self.counts[depth] += 1
        return self.counts[depth]


def _flush(list_run: list[str]) -> list[str]:
    """The pending list items as one block (emptying the run)."""
    if not list_run:
        return []
    block = "\n".join(list_run)
    list_run.clear()
    return [block]


def _heading_level(paragraph: Paragraph) -> int:
    style = paragraph.style
    while style is not None:
        name = style.name or ""
        if name.lower() == "title":
            return 1
        if found := _HEADING_STYLE.match(name):
            return int(found.group(1))
        style = style.base_style
    outline = paragraph._p.xpath("./w:pPr/w:outlineLvl/@w:val")
    if outline and str(outline[0]).isdigit() and int(outline[0]) < 6:
        return int(outline[0]) + 1
    return 0


def _numbering(paragraph: Paragraph) -> tuple[str, int] | None:
    """``(numId, level)`` of a list paragraph (its own numbering, else its style's), or None."""
    elements: list[Any] = [paragraph._p]
    style = paragraph.style
    while style is not None:
        elements.append(style.element)
        style = style.base_style
    for element in elements:
        num_ids = element.xpath("./w:pPr/w:numPr/w:numId/@w:val")
        if num_ids:
            if num_ids[0] == "0":  # numId 0 switches numbering off
                return None
            levels = element.xpath("./w:pPr/w:numPr/w:ilvl/@w:val")
            level = int(levels[0]) if levels and str(levels[0]).isdigit() else 0
            return str(num_ids[0]), min(level, 8)
    return None


def _list_formats(document: DocxDocument) -> dict[tuple[str, int], str]:
    """``numFmt`` (bullet, decimal, ...) by ``(numId, level)``, from the numbering part."""
    try:
        numbering = document.part.numbering_part.element
    except (KeyError, NotImplementedError):
        return {}
    abstract: dict[str, dict[int, str]] = {}
    for definition in numbering.iterchildren(_w("abstractNum")):
        levels: dict[int, str] = {}
        for lvl in definition.iterchildren(_w("lvl")):
            fmt = lvl.find(_w("numFmt"))
            index = lvl.get(_w("ilvl"), "0")
            if index.isdigit():
                levels[int(index)] = fmt.get(_w("val"), "decimal") if fmt is not None else "decimal"
        abstract[definition.get(_w("abstractNumId"), "")] = levels
    formats: dict[tuple[str, int], str] = {}
    for num in numbering.iterchildren(_w("num")):
        ref = num.find(_w("abstractNumId"))
        definition_id = ref.get(_w("val"), "") if ref is not None else ""
        for level, fmt in abstract.get(definition_id, {}).items():
            formats[(num.get(_w("numId"), ""), level)] = fmt
    return formats


def _w(tag: str) -> str:
    """A WordprocessingML name in Clark notation (``{namespace}tag``)."""
    return f"{{{_W}}}{tag}"


def _table(table: Table) -> str:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            # A cell spanning columns comes back once per column: write it once.
            cells.append("" if cell._tc is previous else table_cell(cell.text))
            previous = cell._tc
        if any(cells):
            rows.append(cells)
    return markdown_table(rows)
