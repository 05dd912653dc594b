"""Secrets a record names by its structure, not next to the value: tables, manifests, encodings.

- **A table's column.** A CSV or TSV export (a cloud console's credentials
  file, a password manager's export) holds the secret in a cell with no
  keyword beside it; the header names it. Of a header line whose cells one
  of which names a secret (``Secret access key``, ``Client secret value``,
  ``Passphrase``, ``API token``: the rule of
  :func:`tinymemory_safety.assignments.is_secret_key`), every following row
  with as many cells has that cell redacted.
- **A Kubernetes Secret's data.** In a manifest of ``kind: Secret``, every
  value under ``data:`` (base64) and ``stringData:`` is a secret by the
  manifest's own word, whatever its key is called. A ``ConfigMap``'s are not.
- **Basic credentials, base64-encoded.** A base64 run that decodes to
  ``user:password`` (the form HTTP Basic, proxies and registries carry) or
  to a URL with a password in it is redacted wherever it travels.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator

from tinymemory_safety.assignments import is_secret_key, is_value
from tinymemory_safety.credentials import REDACTED, SHAPE_PASS, Scan, credential_like
from tinymemory_safety.hits import Hit

#: The separators a table is written with, most specific first.
_SEPARATORS = ("\t", ";", "|", ",")
#: A cell: quoted (``""`` inside is a quote) or a run up to the separator.
_CELLS = {
    sep: re.compile(f'(?a)[ ]*+(?:"((?:[^"\\n]|"")*+)"|([^{re.escape(sep)}\\n"]*+))[ ]*+')
    for sep in _SEPARATORS
}
#: Words a header cell naming a secret holds (a cheap look before the header is parsed).
_HEADER_WORDS = re.compile(
    r"(?a)password|passwd|passphrase|passcode|secret|token|key|credential|pwd|pin\b"
)


def _cells(line: str, offset: int, sep: str) -> list[tuple[int, int]] | None:
    """The spans of a line's cells (a quoted cell's inside), or None if it is not a row.

    A Markdown table's row opens and closes with its separator: those are not cells.
    """
    if sep == "|" and line.strip().startswith("|") and line.strip().endswith("|"):
        lead = line.index("|") + 1
        offset, line = offset + lead, line[lead : line.rindex("|")]
    spans = []
    at = 0
    cell = _CELLS[sep]
    while True:
        found = cell.match(line, at)
        if found is None:  # pragma: no cover - the pattern matches the empty cell
            return None
        group = 1 if found.group(1) is not None else 2
        start, end = found.span(group)
        while end > start and line[end - 1] == " ":
            end -= 1  # an unquoted cell's padding is not its value
        spans.append((offset + start, offset + end))
        at = found.end()
        if at >= len(line):
            return spans
        if line[at] != sep:
            return None  # a quote inside an unquoted cell: not a table row
        at += 1


#: The rule under a Markdown table's header: ``---``, ``:---:``.
_RULE = re.compile(r"[ :-]*-[ :-]*")
#: A header names its columns in a few words each, with no sentence punctuation.
_HEADER_CELL = re.compile(r"(?a)[^.!?:]{1,40}")
_HEADER_WORDS_MAX = 5
#: A header line is short: a line longer than this is prose, not a table's head.
_HEADER_LINE = 512


def _header(text: str, cells: list[tuple[int, int]]) -> bool:
    """Whether the cells read as column names: short, few words, no sentence punctuation."""
    for start, end in cells:
        name = text[start:end]
        if not _HEADER_CELL.fullmatch(name) or len(name.split()) > _HEADER_WORDS_MAX:
            return False
    return True


def table_columns(scan: Scan) -> Iterator[Hit]:
    """The cells under a header cell that names a secret, in every row of the table."""
    text = scan.text
    if "\n" not in text:
        return
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for index, line in enumerate(lines[:-1]):
        if len(line) > _HEADER_LINE:
            continue
        lower = scan.lower[offsets[index] : offsets[index] + len(line)]
        # An English header word, or a line whose separators the next line repeats (a
        # header of any language: its words are looked up once it parses as one).
        english = _HEADER_WORDS.search(lower) is not None
        for sep in _SEPARATORS:
            if sep not in line:
                continue
            if not english and line.count(sep) != lines[index + 1].count(sep):
                continue
            if index and lines[index - 1].count(sep) == line.count(sep):
                continue  # under a row (a Markdown rule, a row): a table's head is its first
            header = _cells(line, offsets[index], sep)
            if header is None or len(header) < 2 or not _header(text, header):
                continue
            secret = [
                column for column, span in enumerate(header) if is_secret_key(text[slice(*span)])
            ]
            if secret:
                yield from _column_cells(scan, lines, offsets, index + 1, sep, len(header), secret)
            break


def _column_cells(
    scan: Scan,
    lines: list[str],
    offsets: list[int],
    first: int,
    sep: str,
    width: int,
    columns: list[int],
) -> Iterator[Hit]:
    """The secret columns' cells of the rows from ``first`` until the table ends."""
    for row_index in range(first, len(lines)):
        row = _cells(lines[row_index], offsets[row_index], sep)
        if row is None or len(row) != width:
            return
        if row_index == first and all(_RULE.fullmatch(scan.text[slice(*cell)]) for cell in row):
            continue  # a Markdown table's rule under its header
        for column in columns:
            start, end = row[column]
            if " " in scan.text[start:end]:
                continue  # a secret is one word; a cell of words is a note
            if (
                end > start
                and is_value(scan.text, start, end)
                and credential_like(scan.text[start:end], relaxed=True)
            ):
                yield Hit(start, end, REDACTED, "table_column", (SHAPE_PASS, 104))


#: ``kind: Secret`` as a manifest's own line (YAML), any indent.
_SECRET_KIND = re.compile(r"(?am)^[ \t]*kind:[ \t]*[\"']?Secret[\"']?[ \t]*$")
_DOCUMENT_BREAK = re.compile(r"(?m)^---")
_DATA_BLOCK = re.compile(r"(?am)^([ \t]*)(?:data|stringData):[ \t]*\n")
_DATA_ENTRY = re.compile(r"(?a)([ \t]++)[\"']?[\w.-]{1,253}+[\"']?:[ \t]*+([^\s#][^\n]{0,8191}+)?")


def kubernetes_secrets(scan: Scan) -> Iterator[Hit]:
    """Every value under ``data:`` / ``stringData:`` of a ``kind: Secret`` manifest."""
    text = scan.text
    if "kind" not in text or "Secret" not in text:
        return
    for kind in _SECRET_KIND.finditer(text):
        starts = [found.end() for found in _DOCUMENT_BREAK.finditer(text, 0, kind.start())]
        begin = starts[-1] if starts else 0
        found_break = _DOCUMENT_BREAK.search(text, kind.end())
        end = found_break.start() if found_break else len(text)
        for block in _DATA_BLOCK.finditer(text, begin, end):
            yield from _data_values(scan, block.end(), end, len(block.group(1)))


def _data_values(scan: Scan, at: int, end: int, indent: int) -> Iterator[Hit]:
    text = scan.text
    while at < end:
        entry = _DATA_ENTRY.match(text, at, end)
        if entry is None or len(entry.group(1)) <= indent:
            return
        if entry.group(2) is not None:
            start, stop = entry.span(2)
            value = text[start:stop].rstrip()
            if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) >= 2:
                start, value = start + 1, value[1:-1]
            if (
                value
                and value not in {"|", ">", "|-", ">-"}
                and is_value(text, start, start + len(value))
            ):
                yield Hit(
                    start, start + len(value), REDACTED, "kubernetes_secret", (SHAPE_PASS, 105)
                )
        newline = text.find("\n", entry.end())
        if newline < 0:
            return
        at = newline + 1


#: A base64 run long enough to hold ``u:pass`` (8 bytes, 12 characters), padded to fours.
_BASE64 = re.compile(r"(?a)[A-Za-z0-9+/]{12,684}+={0,2}")
_USERINFO = re.compile(r"(?a)[\w.@+-]{1,64}:(?!//)[!-~]{4,256}")
#: A URL with a password in it (``postgres://app:pw@db``), the other form Basic travels in.
_URL_USERINFO = re.compile(r"(?a)[A-Za-z][\w+.-]{0,30}://[^/\s:@]{1,64}:([^/\s@]{1,256})@")


def basic_credentials(scan: Scan) -> Iterator[Hit]:
    """Base64, anywhere, of ``user:password`` or of a URL holding one (long words only)."""
    text = scan.text
    for start, end in scan.long_words():
        for found in _BASE64.finditer(text, start, end):
            if _userinfo_base64(scan, found):
                yield Hit(*found.span(), REDACTED, "basic_credentials", (SHAPE_PASS, 106))


def _userinfo_base64(scan: Scan, found: re.Match[str]) -> bool:
    """Whether a base64 run is a whole word that decodes to credentials."""
    run = found.group()
    if len(run) % 4 or not scan.starts_word(found.start()) or not scan.ends_word(found.end()):
        return False
    if run.islower() or run.isupper() or run.isalpha():
        return False  # a word or a constant, not base64 of mixed text
    try:
        decoded = base64.b64decode(run, validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return False
    if _USERINFO.fullmatch(decoded):
        return credential_like(decoded.split(":", 1)[1], relaxed=True)
    url = _URL_USERINFO.search(decoded)
    return url is not None and credential_like(url.group(1), relaxed=True)
