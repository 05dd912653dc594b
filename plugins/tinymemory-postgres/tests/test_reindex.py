"""``reindex`` on a schema: interrupted and rerun, every item re-embedded exactly once and
nothing lost; reads meanwhile on the old vectors; the new embedder's identity recorded; a
schema filled under an earlier default keeps its embedder until reindexed."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence

import pytest

import tinymemory as tm
from tinymemory.plugin import Reindexer, default_embedder, hookimpl
from tinymemory.retrieval import HashingEmbedder
from tinymemory.testing import only_plugins, registered
from tinymemory_postgres import PostgresEngine
from tinymemory_postgres.settings import ServerSettings


class Counting:
    """The hashing embedder at another size and identity, counting every text it embeds."""

    name = "counting"
    dimensions = 32
    identity = "counting:hashing-32"

    def __init__(self) -> None:
        self.inner = HashingEmbedder(dimensions=32)
        self.seen: Counter[str] = Counter()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.seen.update(texts)
        return self.inner.embed(texts)


class Stop(Exception):
    """Raised from the progress callback: an interruption after a committed batch."""


def texts(count: int) -> list[str]:
    return [f"note {index}: the payment card charges of customer {index}" for index in range(count)]


def vector_ids(engine: tm.MemoryEngine, query: str) -> set[str]:
    page = engine.fetch(tm.FetchRequest(query=query, mode=tm.FetchMode.VECTOR, limit=100))
    return {hit.id for hit in page.hits}


@pytest.mark.parametrize(("count", "batch", "stops"), [(1, 1, [1]), (13, 2, [1, 2]), (30, 7, [3])])
def test_an_interrupted_reindex_continues_and_embeds_each_item_once(
    settings: tm.EngineSettings, count: int, batch: int, stops: list[int]
) -> None:
    server = ServerSettings.from_options(settings.options)
    with tm.build_engine("postgres", settings, scrub=False) as engine:
        ids = {r.id for r in engine.store_many(tm.Learning(text=t) for t in texts(count))}
    counting = Counting()
    with PostgresEngine(server, tm.EngineCredential.none(), embedder=counting) as engine:
        assert isinstance(engine, Reindexer)
        for stop_after in [*stops, None]:
            calls = 0

            def progress(done: int, total: int, stop_after: int | None = stop_after) -> None:
                nonlocal calls
                calls += 1
                assert 0 < done <= total == count
                if stop_after is not None and calls >= stop_after:
                    raise Stop

            try:
                report = engine.reindex(counting, batch_size=batch, progress=progress)
            except Stop:
                with pytest.raises(tm.ConfigError, match="tinymemory reindex"):
                    vector_ids(engine, "payment")
                with tm.build_engine("postgres", settings, scrub=False) as old:
                    assert vector_ids(old, "note payment card") == ids  # the old vectors, whole
                continue
            break
        assert report.total == count
        assert report.items + report.earlier == count
        assert report.embedder == "counting:hashing-32"
        # Each item embedded exactly once (the refused reads' queries are embedded too).
        assert {text: counting.seen[text] for text in texts(count)} == dict.fromkeys(
            texts(count), 1
        )
        assert vector_ids(engine, "note payment card charges") == ids
    with (
        tm.build_engine("postgres", settings, scrub=False) as old,
        pytest.raises(tm.ConfigError, match="counting:hashing-32"),
    ):
        vector_ids(old, "payment")


def test_items_stored_and_forgotten_during_a_reindex(settings: tm.EngineSettings) -> None:
    server = ServerSettings.from_options(settings.options)
    with tm.build_engine("postgres", settings, scrub=False) as old:
        first, gone = (r.id for r in old.store_many(tm.Learning(text=t) for t in texts(2)))
        counting = Counting()
        with PostgresEngine(server, tm.EngineCredential.none(), embedder=counting) as engine:
            with pytest.raises(Stop):
                engine.reindex(counting, batch_size=1, progress=_stop)
            late = old.store(tm.Learning(text="a late note about card payments")).id
            old.forget(tm.ForgetTarget(ids=[gone]))
            report = engine.reindex(counting)
            assert (report.earlier, report.total) == (1, 2)
            assert vector_ids(engine, "note card payments") == {first, late}


def _stop(done: int, total: int) -> None:
    raise Stop


class NamesCountingTheDefault:
    """A plugin offering ``counting`` and naming it the default embedder."""

    @hookimpl
    def tinymemory_embedders(self) -> list[object]:
        return [Counting()]

    @hookimpl
    def tinymemory_default_embedder(self) -> str:
        return "counting"


def test_a_schema_filled_under_the_old_default_keeps_it_until_reindexed(
    settings: tm.EngineSettings,
) -> None:
    # The built-ins and this plugin (no installed plugin names a default), then one that does.
    builtins = ("tinymemory.reference", "tinymemory.hashing", "tinymemory.answerers")
    with only_plugins(*builtins, "postgres"):
        with tm.build_engine("postgres", settings, scrub=False) as engine:
            engine.store_many(tm.Learning(text=t) for t in texts(3))  # filled with `hashing`
        with registered(NamesCountingTheDefault(), name="names-counting"):
            with pytest.warns(tm.KeptEmbedderWarning, match=r"postgres memory at .*`hashing`"):
                engine = tm.build_engine("postgres", settings, scrub=False)
            with engine:
                assert engine.embedder.name == "hashing"  # type: ignore[attr-defined]
                assert len(vector_ids(engine, "payment card")) == 3
                engine.reindex(default_embedder())  # type: ignore[attr-defined]
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                with tm.build_engine("postgres", settings, scrub=False) as engine:
                    assert engine.embedder.name == "counting"  # type: ignore[attr-defined]
                    assert len(vector_ids(engine, "payment card")) == 3
