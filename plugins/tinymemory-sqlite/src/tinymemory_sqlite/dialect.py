"""SQLite's spelling of the retrieval kit's SQL: ``?`` marks, ``IN`` lists, ``substr`` prefixes.

Times are kept as fixed-width UTC text, so text order is time order.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tinymemory.plugin import to_utc
from tinymemory.retrieval import Clause, Dialect


def sortable_time(value: datetime) -> str:
    """A UTC time as fixed-width text, so text order is time order (``items.observed_at``)."""
    value = to_utc(value)
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:"
        f"{value.minute:02d}:{value.second:02d}.{value.microsecond:06d}Z"
    )


def _any_of(column: str, values: list[Any]) -> Clause:
    return Clause(f"{column} IN ({', '.join('?' * len(values))})", tuple(values))


def _prefix(column: str, prefix: str) -> Clause:
    return Clause(f"substr({column}, 1, ?) = ?", (len(prefix), prefix))


SQLITE = Dialect(mark="?", any_of=_any_of, prefix=_prefix, time=sortable_time, true="1")
