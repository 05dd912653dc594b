"""A vector read confined by its filter: its admitted items listed and scored alone when few,
the whole matrix scanned and the best tested in turn when many, the same answer either way.

Each case runs both ways (``listed``: the engine's choice with every admitted set small
enough; ``scanned``: no listing), and the answer is a memory that holds the admitted
items alone, or a full scan filtered afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import attrs
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine, ranking
from tinymemory_sqlite import engine as engine_module
from tinymemory_sqlite.vectors import VectorIndex

TEAM = tm.Namespace.parse("team:acme")
SMALL = tm.Namespace.parse("team:acme/agent:small")
OTHER = tm.Namespace.parse("team:acme/agent:other")
IN_SMALL = tm.MetaFilter(reach=tm.Reach.exact(SMALL))

#: What the listing decided at each read: the items listed, or None for a scan.
Listings = list["list[int] | None"]


def _learning(text: str, namespace: tm.Namespace = TEAM, **meta: object) -> tm.Learning:
    return tm.Learning(text=text, meta=tm.MemoryMeta(namespace=namespace, **meta))  # type: ignore[arg-type]


def _vector(query: str, filter: tm.MetaFilter, limit: int = 10) -> tm.FetchRequest:
    return tm.FetchRequest(query=query, mode=tm.FetchMode.VECTOR, limit=limit, filter=filter)


def _ids(engine: tm.MemoryEngine, request: tm.FetchRequest) -> list[str]:
    return [hit.id for hit in engine.fetch(request).hits]


@pytest.fixture(params=["listed", "scanned"])
def listings(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Listings:
    """Each read's listing, forced to a scan for ``scanned`` and left to the rule (every
    admitted set of these tests counts as few: one listed per scanned) for ``listed``."""
    seen: Listings = []
    monkeypatch.setattr(ranking, "LISTED_PER_SCANNED", 1)

    def recorded(*args: object) -> list[int] | None:
        listed = None if request.param == "scanned" else ranking.few_admitted(*args)  # type: ignore[arg-type]
        seen.append(listed)
        return listed

    monkeypatch.setattr(engine_module, "few_admitted", recorded)
    return seen


@pytest.fixture
def crowded(db_path: Path) -> Iterator[SqliteEngine]:
    """A memory where 300 items outside ``SMALL`` all score higher than those inside."""
    with SqliteEngine(db_path) as engine:
        for first in range(0, 300, 100):
            engine.store_many(
                [_learning(f"quartz lantern river {n}") for n in range(first, first + 100)]
            )
        yield engine  # type: ignore[misc]


def test_a_filter_that_admits_nothing_finds_nothing(
    crowded: SqliteEngine, listings: Listings
) -> None:
    nobody = tm.MetaFilter(reach=tm.Reach.exact(tm.Namespace.parse("team:nobody")))
    elsewhere = tm.MetaFilter(workspace="nowhere")
    assert _ids(crowded, _vector("quartz lantern", nobody)) == []
    assert _ids(crowded, _vector("quartz lantern", elsewhere)) == []
    if listings[0] is not None:
        assert listings == [[], []]


def test_the_decoy_in_another_node_is_never_found(
    crowded: SqliteEngine, listings: Listings
) -> None:
    """The decoy's vector is the query's own, nearer than any answer, in a sibling node."""
    answer = crowded.store(_learning("quartz lantern by the shore", SMALL)).id
    plain = crowded.store(_learning("a lantern", SMALL)).id
    crowded.store(_learning("quartz lantern river", OTHER))
    assert _ids(crowded, _vector("quartz lantern river", IN_SMALL)) == [answer, plain]
    # A filter the node sizes cannot decide (a workspace) takes the other rule's listing.
    kept = crowded.store(_learning("quartz lantern", SMALL, workspace="w")).id
    crowded.store(_learning("quartz lantern river", OTHER, workspace="w"))
    in_w = tm.MetaFilter(reach=tm.Reach.exact(SMALL), workspace="w")
    assert _ids(crowded, _vector("quartz lantern river", in_w)) == [kept]
    assert len(listings) == 2
    if listings[0] is not None:
        assert [len(listed or ()) for listed in listings] == [2, 1]


def test_forgets_and_another_connections_stores_count_at_once(
    crowded: SqliteEngine, db_path: Path, listings: Listings
) -> None:
    request = _vector("quartz lantern river", IN_SMALL)
    with SqliteEngine(db_path) as other, SqliteEngine(":memory:") as alone:
        texts = ["quartz alone", "lantern and quartz together", "a river bank"]
        mine = [crowded.store(_learning(text, SMALL)).id for text in texts]
        alone.store_many([_learning(text, SMALL) for text in texts])

        def agree() -> list[str]:
            ids = _ids(crowded, request)
            assert ids == _ids(alone, request)
            return ids

        assert set(agree()) == set(mine)
        for memory in (crowded, alone):
            memory.forget(tm.ForgetTarget.by_ids([mine[1]]))
        assert set(agree()) == {mine[0], mine[2]}
        other.store(_learning("river quartz lantern", SMALL))
        alone.store(_learning("river quartz lantern", SMALL))
        assert len(agree()) == 3
        crowded.erase(tm.EraseRequest(reach=tm.Reach.exact(SMALL)))
        assert _ids(crowded, request) == []
    assert len(_ids(crowded, attrs.evolve(request, filter=None))) == 10


def test_a_page_ends_at_its_bound_and_keeps_the_item_at_it(
    crowded: SqliteEngine, db_path: Path, listings: Listings
) -> None:
    """The first page's bound is the node's last item: it is ranked on every page, and an
    item stored after it, however near, is not."""
    first = crowded.store(_learning("quartz", SMALL)).id
    at_bound = crowded.store(_learning("quartz lantern", SMALL)).id
    page = crowded.fetch(_vector("quartz lantern river", IN_SMALL, limit=1))
    assert [hit.id for hit in page.hits] == [at_bound]
    with SqliteEngine(db_path) as other:
        other.store(_learning("quartz lantern river", SMALL))
    assert page.next_cursor is not None
    rest = crowded.fetch(
        attrs.evolve(_vector("quartz lantern river", IN_SMALL, limit=5), cursor=page.next_cursor)
    )
    assert [hit.id for hit in rest.hits] == [first]


@pytest.mark.parametrize(("most", "listed"), [(5, True), (4, False)])
def test_the_crossover_is_exactly_the_share_of_the_matrix(
    crowded: SqliteEngine, monkeypatch: pytest.MonkeyPatch, most: int, listed: bool
) -> None:
    """``SMALL`` holds 5 of the 305 pieces: listed while ``5 <= 305 // LISTED_PER_SCANNED``,
    scanned from one piece over, the same answer either way."""
    ids = [crowded.store(_learning(f"lantern {n}", SMALL)).id for n in range(5)]
    monkeypatch.setattr(ranking, "LISTED_PER_SCANNED", 305 // most)
    assert most == 305 // ranking.LISTED_PER_SCANNED
    seen: Listings = []

    def recorded(*args: object) -> list[int] | None:
        seen.append(ranking.few_admitted(*args))  # type: ignore[arg-type]
        return seen[-1]

    monkeypatch.setattr(engine_module, "few_admitted", recorded)
    assert set(_ids(crowded, _vector("lantern", IN_SMALL))) == set(ids)
    assert (seen[0] is not None) is listed


# --- the matrix alone: listed rows against a filtered scan -------------------------------


def _index(rows: npt.NDArray[np.float64], items: list[int]) -> VectorIndex:
    """An index given ``rows`` as one write, piece ids from 1."""
    index = VectorIndex(rows.shape[1])
    index._generation = 0
    index.added(0, list(range(1, len(items) + 1)), items, rows.astype(np.float32))
    return index


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(1, 400), st.booleans())
def test_scoring_the_listed_items_ranks_as_the_scan_filtered(
    data: st.DataObject, pieces: int, in_order: bool
) -> None:
    """Clustered vectors (a few centres, little spread, so that near-ties abound), items of
    one to three pieces in order or shuffled (bisection, or the fallback): the items listed
    rank exactly as a full scan's ranking with the others taken out."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    centres = rng.random((data.draw(st.integers(1, 4)), 8))
    rows = centres[rng.integers(0, len(centres), pieces)] + 0.01 * rng.random((pieces, 8))
    items = np.sort(rng.integers(1, pieces // 2 + 2, pieces))
    if not in_order:
        rng.shuffle(items)
    index = _index(rows, items.tolist())
    query = centres[0] + 0.01 * rng.random(8)
    bound = data.draw(st.integers(0, int(items.max())))
    listed = sorted(
        data.draw(st.sets(st.sampled_from(sorted(set(items.tolist()))), max_size=pieces))
    )
    admitted = set(listed)
    scanned = [entry for entry in index.ranked(query, bound) if entry[0] in admitted]
    assert list(index.ranked(query, bound, listed)) == scanned
