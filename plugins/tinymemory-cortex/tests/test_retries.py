"""Retries as the server asks: ``Retry-After`` (seconds or an HTTP date) on 429 and 503,
``X-RateLimit-Reset``, honoured up to :data:`MAX_PAUSE`; a wait over the cap and a
timeout that cut a request are stated in the error. Time is a :class:`ManualClock`:
nothing here waits on the wall.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory import EngineCredential, InvalidRequest, Learning, Unavailable
from tinymemory_cortex import CortexEngine
from tinymemory_cortex.connection import Reply, Request, timed_out
from tinymemory_cortex.testing import (
    MEMORY_ENDPOINT,
    CortexDouble,
    Fault,
    InMemoryConnection,
    ManualClock,
)
from tinymemory_cortex.transport import MAX_PAUSE, server_wait

TOKEN = "retry-test-key-0001"
SCOPE = "app:tinymemory/app:learnings"
BACKOFF = 0.25


class Refusing:
    """Answers the first ``times`` requests to ``route`` with ``status`` and ``headers``."""

    def __init__(
        self, double: CortexDouble, status: int, headers: Mapping[str, str], times: int = 1
    ) -> None:
        self.served = InMemoryConnection(double)
        self.status, self.headers, self.left = status, dict(headers), times
        self.sent = 0

    def exchange(self, request: Request) -> Reply:
        if "v1/events" in request.url:
            self.sent += 1
            if self.left > 0:
                self.left -= 1
                body = b'{"error_code": "RATE_LIMITED", "message": "slow down"}'
                return Reply(self.status, {k.lower(): v for k, v in self.headers.items()}, body)
        return self.served.exchange(request)

    def close(self) -> None:
        return None


def engine(connection: object, clock: ManualClock) -> CortexEngine:
    return CortexEngine(
        MEMORY_ENDPOINT,
        EngineCredential.static(TOKEN),
        connection=connection,  # type: ignore[arg-type]
        clock=clock,
        backoff=BACKOFF,
    )


def http_date(clock: ManualClock, seconds: float) -> str:
    return format_datetime(datetime.fromtimestamp(clock.wall() + seconds, UTC), usegmt=True)


def waited_for(status: int, headers: Mapping[str, str], clock: ManualClock) -> float:
    """Seconds the clock moved while a read was refused once with these headers, then served."""
    connection = Refusing(CortexDouble(), status, headers)
    with engine(connection, clock) as memory:
        started = clock.now()
        memory.transport.get("events", {"scope": SCOPE})
        assert connection.sent == 2
        return clock.now() - started


# --- fixed checks: each header, each status, the cap exactly -----------------------------


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_in_seconds_is_waited_on_429_and_503(status: int) -> None:
    clock = ManualClock()
    assert waited_for(status, {"Retry-After": "7"}, clock) == pytest.approx(7.0)


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_as_an_http_date_is_waited_on_429_and_503(status: int) -> None:
    clock = ManualClock()  # its wall starts on a whole second, as an HTTP date is written
    assert waited_for(status, {"Retry-After": http_date(clock, 6)}, clock) == pytest.approx(6.0)


@pytest.mark.parametrize("reset", ["delta", "unix time"])
def test_x_ratelimit_reset_is_waited_without_retry_after(reset: str) -> None:
    clock = ManualClock()
    value = "5" if reset == "delta" else str(int(clock.wall()) + 5)
    waited = waited_for(429, {"X-RateLimit-Reset": value}, clock)
    assert 4.0 <= waited <= 5.0


def test_a_status_without_a_wait_backs_off_only() -> None:
    clock = ManualClock()
    assert waited_for(503, {}, clock) == pytest.approx(BACKOFF)


def test_the_cap_itself_is_waited_and_one_second_more_is_refused_with_both_stated() -> None:
    clock = ManualClock()
    assert waited_for(429, {"Retry-After": str(int(MAX_PAUSE))}, clock) == pytest.approx(MAX_PAUSE)
    clock = ManualClock()
    over = int(MAX_PAUSE) + 1
    connection = Refusing(CortexDouble(), 429, {"Retry-After": str(over)}, times=5)
    with engine(connection, clock) as memory:
        with pytest.raises(Unavailable) as raised:
            memory.transport.get("events", {"scope": SCOPE})
        assert connection.sent == 1  # not retried: the server's own wait was not waited
        message = raised.value.message
        assert f"asked to wait {over} s" in message
        assert f"cap of {MAX_PAUSE:g} s" in message
        assert clock.now() == 0.0
        # Every later request is still held for the cap, so the service is not hammered.
        with pytest.raises(Unavailable):
            memory.transport.get("events", {"scope": SCOPE}, retry=False)
        assert clock.now() == pytest.approx(MAX_PAUSE)


def test_a_write_refused_with_a_wait_says_how_long_the_server_asked() -> None:
    clock = ManualClock()
    double = CortexDouble()
    double.inject(Fault("v1/experience", status=429, retry_after=4))
    memory = engine(InMemoryConnection(double), clock)
    with memory, pytest.raises(Unavailable, match="asked to wait 4 s"):
        memory.transport.post("experience", {"scope": SCOPE})


def test_a_request_cut_by_its_timeout_says_which_timeout_and_how_long() -> None:
    clock = ManualClock()
    double = CortexDouble(clock=clock)
    double.inject(Fault("v1/events", delay=20.0))
    memory = CortexEngine(
        MEMORY_ENDPOINT,
        EngineCredential.static(TOKEN),
        connection=InMemoryConnection(double),
        clock=clock,
        timeout=15.0,
    )
    with memory:
        assert memory.transport.timeout == (10.0, 15.0)
        with pytest.raises(Unavailable, match="no answer within the request timeout of 15 s"):
            memory.transport.get("events", {"scope": SCOPE}, retry=False)
    connecting = timed_out(Request("GET", "https://h/", {}, None, (10.0, 15.0)), connecting=True)
    assert connecting.reason == (
        "timed out connecting after 10 s (connecting is capped below the 15 s request)"
    )


def test_a_store_over_a_429_waits_on_the_clock_and_stores_once() -> None:
    clock = ManualClock()
    double = CortexDouble(clock=clock)
    with engine(InMemoryConnection(double), clock) as memory:
        memory.store(Learning(text="before"))
        double.inject(Fault("v1/events", status=429, retry_after=3))
        started = clock.now()
        memory.store(Learning(text="after the pause"))
        assert clock.now() - started >= 3.0
    assert double.tenants[TOKEN].events() == 2


def test_bad_or_missing_headers_ask_nothing() -> None:
    for headers in ({}, {"retry-after": "soon"}, {"retry-after": "-3"}, {"x-ratelimit-reset": ""}):
        assert server_wait(headers, 1_800_000_000.0) is None
    assert server_wait({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 1_800_000_000.0) == 0.0
    assert server_wait({"retry-after": "2.5"}, 0.0) == 2.5


# --- property: any wait in either form, on either status ---------------------------------


@settings(max_examples=40, deadline=None)
@given(
    status=st.sampled_from([429, 503]),
    seconds=st.integers(min_value=0, max_value=int(3 * MAX_PAUSE)),
    form=st.sampled_from(["seconds", "date", "reset"]),
)
def test_any_asked_wait_is_waited_up_to_the_cap_and_refused_past_it(
    status: int, seconds: int, form: str
) -> None:
    clock = ManualClock()
    headers = {
        "seconds": {"Retry-After": str(seconds)},
        "date": {"Retry-After": http_date(clock, seconds)},
        "reset": {"X-RateLimit-Reset": str(seconds)},
    }[form]
    connection = Refusing(CortexDouble(), status, headers)
    with engine(connection, clock) as memory:
        if seconds > MAX_PAUSE:
            with pytest.raises(Unavailable, match=f"cap of {MAX_PAUSE:g} s"):
                memory.transport.get("events", {"scope": SCOPE})
            assert connection.sent == 1
        else:
            memory.transport.get("events", {"scope": SCOPE})
            assert connection.sent == 2
            # The date form is read against a wall with a fraction of a second.
            assert seconds - 1 <= clock.now() <= max(seconds, BACKOFF) + 1e-9


def test_a_refusal_the_server_gives_no_wait_for_is_not_retried_as_a_pause() -> None:
    clock = ManualClock()
    connection = Refusing(CortexDouble(), 422, {"Retry-After": "3"})
    with engine(connection, clock) as memory, pytest.raises(InvalidRequest) as raised:
        memory.transport.get("events", {"scope": SCOPE})
    assert connection.sent == 1
    assert "asked to wait" not in raised.value.message
    assert clock.now() == 0.0
