"""Vector rankings from the vectors each engine holds in the client: exact, and never stale.

The oracle is numpy over the same embedder's vectors of the items a filter
admits, computed here from the texts. Filters of every selectivity are read
(most items, a few, one, none), so each way the copy answers is taken: the
best candidates checked against the filter, candidates widened, and the
admitted ids read whole. Another engine on the same schema stands for
another process or host: what it stores, forgets or rewrites is seen at once.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory import retrieval as kit
from tinymemory_postgres import PostgresEngine
from tinymemory_postgres.cluster import ThrowawayCluster
from tinymemory_postgres.dialect import POSTGRES

WORDS = [f"{stem}{n}" for stem in ("crane", "beam", "bolt", "tower", "wind") for n in range(12)]
#: Workspaces of every selectivity: most items, a few, one (and "empty" holds none).
SHARES = {"most": 400, "few": 9, "one": 1}


def _corpus() -> list[tm.Learning]:
    rng = random.Random(5)
    items = []
    for workspace, count in SHARES.items():
        for n in range(count):
            text = f"{' '.join(rng.choices(WORDS, k=rng.randint(2, 8)))} note {workspace} {n}"
            items.append(tm.Learning(text=text, meta=tm.MemoryMeta(workspace=workspace)))
    return items


def _expected(
    engine: PostgresEngine,
    items: list[tm.Learning],
    query: str,
    workspace: str,
    limit: int,
    turned: bool = False,
) -> list[tuple[str, float]]:
    """The admitted items by cosine of the engine's own embedder, exactly (ties by store order);
    ``turned``: with every stored vector turned around."""
    admitted = [item for item in items if item.meta.workspace == workspace]
    if not admitted:
        return []
    matrix = kit.embedding_matrix(engine.embedder, [item.text for item in admitted])
    vector = kit.embedding_matrix(engine.embedder, [query])[0]
    scores = matrix.astype(np.float64) @ vector.astype(np.float64) * (-1.0 if turned else 1.0)
    order = sorted(range(len(admitted)), key=lambda n: (-scores[n], n))[:limit]
    ids = [kit.Prepared.of(admitted[n]).id for n in order]
    return [(ids[k], float(scores[n])) for k, n in enumerate(order)]


def _vector_hits(
    engine: PostgresEngine, query: str, workspace: str, limit: int
) -> list[tuple[str, Any]]:
    request = tm.FetchRequest(
        query=query, mode="vector", limit=limit, filter=tm.MetaFilter(workspace=workspace)
    )
    return [(hit.id, hit.score) for hit in engine.fetch(request).hits]


def _same(found: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    assert [one for one, _ in found] == [one for one, _ in expected]
    assert [score for _, score in found] == pytest.approx([s for _, s in expected], abs=1e-6)


@pytest.fixture
def stored(engine: PostgresEngine) -> list[tm.Learning]:
    items = _corpus()
    for first in range(0, len(items), 100):
        engine.store_many(items[first : first + 100])
    return items


@pytest.mark.parametrize("workspace", [*SHARES, "empty"])
@pytest.mark.parametrize("limit", [1, 3, 10, 50])
def test_vector_reads_are_exact_whatever_the_filter_admits(
    engine: PostgresEngine, stored: list[tm.Learning], workspace: str, limit: int
) -> None:
    for query in ("crane3 beam7 bolt1", "wind11", "tower0 tower1 note"):
        expected = _expected(engine, stored, query, workspace, limit)
        _same(_vector_hits(engine, query, workspace, limit), expected)


def test_vector_reads_match_the_oracle_for_generated_queries(
    engine: PostgresEngine, stored: list[tm.Learning]
) -> None:
    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
        workspace=st.sampled_from([*SHARES, "empty"]),
        limit=st.integers(1, 60),
    )
    def check(words: list[str], workspace: str, limit: int) -> None:
        query = " ".join(words)
        expected = _expected(engine, stored, query, workspace, limit)
        _same(_vector_hits(engine, query, workspace, limit), expected)

    check()


def test_another_engine_s_writes_are_seen_at_once(
    engine: PostgresEngine, settings: tm.EngineSettings, stored: list[tm.Learning]
) -> None:
    query = "crane3 beam7 bolt1"
    _same(_vector_hits(engine, query, "most", 5), _expected(engine, stored, query, "most", 5))
    with tm.build_engine("postgres", settings, scrub=False) as other:
        # Stored elsewhere: the new best item is found.
        added = tm.Learning(text=query, meta=tm.MemoryMeta(workspace="most"))
        other.store(added)
        now = [*stored, added]
        _same(_vector_hits(engine, query, "most", 5), _expected(engine, now, query, "most", 5))
        # Forgotten elsewhere: it is gone, and so is the old best.
        best = _expected(engine, stored, query, "most", 1)[0][0]
        other.forget(tm.ForgetTarget(ids=(kit.Prepared.of(added).id, best)))
        now = [item for item in stored if kit.Prepared.of(item).id != best]
        _same(_vector_hits(engine, query, "most", 5), _expected(engine, now, query, "most", 5))


def test_vectors_rewritten_in_the_server_are_read_again(
    engine: PostgresEngine, cluster: ThrowawayCluster, schema: str, stored: list[tm.Learning]
) -> None:
    query = "wind11"
    first = _vector_hits(engine, query, "most", 3)
    # Another host (a reindex, say) turns every vector around: the order reverses.
    with psycopg.connect(cluster.socket_conninfo) as connection:
        vectors = connection.execute(f"SELECT piece, vector FROM {schema}.vectors").fetchall()
        turned = [
            (piece, (-np.frombuffer(vector, dtype=np.float32)).tobytes())
            for piece, vector in vectors
        ]
        connection.cursor().executemany(
            f"UPDATE {schema}.vectors SET vector = %s WHERE piece = %s",
            [(vector, piece) for piece, vector in turned],
        )
    reversed_hits = _vector_hits(engine, query, "most", 3)
    assert [score for _, score in reversed_hits] != [score for _, score in first]
    _same(reversed_hits, _expected(engine, stored, query, "most", 3, turned=True))


def test_a_read_in_an_older_snapshot_sees_what_its_snapshot_holds(
    engine: PostgresEngine, cluster: ThrowawayCluster, schema: str, stored: list[tm.Learning]
) -> None:
    query = "crane3 beam7 bolt1"
    best = _expected(engine, stored, query, "most", 1)[0][0]
    scope = kit.Scope.of(tm.MetaFilter(workspace="most"), kit.LARGEST_POSITION, POSTGRES)
    vector = kit.embedding_matrix(engine.embedder, [query])[0]
    with psycopg.connect(cluster.socket_conninfo) as old:
        old.isolation_level = psycopg.IsolationLevel.REPEATABLE_READ
        old.execute(f"SET search_path = {schema}")
        old.execute("SELECT 1 FROM items LIMIT 1")  # the snapshot is taken here
        engine.forget(tm.ForgetTarget(ids=(best,)))
        assert best not in [one for one, _ in _vector_hits(engine, query, "most", 3)]
        ranked = engine._vectors.ranking(old, vector, scope, 3)
        seqs = [entry.item for entry in ranked]
        first = old.execute("SELECT id FROM items WHERE seq = %s", (seqs[0],)).fetchone()
        assert first is not None
        assert first[0] == best
