"""The guard's behaviour beyond the corpus: caps, decoding, credentials, TLS, settings."""

from __future__ import annotations

import gzip
import http.server
import ipaddress
import socket

import pytest
from conftest import LoopbackServer, dial, loopback_fetcher, stub_resolver

import tinymemory as tm
from tinymemory_sources import GuardedFetcher, GuardPolicy, blocked_reason

MIB = 1024 * 1024


def test_the_loopback_setting_is_off_by_default(server: LoopbackServer) -> None:
    server.answer("/", b"hello")
    assert GuardPolicy().loopback_for_tests is False
    guard = GuardedFetcher(GuardPolicy(ports={server.port}))
    with pytest.raises(tm.InvalidRequest, match=r"127\.0\.0\.1 is in the blocked range"):
        guard(server.url())
    assert server.requests == []
    assert loopback_fetcher(server)(server.url()).body == b"hello"


def test_the_loopback_setting_lifts_nothing_else() -> None:
    guard = GuardedFetcher(GuardPolicy(loopback_for_tests=True, connector=_never))
    for url in ("http://10.0.0.1/", "http://localhost/", "http://[::ffff:127.0.0.1]/"):
        with pytest.raises(tm.InvalidRequest, match="refused to fetch"):
            guard(url)


def _never(address: str, port: int, timeout: float) -> object:
    raise AssertionError("no connection may be made")


def test_a_proxy_in_the_environment_is_not_used(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://10.1.2.3:3128")
    server.answer("/", b"direct")
    assert loopback_fetcher(server)(server.url()).body == b"direct"


def test_a_body_over_the_cap_is_cut_off(server: LoopbackServer) -> None:
    def unsized(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.end_headers()  # no Content-Length: the body runs to the end of the connection
        request.wfile.write(b"y" * (2 * MIB))

    server.routes["/big"] = unsized
    server.answer("/fits", b"z" * MIB)
    guard = loopback_fetcher(server, max_body_bytes=MIB)
    request_headers = {"Connection": "close"}
    with pytest.raises(tm.InvalidRequest, match=f"over the cap of {MIB} bytes"):
        guard(server.url("/big"), headers=request_headers)
    assert len(guard(server.url("/fits")).body) == MIB


def test_the_cap_counts_decoded_bytes(server: LoopbackServer) -> None:
    bomb = gzip.compress(b"\0" * (8 * MIB))
    assert len(bomb) < 64 * 1024
    server.answer("/bomb", bomb, headers={"Content-Encoding": "gzip"})
    server.answer("/page", gzip.compress(b"unzipped text"), headers={"Content-Encoding": "gzip"})
    guard = loopback_fetcher(server, max_body_bytes=MIB)
    with pytest.raises(tm.InvalidRequest, match="over the cap"):
        guard(server.url("/bomb"))
    assert guard(server.url("/page")).body == b"unzipped text"
    assert server.requests[-1][1]["Accept-Encoding"] == "gzip, deflate"


def test_an_unknown_content_encoding_is_refused(server: LoopbackServer) -> None:
    server.answer("/br", b"\x1b\x00", headers={"Content-Encoding": "br"})
    with pytest.raises(tm.InvalidRequest, match="content encoding `br`"):
        loopback_fetcher(server)(server.url("/br"))


def test_credentials_do_not_follow_a_redirect_to_another_origin(server: LoopbackServer) -> None:
    other = LoopbackServer()
    try:
        other.answer("/landing", b"elsewhere")
        server.redirect("/away", other.url("/landing"))
        server.redirect("/near", "/here")
        server.answer("/here", b"same origin")
        guard = GuardedFetcher(
            GuardPolicy(loopback_for_tests=True, ports={server.port, other.port})
        )
        sent = {"Authorization": "Bearer s3cret", "X-Kept": "yes"}
        assert guard(server.url("/away"), headers=sent).body == b"elsewhere"
        assert "Authorization" not in other.requests[0][1]
        assert other.requests[0][1]["X-Kept"] == "yes"
        assert guard(server.url("/near"), headers=sent).body == b"same origin"
        assert server.requests[-1][1]["Authorization"] == "Bearer s3cret"
    finally:
        other.close()


def test_https_never_falls_back_to_http(ca_file: str, tls_server: LoopbackServer) -> None:
    tls_server.redirect("/down", "http://example.com/plain")
    guard = GuardedFetcher(
        GuardPolicy(
            resolver=stub_resolver({"example.com": ["93.184.215.14"]}),
            connector=dial(tls_server, []),
            ca_file=ca_file,
        )
    )
    with pytest.raises(tm.InvalidRequest, match="from https down to http"):
        guard("https://example.com/down")


def test_tls_is_verified_against_the_name(ca_file: str, tls_server: LoopbackServer) -> None:
    tls_server.answer("/", b"secret page")
    guard = GuardedFetcher(
        GuardPolicy(
            resolver=stub_resolver({"evil.test": ["93.184.215.14"]}),
            connector=dial(tls_server, []),
            ca_file=ca_file,
        )
    )
    with pytest.raises(tm.InvalidRequest, match="TLS certificate does not verify"):
        guard("https://evil.test/")
    untrusting = GuardedFetcher(
        GuardPolicy(
            resolver=stub_resolver({"example.com": ["93.184.215.14"]}),
            connector=dial(tls_server, []),
        )
    )
    with pytest.raises(tm.InvalidRequest, match="TLS certificate does not verify"):
        untrusting("https://example.com/")


def test_an_unreachable_host_is_unavailable() -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    guard = GuardedFetcher(GuardPolicy(loopback_for_tests=True, ports={port}))
    with pytest.raises(tm.Unavailable, match="cannot be reached"):
        guard(f"http://127.0.0.1:{port}/")


@pytest.mark.parametrize("header", ["X-A: b\r\nHost: evil", "X-Null\x00"])
def test_a_header_that_could_split_the_request_is_refused(header: str) -> None:
    name, _, value = header.partition(": ")
    with pytest.raises(tm.InvalidRequest, match="cannot be sent"):
        GuardedFetcher(GuardPolicy(connector=_never))("https://example.com/", headers={name: value})
    with pytest.raises(tm.InvalidRequest, match="cannot be sent"):
        GuardedFetcher(GuardPolicy(connector=_never))("https://example.com/", headers={"Host": "x"})


@pytest.mark.parametrize(
    "settings",
    [{"ports": set()}, {"ports": {0}}, {"max_redirects": -1}, {"total_deadline": 0},
     {"max_body_bytes": True}, {"loopback_for_tests": "yes"}],
)  # fmt: skip
def test_bad_settings_are_config_errors(settings: dict[str, object]) -> None:
    with pytest.raises((tm.ConfigError, TypeError)):
        GuardPolicy(**settings)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("address", "blocked"),
    [
        ("8.8.8.8", False),
        ("2606:4700:4700::1111", False),
        ("::ffff:8.8.8.8", True),  # mapped forms are never dialled as themselves
        ("::127.0.0.1", True),
        ("64:ff9b::7f00:1", True),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", True),  # Teredo
        ("192.0.0.8", True),
        ("255.255.255.255", True),
        ("240.0.0.1", True),
        ("fe80::1", True),
    ],
)
def test_blocked_ranges_do_not_lean_on_ipaddress_flags(address: str, blocked: bool) -> None:
    assert (blocked_reason(ipaddress.ip_address(address)) is not None) is blocked


def test_a_path_keeps_its_encoding_and_non_ascii_is_encoded() -> None:
    guard = GuardedFetcher(GuardPolicy(resolver=stub_resolver({"example.com": ["93.184.215.14"]})))
    assert guard.vet("https://example.com/a%20b?q=%C3%BC").target.target == "/a%20b?q=%C3%BC"
    assert guard.vet("https://example.com/katalog/ü?x=ä").target.target == (
        "/katalog/%C3%BC?x=%C3%A4"
    )
    with pytest.raises(tm.InvalidRequest, match="whitespace or a control character"):
        guard.vet("https://example.com/a b")


def test_the_guard_sets_host_and_accept_encoding_itself() -> None:
    guard = GuardedFetcher(GuardPolicy(connector=_never))
    for name in ("Host", "accept-encoding"):
        with pytest.raises(tm.InvalidRequest, match="cannot be sent"):
            guard("https://example.com/", headers={name: "x"})


def test_a_callers_header_replaces_a_default_whatever_its_case(server: LoopbackServer) -> None:
    server.answer("/", b"ok")
    loopback_fetcher(server)(server.url(), headers={"accept": "application/json"})
    (_, seen) = server.requests[-1]
    assert [value for name, value in seen.items() if name.lower() == "accept"] == [
        "application/json"
    ]


def test_one_private_answer_among_public_ones_refuses_the_name() -> None:
    answers = {"mixed.test": ["93.184.215.14", "10.0.0.5", "2606:4700:4700::1111"]}
    guard = GuardedFetcher(GuardPolicy(resolver=stub_resolver(answers), connector=_never))
    with pytest.raises(tm.InvalidRequest, match=r"`mixed\.test`: 10\.0\.0\.5 is in the blocked"):
        guard("https://mixed.test/")


def test_a_redirect_to_an_address_inside_is_refused(
    ca_file: str, tls_server: LoopbackServer
) -> None:
    tls_server.redirect("/meta", "http://169.254.169.254/latest/meta-data/")
    tls_server.redirect("/mapped", "https://[::ffff:10.0.0.1]/")
    dialled: list[str] = []
    guard = GuardedFetcher(
        GuardPolicy(
            resolver=stub_resolver({"example.com": ["93.184.215.14"]}),
            connector=dial(tls_server, dialled),
            ca_file=ca_file,
        )
    )
    with pytest.raises(tm.InvalidRequest, match=r"169\.254\.169\.254 is in the blocked"):
        guard("https://example.com/meta")
    with pytest.raises(tm.InvalidRequest, match=r"carries 10\.0\.0\.1"):
        guard("https://example.com/mapped")
    assert dialled == ["93.184.215.14", "93.184.215.14"]
