"""A pytest plugin that runs LangGraph's own store tests against ``TinyMemoryStore``.

``tests/test_store.py`` of the ``langgraph-checkpoint`` sdist builds its
stores as ``InMemoryStore(**kwargs)`` (directly, and inside its
``MockAsyncBatchedStore``); for each test this plugin puts
:class:`SuiteStore` in that name's place: a ``TinyMemoryStore`` on a fresh
engine of :mod:`engines` (``TINYMEMORY_LANGGRAPH_ENGINE`` names it:
``sqlite``, a file in the test's temporary folder; ``reference``;
``cortexdb``, a tenant of the CortexDB double; ``postgres``, a schema of a
throwaway cluster), handed the same keyword arguments.
The tests that do not pass are marked strict ``xfail`` with the reason
(:data:`EXPECTED`), so one that starts to pass fails the run as well.
``langgraph_suite.py`` loads it with ``-p langgraph_swap``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from engines import engine_named

import tinymemory as tm
from tinymemory_langgraph import TinyMemoryStore

#: The reason every test that builds its store with an ``index`` fails.
INDEX = (
    "builds the store with a LangGraph `index` (an `embed` function and `dims`), which "
    "TinyMemoryStore refuses (tinymemory.Unsupported): a query is ranked by the engine's "
    "own fetch, whose embedder is the engine's configuration (docs/contract.md, Operations: "
    "fetch; docs/configuration.md, `embedder`), not a function handed to one store"
)
#: Why a test of LangGraph's does not pass here, by test name (parameters left out).
EXPECTED: dict[str, str] = {
    "test_vector_search_scores_every_item": INDEX,
    "test_vector_store_initialization": INDEX,
    "test_vector_insert_with_auto_embedding": INDEX,
    "test_async_vector_insert_with_auto_embedding": INDEX,
    "test_vector_update_with_embedding": INDEX,
    "test_async_vector_update_with_embedding": INDEX,
    "test_vector_search_with_filters": INDEX,
    "test_async_vector_search_with_filters": INDEX,
    "test_async_batched_vector_search_concurrent": INDEX,
    "test_vector_search_pagination": INDEX,
    "test_async_vector_search_pagination": INDEX,
    "test_embed_with_path": INDEX,
    "test_non_ascii": INDEX,
}


class SuiteStore(TinyMemoryStore):
    """``InMemoryStore(**kwargs)`` as the tests build it: a TinyMemoryStore on a fresh engine."""

    engines: ClassVar[list[tm.MemoryEngine]] = []
    folder: ClassVar[Path | None] = None
    #: Whether the running test built one.
    built: ClassVar[bool] = False

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(fresh_engine(), **kwargs)


def fresh_engine() -> tm.MemoryEngine:
    """A new, empty engine of the kind the run names."""
    name = os.environ["TINYMEMORY_LANGGRAPH_ENGINE"]
    engine = engine_named(name, SuiteStore.folder)
    SuiteStore.engines.append(engine)
    SuiteStore.built = True
    return engine


@pytest.fixture(autouse=True)
def tinymemory_store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """``InMemoryStore`` of LangGraph's test module is :class:`SuiteStore` for the test."""
    module = importlib.import_module("tests.test_store")
    monkeypatch.setattr(module, "InMemoryStore", SuiteStore)
    SuiteStore.folder = tmp_path
    SuiteStore.built = False
    yield
    while SuiteStore.engines:
        SuiteStore.engines.pop().close()


#: The tests that passed having built a TinyMemoryStore, and every test that passed.
_PASSED: dict[str, set[str]] = {"store": set(), "all": set()}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    if report.when == "call" and report.passed:
        _PASSED["all"].add(item.nodeid)
        if SuiteStore.built:
            _PASSED["store"].add(item.nodeid)
    return report


def pytest_terminal_summary(terminalreporter: Any) -> None:
    engine = os.environ.get("TINYMEMORY_LANGGRAPH_ENGINE")
    terminalreporter.write_line(
        f"TinyMemoryStore on {engine}: {len(_PASSED['all'])} of LangGraph's store tests pass, "
        f"{len(_PASSED['store'])} of them on a TinyMemoryStore they built "
        "(the others test LangGraph's own helpers); the rest are the README's expected failures"
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        name = item.name.partition("[")[0]
        if name in EXPECTED:
            item.add_marker(pytest.mark.xfail(reason=EXPECTED[name], strict=True))
