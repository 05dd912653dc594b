"""The JSON-lines form of memory: what ``tinymemory export`` writes and ``import`` reads.

Each line of an export is one :class:`~tinymemory.Exported`, ``{"id": ...,
"item": {...}}``, written by :func:`export_line`. :func:`read_items` reads
such lines back, or lines holding one bare item each (tagged by ``"type"``),
strictly: each item is checked as ``store`` checks it, and a key its JSON
form does not have, a key given twice, text that is not UTF-8 or JSON (``NaN``
is no JSON number), or a line over :func:`max_line_bytes` is refused. Every line is read before any
is returned, so a caller stores all of them or none.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import attrs

from tinymemory._errors import InvalidRequest, TinyMemoryError
from tinymemory._items import StoreItem, validate_item
from tinymemory._limits import item_limits
from tinymemory._namespace import Namespace
from tinymemory._operations import Exported
from tinymemory._wire import from_data, strict_json, to_json, unknown_key

__all__ = ["BOM", "MAX_BAD_LINES", "export_line", "max_line_bytes", "read_items"]

#: How many bad lines :func:`read_items` names before it only counts the rest.
MAX_BAD_LINES = 20
#: The UTF-8 byte-order mark some editors put at the start of a file.
BOM = b"\xef\xbb\xbf"
#: Room on a line for the item's keys and its wrapping, beyond its strings.
_LINE_OVERHEAD = 64 * 1024
#: The most bytes one character of a string takes in JSON (``\u0001``).
_ESCAPED = 6


def max_line_bytes() -> int:
    """The longest line an item within the item limits can take: every string escaped.

    Six bytes for each byte of its strings (``max_item_bytes``) and 64 KiB for
    the rest; a longer line cannot hold an item ``store`` would take.
    """
    return _ESCAPED * item_limits().max_item_bytes + _LINE_OVERHEAD


def export_line(entry: Exported) -> str:
    """``entry`` as one line of an export (without the line end)."""
    return to_json(entry)


def read_items(
    lines: Iterable[bytes], at: Namespace | None = None
) -> tuple[list[StoreItem], list[str]]:
    """The items of JSON lines, each an ``Exported`` or a bare StoreItem, and notes on them.

    Blank lines are skipped and a UTF-8 byte-order mark is allowed. ``at``
    re-homes every item to that node. Bad lines are ``InvalidRequest`` naming
    each (up to :data:`MAX_BAD_LINES`) by number; an export line whose ``id``
    is not its item's fingerprint gets a note. Read lines with
    :func:`tinymemory.files.bounded_lines` and :func:`max_line_bytes`, so no
    line is held past what an item can take.
    """
    items: list[StoreItem] = []
    notes: list[str] = []
    problems: list[str] = []
    bad = 0
    for number, line in enumerate(lines, start=1):
        try:
            read = _read_line(line[3:] if number == 1 and line[:3] == BOM else line, at)
        except TinyMemoryError as error:
            bad += 1
            if len(problems) < MAX_BAD_LINES:
                problems.append(f"line {number}: {error.message}")
            continue
        if read is None:
            continue
        item, note = read
        items.append(item)
        if note is not None:
            notes.append(f"line {number}: {note}")
    if bad == 1:
        raise InvalidRequest(problems[0])
    if bad:
        more = [f"and {bad - len(problems)} more"] if bad > len(problems) else []
        listed = "\n".join([*problems, *more])
        raise InvalidRequest(f"{bad} lines are bad, so nothing was stored:\n{listed}")
    return items, notes


def _read_line(line: bytes, at: Namespace | None) -> tuple[StoreItem, str | None] | None:
    """The line's item (checked, re-homed) and a note on its exported id; ``None`` when blank."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidRequest("not UTF-8 text") from None
    if not text.strip():
        return None
    data = strict_json(text)
    # An export line wraps the item ({"id", "item"}); a bare item is tagged by "type".
    wrapped = isinstance(data, dict) and "item" in data and "type" not in data
    # StoreItem is a union, which mypy will not take as a type[T].
    cls = Exported if wrapped else cast("type[StoreItem]", StoreItem)
    unknown = unknown_key(data, cls)
    if unknown is not None:
        raise InvalidRequest(f"unknown key `{unknown}`")
    note = None
    if wrapped:
        exported = from_data(data, Exported)
        item = validate_item(exported.item)
        if exported.id != (own := item.fingerprint()):
            note = (
                f"id `{exported.id}` is not its item's fingerprint `{own}`; "
                "the item is stored under the id the engine gives it"
            )
    else:
        item = validate_item(from_data(data, cast("type[StoreItem]", StoreItem)))
    if at is not None:
        item = item.with_meta(attrs.evolve(item.meta, namespace=at))
    return item, note
