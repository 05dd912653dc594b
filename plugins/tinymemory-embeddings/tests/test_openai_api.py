"""The OpenAI-compatible transport against the loopback double: retries on 429, 5xx and lost
connections only, Retry-After honoured and bounded, timeouts, the key's road and redaction."""

from __future__ import annotations

import logging
import math
import socket
from collections.abc import Iterator
from email.utils import formatdate
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory_embeddings.openai_api import (
    OpenAIClient,
    OpenAISettings,
    read_settings,
)
from tinymemory_embeddings.openai_testing import OpenAIDouble, Reply

KEY = "sk-test-SECRET-0123456789abcdef"
ENV = {"OPENAI_API_KEY": KEY}


@pytest.fixture(scope="module")
def double() -> Iterator[OpenAIDouble]:
    with OpenAIDouble(dimensions=16) as server:
        yield server


@pytest.fixture(autouse=True)
def fresh(double: OpenAIDouble) -> None:
    double.received.clear()
    for route in ("embeddings", "chat/completions"):
        double._scripts[route].clear()


def client(
    double: OpenAIDouble,
    waits: list[float] | None = None,
    env: dict[str, str] | None = None,
    **table: Any,
) -> OpenAIClient:
    settings = read_settings(
        {"base_url": double.base_url, "backoff": 0.25, **table}, where="test", default_model="m"
    )
    chosen = ENV if env is None else env
    return OpenAIClient(
        settings, what="test client", environ=chosen, sleep=([] if waits is None else waits).append
    )


BODY = {"model": "m", "input": ["hello"]}


def test_a_429_then_success_is_retried_after_the_wait_retry_after_asks(
    double: OpenAIDouble,
) -> None:
    double.script("embeddings", Reply(status=429, headers={"Retry-After": "2"}))
    waits: list[float] = []
    reply = client(double, waits).post("embeddings", BODY)
    assert len(reply["data"]) == 1
    assert waits == [2.0]
    assert len(double.requests_to("embeddings")) == 2


@pytest.mark.parametrize("status", [500, 502, 503, 504, 429])
def test_failures_worth_retrying_wait_backoff_doubled_then_give_up(
    double: OpenAIDouble, status: int
) -> None:
    double.script("embeddings", *[Reply(status=status)] * 4)
    waits: list[float] = []
    with pytest.raises(tm.Unavailable, match=rf"answered HTTP {status} after 4 tries"):
        client(double, waits, retries=3).post("embeddings", BODY)
    assert waits == [0.25, 0.5, 1.0]
    assert len(double.requests_to("embeddings")) == 4


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    asked=st.one_of(
        st.floats(min_value=-10, max_value=1e6, allow_nan=False).map(lambda x: f"{x:.3f}"),
        st.integers(min_value=0, max_value=10**6).map(str),
        st.sampled_from(["soon", "", "nan"]),
    ),
    most=st.floats(min_value=0, max_value=60),
)
def test_a_wait_is_what_retry_after_asks_never_over_max_wait(
    double: OpenAIDouble, asked: str, most: float
) -> None:
    double._scripts["embeddings"].clear()
    double.script("embeddings", Reply(status=503, headers={"Retry-After": asked}))
    waits: list[float] = []
    client(double, waits, max_wait=most).post("embeddings", BODY)
    try:
        seconds = float(asked)
    except ValueError:
        seconds = math.nan
    # Not a number of seconds ("soon", "", "nan") is no advice: the first backoff.
    wanted = max(0.0, seconds) if math.isfinite(seconds) else 0.25
    assert waits == [pytest.approx(min(wanted, most))]


def test_retry_after_as_an_http_date(double: OpenAIDouble) -> None:
    import time

    double.script(
        "embeddings",
        Reply(status=429, headers={"Retry-After": formatdate(time.time() + 5, usegmt=True)}),
    )
    waits: list[float] = []
    client(double, waits).post("embeddings", BODY)
    assert 3.0 <= waits[0] <= 5.0


@pytest.mark.parametrize("status", [400, 404, 409, 413, 422, 302])
def test_other_refusals_are_not_retried_and_quote_the_server(
    double: OpenAIDouble, status: int
) -> None:
    double.script(
        "embeddings",
        Reply(status=status, body={"error": {"message": f"model   `m`\nnot found {KEY}"}}),
    )
    with pytest.raises(tm.EngineError) as raised:
        client(double).post("embeddings", BODY)
    assert len(double.requests_to("embeddings")) == 1
    message = raised.value.message
    assert f"answered HTTP {status}: model `m` not found ***" in message
    assert KEY not in message


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_is_unauthorized_naming_the_variable_not_the_key(
    double: OpenAIDouble, status: int
) -> None:
    double.script("embeddings", Reply(status=status, body={"error": {"message": f"bad {KEY}"}}))
    with pytest.raises(tm.Unauthorized) as raised:
        client(double).post("embeddings", BODY)
    assert "check the key in $OPENAI_API_KEY" in raised.value.message
    assert KEY not in str(raised.value)
    assert len(double.requests_to("embeddings")) == 1


def test_the_key_goes_as_a_bearer_token_and_only_when_set(double: OpenAIDouble) -> None:
    client(double).post("embeddings", BODY)
    client(double, env={}).post("embeddings", BODY)
    client(double, env={"MINE": "other-key-1234"}, api_key_variable="MINE").post("embeddings", BODY)
    sent = [request.headers.get("Authorization") for request in double.requests_to("embeddings")]
    assert sent == [f"Bearer {KEY}", None, "Bearer other-key-1234"]


@pytest.mark.parametrize(
    "url", ["http://example.com/v1", "http://10.0.0.7:8000/v1", "http://[2001:db8::1]/v1"]
)
def test_a_key_is_never_sent_in_cleartext_to_another_machine(url: str) -> None:
    settings = read_settings({"base_url": url}, where="test", default_model="m")
    with pytest.raises(tm.ConfigError, match="in cleartext"):
        OpenAIClient(settings, what="test client", environ=ENV)
    OpenAIClient(settings, what="test client", environ={})  # no key: nothing to protect
    https = read_settings(
        {"base_url": url.replace("http:", "https:")}, where="t", default_model="m"
    )
    OpenAIClient(https, what="test client", environ=ENV)


def test_a_slow_server_times_out_once_without_a_retry(double: OpenAIDouble) -> None:
    double.script("embeddings", Reply(delay=1.5))
    waits: list[float] = []
    with pytest.raises(tm.Unavailable, match=r"did not answer within 0.2s"):
        client(double, waits, timeout=0.2).post("embeddings", BODY)
    assert waits == []
    assert len(double.requests_to("embeddings")) == 1


def test_a_server_that_cannot_be_reached_is_retried_then_unavailable() -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    settings = OpenAISettings(base_url=f"http://127.0.0.1:{port}/v1", model="m", retries=2)
    waits: list[float] = []
    closed = OpenAIClient(settings, what="test client", environ=ENV, sleep=waits.append)
    with pytest.raises(tm.Unavailable, match=r"could not be reached after 3 tries"):
        closed.post("embeddings", BODY)
    assert waits == [0.5, 1.0]


def test_a_reply_that_is_not_json_is_an_engine_error(double: OpenAIDouble) -> None:
    double.script("embeddings", Reply(body=b"<html>proxy login</html>"))
    with pytest.raises(tm.EngineError, match="not JSON"):
        client(double).post("embeddings", BODY)


def test_nothing_secret_in_a_repr_or_a_log_line(
    double: OpenAIDouble, caplog: pytest.LogCaptureFixture
) -> None:
    double.script("embeddings", Reply(status=503), Reply(status=503), Reply(status=401))
    made = client(double)
    with caplog.at_level(logging.DEBUG), pytest.raises(tm.Unauthorized) as raised:
        made.post("embeddings", BODY)
    shown = [repr(made), repr(made.settings), caplog.text, str(raised.value), repr(raised.value)]
    assert caplog.records  # the retries were logged
    assert all(KEY not in text for text in shown)
    assert "a key" in repr(made)


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ({"base_url": "ftp://x/v1"}, "must be an http or https url"),
        ({"base_url": ""}, "`base_url` must be a non-empty string"),
        ({"model": 3}, "`model` must be a non-empty string"),
        ({"api_key": KEY}, "has no key `api_key`"),
        ({"api_key_variable": "not a name"}, "must name an environment variable"),
        ({"timeout": 0}, "`timeout` must be a number of seconds"),
        ({"timeout": True}, "`timeout` must be a number of seconds"),
        ({"retries": -1}, "`retries` must be a whole number, 0 to 10"),
        ({"retries": 2.5}, "`retries` must be a whole number"),
        ({"max_wait": float("inf")}, "`max_wait` must be a number of seconds"),
    ],
)
def test_a_malformed_table_is_a_config_error_that_shows_no_key(
    table: dict[str, Any], complaint: str
) -> None:
    with pytest.raises(tm.ConfigError, match="test") as raised:
        read_settings(table, where="test", default_model="m")
    assert complaint in raised.value.message
    assert KEY not in raised.value.message


def test_the_defaults_reach_openai() -> None:
    settings = read_settings({}, where="test", default_model="m")
    assert settings == OpenAISettings(model="m")
    assert settings.url("/embeddings") == "https://api.openai.com/v1/embeddings"
