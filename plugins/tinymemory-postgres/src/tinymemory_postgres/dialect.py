"""PostgreSQL's spelling of the retrieval kit's SQL: psycopg's ``%s``, ``= ANY``, ``starts_with``.

Times are ``timestamptz`` values; lists are sent as arrays.
"""

from __future__ import annotations

from typing import Any

from tinymemory.plugin import to_utc
from tinymemory.retrieval import Clause, Dialect


def _any_of(column: str, values: list[Any]) -> Clause:
    return Clause(f"{column} = ANY(%s)", (values,))


def _prefix(column: str, prefix: str) -> Clause:
    return Clause(f"starts_with({column}, %s)", (prefix,))


POSTGRES = Dialect(mark="%s", any_of=_any_of, prefix=_prefix, time=to_utc, true="true")
