"""A ranked read's first bound: the index's answer equals the count over admitted items.

``read_bound`` seeks each admitted node and kind's last item when the reach
and kinds alone decide; for every shape of reach (the root's subtree, a
node's subtree, one node, inheriting), kinds or none, and a filter that
needs the items themselves, it equals the highest admitted ``seq`` counted
item by item, including for a reach that admits nothing.
"""

from __future__ import annotations

import pytest

import tinymemory as tm
from tinymemory.retrieval import LARGEST_POSITION, Scope, bound_query
from tinymemory_sqlite import SqliteEngine
from tinymemory_sqlite.dialect import SQLITE
from tinymemory_sqlite.ranking import read_bound

NAMESPACES = ["", "team:a", "team:a/agent:x", "team:a/service:s", "team:b", "team:b/agent:y"]
FILTERS = [
    tm.MetaFilter(),
    tm.MetaFilter(kinds=(tm.ItemKind.LEARNING,)),
    tm.MetaFilter(reach=tm.Reach.subtree("team:a")),
    tm.MetaFilter(reach=tm.Reach.subtree("team:a"), kinds=(tm.ItemKind.DOCUMENT,)),
    tm.MetaFilter(reach=tm.Reach.exact("team:a/agent:x")),
    tm.MetaFilter(reach=tm.Reach.of("team:b/agent:y")),
    tm.MetaFilter(reach=tm.Reach.subtree("team:c")),
    tm.MetaFilter(workspace="w"),
]


@pytest.fixture(scope="module")
def engine() -> SqliteEngine:
    engine = SqliteEngine(":memory:")
    items: list[tm.StoreItem] = []
    for index, path in enumerate(NAMESPACES * 3):
        meta = tm.MemoryMeta(namespace=path, workspace="w" if index % 4 == 0 else None)
        if index % 3 == 0:
            items.append(tm.Document(body=f"document {index}", meta=meta))
        else:
            items.append(tm.Learning(text=f"learning {index}", meta=meta))
    engine.store_many(items)
    return engine


@pytest.mark.parametrize("filter", FILTERS, ids=lambda filter: repr(filter)[:60])
def test_the_bound_is_the_highest_admitted_seq(engine: SqliteEngine, filter: tm.MetaFilter) -> None:
    scope = Scope.of(filter, LARGEST_POSITION, SQLITE)
    counted = bound_query(scope.clause)
    with engine._connections.reading() as connection:
        expected = connection.execute(counted.sql, counted.params).fetchone()[0]
        assert read_bound(connection, scope) == expected
