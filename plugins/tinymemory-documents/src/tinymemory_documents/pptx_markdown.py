"""PPTX: one section per slide, in slide order, with python-pptx.

Each slide is a ``## Slide N: title`` heading (the title placeholder's text,
else the one-line text box in the largest font, then the topmost: decks built
on blank layouts title their slides with text boxes), then its shapes in order
(groups opened): paragraphs of a body placeholder as ``-`` items indented by
their level, other text as paragraphs, tables as markdown tables, and last
the speaker notes after ``Notes:``.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tinymemory import InvalidRequest
from tinymemory_documents.limits import Deadline, Limits
from tinymemory_documents.markdown_text import markdown_table, one_line, table_cell
from tinymemory_documents.ooxml_package import own_title

_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"

if TYPE_CHECKING:
    from pptx.slide import Slide


def pptx_markdown(data: bytes, limits: Limits, deadline: Deadline) -> tuple[str, str | None]:
    """Every slide's markdown, and the title: the presentation's own, else the first slide's."""
    import pptx

    presentation = pptx.Presentation(io.BytesIO(data))
    slides = presentation.slides
    if len(slides) > limits.max_pages:
        raise InvalidRequest(
            f"{deadline.shown} has {len(slides):,} slides, over the limit of {limits.max_pages:,}"
        )
    sections: list[str] = []
    first_title: str | None = None
    for number, slide in enumerate(slides, start=1):
        deadline.check()
        title, section = _slide(slide, number)
        first_title = first_title or title
        sections.append(section)
    own = own_title(presentation.part.package, lambda: presentation.core_properties.title)
    return "\n\n".join(sections), own or first_title


#: The longest text a text box may hold to be taken for a slide's title.
MAX_TITLE_CHARS = 120


def _slide(slide: Slide, number: int) -> tuple[str | None, str]:
    title_shape = slide.shapes.title or _text_box_title(list(_shapes(slide.shapes)))
    title = one_line(title_shape.text_frame.text) if title_shape is not None else ""
    blocks = [f"## Slide {number}: {title}" if title else f"## Slide {number}"]
    for shape in _shapes(slide.shapes):
        if title_shape is not None and shape.shape_id == title_shape.shape_id:
            continue
        if getattr(shape, "has_table", False):
            rows = [[table_cell(cell.text) for cell in row.cells] for row in shape.table.rows]
            if table := markdown_table([row for row in rows if any(row)]):
                blocks.append(table)
        elif getattr(shape, "has_text_frame", False) and (
            text := _text_frame(shape.text_frame, bulleted=_is_body(shape))
        ):
            blocks.append(text)
    if slide.has_notes_slide and (notes := _notes(slide)):
        blocks.append(f"Notes:\n\n{notes}")
    return title or None, "\n\n".join(blocks)


def _is_body(shape: Any) -> bool:
    """Whether ``shape`` is a body placeholder, whose paragraphs its layout bullets."""
    from pptx.enum.shapes import PP_PLACEHOLDER

    return bool(shape.is_placeholder) and shape.placeholder_format.type in (
        PP_PLACEHOLDER.BODY,
        PP_PLACEHOLDER.OBJECT,
    )


def _text_box_title(shapes: list[Any]) -> Any | None:
    """The text box that titles a slide with no title placeholder, or None.

    Decks built on blank layouts (or saved by other suites) write the title as
    a plain text box. A candidate holds one line of at most
    :data:`MAX_TITLE_CHARS` characters and is no body placeholder; the one in
    the largest font set on its runs wins, then the topmost, then the leftmost.
    """
    candidates = []
    for order, shape in enumerate(shapes):
        if not getattr(shape, "has_text_frame", False) or _is_body(shape):
            continue
        body = shape.text_frame._txBody
        lines = [
            line
            for paragraph in body.iterchildren(f"{_A}p")
            if (line := one_line("".join(run.text or "" for run in paragraph.iter(f"{_A}t"))))
        ]
        if len(lines) != 1 or len(lines[0]) > MAX_TITLE_CHARS:
            continue
        sizes = [
            int(size) for run in body.iter(f"{_A}rPr") if (size := run.get("sz", "")).isdigit()
        ]
        top, left = shape.top or 0, shape.left or 0
        candidates.append((-max(sizes, default=0), top, left, order))
    if not candidates:
        return None
    return shapes[min(candidates)[3]]


def _notes(slide: Slide) -> str:
    """The speaker notes: the notes placeholder, else every text box of the notes page.

    LibreOffice writes notes as a plain text box, which python-pptx's
    ``notes_text_frame`` (the placeholder alone) does not see.
    """
    notes_slide = slide.notes_slide
    frame = notes_slide.notes_text_frame
    if frame is not None:
        return _text_frame(frame, bulleted=False)
    texts = (
        _text_frame(shape.text_frame, bulleted=False)
        for shape in _shapes(notes_slide.shapes)
        if getattr(shape, "has_text_frame", False) and not shape.is_placeholder
    )
    return "\n\n".join(text for text in texts if text)


def _shapes(shapes: Any) -> Iterator[Any]:
    """Every shape, a group's members in its place."""
    for shape in shapes:
        if hasattr(shape, "shapes"):  # a group
            yield from _shapes(shape.shapes)
        else:
            yield shape


def _text_frame(frame: Any, *, bulleted: bool) -> str:
    """The paragraphs of a text frame, list items as ``-``/``1.`` indented by their level.

    A paragraph's own bullet settings decide (``buChar``, ``buAutoNum``,
    ``buNone``); without any, a body placeholder's paragraphs are bulleted (its
    layout gives them bullets) and other paragraphs are items only when indented.
    """
    lines: list[str] = []
    # Read from the XML: python-pptx's ``paragraph.level`` adds a ``pPr`` to
    # every paragraph lacking one, which costs more than the reading.
    for paragraph in frame._txBody.iterchildren(f"{_A}p"):
        text = one_line("".join(run.text or "" for run in paragraph.iter(f"{_A}t")))
        if not text:
            continue
        properties = paragraph.find(f"{_A}pPr")
        level_value = properties.get("lvl", "0") if properties is not None else "0"
        level = int(level_value) if level_value.isdigit() else 0
        marker = _bullet(properties, default="-" if bulleted or level > 0 else "")
        if marker:
            lines.append(f"{'  ' * level}{marker} {text}")
        else:
            lines.append(text)
    return "\n".join(lines)


def _bullet(properties: Any, *, default: str) -> str:
    """The list marker a paragraph's own bullet settings give, else ``default``."""
    if properties is not None:
        if properties.find(f"{_A}buNone") is not None:
            return ""
        if properties.find(f"{_A}buAutoNum") is not None:
            return "1."
        if properties.find(f"{_A}buChar") is not None:
            return "-"
    return default
