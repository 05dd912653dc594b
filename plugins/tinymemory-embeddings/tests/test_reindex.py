"""``reindex`` through the sqlite engine: interrupted and rerun, every item re-embedded exactly
once and nothing lost; reads meanwhile on the old vectors; the embedder recorded at the end."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from conftest import OpenSqlite, write_config
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.plugin import Reindexer, embedder_named
from tinymemory.testing import Sandbox
from tinymemory_embeddings.model2vec_embedder import Model2VecEmbedder


class Counting:
    """An embedder handing on to another, counting every text it embeds."""

    def __init__(self, inner: Model2VecEmbedder) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.identity = inner.identity
        self.seen: Counter[str] = Counter()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.seen.update(texts)
        return self.inner.embed(texts)


class Stop(Exception):
    """Raised from the progress callback: an interruption after a committed batch."""


def texts(count: int) -> list[str]:
    return [f"note {index}: the payment card charges of customer {index}" for index in range(count)]


def vector_ids(engine: tm.MemoryEngine, query: str) -> list[str]:
    page = engine.fetch(tm.FetchRequest(query=query, mode=tm.FetchMode.VECTOR, limit=200))
    return [hit.id for hit in page.hits]


@pytest.mark.usefixtures("configured")
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    count=st.integers(1, 40), batch=st.integers(1, 9), stops=st.lists(st.integers(1, 6), max_size=3)
)
def test_an_interrupted_reindex_continues_and_embeds_each_item_once(
    open_sqlite: OpenSqlite,
    tmp_path_factory: pytest.TempPathFactory,
    tiny_model: Path,
    count: int,
    batch: int,
    stops: list[int],
) -> None:
    path = tmp_path_factory.mktemp("reindex") / "memory.db"
    with open_sqlite("hashing", path) as engine:
        ids = {r.id for r in engine.store_many(tm.Learning(text=t) for t in texts(count))}
    counting = Counting(Model2VecEmbedder(str(tiny_model)))
    runs = 0
    with open_sqlite("model2vec", path) as engine:
        assert isinstance(engine, Reindexer)
        for stop_after in [*stops, None]:
            calls = 0

            def progress(done: int, total: int, stop_after: int | None = stop_after) -> None:
                nonlocal calls
                calls += 1
                assert 0 < done <= total == count
                if stop_after is not None and calls >= stop_after:
                    raise Stop

            runs += 1
            try:
                report = engine.reindex(counting, batch_size=batch, progress=progress)
            except Stop:
                # Reads go on meanwhile, on the old (hashing) vectors: the engine opened with
                # the new embedder is refused, one with the old one reads every item.
                with pytest.raises(tm.ConfigError, match="tinymemory reindex"):
                    vector_ids(engine, "payment")
                with open_sqlite("hashing", path) as old:
                    assert set(vector_ids(old, "note payment card")) == ids
                continue
            break
        assert report.total == count
        assert report.items + report.earlier == count
        assert set(counting.seen) == set(texts(count))
        assert max(counting.seen.values()) == 1  # each item embedded exactly once
        assert set(vector_ids(engine, "payment card charges")) == ids
        engine.store(tm.Learning(text="a card was declined at checkout"))
    with open_sqlite("hashing", path) as old, pytest.raises(tm.ConfigError, match="model2vec"):
        vector_ids(old, "payment")


@pytest.mark.usefixtures("configured")
def test_a_reindex_toward_another_embedder_starts_over(open_sqlite: OpenSqlite) -> None:
    with open_sqlite("hashing") as engine:
        engine.store_many(tm.Learning(text=t) for t in texts(6))
        with pytest.raises(Stop):
            engine.reindex(embedder_named("model2vec"), batch_size=1, progress=_stop)
        report = engine.reindex(embedder_named("hashing"), batch_size=2)
        assert (report.items, report.earlier, report.total) == (6, 0, 6)


def _stop(done: int, total: int) -> None:
    raise Stop


@pytest.mark.usefixtures("configured")
def test_the_command_reindexes_the_configured_memory(sandbox: Sandbox, tiny_model: Path) -> None:
    from tinymemory.testing import Cli

    cli = Cli(sandbox)
    assert cli.run("store", "the payment card charges failed", env=sandbox.env).exit_code == 0
    done = cli.run("reindex", "--embedder", "model2vec", env=sandbox.env)
    assert done.exit_code == 0, done.stderr
    assert "reindexed 1 of 1 items" in done.stdout
    assert f"model2vec:{tiny_model}" in done.stdout
    # The settings name no embedder: the memory keeps the one it was filled with, and says so.
    kept = cli.run("fetch", "card", "--mode", "vector", env=sandbox.env)
    assert kept.exit_code == 0, kept.stderr
    assert "payment card charges" in kept.stdout
    assert 'set embedder = "model2vec"' in kept.stderr


def test_an_engine_without_reindex_is_unsupported(sandbox: Sandbox) -> None:
    from tinymemory.testing import Cli

    write_config(sandbox, 'engine = "reference"\n')
    refused = Cli(sandbox).run("reindex", env=sandbox.env)
    assert refused.exit_code != 0
    assert "unsupported" in refused.stderr
    assert "cannot re-embed" in refused.stderr


KILLED_RUN = """
import os, signal, sys
import tinymemory as tm
from tinymemory_embeddings.model2vec_embedder import Model2VecEmbedder

path, model, log, after = sys.argv[1:]
inner = Model2VecEmbedder(model)


class Logged:
    name, dimensions, identity = inner.name, inner.dimensions, inner.identity

    def embed(self, texts):
        with open(log, "a", encoding="utf-8") as out:
            out.writelines(text + "\\n" for text in texts)
        return inner.embed(texts)


def progress(done, total):
    if done >= int(after):
        os.kill(os.getpid(), signal.SIGKILL)  # a crash: no cleanup, no exception handler


settings = tm.EngineSettings(options={"path": path, "embedder": "model2vec"})
engine = tm.build_engine("sqlite", settings, scrub=False)
engine.reindex(Logged(), batch_size=3, progress=progress)
"""


@pytest.mark.usefixtures("configured")
def test_a_killed_reindex_loses_nothing(
    open_sqlite: OpenSqlite, tmp_path: Path, tiny_model: Path, sandbox: Sandbox
) -> None:
    import signal
    import subprocess
    import sys

    path, log = tmp_path / "memory.db", tmp_path / "embedded.txt"
    with open_sqlite("hashing", path) as engine:
        ids = {r.id for r in engine.store_many(tm.Learning(text=t) for t in texts(20))}
    killed = subprocess.run(
        [sys.executable, "-c", KILLED_RUN, str(path), str(tiny_model), str(log), "7"],
        env=sandbox.env,
        capture_output=True,
        text=True,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    before = log.read_text(encoding="utf-8").splitlines()
    assert 7 <= len(before) < 20
    counting = Counting(Model2VecEmbedder(str(tiny_model)))
    with open_sqlite("model2vec", path) as engine:
        report = engine.reindex(counting, batch_size=3)
        assert (report.earlier, report.items, report.total) == (len(before), 20 - len(before), 20)
        # What the killed run committed is kept; the rest is embedded once, now.
        assert Counter(before) + counting.seen == Counter(texts(20))
        assert set(vector_ids(engine, "payment card charges")) == ids
