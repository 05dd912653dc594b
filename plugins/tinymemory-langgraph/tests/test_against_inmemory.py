"""TinyMemoryStore beside LangGraph's own InMemoryStore: the same ops give the same answers.

Hypothesis draws a run of puts and deletes over a few namespaces and keys,
then every get, a filtered search under each prefix and a namespace listing
are compared (search order is each store's own, so hits compare as sets;
values hold no booleans, where JSON and Python equality differ, see
``filters``). InMemoryStore goes on listing a namespace whose entries were
all deleted (a delete alone makes one); TinyMemoryStore, like LangGraph's
sqlite and postgres stores, lists the namespaces that hold entries, so the
listings compare on those.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from langgraph.store.memory import InMemoryStore

import tinymemory as tm
from tinymemory_langgraph import TinyMemoryStore

LABELS = st.sampled_from(["a", "b", "a_%", "é"])
NAMESPACES = st.lists(LABELS, min_size=1, max_size=3).map(tuple)
KEYS = st.sampled_from(["k1", "k2", "# k", "k 3"])
VALUES = st.fixed_dictionaries(
    {"n": st.integers(-1, 1)}, optional={"s": st.sampled_from(["x", "y"]), "m": st.just({"d": 1})}
)
PUT = st.tuples(st.just("put"), NAMESPACES, KEYS, VALUES)
DELETE = st.tuples(st.just("delete"), NAMESPACES, KEYS, st.none())
FILTERS = st.one_of(
    st.none(),
    st.fixed_dictionaries({"n": st.integers(-1, 1)}),
    st.fixed_dictionaries(
        {
            "n": st.fixed_dictionaries(
                {},
                optional={op: st.integers(-1, 1) for op in ("$gt", "$gte", "$lt", "$lte", "$ne")},
            )
        }
    ),
    st.fixed_dictionaries({"s": st.sampled_from(["x", "y"])}),
    st.fixed_dictionaries({"m": st.just({"d": 1})}),
)


def hits(items: list[Any]) -> set[tuple[Any, ...]]:
    return {(item.namespace, item.key, repr(item.value)) for item in items}


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.one_of(PUT, PUT, DELETE), min_size=2, max_size=12),
    st.lists(FILTERS, min_size=3, max_size=3),
    NAMESPACES,
)
def test_the_same_ops_answer_as_langgraphs_in_memory_store(
    ops: list[tuple[str, tuple[str, ...], str, Any]],
    filters: list[dict[str, Any] | None],
    prefix: tuple[str, ...],
) -> None:
    with tm.build_engine("reference") as engine:
        ours, theirs = TinyMemoryStore(engine), InMemoryStore()
        for kind, namespace, key, value in ops:
            for store in (ours, theirs):
                store.put(namespace, key, value) if kind == "put" else store.delete(namespace, key)
        for _, namespace, key, _ in ops:
            mine, reference = ours.get(namespace, key), theirs.get(namespace, key)
            assert (mine and mine.value) == (reference and reference.value)
        for searched in ((), prefix[:1], prefix):
            for filter in filters:
                assert hits(ours.search(searched, filter=filter, limit=100)) == hits(
                    theirs.search(searched, filter=filter, limit=100)
                )
        held = {item.namespace for item in theirs.search((), limit=1000)}
        for listed_prefix, listed_suffix, max_depth in (
            (None, None, None),
            (prefix[:1], None, 2),
            (None, prefix[-1:], None),
        ):
            mine_listed = ours.list_namespaces(
                prefix=listed_prefix, suffix=listed_suffix, max_depth=max_depth
            )
            reference_listed = theirs.list_namespaces(
                prefix=listed_prefix, suffix=listed_suffix, max_depth=max_depth
            )
            assert mine_listed == holding(reference_listed, held, max_depth)


def holding(
    listed: list[tuple[str, ...]], held: set[tuple[str, ...]], max_depth: int | None
) -> list[tuple[str, ...]]:
    """The namespaces of ``listed`` that are one holding an entry, cut to ``max_depth``."""
    return [name for name in listed if any(h[:max_depth] == name for h in held)]
