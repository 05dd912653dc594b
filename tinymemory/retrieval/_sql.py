"""Filters and reaches as SQL, written once over a small dialect.

Each clause says in SQL what :meth:`tinymemory.MetaFilter.matches` and
:meth:`tinymemory.Reach.admits` say in Python (the conformance suite holds
the two to the same answers). Values are always parameters, never text
written into the statement. The clauses read a layout every SQL engine of
the kit shares:

- ``items AS i``: ``seq`` (grows with every store), ``node``, ``kind`` and
  the columns of :data:`ITEM_COLUMNS` (what filters read, then ``body``, the
  item's JSON);
- ``nodes``: ``id``, ``path`` (the namespace's written form), ``depth`` and
  ``last_service`` (:func:`last_service`);
- ``item_tags``: ``item`` (a ``seq``) and ``tag``.

What differs between databases is a :class:`Dialect`: the parameter mark,
how a column is tested against a list or a prefix, and how a time is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import attrs

from tinymemory._engine import build_explore_page
from tinymemory._items import StoreItem
from tinymemory._meta import ItemKind, MetaFilter
from tinymemory._namespace import Namespace, Reach, SegmentKind
from tinymemory._operations import ExplorePage, ExploreRequest, Facet


@attrs.frozen
class Clause:
    """SQL text and its parameters, in order; ``a & b`` is both."""

    sql: str
    params: tuple[Any, ...] = ()

    def __and__(self, other: Clause) -> Clause:
        return Clause(f"({self.sql}) AND ({other.sql})", self.params + other.params)


@attrs.frozen
class Dialect:
    """What one database's SQL spells its own way.

    ``mark`` is the parameter placeholder (``?``, ``%s``); ``any_of(column,
    values)`` tests a column against a list; ``prefix(column)`` is the SQL
    and the parameters (from the prefix) of "``column`` starts with the
    prefix"; ``time`` turns a UTC time into the value kept in
    ``items.observed_at``; ``true`` is a clause admitting every row.
    """

    mark: str
    any_of: Callable[[str, list[Any]], Clause]
    prefix: Callable[[str, str], Clause]
    time: Callable[[datetime], Any]
    true: str

    def equals(self, column: str, value: Any) -> Clause:
        """``column`` equal to ``value``."""
        return Clause(f"{column} = {self.mark}", (value,))


#: The columns of ``items`` after ``seq`` and ``node``, in the order of :func:`item_columns`.
ITEM_COLUMNS = (
    "id", "kind", "source_kind", "source_id", "workspace", "folder", "file_path", "language",
    "repo", "commit_ref", "url", "thread_id", "turns", "agent_id", "tool_call", "observed_at",
    "body",
)  # fmt: skip

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

#: What ``explore`` counts by each facet but ``tag``, over a row ``s`` of ``items``.
FACET_COLUMNS = {
    Facet.KIND: "s.kind",
    Facet.SOURCE: "s.source_kind",
    Facet.SOURCE_ID: "s.source_id",
    Facet.WORKSPACE: "s.workspace",
    Facet.FOLDER: "s.folder",
    Facet.FILE_PATH: "s.file_path",
    Facet.LANGUAGE: "s.language",
    Facet.REPO: "s.repo",
    Facet.URL: "s.url",
    Facet.THREAD: "s.thread_id",
    Facet.AGENT: "s.agent_id",
    Facet.TOOL_CALL: "s.tool_call",
    Facet.NAMESPACE: "(SELECT path FROM nodes WHERE id = s.node)",
}


def item_columns(item_id: str, item: StoreItem, body: str, dialect: Dialect) -> tuple[Any, ...]:
    """The item's row from ``id`` on (:data:`ITEM_COLUMNS`): what filters read, then its JSON."""
    meta = item.meta
    return (
        item_id,
        item.item_kind._value_,  # the members' values, without the ``value`` property's call
        meta.source.kind._value_,
        meta.source.id,
        meta.workspace,
        meta.folder,
        meta.file_path,
        meta.language,
        meta.repo,
        meta.commit,
        meta.url,
        meta.thread_id,
        turns_text(meta.turns.first, meta.turns.last) if meta.turns else None,
        meta.agent_id,
        meta.tool_call.name if meta.tool_call else None,
        dialect.time(meta.observed_at) if meta.observed_at else None,
        body,
    )


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


def reach_clause(reach: Reach | None, dialect: Dialect) -> Clause:
    """The nodes ``reach`` admits, as a test of ``i.node`` (no reach reads as subtree(root))."""
    reach = reach or Reach.subtree(Namespace.ROOT)
    test = dialect.any_of("path", [str(node) for node in reach.nodes()])
    if reach.descendants:
        # Below `at`, outside any service: sandbox that starts below `at`.
        mark = dialect.mark
        prefix = dialect.prefix("path", "" if reach.at.is_root else f"{reach.at}/")
        below = Clause(f"depth > {mark}", (reach.at.depth,)) & prefix
        below &= Clause(f"last_service < {mark}", (reach.at.depth,))
        test = Clause(f"{test.sql} OR ({below.sql})", test.params + below.params)
    return Clause(f"i.node IN (SELECT id FROM nodes WHERE {test.sql})", test.params)


def erase_clause(at: Namespace, descendants: bool, dialect: Dialect) -> Clause:
    """The nodes an erase at ``at`` reaches: ``at``, and with ``descendants`` all below it."""
    test = dialect.equals("path", str(at))
    if descendants:
        if at.is_root:
            return Clause(dialect.true)
        below = dialect.prefix("path", f"{at}/")
        test = Clause(f"{test.sql} OR {below.sql}", test.params + below.params)
    return Clause(f"i.node IN (SELECT id FROM nodes WHERE {test.sql})", test.params)


def kinds_clause(kinds: Iterable[ItemKind], dialect: Dialect) -> Clause:
    """Items of one of ``kinds``."""
    return dialect.any_of("i.kind", [kind.value for kind in kinds])


def filter_clause(filter: MetaFilter, dialect: Dialect) -> Clause:
    """Every field of ``filter`` as one clause over ``items AS i``."""
    clause = reach_clause(filter.reach, dialect)
    if filter.kinds:
        clause &= kinds_clause(filter.kinds, dialect)
    if filter.sources:
        clause &= dialect.any_of("i.source_kind", [source.value for source in filter.sources])
    for field, column in _EXACT:
        wanted = getattr(filter, field)
        if wanted is not None:
            clause &= dialect.equals(f"i.{column}", wanted)
    if filter.turns is not None:
        clause &= dialect.equals("i.turns", turns_text(filter.turns.first, filter.turns.last))
    if filter.folder is not None:
        clause &= _path_clause("i.folder", filter.folder, dialect)
    if filter.file_path is not None:
        clause &= _path_clause("i.file_path", filter.file_path, dialect)
    if filter.tags_any:
        tags = dialect.any_of("t.tag", list(dict.fromkeys(filter.tags_any)))
        # Not correlated with the item: the tags are looked up once, by the (tag, item) key,
        # so a long tags_any costs its length, not its length times the items read.
        clause &= Clause(f"i.seq IN (SELECT t.item FROM item_tags t WHERE {tags.sql})", tags.params)
    mark = dialect.mark
    if filter.observed_after is not None:
        clause &= Clause(f"i.observed_at >= {mark}", (dialect.time(filter.observed_after),))
    if filter.observed_before is not None:
        clause &= Clause(f"i.observed_at < {mark}", (dialect.time(filter.observed_before),))
    return clause


def _path_clause(column: str, wanted: str, dialect: Dialect) -> Clause:
    """Equal, or below ``wanted`` on a ``/`` boundary (a trailing ``/`` is ignored)."""
    prefix = wanted.rstrip("/") or wanted
    below = dialect.prefix(column, prefix if prefix.endswith("/") else prefix + "/")
    mark = dialect.mark
    return Clause(f"({column} IN ({mark}, {mark}) OR {below.sql})", (prefix, wanted, *below.params))


@attrs.frozen
class Scope:
    """What a ranked read admits: the items ``clause`` admits, stored up to ``bound``.

    ``sizes`` is the same test over a per-node table standing as ``i`` (the
    kit's engines keep ``node_sizes(node, kind, pieces, tokens)``), when the
    filter's reach and kinds alone decide; ``None`` otherwise.
    """

    clause: Clause
    bound: int
    sizes: Clause | None
    dialect: Dialect

    @classmethod
    def of(cls, filter: MetaFilter, bound: int, dialect: Dialect) -> Scope:
        """The scope of a read with ``filter`` up to ``bound``."""
        sizes = None
        if attrs.evolve(filter, reach=None, kinds=()).is_empty():
            sizes = reach_clause(filter.reach, dialect)
            if filter.kinds:
                sizes &= kinds_clause(filter.kinds, dialect)
        return cls(filter_clause(filter, dialect), bound, sizes, dialect)

    @property
    def admitted(self) -> Clause:
        """``i`` admitted and stored up to the bound."""
        return Clause(f"i.seq <= {self.dialect.mark}", (self.bound,)) & self.clause


def bound_query(clause: Clause) -> Clause:
    """The highest ``seq`` ``clause`` admits (0 for none): a ranked read's bound."""
    return Clause(f"SELECT coalesce(max(i.seq), 0) FROM items i WHERE {clause.sql}", clause.params)


def explore_queries(
    clause: Clause, facet: Facet, scan_limit: int, mark: str
) -> tuple[Clause, Clause]:
    """The two statements of an explore: ``(value, count)`` groups of the first
    ``scan_limit`` items ``clause`` admits (by ``seq``), and how many it admits, up to one more.
    """
    scanned = (
        "WITH scanned AS MATERIALIZED "
        f"(SELECT i.* FROM items i WHERE {clause.sql} ORDER BY i.seq LIMIT {mark})"
    )
    if facet is Facet.TAG:
        grouped = (
            f"{scanned} SELECT t.tag, count(*) FROM scanned s "
            "LEFT JOIN item_tags t ON t.item = s.seq GROUP BY t.tag"
        )
    else:
        grouped = f"{scanned} SELECT {FACET_COLUMNS[facet]}, count(*) FROM scanned s GROUP BY 1"
    counted = f"SELECT count(*) FROM (SELECT 1 FROM items i WHERE {clause.sql} LIMIT {mark}) AS a"
    return (
        Clause(grouped, (*clause.params, scan_limit)),
        Clause(counted, (*clause.params, scan_limit + 1)),
    )


def explore_page(
    request: ExploreRequest, groups: Iterable[tuple[Any, int]], admitted: int
) -> ExplorePage:
    """The page of an explore from the rows of :func:`explore_queries`' two statements."""
    groups = list(groups)
    counts = {value: number for value, number in groups if value is not None}
    return build_explore_page(
        request,
        counts,
        total=min(admitted, request.scan_limit),
        missing=sum(number for value, number in groups if value is None),
        truncated=admitted > request.scan_limit,
    )
