"""The blocks of a markdown-ish text: headings, prose, code lines and table rows.

What the extractive answer reads a passage as. Stored texts are markdown as
the document converters write it (DOCX, PPTX, XLSX, HTML), markdown as people
write it (hard-wrapped, nested lists, quotes, fenced code), plain text (PDF,
notes) or source code. :func:`text_blocks` reads them line by line, in one
pass, without a markdown library: the core depends on none, and a stored
piece is often a slice of a document that no parser would read whole (a
table or a code block cut in two).

- A heading is an ATX line (``# Title``, up to six ``#``) or a setext one
  (a paragraph underlined by ``===`` or ``---``).
- Code is a fenced block (three or more backticks or tildes, at any indent,
  closed by the same run or the text's end) or an indented block (four
  spaces or a tab, after a blank line, outside a list); each non-blank line
  is one block.
- A table row is a line of a run of lines holding ``|`` that has a delimiter
  row (``|---|:--:|``, pipes at the ends optional) or whose lines all start
  with ``|``; or a line of a run of two or more lines with tab-separated
  cells. The run's first line is its header when a delimiter row follows it
  (or, without pipes, always). Delimiter rows are dropped.
- Prose is every other run of lines, a paragraph or one list item, joined
  back into one line (hard wraps undone); quote marks (``>``), list markers
  (``-``, ``*``, ``+``, ``•``, ``1.``, ``1)``) and task boxes (``[x]``) are
  dropped and inline markdown is reduced to its text: emphasis, strike-through,
  code spans, links and images (their text), autolinks, HTML tags, escapes
  and footnote references.
- A paragraph's line that starts with a capital or a digit, ends in no
  punctuation, is followed by a capital, and could have held the next
  line's first word within the paragraph's longest line is a title set on a
  line of its own (a PDF's or a note's heading): a heading, never glued to
  the sentence after it (a hard wrap ends a line only where the next word
  does not fit).
- Thematic breaks (``---``, ``***``, ``___``) and blank lines separate blocks.
"""

from __future__ import annotations

import enum
import re

import attrs

__all__ = ["BlockKind", "TextBlock", "inline_text", "text_blocks"]


def _title_line(line: str, following: str, width: int) -> bool:
    """Whether ``line``, followed in its paragraph by ``following``, is a title set on a
    line of its own (a PDF's or a plain note's heading): it starts with a capital or a
    digit and ends in no punctuation, the next line starts with a capital, and that
    line's first word would have fit on it within ``width`` (the paragraph's longest
    line of more than one word). A hard-wrapped line ends where the next word does
    not fit, so none is taken for a title."""
    line, following = line.strip(), following.strip()
    if not line or not following or not following[0].isupper():
        return False
    if not (line[0].isupper() or line[0].isdigit()) or not line[-1].isalnum():
        return False
    return len(line) + 1 + len(following.split()[0]) <= width


class BlockKind(enum.Enum):
    """What a block of text is."""

    HEADING = "heading"
    PROSE = "prose"
    CODE = "code"
    TABLE_ROW = "table_row"


@attrs.frozen
class TextBlock:
    """One block: its kind and text (for a table row, its cells joined by `` | ``)."""

    kind: BlockKind
    text: str
    #: A table row's header cells, joined as the row is; empty for everything else.
    header: str = ""


_QUOTE = re.compile(r" {0,3}>(?!=) ?")
_FENCE = re.compile(r"(`{3,}|~{3,})")
_ATX = re.compile(r"#{1,6}(?:[ \t]|$)")
_ATX_CLOSE = re.compile(r"(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"(?:=+|-+)[ \t]*$")
_BREAK = re.compile(r"(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_ITEM = re.compile(r"(?:[-*+•]|\d{1,9}[.)])(?:[ \t]+|$)")
_TASK = re.compile(r"\[[ xX]\][ \t]+")
_DELIMITER_ROW = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_TAB_CELLS = re.compile(r"\S\t+\S")
_INDENTED = 4

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]^][^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_AUTOLINK = re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_FOOTNOTE = re.compile(r"\[\^[^\]]+\]")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS_STAR = re.compile(r"\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*")
_EMPHASIS_UNDERSCORE = re.compile(r"(?<![^\W_])_(?=[^\s_])([^_]+?)(?<=[^\s_])_(?![^\W_])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_SET_ASIDE = 0xE000
_PUT_BACK = {_SET_ASIDE + code: code for code in range(0x21, 0x7F)}


def inline_text(markdown: str) -> str:
    """One line of markdown reduced to its text, whitespace runs made one space.

    Code spans keep their content as written (no emphasis is read inside them).
    """
    if "`" not in markdown:
        return " ".join(_reduce(markdown).split())
    parts: list[str] = []
    start = 0
    for span in _CODE_SPAN.finditer(markdown):
        parts.append(_reduce(markdown[start : span.start()]))
        parts.append(span.group(2).strip())
        start = span.end()
    parts.append(_reduce(markdown[start:]))
    return " ".join("".join(parts).split())


def _reduce(text: str) -> str:
    # Each rule runs only when its mark is there: most prose has none of them.
    # Escaped marks are set aside first (as private-use characters), so no rule reads them.
    escaped = "\\" in text
    if escaped:
        text = _ESCAPE.sub(lambda found: chr(_SET_ASIDE + ord(found.group(1))), text)
    if "[" in text:
        text = _IMAGE.sub(r"\1", text)
        text = _LINK.sub(r"\1", text)
        text = _FOOTNOTE.sub("", text)
    if "<" in text:
        text = _AUTOLINK.sub(r"\1", text)
        text = _TAG.sub(" ", text)
    if "*" in text or "_" in text:
        text = _STRONG.sub(r"\2", text)
        text = _EMPHASIS_STAR.sub(r"\1", text)
        text = _EMPHASIS_UNDERSCORE.sub(r"\1", text)
    if "~" in text:
        text = _STRIKE.sub(r"\1", text)
    return text.translate(_PUT_BACK) if escaped else text


def text_blocks(text: str) -> list[TextBlock]:
    """The blocks of ``text``, in order (see the module docstring)."""
    return _Reader(text.splitlines()).blocks


def _cells(line: str) -> list[str]:
    line = line.strip()
    if "|" in line:
        line = line.removeprefix("|")
        if line.endswith("|") and not line.endswith("\\|"):
            line = line[:-1]
        parts = _CELL_SPLIT.split(line)
    else:
        parts = line.split("\t")
    return [inline_text(part.replace("\\|", "|")) for part in parts]


def _table_at(lines: list[str], index: int) -> list[tuple[int, str]]:
    """The table rows of the table starting at ``lines[index]`` (none if no table starts
    there): each row's index and its header's text (empty for the header itself)."""
    end = index
    while end < len(lines) and "|" in lines[end] and lines[end].strip():
        end += 1
    if end > index:
        run = [line.strip() for line in lines[index:end]]
        delimiters = {offset for offset, line in enumerate(run) if _DELIMITER_ROW.fullmatch(line)}
        piped = all(line.startswith("|") for line in run) and (len(run) > 1 or run[0].endswith("|"))
        if delimiters or piped:
            header = " | ".join(_cells(run[0])) if 1 in delimiters else ""
            return [
                (index + offset, "" if offset == 0 else header)
                for offset in range(len(run))
                if offset not in delimiters
            ]
        return []
    while end < len(lines) and _TAB_CELLS.search(lines[end]):
        end += 1
    if end - index < 2:
        return []
    header = " | ".join(_cells(lines[index]))
    return [(row, "" if row == index else header) for row in range(index, end)]


class _Reader:
    """One pass over the lines, gathering blocks."""

    def __init__(self, lines: list[str]) -> None:
        self.blocks: list[TextBlock] = []
        self._paragraph: list[str] = []
        self._item = False  # the paragraph being gathered is a list item
        self._item_offset = 0  # where its text starts, past the marker
        self._item_ordered = False  # whether its marker is a number
        self._in_list = False  # a list item came since the last top-level paragraph
        self._fence: str | None = None
        self._indented_code = False
        quoted = [self._unquote(line) for line in lines]
        # Code lines are read as written, unless the code itself opened inside a quote.
        self._code_quoted = False
        after_blank = True
        index = 0
        while index < len(quoted):
            raw = lines[index].expandtabs(_INDENTED)
            in_code = self._fence is not None or (
                self._indented_code and (not raw.strip() or raw.startswith(" " * _INDENTED))
            )
            if in_code and not self._code_quoted:
                after_blank = self._line(raw, after_blank)
                index += 1
                continue
            if not in_code:
                self._code_quoted = quoted[index] != lines[index]
            rows = self._table(quoted, index)
            for row, header in rows:
                cells = " | ".join(_cells(quoted[row]))
                if any(char.isalnum() for char in cells):
                    self.blocks.append(TextBlock(BlockKind.TABLE_ROW, cells, header))
            if rows:
                index = rows[-1][0] + 1
                after_blank = False
                continue
            after_blank = self._line(quoted[index], after_blank)
            index += 1
        self._flush()

    def _table(self, lines: list[str], index: int) -> list[tuple[int, str]]:
        """The rows of a table starting at ``index`` outside code, the paragraph flushed."""
        line = lines[index]
        if self._fence is not None or ("|" not in line and "\t" not in line):
            return []
        if not self._in_list and len(line) - len(line.lstrip()) >= _INDENTED:
            return []  # code, or a paragraph's continuation
        rows = _table_at(lines, index)
        if rows:
            self._flush()
            self._in_list = self._in_list and line[:1].isspace()
        return rows

    @staticmethod
    def _unquote(line: str) -> str:
        if ">" in line:
            while quote := _QUOTE.match(line):
                line = line[quote.end() :]
        if "\t" not in line or _TAB_CELLS.search(line):
            return line
        return line.expandtabs(_INDENTED)

    def _line(self, line: str, after_blank: bool) -> bool:
        """Reads one line; whether it was blank."""
        content = line.strip()
        indent = len(line) - len(line.lstrip())
        if self._fence is not None:
            if content.startswith(self._fence) and not content.strip(self._fence[0]):
                self._fence = None
            elif content:
                self.blocks.append(TextBlock(BlockKind.CODE, content))
            return False
        if not content:
            self._flush()
            return True
        if self._indented_code and indent >= _INDENTED:
            self.blocks.append(TextBlock(BlockKind.CODE, content))
            return False
        self._indented_code = False
        fence = _FENCE.match(content)
        if fence and not (fence.group(1)[0] == "`" and "`" in content[fence.end() :]):
            self._flush()
            self._fence = fence.group(1)
            self._in_list = self._in_list and indent > 0
            return False
        if indent >= _INDENTED and after_blank and not self._in_list:
            self._flush()
            self._indented_code = True
            self.blocks.append(TextBlock(BlockKind.CODE, content))
            return False
        if _ATX.match(content) and indent < _INDENTED:
            self._flush()
            title = inline_text(_ATX_CLOSE.sub("", content.lstrip("#")))
            if title:
                self.blocks.append(TextBlock(BlockKind.HEADING, title))
            self._in_list = False
            return False
        if _SETEXT.match(content) and self._paragraph and not self._item and indent < _INDENTED:
            title = inline_text(" ".join(self._paragraph))
            self._paragraph = []
            if title:
                self.blocks.append(TextBlock(BlockKind.HEADING, title))
            return False
        if _BREAK.match(content):
            self._flush()
            self._in_list = self._in_list and indent > 0
            return False
        item = _ITEM.match(content)
        if item and self._starts_item(content, item.end(), indent):
            self._flush()
            rest = content[item.end() :]
            if task := _TASK.match(rest):
                rest = rest[task.end() :]
            self._paragraph = [rest]
            self._item = self._in_list = True
            self._item_offset = indent + item.end()
            self._item_ordered = content[0].isdigit()
            return False
        if after_blank and indent == 0:
            self._flush()
            self._in_list = False
        self._paragraph.append(content)
        return False

    def _starts_item(self, content: str, end: int, indent: int) -> bool:
        """Whether a line with an item marker starts an item: within a paragraph (a list
        item's when the line is indented to the item's text) only a non-empty item
        does, and a numbered one only from ``1`` (as CommonMark has it: a wrapped line
        starting ``2026.`` goes on the paragraph)."""
        marker = content[:end].strip()
        ordered = marker[0].isdigit()
        if not self._paragraph:
            return True
        if self._item and indent < self._item_offset and ordered == self._item_ordered:
            return True  # the next item of the same list
        return end < len(content) and (not ordered or marker[:-1] == "1")

    def _flush(self) -> None:
        lines: list[str] = []
        # One long word (a URL) may overrun a wrap: the width is the longest line of words.
        width = max(
            (len(line.strip()) for line in self._paragraph if " " in line.strip()), default=0
        )
        for index, line in enumerate(self._paragraph):
            following = self._paragraph[index + 1] if index + 1 < len(self._paragraph) else ""
            if not self._item and _title_line(line, following, width):
                self._add_prose(lines)
                lines = []
                self.blocks.append(TextBlock(BlockKind.HEADING, inline_text(line).strip()))
            else:
                lines.append(line)
        self._add_prose(lines)
        self._paragraph = []
        self._item = False

    def _add_prose(self, lines: list[str]) -> None:
        text = inline_text(" ".join(lines))
        if any(char.isalnum() for char in text):
            self.blocks.append(TextBlock(BlockKind.PROSE, text))
