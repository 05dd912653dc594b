"""How v1 values are read: the blank test, instants, confidences, lenient JSON, strict types.

v1 was written in Rust, and its importer's rules follow Rust: "blank" is
empty after ``str::trim`` (Unicode ``White_Space``), times are rounded half
away from zero, JSON that does not parse is simply absent, and a value stored
in the wrong SQLite storage class is a read failure rather than a guess.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime, timedelta
from typing import Any

from .errors import LegacyReadError

#: Unicode ``White_Space``: what Rust's ``str::trim`` removes. Python's
#: ``str.isspace`` also counts U+001C..U+001F, which Rust keeps.
WHITE_SPACE = frozenset(
    "\t\n\x0b\x0c\r \x85\xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000"
)
_TRIM = "".join(sorted(WHITE_SPACE))

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def rust_trim(text: str) -> str:
    """``text`` without leading and trailing Unicode white space, as Rust trims it."""
    return text.strip(_TRIM)


def is_blank(text: str) -> bool:
    """Whether ``text`` is empty once Rust-trimmed (U+00A0 and U+3000 count, U+200B does not)."""
    return not rust_trim(text)


def _finite(value: object) -> float | None:
    """``value`` as a finite float: ``None`` for a non-number, NaN, an infinity or a huge int."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:  # a JSON integer past the float range
        return None
    return number if math.isfinite(number) else None


def from_seconds(value: float | None) -> datetime | None:
    """Unix seconds to a UTC instant, rounded half away from zero to a microsecond.

    A non-number, NaN, infinities and instants outside years 1..9999 give
    ``None``. ``datetime.fromtimestamp`` would round half to even, hence the
    integer path.
    """
    seconds = _finite(value)
    if seconds is None:
        return None
    scaled = seconds * 1_000_000.0
    whole = math.floor(abs(scaled))
    if abs(scaled) - whole >= 0.5:
        whole += 1
    return _after_epoch(microseconds=whole if scaled >= 0 else -whole)


def from_milliseconds(milliseconds: int) -> datetime | None:
    """Unix milliseconds to a UTC instant, exactly; out of range gives ``None``."""
    return _after_epoch(microseconds=milliseconds * 1000)


def _after_epoch(*, microseconds: int) -> datetime | None:
    try:
        return _EPOCH + timedelta(microseconds=microseconds)
    except OverflowError:
        return None


def clamp_confidence(value: object) -> float:
    """A finite number clamped to 0..1; anything else (NULL, NaN, a string) is 0.5."""
    number = _finite(value)
    return 0.5 if number is None else min(1.0, max(0.0, number))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def lenient_json(text: str | None) -> Any:
    """The JSON value of ``text``, or ``None`` when it is absent or does not parse.

    ``NaN`` and ``Infinity`` are refused as Rust's serde_json refuses them.
    """
    if text is None:
        return None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than Python parses
        return None


def compact_json(value: Any) -> str:
    """``value`` as compact JSON with sorted keys and unescaped non-ASCII (serde_json's form)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)


def string_list(value: Any) -> list[str]:
    """The non-blank strings of a JSON array in order, duplicates kept; ``[]`` for other shapes."""
    if not isinstance(value, list):
        return []
    return [element for element in value if isinstance(element, str) and not is_blank(element)]


def nonblank_string(value: Any) -> str | None:
    """``value`` when it is a string that is not blank, else ``None``."""
    return value if isinstance(value, str) and not is_blank(value) else None


class RowReader:
    """Reads one row's columns with the storage class each must have (trap T8).

    Python's sqlite3 hands back whatever a column holds; the v1 importer
    fails on a TEXT column holding a BLOB or a REAL column holding text, so
    this does too, naming the table, the row and the column.
    """

    def __init__(self, table: str, row: dict[str, Any], key: str) -> None:
        self.table = table
        self.row = row
        self.key = key

    def _fail(self, column: str, wanted: str) -> LegacyReadError:
        value = self.row[column]
        shown = type(value).__name__ if value is not None else "null"
        return LegacyReadError(
            f"{self.table} row {self.key!r}: column {column} holds {shown}, not {wanted}"
        )

    def text(self, column: str) -> str:
        """A TEXT column that must hold text."""
        value = self.row[column]
        if not isinstance(value, str):
            raise self._fail(column, "text")
        return value

    def optional_text(self, column: str) -> str | None:
        """A nullable TEXT column, or one that may be absent from this schema."""
        value = self.row.get(column)
        if value is not None and not isinstance(value, str):
            raise self._fail(column, "text")
        return value

    def real(self, column: str) -> float:
        """A REAL column that must hold a number."""
        value = self.row[column]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self._fail(column, "a number")
        return float(value)

    def optional_real(self, column: str) -> float | None:
        """A nullable REAL column."""
        return None if self.row.get(column) is None else self.real(column)

    def integer(self, column: str) -> int:
        """An INTEGER column that must hold an integer."""
        value = self.row[column]
        if isinstance(value, bool) or not isinstance(value, int):
            raise self._fail(column, "an integer")
        return value
