"""Filters and reaches as SQL: a ``WHERE`` clause over ``items AS i`` and its parameters.

Each clause here says in SQL what :meth:`tinymemory.MetaFilter.matches` and
:meth:`tinymemory.Reach.admits` say in Python; the conformance suite holds
the two to the same answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
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


@attrs.frozen
class Scope:
    """What a ranked read admits: the items ``clause`` admits, stored up to ``bound``.

    ``sizes`` is the same test over ``node_sizes AS i``, when the filter's
    reach and kinds alone decide (``None`` otherwise).
    """

    clause: Clause
    bound: int
    sizes: Clause | None

    @classmethod
    def of(cls, filter: MetaFilter, bound: int) -> Scope:
        """The scope of a read with ``filter`` up to ``bound``."""
        sizes = None
        if attrs.evolve(filter, reach=None, kinds=()).is_empty():
            sizes = reach_clause(filter.reach)
            if filter.kinds:
                sizes = sizes & kinds_clause(filter.kinds)
        return cls(filter_clause(filter), bound, sizes)


def node_path(namespace: Namespace) -> str:
    """How a node is written in ``nodes.path``: its written form (``root`` for the root)."""
    return str(namespace)


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


def sortable_time(value: datetime) -> str:
    """A UTC time as fixed-width text, so text order is time order (``items.observed_at``)."""
    value = to_utc(value)
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d}T{value.hour:02d}:"
        f"{value.minute:02d}:{value.second:02d}.{value.microsecond:06d}Z"
    )


def reach_clause(reach: Reach | None) -> Clause:
    """The nodes ``reach`` admits, as a test of ``i.node`` (no reach reads as subtree(root))."""
    reach = reach or Reach.subtree(Namespace.ROOT)
    nodes = [node_path(node) for node in reach.nodes()]
    tests = [f"path IN ({_marks(nodes)})"]
    params: list[Any] = list(nodes)
    if reach.descendants:
        # Below `at`, outside any service: sandbox that starts below `at`.
        prefix = "" if reach.at.is_root else node_path(reach.at) + "/"
        tests.append("(depth > ? AND substr(path, 1, ?) = ? AND last_service < ?)")
        params += [reach.at.depth, len(prefix), prefix, reach.at.depth]
    return Clause(f"i.node IN (SELECT id FROM nodes WHERE {' OR '.join(tests)})", tuple(params))


def erase_clause(at: Namespace, descendants: bool) -> Clause:
    """The nodes an erase at ``at`` reaches: ``at``, and with ``descendants`` all below it."""
    path = node_path(at)
    if not descendants:
        return Clause("i.node IN (SELECT id FROM nodes WHERE path = ?)", (path,))
    if at.is_root:
        return Clause("1")
    prefix = path + "/"
    return Clause(
        "i.node IN (SELECT id FROM nodes WHERE path = ? OR substr(path, 1, ?) = ?)",
        (path, len(prefix), prefix),
    )


def kinds_clause(kinds: Iterable[ItemKind]) -> Clause:
    """Items of one of ``kinds``."""
    values = [kind.value for kind in kinds]
    return Clause(f"i.kind IN ({_marks(values)})", tuple(values))


def filter_clause(filter: MetaFilter) -> Clause:
    """Every field of ``filter`` as one clause over ``items AS i``."""
    parts = [reach_clause(filter.reach)]
    if filter.kinds:
        parts.append(kinds_clause(filter.kinds))
    if filter.sources:
        sources = [source.value for source in filter.sources]
        parts.append(Clause(f"i.source_kind IN ({_marks(sources)})", tuple(sources)))
    for field, column in _EXACT:
        wanted = getattr(filter, field)
        if wanted is not None:
            parts.append(Clause(f"i.{column} = ?", (wanted,)))
    if filter.turns is not None:
        parts.append(Clause("i.turns = ?", (turns_text(filter.turns.first, filter.turns.last),)))
    if filter.folder is not None:
        parts.append(_path_clause("i.folder", filter.folder))
    if filter.file_path is not None:
        parts.append(_path_clause("i.file_path", filter.file_path))
    if filter.tags_any:
        tags = list(dict.fromkeys(filter.tags_any))
        parts.append(
            Clause(
                f"EXISTS (SELECT 1 FROM item_tags t WHERE t.item = i.seq AND t.tag IN "
                f"({_marks(tags)}))",
                tuple(tags),
            )
        )
    if filter.observed_after is not None:
        parts.append(Clause("i.observed_at >= ?", (sortable_time(filter.observed_after),)))
    if filter.observed_before is not None:
        parts.append(Clause("i.observed_at < ?", (sortable_time(filter.observed_before),)))
    clause = parts[0]
    for part in parts[1:]:
        clause = clause & part
    return clause


def _path_clause(column: str, wanted: str) -> Clause:
    """Equal, or below ``wanted`` on a ``/`` boundary (a trailing ``/`` is ignored)."""
    prefix = wanted.rstrip("/") or wanted
    below = prefix if prefix.endswith("/") else prefix + "/"
    return Clause(
        f"({column} IN (?, ?) OR substr({column}, 1, ?) = ?)",
        (prefix, wanted, len(below), below),
    )


def _marks(values: list[Any]) -> str:
    return ", ".join("?" * len(values))
