"""SQL's keywords and names in another case: no engine call can tell them apart.

This backs the mutation run's survivors of the class "SQL keywords and names in
other case" (docs/conformance.md, "Judged by mutation testing"): every statement
the engine runs is rewritten in lower case, then in upper case, outside its quoted
literals and named parameters (whose case SQLite keeps), and the conformance
suite's fixed checks still pass. The schema's statements (``CREATE``, scripts) keep
their case: the schema is not mutated, and the names it creates are what
``sqlite_sequence`` records. A mutant that changes the case of a literal or a
parameter is not of this class; the suite kills those.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Self

import pytest

from tinymemory import MemoryEngine
from tinymemory.conformance import CHECKS, run
from tinymemory_sqlite import SqliteEngine

#: A quoted literal or name, or a named parameter: the parts of a statement left as written.
_KEPT = re.compile(r"""('(?:[^']|'')*'|"(?:[^"]|"")*"|[:@$][A-Za-z_][A-Za-z0-9_]*)""")


def recased(sql: str, change: Callable[[str], str]) -> str:
    """``sql`` with ``change`` applied outside its literals and named parameters."""
    if sql.lstrip().upper().startswith("CREATE"):
        return sql
    parts = _KEPT.split(sql)
    return "".join(part if index % 2 else change(part) for index, part in enumerate(parts))


def test_recased_keeps_literals_and_parameters() -> None:
    """The fixed case: keywords and names change, a literal and a parameter do not."""
    assert recased("CREATE TABLE items(id)", str.upper) == "CREATE TABLE items(id)"
    sql = "SELECT id FROM items WHERE kind = 'Note' AND node = :Node"
    assert recased(sql, str.upper) == "SELECT ID FROM ITEMS WHERE KIND = 'Note' AND NODE = :Node"
    assert recased(sql, str.lower) == "select id from items where kind = 'Note' and node = :Node"


def _connection_class(change: Callable[[str], str]) -> type[sqlite3.Connection]:
    class Cursor(sqlite3.Cursor):
        def execute(self, sql: str, *args: Any) -> Self:
            return super().execute(recased(sql, change), *args)

        def executemany(self, sql: str, rows: Iterable[Any]) -> Self:
            return super().executemany(recased(sql, change), rows)

    class Connection(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            return self.cursor(Cursor).execute(sql, *args)

        def executemany(self, sql: str, rows: Iterable[Any]) -> sqlite3.Cursor:
            return self.cursor(Cursor).executemany(sql, rows)

        def executescript(self, script: str) -> sqlite3.Cursor:
            return super().executescript(script)

    return Connection


@pytest.mark.parametrize("change", [str.lower, str.upper], ids=["lower", "upper"])
def test_sql_case_is_not_observable(
    change: Callable[[str], str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every fixed check passes with every statement in one case."""
    connect = sqlite3.connect
    connection_class = _connection_class(change)
    seen: list[str] = []

    def recasing_connect(*args: Any, **options: Any) -> sqlite3.Connection:
        seen.append("connected")
        return connect(*args, factory=connection_class, **options)

    monkeypatch.setattr(sqlite3, "connect", recasing_connect)
    numbers = iter(range(10**6))

    def factory() -> MemoryEngine:
        return SqliteEngine(tmp_path / f"memory-{next(numbers)}.db")

    report = run(factory, checks=[check.name for check in CHECKS if check.fixed])
    assert seen, "the engine opened no connection through sqlite3.connect"
    failed = [result for result in report.results if result.outcome.name == "FAILED"]
    assert not failed, failed
