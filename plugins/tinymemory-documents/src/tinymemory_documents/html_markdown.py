"""HTML to clean markdown, over the standard library's ``html.parser``.

The page is first built into a small tree (so tables, lists and quotes are
rendered whole), then written out: ``h1``-``h6`` as ``#`` headings, lists as
``-``/``1.`` items indented two spaces a level, ``pre`` as a fenced block,
``code`` in backticks, ``strong``/``em`` as ``**``/``*``, links as
``[text](href)``, quotes with ``> ``, tables as markdown tables, ``hr`` as
``---``. Scripts, styles, templates, SVG, ``noscript``, the head and comments
are dropped; entities are decoded; whitespace outside ``pre`` collapses.

Why not a dependency: ``html.parser`` is forgiving, streaming and in the
standard library; markdownify or html2text would add a package (and, for
markdownify, BeautifulSoup) for the same few rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser

import attrs

from tinymemory_documents.markdown_text import markdown_table, table_cell, tidy

#: Elements dropped with everything inside them.
_DROPPED = frozenset(
    {"script", "style", "template", "svg", "noscript", "title", "head", "iframe", "object", "math"}
)
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_BLOCKS = frozenset(
    {
        "p", "div", "section", "article", "header", "footer", "main", "nav", "aside",
        "figure", "figcaption", "form", "fieldset", "address", "details", "summary",
        "dl", "dt", "dd", "body", "html", "center", "caption",
        "table", "blockquote", "pre", "ul", "ol", "hr", "li", "tr", "td", "th",
        "thead", "tbody", "tfoot",
        *_HEADINGS,
    }
)  # fmt: skip
#: An open element of these is closed by a new one of the same group (HTML's implied ends).
_CLOSED_BY = {
    "p": frozenset({"p", *(_BLOCKS - {"html", "body"})}),
    "li": frozenset({"li"}),
    "dt": frozenset({"dt", "dd"}),
    "dd": frozenset({"dt", "dd"}),
    "tr": frozenset({"tr", "tbody", "thead", "tfoot"}),
    "td": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"}),
    "th": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"}),
    "thead": frozenset({"tbody", "tfoot"}),
    "tbody": frozenset({"tbody", "tfoot"}),
}
#: Deeper nesting is flattened into the element at this depth (a hostile page nests 100,000 divs).
MAX_DEPTH = 100
_SPACES = re.compile(r"[ \t\n\r\f\v]+")
_BREAK = "\x00"  # a hard line break (``br``) until whitespace has been collapsed


@attrs.define(eq=False)
class _Element:
    tag: str
    attributes: dict[str, str]
    children: list[_Element | str] = attrs.field(factory=list)


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Element("root", {})
        self.stack = [self.root]
        self.dropping = 0  # depth inside a dropped element
        self.title_parts: list[str] | None = None
        self.title: str | None = None

    def handle_starttag(self, tag: str, attrs_: list[tuple[str, str | None]]) -> None:
        if tag == "title" and self.title is None:
            self.title_parts = []
        if self.dropping or tag in _DROPPED:
            self.dropping += tag not in _VOID
            return
        self._close_implied(tag)
        element = _Element(tag, {key: value or "" for key, value in attrs_})
        if len(self.stack) > MAX_DEPTH:
            return  # too deep: its content joins the element at the limit
        self.stack[-1].children.append(element)
        if tag not in _VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs_: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs_)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self.title_parts is not None:
            self.title = " ".join("".join(self.title_parts).split()) or None
            self.title_parts = None
        if self.dropping:
            self.dropping -= 1
            return
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        if self.title_parts is not None:
            self.title_parts.append(data)
        if not self.dropping:
            self.stack[-1].children.append(data)

    def _close_implied(self, tag: str) -> None:
        while len(self.stack) > 1 and tag in _CLOSED_BY.get(self.stack[-1].tag, ()):
            self.stack.pop()


def html_to_markdown(html: str) -> tuple[str, str | None]:
    """The markdown of ``html`` and the page's ``<title>`` (None when it has none)."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return tidy("\n\n".join(_blocks(builder.root))), builder.title


def _blocks(element: _Element) -> Iterator[str]:
    """The markdown blocks of ``element``'s children: runs of inline content become paragraphs."""
    run: list[str] = []
    for child in element.children:
        if isinstance(child, str) or child.tag not in _BLOCKS:
            run.append(_inline(child))
            continue
        if paragraph := _finish(run):
            yield paragraph
        run = []
        yield from _block(child)
    if paragraph := _finish(run):
        yield paragraph


def _block(element: _Element) -> Iterator[str]:
    tag = element.tag
    if tag in _HEADINGS:
        text = _finish([_inline(child) for child in element.children]).replace("\n", " ")
        if text:
            yield "#" * _HEADINGS[tag] + " " + text
    elif tag in ("ul", "ol"):
        if lines := _list_lines(element, 0):
            yield "\n".join(lines)
    elif tag == "pre":
        yield _fenced(element)
    elif tag == "blockquote":
        inner = "\n\n".join(_blocks(element))
        if inner:
            yield "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))
    elif tag == "table":
        if table := markdown_table(_table_rows(element)):
            yield table
    elif tag == "hr":
        yield "---"
    else:
        yield from _blocks(element)


def _finish(run: list[str]) -> str:
    """Inline pieces joined into one paragraph: whitespace collapsed, hard breaks kept."""
    text = _SPACES.sub(" ", "".join(run)).strip(" ")
    return text.replace(f" {_BREAK}", _BREAK).replace(f"{_BREAK} ", _BREAK).replace(_BREAK, "  \n")


def _inline(node: _Element | str) -> str:
    if isinstance(node, str):
        return node
    tag = node.tag
    if tag == "br":
        return _BREAK
    if tag == "img":
        return node.attributes.get("alt", "")
    inner = "".join(_inline(child) for child in node.children)
    if tag in ("strong", "b"):
        return _wrap(inner, "**")
    if tag in ("em", "i"):
        return _wrap(inner, "*")
    if tag in ("code", "tt", "kbd", "samp"):
        return _code_span(inner)
    if tag == "a":
        href = node.attributes.get("href", "").strip()
        text = _SPACES.sub(" ", inner).strip()
        if not href or href.lower().startswith(("javascript:", "data:")) or href.startswith("#"):
            return inner
        return f"[{text}]({href})" if text else f"<{href}>"
    if tag in _BLOCKS:  # a block inside inline content (a table cell's paragraph, say)
        return f" {inner} "
    return inner


def _wrap(inner: str, marker: str) -> str:
    """``inner`` between markers, its outer spaces outside them (``** x **`` is no emphasis)."""
    text = _SPACES.sub(" ", inner)
    core = text.strip(" ")
    if not core:
        return text
    lead = " " if text.startswith(" ") else ""
    trail = " " if text.endswith(" ") else ""
    return f"{lead}{marker}{core}{marker}{trail}"


def _code_span(inner: str) -> str:
    text = _SPACES.sub(" ", inner).strip(" ")
    if not text:
        return ""
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def _fenced(element: _Element) -> str:
    text = _raw_text(element).strip("\n")
    language = ""
    for child in element.children:
        if isinstance(child, _Element) and child.tag == "code":
            classes = child.attributes.get("class", "").split()
            language = next(
                (
                    name.removeprefix("language-")
                    for name in classes
                    if name.startswith("language-")
                ),
                "",
            )
    fence = "`" * max(3, max((len(run) + 1 for run in re.findall(r"`{3,}", text)), default=0))
    return f"{fence}{language}\n{text}\n{fence}"


def _raw_text(node: _Element | str) -> str:
    if isinstance(node, str):
        return node
    if node.tag == "br":
        return "\n"
    return "".join(_raw_text(child) for child in node.children)


def _list_lines(element: _Element, depth: int) -> list[str]:
    lines: list[str] = []
    number = _start(element)
    for item in element.children:
        if not isinstance(item, _Element) or item.tag != "li":
            continue
        text_parts: list[str] = []
        nested: list[str] = []
        for child in item.children:
            if isinstance(child, _Element) and child.tag in ("ul", "ol"):
                nested.extend(_list_lines(child, depth + 1))
            else:
                text_parts.append(_inline(child))
        marker = f"{number}." if element.tag == "ol" else "-"
        lines.append(f"{'  ' * depth}{marker} {_finish(text_parts).replace(chr(10), ' ')}".rstrip())
        lines.extend(nested)
        number += 1
    return lines


def _start(element: _Element) -> int:
    try:
        return int(element.attributes.get("start", "1"))
    except ValueError:
        return 1


def _table_rows(table: _Element) -> list[list[str]]:
    rows: list[list[str]] = []

    def visit(element: _Element) -> None:
        for child in element.children:
            if not isinstance(child, _Element) or child.tag == "table":
                continue  # a nested table is left out: markdown tables do not nest
            if child.tag == "tr":
                cells = [
                    table_cell(_finish([_inline(cell)]))
                    for cell in child.children
                    if isinstance(cell, _Element) and cell.tag in ("td", "th")
                ]
                if cells:
                    rows.append(cells)
            elif child.tag in ("thead", "tbody", "tfoot"):
                visit(child)

    visit(table)
    return rows
