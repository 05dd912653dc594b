"""Faults over real HTTP: rate limits, unavailability, dropped connections and slow answers.

A retry happens only where it cannot duplicate a write (reads, and writes
CortexDB replays by their body key); each test counts the requests that
reached the double and what it holds afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs
import pytest

from tinymemory import (
    Conversation,
    EngineCredential,
    ItemKind,
    Learning,
    ListRequest,
    MetaFilter,
    RecallRequest,
    Turn,
    Unauthorized,
    Unavailable,
)
from tinymemory_cortex import CortexEngine
from tinymemory_cortex.testing import (
    MEMORY_ENDPOINT,
    CortexDouble,
    DoubleServer,
    Fault,
    InMemoryConnection,
    ManualClock,
)

TOKEN = "sk-very-secret-token-0042"


@pytest.fixture
def served() -> Iterator[DoubleServer]:
    with DoubleServer(CortexDouble({TOKEN: "user:local"})) as server:
        yield server


def engine_for(
    server: DoubleServer, credential: EngineCredential | None = None, **options: float
) -> CortexEngine:
    settings = {"poll_interval": 0.005, "wait_budget": 2.0, "settle_budget": 0.5, "backoff": 0.005}
    settings.update(options)
    return CortexEngine(server.url, credential or EngineCredential.static(TOKEN), **settings)  # type: ignore[arg-type]


def held(server: DoubleServer) -> int:
    return server.double.tenants[TOKEN].events()


def test_a_429_pauses_every_request_for_its_retry_after(served: DoubleServer) -> None:
    clock = ManualClock()
    with CortexEngine(
        served.url, EngineCredential.static(TOKEN), clock=clock, backoff=0.005, poll_interval=0.005
    ) as engine:
        engine.store(Learning(text="before the limit"))
        served.double.inject(Fault("v1/events", status=429, retry_after=1))
        started = clock.now()
        items = engine.list(ListRequest()).items
        assert clock.now() - started == pytest.approx(1.0)
        assert [hit.text for hit in items] == ["before the limit"]


def test_reads_retry_a_503_three_attempts_in_all(served: DoubleServer) -> None:
    with engine_for(served) as engine:
        engine.store(Learning(text="kept"))
        served.double.inject(Fault("v1/events", status=503, times=2))
        before = served.double.count("v1/events")
        assert len(engine.list(ListRequest()).items) == 1
        assert served.double.count("v1/events") - before >= 3
        served.double.inject(Fault("v1/events", status=503, times=3))
        with pytest.raises(Unavailable) as raised:
            engine.list(ListRequest())
        assert "v1/events on 127.0.0.1" in raised.value.message
        assert "scope=" not in raised.value.message
        assert TOKEN not in str(raised.value)


def test_authorization_state_changed_gets_six_attempts(served: DoubleServer) -> None:
    with engine_for(served) as engine:
        engine.store(Learning(text="one scope holds this"))
        changed = Fault("v1/events", status=503, code="AUTHORIZATION_STATE_CHANGED", times=5)
        served.double.inject(changed)
        before = served.double.count("v1/events")
        learnings = ListRequest(filter=MetaFilter(kinds=[ItemKind.LEARNING]))
        assert len(engine.list(learnings).items) == 1
        assert served.double.count("v1/events") - before == 6  # five refusals, then the page
        served.double.inject(attrs.evolve(changed, times=6))
        with pytest.raises(
            Unavailable, match=r"^unavailable: \[AUTHORIZATION_STATE_CHANGED\] memory API v1/events"
        ):
            engine.list(ListRequest())


def test_a_write_whose_answer_was_dropped_is_retried_as_a_replay(served: DoubleServer) -> None:
    with engine_for(served) as engine:
        served.double.inject(Fault("v1/experience", drop=True, after_apply=True))
        receipt = engine.store(Learning(text="landed, answer lost"))
        assert held(served) == 1
        assert served.double.count("v1/experience") == 2
        assert [hit.id for hit in engine.list(ListRequest()).items] == [receipt.id]


def test_a_bulk_dropped_before_it_landed_is_sent_again_once(served: DoubleServer) -> None:
    conversation = Conversation(
        turns=[Turn(role="user", text="one"), Turn(role="assistant", text="two")]
    )
    with engine_for(served) as engine:
        served.double.inject(Fault("v1/experience/bulk", drop=True))
        receipt = engine.store(conversation)
        assert not receipt.replayed
        assert held(served) == 2
        assert served.double.count("v1/experience/bulk") == 2


def in_memory(double: CortexDouble, clock: ManualClock, **options: float) -> CortexEngine:
    """An engine served ``double`` in memory, every wait on ``clock`` (a slow answer too)."""
    settings = {"poll_interval": 0.005, "wait_budget": 2.0, "settle_budget": 0.5, "backoff": 0.005}
    settings.update(options)
    connection = InMemoryConnection(double)
    credential = EngineCredential.static(TOKEN)
    return CortexEngine(MEMORY_ENDPOINT, credential, connection=connection, clock=clock, **settings)  # type: ignore[arg-type]


def test_a_slow_answer_past_the_timeout_is_retried_for_a_read() -> None:
    clock = ManualClock()
    double = CortexDouble(clock=clock)
    with in_memory(double, clock, timeout=0.3) as engine:
        engine.store(Learning(text="slowly read"))
        double.inject(Fault("v1/events", delay=0.8))
        assert len(engine.list(ListRequest()).items) == 1
    assert 0.3 in clock.sleeps  # the timeout was waited out on the clock, then retried


def test_a_slow_answer_is_unavailable_where_no_retry_is_safe() -> None:
    clock = ManualClock()
    double = CortexDouble(clock=clock)
    with in_memory(double, clock, timeout=0.3) as engine:
        engine.store(Learning(text="what is asked about"))
        double.inject(Fault("v1/answer", delay=0.8))
        answers = double.count("v1/answer")
        with pytest.raises(Unavailable, match=r"no answer within the request timeout of 0\.3 s"):
            engine.recall(RecallRequest(question="what is asked about"))
        assert double.count("v1/answer") == answers + 1


def test_a_rejected_key_is_unauthorized_and_never_shown(served: DoubleServer) -> None:
    wrong = "sk-wrong-key-that-must-not-leak"
    with engine_for(served, EngineCredential.static(wrong)) as engine:
        with pytest.raises(Unauthorized) as raised:
            engine.list(ListRequest())
        assert "check the API key" in raised.value.message
        assert wrong not in str(raised.value)
        assert wrong not in repr(raised.value.__context__)
        # A 401 forgets the actor, so the next request asks whoami again.
        whoamis = served.double.count("v1/auth/whoami")
        with pytest.raises(Unauthorized):
            engine.list(ListRequest())
        assert served.double.count("v1/auth/whoami") == whoamis + 1


class _Rotating:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.asked = 0

    def bearer(self) -> str:
        self.asked += 1
        return self.tokens[min(self.asked, len(self.tokens)) - 1]


def test_a_dynamic_token_is_asked_for_on_every_attempt(served: DoubleServer) -> None:
    source = _Rotating(["", TOKEN])
    with engine_for(served, EngineCredential.dynamic(source)) as engine:
        sent = len(served.double.requests)
        with pytest.raises(Unauthorized, match="blank; no request was sent"):
            engine.list(ListRequest())
        assert len(served.double.requests) == sent
        assert engine.list(ListRequest()).items == ()
        assert source.asked >= 3


def test_the_actor_learned_from_whoami_is_sent(served: DoubleServer) -> None:
    served.double.require_actor = True
    with engine_for(served) as engine:
        engine.store(Learning(text="as user:local"))
        assert served.double.count("v1/auth/whoami") == 1
        assert len(engine.list(ListRequest()).items) == 1
