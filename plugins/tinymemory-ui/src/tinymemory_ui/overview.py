"""The views over the whole memory: the node and folder trees and the facets, from ``explore``.

A tree node's count is its whole subtree's (what its link lists: a node with
everything below it, a folder with everything under it). The facets count
items per kind, tag and workspace, and per month over the last year (each
month's count is ``explore``'s total under that month's time window).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import attrs

import tinymemory as tm

#: The most values a facet shows.
FACET_VALUES = 20
#: How many months the time facet shows, the current one last.
MONTHS = 12


@attrs.define
class TreeNode:
    """A node of a tree: its last part, its whole path, and its own count."""

    label: str
    path: str
    own: int = 0
    children: dict[str, TreeNode] = attrs.field(factory=dict)

    @property
    def total(self) -> int:
        """The items at this node and below it."""
        return self.own + sum(child.total for child in self.children.values())

    def sorted_children(self) -> list[TreeNode]:
        """The children by label."""
        return [self.children[label] for label in sorted(self.children)]

    def grow(self, parts: Sequence[str], count: int, join: Callable[[str, str], str]) -> None:
        """Add ``count`` items at the node ``parts`` below this one, making the nodes between."""
        node = self
        for part in parts:
            path = join(node.path, part) if node.path else part
            node = node.children.setdefault(part, TreeNode(label=part, path=path))
        node.own += count


@attrs.frozen
class Trees:
    """The namespace tree (from the root) and the folder forest, and whether a count is cut."""

    namespaces: TreeNode
    folders: list[TreeNode]
    partial: bool


def trees(engine: tm.MemoryEngine, reach: tm.Reach | None) -> Trees:
    """The trees of what ``reach`` reads (every node but the sandboxes without one)."""
    spaces = _explore(engine, tm.Facet.NAMESPACE, tm.MetaFilter(reach=reach), tm.MAX_BUCKETS)
    root = TreeNode(label=str(tm.Namespace.ROOT), path="")
    for bucket in spaces.buckets:
        parts = [] if bucket.value == str(tm.Namespace.ROOT) else bucket.value.split("/")
        root.grow(parts, bucket.count, _join_path)
    root.path = str(tm.Namespace.ROOT)
    folders = _explore(engine, tm.Facet.FOLDER, tm.MetaFilter(reach=reach), tm.MAX_BUCKETS)
    forest = TreeNode(label="", path="")
    for bucket in folders.buckets:
        parts = bucket.value.split("/")
        if parts[0] == "" and len(parts) > 1:  # an absolute path keeps its leading slash
            parts = ["/" + parts[1], *parts[2:]]
        forest.grow([part for part in parts if part], bucket.count, _join_path)
    partial = any(page.truncated or page.more_buckets for page in (spaces, folders))
    return Trees(namespaces=root, folders=forest.sorted_children(), partial=partial)


def _join_path(parent: str, part: str) -> str:
    return f"{parent}/{part}"


@attrs.frozen
class Bar:
    """A facet's value, its count and the count the longest bar stands for."""

    label: str
    count: int
    top: int


@attrs.frozen
class FacetView:
    """One facet as bars, and how many values (for time: items) are left out."""

    name: str
    bars: tuple[Bar, ...]
    more: int


def facets(engine: tm.MemoryEngine, reach: tm.Reach | None, now: datetime) -> list[FacetView]:
    """Kind, tags and workspace by ``explore``, then the items per month up to ``now``'s."""
    shown = [("kind", tm.Facet.KIND), ("tags", tm.Facet.TAG), ("workspace", tm.Facet.WORKSPACE)]
    views = []
    for name, facet in shown:
        page = _explore(engine, facet, tm.MetaFilter(reach=reach), FACET_VALUES)
        counts = [(bucket.value, bucket.count) for bucket in page.buckets]
        views.append(FacetView(name=name, bars=_bars(counts), more=page.more_buckets))
    months = _months(engine, reach, now)
    total = _explore(engine, tm.Facet.KIND, tm.MetaFilter(reach=reach), 1).total
    left = total - sum(count for _, count in months)  # older, or recording no time
    views.append(FacetView(name="time", bars=_bars(months), more=left))
    return views


def _bars(counts: Sequence[tuple[str, int]]) -> tuple[Bar, ...]:
    top = max((count for _, count in counts), default=0)
    return tuple(Bar(label=label, count=count, top=top) for label, count in counts)


def _months(
    engine: tm.MemoryEngine, reach: tm.Reach | None, now: datetime
) -> list[tuple[str, int]]:
    """(``YYYY-MM``, items observed in it) for the last :data:`MONTHS` months, oldest first."""
    starts = month_starts(now)
    counts = []
    for start, end in zip(starts, [*starts[1:], None], strict=True):
        window = tm.MetaFilter(reach=reach, observed_after=start, observed_before=end)
        counts.append((f"{start:%Y-%m}", _explore(engine, tm.Facet.KIND, window, 1).total))
    return counts


def month_starts(now: datetime) -> list[datetime]:
    """The first instants of the last :data:`MONTHS` months (UTC), ``now``'s last."""
    return [_month_start(now, back) for back in range(MONTHS - 1, -1, -1)]


def _month_start(now: datetime, back: int) -> datetime:
    months = now.year * 12 + now.month - 1 - back
    return datetime(months // 12, months % 12 + 1, 1, tzinfo=UTC)


def _explore(
    engine: tm.MemoryEngine, facet: tm.Facet, filter: tm.MetaFilter, limit: int
) -> tm.ExplorePage:
    return engine.explore(tm.ExploreRequest(facet=facet, filter=filter, limit=limit))
