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
from tinymemory_documents.ooxml_package import own_title

if TYPE_CHECKING:
    from docx.document import Document as DocxDocument
    from docx.table import Table
    from docx.text.paragraph import Paragraph

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_HEADING_STYLE = re.compile(r"heading\s*([1-9])$", re.I)


def docx_markdown(data: bytes, deadline: Deadline) -> tuple[str, str | None]:
    """The markdown of the document's body and its own title (core properties), if any."""
    import docx
    from docx.table import Table

    document = docx.Document(io.BytesIO(data))
    formats = _list_formats(document)
    styles = _Styles(document)
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
        level = _heading_level(block, styles)
        numbering = None if level else _numbering(block, styles)
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
    return "\n\n".join(blocks), own_title(
        document.part.package, lambda: document.core_properties.title
    )


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


class _Styles:
    """The paragraph styles of a document, read once: each one's name, base and numbering.

    python-docx's ``paragraph.style`` searches the styles part on every call
    (most of a large document's conversion time), so the table is built here.
    """

    def __init__(self, document: DocxDocument) -> None:
        self.styles: dict[str, tuple[str, str | None, Any]] = {}
        self.default: str | None = None
        for style in document.styles.element.iterchildren(_w("style")):
            if style.get(_w("type")) != "paragraph":
                continue
            style_id = style.get(_w("styleId"), "")
            name = style.find(_w("name"))
            based_on = style.find(_w("basedOn"))
            self.styles[style_id] = (
                name.get(_w("val"), "") if name is not None else "",
                based_on.get(_w("val")) if based_on is not None else None,
                style,
            )
            if style.get(_w("default")) in ("1", "true"):
                self.default = style_id

    def chain(self, paragraph: Paragraph) -> list[tuple[str, Any]]:
        """``(name, element)`` of the paragraph's style and the styles it is based on."""
        style_id = paragraph._p.style or self.default
        chain: list[tuple[str, Any]] = []
        while style_id in self.styles and len(chain) < 20:  # a cycle of bases ends here
            name, style_id, element = self.styles[style_id]
            chain.append((name, element))
        return chain


def _heading_level(paragraph: Paragraph, styles: _Styles) -> int:
    chain = styles.chain(paragraph)
    for name, _ in chain:
        if name.lower() == "title":
            return 1
        if found := _HEADING_STYLE.match(name):
            return int(found.group(1))
    for element in (paragraph._p, *(element for _, element in chain)):
        outline = _property(element, "outlineLvl")
        if outline is not None:
            return int(outline) + 1 if outline.isdigit() and int(outline) < 6 else 0
    return 0


def _numbering(paragraph: Paragraph, styles: _Styles) -> tuple[str, int] | None:
    """``(numId, level)`` of a list paragraph (its own numbering, else its style's), or None."""
    for element in (paragraph._p, *(element for _, element in styles.chain(paragraph))):
        num_id = _property(element, "numPr", "numId")
        if num_id is None:
            continue
        if num_id == "0":  # numId 0 switches numbering off
            return None
        level = _property(element, "numPr", "ilvl") or "0"
        return num_id, min(int(level), 8) if level.isdigit() else 0
    return None


def _property(element: Any, *path: str) -> str | None:
    """The ``w:val`` of ``w:pPr/<path...>`` in a paragraph or style element, or None."""
    found = element.find(_w("pPr"))
    for tag in path:
        if found is None:
            return None
        found = found.find(_w(tag))
    return None if found is None else found.get(_w("val"))


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
