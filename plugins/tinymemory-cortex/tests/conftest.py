"""Shared fixtures: the CortexDB double over loopback HTTP, and engines built against it."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pytest

from tinymemory import EngineCredential, EngineSettings, MemoryEngine, build_engine
from tinymemory_cortex.testing import CortexDouble, DoubleServer

#: Fast visibility polls: the double makes a write readable at once.
FAST = {"poll_interval": 0.005, "wait_budget": 2.0, "settle_budget": 0.2, "timeout": 10.0}
_tokens = itertools.count()

#: The call phase's report of each test, for fixtures whose teardown checks depend on it.
CALL_REPORT = pytest.StashKey[pytest.TestReport]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    report: pytest.TestReport = yield
    if report.when == "call":
        item.stash[CALL_REPORT] = report
    return report


def was_skipped(request: pytest.FixtureRequest) -> bool:
    """Whether the test ``request`` belongs to was skipped in its call phase."""
    report = request.node.stash.get(CALL_REPORT, None)
    return report is not None and report.skipped


def fresh_token() -> str:
    """A token no engine has used: a tenant of its own in the double."""
    return f"test-key-{next(_tokens)}"


def build_against(
    url: str, token: str | None = None, engine_id: str = "cortexdb", **settings: object
) -> MemoryEngine:
    """The installed engine ``engine_id`` pointed at ``url``, as a host builds it."""
    options = {**FAST, **settings.pop("options", {})}  # type: ignore[dict-item]
    return build_engine(
        engine_id,
        EngineSettings(endpoint=url, options=options, **settings),  # type: ignore[arg-type]
        EngineCredential.static(token or fresh_token()),
        scrub=False,
    )


@pytest.fixture(scope="session")
def server() -> Iterator[DoubleServer]:
    with DoubleServer() as running:
        yield running


@pytest.fixture
def double(server: DoubleServer) -> Iterator[CortexDouble]:
    server.double.clear_faults()
    yield server.double
    server.double.clear_faults()


EngineMaker = Callable[..., MemoryEngine]


@pytest.fixture
def make_engine(server: DoubleServer) -> Iterator[EngineMaker]:
    built: list[MemoryEngine] = []

    def make(token: str | None = None, **settings: object) -> MemoryEngine:
        engine = build_against(server.url, token, **settings)
        built.append(engine)
        return engine

    yield make
    for engine in built:
        engine.close()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--cortexdb-mcp-path",
        default=None,
        help="a folder holding cortexdb-mcp 0.8.0 and mcp<2 (pip install --target), put first "
        "on the vendor MCP server's PYTHONPATH; the cortex tox env installs it",
    )
