"""Filters and reaches as SQL: a ``WHERE`` clause over ``items AS i`` and its parameters.

Each clause says in SQL what :meth:`tinymemory.MetaFilter.matches` and
:meth:`tinymemory.Reach.admits` say in Python; the conformance suite holds
the two to the same answers. Parameters are psycopg's ``%s``, never text
written into the statement.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from tinymemory import ItemKind, MetaFilter, Namespace, Reach, SegmentKind
from tinymemory.plugin import to_utc

#: The columns of ``items`` matched by equality, by filter field.
_EXACT = (
    ("workspace", "workspace"),
    ("language", "language"),
    ("repo", "repo"),
    ("commit", "commit_ref"),
    ("url", "url"),
    ("thread_id", "thread_id"),
    ("agent_id", "agent_id"),
    ("tool_call", "tool_call"),
    ("source_id", "source_id"),
)


@attrs.frozen
class Clause:
    """SQL text and its parameters, in order."""

    sql: str
    params: tuple[Any, ...] = ()

    def __and__(self, other: Clause) -> Clause:
        return Clause(f"({self.sql}) AND ({other.sql})", self.params + other.params)


def last_service(namespace: Namespace) -> int:
    """The index of the node's deepest ``service:`` segment, or -1 when it has none."""
    found = -1
    for index, segment in enumerate(namespace.segments):
        if segment.kind is SegmentKind.SERVICE:
            found = index
    return found


def turns_text(first: int, last: int) -> str:
    """How a turn range is kept in ``items.turns``."""
    return f"{first}:{last}"


def reach_clause(reach: Reach | None) -> Clause:
    """The nodes ``reach`` admits, as a test of ``i.node`` (no reach reads as subtree(root))."""
    reach = reach or Reach.subtree(Namespace.ROOT)
    tests = ["path = ANY(%s)"]
    params: list[Any] = [[str(node) for node in reach.nodes()]]
    if reach.descendants:
        # Below `at`, outside any service: sandbox that starts below `at`.
        prefix = "" if reach.at.is_root else str(reach.at) + "/"
        tests.append("(depth > %s AND starts_with(path, %s) AND last_service < %s)")
        params += [reach.at.depth, prefix, reach.at.depth]
    return Clause(f"i.node IN (SELECT id FROM nodes WHERE {' OR '.join(tests)})", tuple(params))


def erase_clause(at: Namespace, descendants: bool) -> Clause:
    """The nodes an erase at ``at`` reaches: ``at``, and with ``descendants`` all below it."""
    if not descendants:
        return Clause("i.node IN (SELECT id FROM nodes WHERE path = %s)", (str(at),))
    if at.is_root:
        return Clause("true")
    return Clause(
        "i.node IN (SELECT id FROM nodes WHERE path = %s OR starts_with(path, %s))",
        (str(at), str(at) + "/"),
    )


def kinds_clause(kinds: Iterable[ItemKind]) -> Clause:
    """Items of one of ``kinds``."""
    return Clause("i.kind = ANY(%s)", ([kind.value for kind in kinds],))


def filter_clause(filter: MetaFilter) -> Clause:
    """Every field of ``filter`` as one clause over ``items AS i``."""
    clause = reach_clause(filter.reach)
    if filter.kinds:
        clause &= kinds_clause(filter.kinds)
    if filter.sources:
        clause &= Clause("i.source_kind = ANY(%s)", ([source.value for source in filter.sources],))
    for field, column in _EXACT:
        wanted = getattr(filter, field)
        if wanted is not None:
            clause &= Clause(f"i.{column} = %s", (wanted,))
    if filter.turns is not None:
        clause &= Clause("i.turns = %s", (turns_text(filter.turns.first, filter.turns.last),))
    if filter.folder is not None:
        clause &= _path_clause("i.folder", filter.folder)
    if filter.file_path is not None:
        clause &= _path_clause("i.file_path", filter.file_path)
    if filter.tags_any:
        clause &= Clause(
            "EXISTS (SELECT 1 FROM item_tags t WHERE t.item = i.seq AND t.tag = ANY(%s))",
            (list(dict.fromkeys(filter.tags_any)),),
        )
    if filter.observed_after is not None:
        clause &= Clause("i.observed_at >= %s", (to_utc(filter.observed_after),))
    if filter.observed_before is not None:
        clause &= Clause("i.observed_at < %s", (to_utc(filter.observed_before),))
    return clause


def _path_clause(column: str, wanted: str) -> Clause:
    """Equal, or below ``wanted`` on a ``/`` boundary (a trailing ``/`` is ignored)."""
    prefix = wanted.rstrip("/") or wanted
    below = prefix if prefix.endswith("/") else prefix + "/"
    return Clause(f"({column} IN (%s, %s) OR starts_with({column}, %s))", (prefix, wanted, below))
