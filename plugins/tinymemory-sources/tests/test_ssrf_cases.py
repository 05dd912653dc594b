"""Every case of the shared SSRF corpus: each refusal refused, each allowed URL fetched.

Names resolve through a stub resolver built from each case's ``stub_dns``; the
public addresses in it are only ever *noted* by a connector that then dials the
loopback HTTPS server, whose certificate names the cases' hosts, so TLS is
verified against the name the URL gave and nothing leaves the machine.
"""

from __future__ import annotations

import http.server
import socket
import time
from typing import Any

import pytest
from conftest import LoopbackServer, dial, ssrf_cases, stub_resolver

import tinymemory as tm
from tinymemory_sources import GuardedFetcher, GuardPolicy

CASES = ssrf_cases()
#: Cases that need a server to show their refusal (a body, a redirect, a pin).
SERVED = {"limit", "redirect", "rebinding"}


def _never(address: str, port: int, timeout: float) -> socket.socket:
    raise AssertionError(f"the guard tried to connect to {address}:{port}")


def _by_id(kind: str) -> list[Any]:
    return [pytest.param(case, id=case["id"]) for case in CASES[kind]]


def test_the_corpus_is_whole() -> None:
    assert len(CASES["refuse"]) == 41
    assert len(CASES["allow"]) == 7
    assert CASES["meta"]["policy_assumed"]["max_redirects"] == GuardPolicy().max_redirects
    assert CASES["meta"]["policy_assumed"]["max_body_bytes"] == GuardPolicy().max_body_bytes
    assert set(CASES["meta"]["policy_assumed"]["ports"]) == GuardPolicy().ports


@pytest.mark.parametrize(
    "case", [c for c in _by_id("refuse") if c.values[0]["category"] not in SERVED]
)
def test_a_refused_url_is_refused_before_any_connection(case: dict[str, Any]) -> None:
    lookups: list[str] = []
    fetcher = GuardedFetcher(
        GuardPolicy(resolver=stub_resolver(case.get("stub_dns", {}), lookups), connector=_never)
    )
    with pytest.raises(tm.InvalidRequest, match="refused to fetch") as refused:
        fetcher(case["url"])
    assert refused.value.message  # names a host and a reason
    with pytest.raises(tm.InvalidRequest):
        fetcher.vet(case["url"])


def _tls_guard(
    case: dict[str, Any],
    ca_file: str,
    tls_server: LoopbackServer,
    dialled: list[str],
    **policy: Any,
) -> GuardedFetcher:
    return GuardedFetcher(
        GuardPolicy(
            resolver=stub_resolver(case.get("stub_dns", {})),
            connector=dial(tls_server, dialled),
            ca_file=ca_file,
            **policy,
        )
    )


def test_r79_a_declared_body_over_the_cap_is_refused_unread(
    ca_file: str, tls_server: LoopbackServer
) -> None:
    (case,) = [c for c in CASES["refuse"] if c["id"] == "R79"]

    def huge(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Length", str(case["response_bytes"]))
        request.end_headers()
        request.wfile.write(b"x" * 65536)  # then hangs up: the guard must not wait for the rest

    tls_server.routes["/huge"] = huge
    dialled: list[str] = []
    with pytest.raises(tm.InvalidRequest, match=f"declares {case['response_bytes']} bytes"):
        _tls_guard(case, ca_file, tls_server, dialled)(case["url"])
    assert dialled == ["93.184.215.14"]


def test_r81_a_dripping_body_hits_the_total_deadline(
    ca_file: str, tls_server: LoopbackServer
) -> None:
    (case,) = [c for c in CASES["refuse"] if c["id"] == "R81"]

    def drip(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Length", "1000")
        request.end_headers()
        for _ in range(1000):  # faster than the case's 1 byte/s, so the test is short
            request.wfile.write(b"x")
            request.wfile.flush()
            time.sleep(0.05)

    tls_server.routes["/slow"] = drip
    guard = _tls_guard(case, ca_file, tls_server, [], total_deadline=1.0, read_timeout=5.0)
    started = time.monotonic()
    with pytest.raises(tm.Unavailable, match="total deadline of 1 s passed"):
        guard(case["url"])
    # Each byte comes well within the read timeout: only the deadline can end it.
    assert time.monotonic() - started < 2.5


def test_r76_a_redirect_to_a_name_inside_is_refused(
    ca_file: str, tls_server: LoopbackServer
) -> None:
    (case,) = [c for c in CASES["refuse"] if c["id"] == "R76"]
    tls_server.redirect("/r2", case["redirect_to"])
    dialled: list[str] = []
    with pytest.raises(tm.InvalidRequest, match=r"internal\.test.*127\.0\.0\.1"):
        _tls_guard(case, ca_file, tls_server, dialled)(case["url"])
    assert dialled == ["93.184.215.14"]  # the hop inside was never dialled


def test_r78_more_than_five_redirects_are_refused(ca_file: str, tls_server: LoopbackServer) -> None:
    (case,) = [c for c in CASES["refuse"] if c["id"] == "R78"]
    hops = case["redirect_chain_length"]
    tls_server.redirect("/loop", "/loop1")
    for hop in range(1, hops + 1):
        tls_server.redirect(f"/loop{hop}", f"/loop{hop + 1}")
    dialled: list[str] = []
    with pytest.raises(tm.InvalidRequest, match="more than 5 redirects"):
        _tls_guard(case, ca_file, tls_server, dialled)(case["url"])
    assert len(dialled) == 6  # the first request and five hops, no more


def test_five_redirects_are_followed(ca_file: str, tls_server: LoopbackServer) -> None:
    (case,) = [c for c in CASES["refuse"] if c["id"] == "R78"]
    tls_server.redirect("/loop", "/loop1")
    for hop in range(1, 5):
        tls_server.redirect(f"/loop{hop}", f"/loop{hop + 1}")
    tls_server.answer("/loop5", b"arrived")
    response = _tls_guard(case, ca_file, tls_server, [])(case["url"])
    assert (response.status, response.body) == (200, b"arrived")
    assert response.url == "https://public.test/loop5"


def test_r73_the_connection_is_pinned_to_the_address_vetted(server: LoopbackServer) -> None:
    (case,) = [c for c in CASES["refuse"] if c["id"] == "R73"]
    answers = iter(case["stub_dns_sequence"]["rebind.test"])
    lookups: list[str] = []

    def rebinding(host: str) -> list[str]:
        lookups.append(host)
        return list(next(answers))

    server.answer("/", b"public page")
    dialled: list[str] = []
    guard = GuardedFetcher(GuardPolicy(resolver=rebinding, connector=dial(server, dialled)))
    assert guard(case["url"]).body == b"public page"
    # One lookup, and the socket went to the address it vetted, never to the rebound one.
    assert lookups == ["rebind.test"]
    assert dialled == ["93.184.215.14"]


def test_every_refused_case_is_covered() -> None:
    served = {c["id"] for c in CASES["refuse"] if c["category"] in SERVED}
    tested = {"R79", "R81", "R76", "R78", "R73"}
    assert served == tested


@pytest.mark.parametrize("case", _by_id("allow"))
def test_an_allowed_url_is_vetted_to_its_stub_address(case: dict[str, Any]) -> None:
    guard = GuardedFetcher(GuardPolicy(resolver=stub_resolver(case.get("stub_dns", {}))))
    pinned = guard.vet(case["url"])
    expected = [*case.get("stub_dns", {}).values()]
    assert str(pinned.address) == (expected[0][0] if expected else pinned.target.host)


@pytest.mark.parametrize("case", _by_id("allow"))
def test_an_allowed_url_is_fetched(
    case: dict[str, Any], ca_file: str, tls_server: LoopbackServer
) -> None:
    path = "/" + case["url"].split("/", 3)[3].split("?")[0].split("#")[0]
    if "redirect_to" in case:
        tls_server.redirect(path, case["redirect_to"])
        path = "/" + case["redirect_to"].split("/", 3)[3]
    tls_server.answer(path, f"page of {case['id']}".encode())
    dialled: list[str] = []
    response = _tls_guard(case, ca_file, tls_server, dialled)(case["url"])
    assert (response.status, response.body) == (200, f"page of {case['id']}".encode())
    pinned = GuardedFetcher(GuardPolicy(resolver=stub_resolver(case.get("stub_dns", {})))).vet(
        case["url"]
    )
    assert set(dialled) == {str(pinned.address)}
    # The Host header is the URL's name (ASCII form), never the address dialled.
    host = tls_server.requests[-1][1]["Host"]
    assert host == pinned.target.host_header
