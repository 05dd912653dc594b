"""Hostile requests sent to ``tinymemory ui`` as it runs (waitress on 127.0.0.1): each answered
with a 4xx page within two seconds, never a 500, and the server answering the next request.

The time is measured around the one request alone. Bodies and request lines
over the server's bounds are refused by waitress before it reads them; a bad
parameter is a 400 page naming it.
"""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
import requests
from test_app_command import Served, serve

from tinymemory.testing import Sandbox

#: The most seconds one hostile request may take to be answered.
ANSWER_SECONDS = 2.0

#: ``page`` values that are no page number a search link writes.
BAD_PAGES = {
    "a superscript two": "²",
    "an Arabic-Indic three": "٣",
    "a fullwidth one": "\uff11",
    "5,000 digits": "9" * 5_000,
    "a number past the last page": str(10**9 + 1),
    "minus one": "-1",
    "zero": "0",
    "a leading zero": "01",
    "a plus sign": "+1",
    "a fraction": "1.5",
    "an exponent": "1e3",
    "a space before": " 1",
    "empty": "",
    "a word": "two",
}

#: Search parameters over a cap of the contract, and what the 400 page must name.
OVER_A_CAP = {
    "a question one byte past its cap": ({"q": "q" * (16 * 1024 + 1)}, "cap-question-length"),
    "1,001 tags": (
        {"q": "budget", "mode": "keyword", "tag": ",".join(f"t{n}" for n in range(1_001))},
        "cap-tags-any",
    ),
    "a 5 KB cursor": (
        {"q": "budget", "mode": "keyword", "cursor": "A" * 5_000},
        "cap-cursor-length",
    ),
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, requests.Session]]:
    sandbox = Sandbox(tmp_path_factory.mktemp("home"))
    running = serve(sandbox)
    session = requests.Session()
    assert session.get(running.url, timeout=10).status_code == 200
    yield running, session
    status, _, err = running.stop()
    assert status == 0
    assert "Traceback" not in err


def timed(session: requests.Session, url: str, params: dict[str, str]) -> requests.Response:
    """GET ``url`` with ``params``: the answer, which must come within two seconds.

    The request is prepared (its URL encoded) first: only sending it and
    reading the answer is timed.
    """
    prepared = session.prepare_request(requests.Request("GET", url, params=params))
    started = time.perf_counter()
    answer = session.send(prepared, timeout=10)
    elapsed = time.perf_counter() - started
    assert elapsed < ANSWER_SECONDS, f"answered in {elapsed:.2f} s"
    return answer


def still_serving(running: Served, session: requests.Session) -> None:
    answer = session.get(f"http://127.0.0.1:{running.port}/", timeout=10)
    assert answer.status_code == 200


@pytest.mark.parametrize("name", list(BAD_PAGES))
def test_a_bad_page_number_is_a_400_page(
    served: tuple[Served, requests.Session], name: str
) -> None:
    running, session = served
    params = {"q": "budget", "mode": "keyword", "page": BAD_PAGES[name]}
    url = f"http://127.0.0.1:{running.port}/search"
    answer = timed(session, url, params)
    assert answer.status_code == 400, answer.text[:500]
    assert "page must be a whole number from 1 to 1000000000" in answer.text
    still_serving(running, session)


@pytest.mark.parametrize("name", list(OVER_A_CAP))
def test_a_parameter_over_a_cap_is_a_400_page_naming_it(
    served: tuple[Served, requests.Session], name: str
) -> None:
    running, session = served
    params, rule = OVER_A_CAP[name]
    url = f"http://127.0.0.1:{running.port}/search"
    answer = timed(session, url, params)
    assert answer.status_code == 400
    assert rule in answer.text
    assert len(answer.text) < 20_000, "the refused value came back"
    still_serving(running, session)


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("a 1 MB question", {"q": "q" * (1024 * 1024)}),
        ("1,000,000 tags", {"q": "budget", "tag": ",".join(["t"] * 1_000_000)}),
    ],
)
def test_a_request_line_over_the_bound_is_refused_unread(
    served: tuple[Served, requests.Session], name: str, params: dict[str, str]
) -> None:
    running, session = served
    line = f"GET /search?{urlencode(params)} HTTP/1.1\r\n".encode()
    with socket.create_connection(("127.0.0.1", running.port), timeout=10) as connection:
        # Past the bound (128 KiB) by half as much again; the rest is never sent, and the
        # server must answer without waiting for it.
        connection.sendall(line[: 192 * 1024])
        started = time.perf_counter()
        status_line = connection.recv(4096).split(b"\r\n")[0]
        elapsed = time.perf_counter() - started
    assert status_line.split(b" ")[1] == b"431", status_line
    assert elapsed < ANSWER_SECONDS
    still_serving(running, session)


def test_a_body_over_the_bound_is_refused_before_it_is_sent(
    served: tuple[Served, requests.Session],
) -> None:
    running, session = served
    connection = http.client.HTTPConnection("127.0.0.1", running.port, timeout=10)
    started = time.perf_counter()
    connection.putrequest("POST", "/forget")
    connection.putheader("Content-Type", "application/x-www-form-urlencoded")
    connection.putheader("Content-Length", str(50 * 1024 * 1024))  # 50 MB announced, none sent
    connection.endheaders()
    status = connection.getresponse().status
    elapsed = time.perf_counter() - started
    connection.close()
    assert status == 413
    assert elapsed < ANSWER_SECONDS
    still_serving(running, session)
