"""SQL's keywords and names in another case: no engine call can tell them apart (PostgreSQL).

This backs the mutation run's postgres survivors of the class "SQL keywords and
names in other case" (docs/conformance.md, "Judged by mutation testing"): every
statement the engine sends as text is rewritten in lower case, then in upper
case, outside its quoted literals and names and its placeholders (``%s``,
``%b``, ``%t``, whose case psycopg reads), and the conformance suite's fixed
checks still pass on the throwaway cluster. PostgreSQL folds unquoted keywords
and names alike. Statements built with ``psycopg.sql`` (the schema's, the
search path, the write lock) are sent as they are: they are not mutated as
strings. A mutant that changes the case of a literal or a placeholder is not of
this class; the suite kills those.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from tinymemory import EngineCredential, EngineSettings, MemoryEngine
from tinymemory.conformance import CHECKS, run
from tinymemory_postgres.cluster import ThrowawayCluster
from tinymemory_postgres.plugin import build

#: A quoted literal or name, or a placeholder: the parts of a statement left as written.
_KEPT = re.compile(
    r"""('(?:[^']|'')*'|"(?:[^"]|"")*"|%[sbt]|%\([A-Za-z_][A-Za-z0-9_]*\)[sbt]|%%)"""
)


def recased(sql: str, change: Callable[[str], str]) -> str:
    """``sql`` with ``change`` applied outside its literals, quoted names and placeholders."""
    parts = _KEPT.split(sql)
    return "".join(part if index % 2 else change(part) for index, part in enumerate(parts))


def test_recased_keeps_literals_names_and_placeholders() -> None:
    """The fixed case, and its decoys: a literal, a quoted name and placeholders keep their case."""
    sql = "SELECT id FROM items WHERE kind = 'Note' AND \"Tag\" = %s AND x = ANY(%b::text[])"
    assert recased(sql, str.upper) == (
        "SELECT ID FROM ITEMS WHERE KIND = 'Note' AND \"Tag\" = %s AND X = ANY(%b::TEXT[])"
    )
    assert recased(sql, str.lower) == (
        "select id from items where kind = 'Note' and \"Tag\" = %s and x = any(%b::text[])"
    )
    assert recased("to_tsvector('simple', u.text)", str.upper) == "TO_TSVECTOR('simple', U.TEXT)"


@pytest.mark.parametrize("change", [str.lower, str.upper], ids=["lower", "upper"])
def test_sql_case_is_not_observable(
    change: Callable[[str], str], cluster: ThrowawayCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every fixed check passes with every text statement in one case."""
    execute = psycopg.Cursor.execute
    seen: list[str] = []

    def recasing_execute(self: psycopg.Cursor[Any], query: Any, *args: Any, **options: Any) -> Any:
        if isinstance(query, str):
            seen.append(query)
            query = recased(query, change)
        return execute(self, query, *args, **options)

    monkeypatch.setattr(psycopg.Cursor, "execute", recasing_execute)
    numbers = iter(range(10**6))

    def factory() -> MemoryEngine:
        options = {"conninfo": cluster.socket_conninfo, "schema": f"case_{next(numbers)}"}
        return build(EngineSettings(options=options), EngineCredential())

    report = run(factory, checks=[check.name for check in CHECKS if check.fixed])
    assert any("SELECT" in query for query in seen), "no statement went through Cursor.execute"
    failed = [result for result in report.results if result.outcome.name == "FAILED"]
    assert not failed, failed
