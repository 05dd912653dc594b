"""The guard in front of every page: Host, token and cookie, CSRF and Origin, the read-only
gate and the response headers; a refused request reaches no engine operation."""

from __future__ import annotations

import pytest
from app_support import PORT, MakeClient, RecordingEngine, UiClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinymemory_ui import Guard, create_app
from tinymemory_ui.security import RESPONSE_HEADERS, TOKEN_COOKIE

#: Every route, and a request to it that would reach the engine once past the guard.
READS = ["/", "/search?q=budget", "/search?kind=learning", "/items/abcd", "/tree", "/facets",
         "/export", "/export.jsonl"]  # fmt: skip
WRITES = [("GET", "/erase"), ("POST", "/erase"), ("POST", "/forget/preview"), ("POST", "/forget")]
#: Host headers a rebinding page (or another server's page) would send.
FOREIGN_HOSTS = [
    "evil.example:38517",
    f"127.0.0.1:{PORT + 1}",
    f"localhost:{PORT + 1}",
    "localhost.evil.example",
    f"localhost.evil.example:{PORT}",
    f"127.0.0.1.nip.io:{PORT}",
    "127.0.0.1",
    "localhost",
    f"[::1]:{PORT}",
    f"0.0.0.0:{PORT}",
    "",
]


def fresh(recorder: RecordingEngine, *, writes: bool = False) -> UiClient:
    """A client that has not opened the token URL."""
    guard = Guard(port=PORT, writes=writes)
    return UiClient(create_app(recorder, guard).test_client(), guard)


@pytest.mark.parametrize("path", READS)
def test_no_token_is_refused_before_the_engine(app_recorder: RecordingEngine, path: str) -> None:
    answer = fresh(app_recorder).get(path)
    assert answer.status_code == 403
    assert "open the URL `tinymemory ui` printed" in answer.text
    assert app_recorder.calls == []


@pytest.mark.parametrize("path", READS)
def test_a_wrong_token_or_cookie_is_refused(app_recorder: RecordingEngine, path: str) -> None:
    client = fresh(app_recorder)
    wrong = client.guard.token[:-1] + ("A" if client.guard.token[-1] != "A" else "B")
    separator = "&" if "?" in path else "?"
    assert client.get(f"{path}{separator}token={wrong}").status_code == 403
    assert client.get(f"{path}{separator}token=").status_code == 403
    client.client.set_cookie(TOKEN_COOKIE, wrong, domain="127.0.0.1")
    assert client.get(path).status_code == 403
    assert app_recorder.calls == []


def test_a_wrong_token_is_refused_even_beside_a_valid_cookie(
    app_recorder: RecordingEngine, ui_client: MakeClient
) -> None:
    client = ui_client(app_recorder)
    assert client.get("/tree").status_code == 200
    app_recorder.calls.clear()
    assert client.get("/tree?token=nope").status_code == 403
    assert app_recorder.calls == []


def test_the_token_sets_an_httponly_strict_cookie_and_redirects_without_it(
    app_recorder: RecordingEngine,
) -> None:
    client = fresh(app_recorder)
    answer = client.get(f"/search?q=travel+budget&token={client.guard.token}&mode=keyword")
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/search?q=travel+budget&mode=keyword"
    cookie = answer.headers["Set-Cookie"]
    assert cookie.startswith(f"{TOKEN_COOKIE}={client.guard.token};")
    flags = {part.strip() for part in cookie.split(";")[1:]}
    assert {"HttpOnly", "SameSite=Strict", "Path=/"} <= flags
    assert not any(flag.lower().startswith(("domain", "expires", "max-age")) for flag in flags)
    assert app_recorder.calls == []
    assert client.get("/tree").status_code == 200  # the cookie alone lets the next one in
    assert app_recorder.calls != []


@pytest.mark.parametrize("host", FOREIGN_HOSTS)
@pytest.mark.parametrize("path", ["/", "/tree", "/?token=TOKEN"])
def test_a_foreign_host_is_refused_before_the_engine(
    app_recorder: RecordingEngine, ui_client: MakeClient, host: str, path: str
) -> None:
    client = ui_client(app_recorder)  # holds the cookie: only the Host is wrong
    app_recorder.calls.clear()
    answer = client.get(path.replace("TOKEN", client.guard.token), headers={"Host": host})
    assert answer.status_code == 403
    assert "answers only to 127.0.0.1 and localhost" in answer.text
    assert "Set-Cookie" not in answer.headers
    assert app_recorder.calls == []


@pytest.mark.parametrize("host", [f"127.0.0.1:{PORT}", f"localhost:{PORT}"])
def test_both_loopback_names_with_the_port_pass(
    app_recorder: RecordingEngine, ui_client: MakeClient, host: str
) -> None:
    client = fresh(app_recorder)
    client.base_url = f"http://{host}"  # a browser keeps the cookie per host name
    assert client.log_in().get("/tree").status_code == 200


@pytest.mark.parametrize(
    ("form", "headers"),
    [
        ({"csrf": ""}, {}),
        ({"csrf": "guessed"}, {}),
        ({}, {"Origin": "http://evil.example"}),
        ({}, {"Origin": f"http://127.0.0.1:{PORT + 1}"}),
        ({}, {"Origin": "null"}),
    ],
)
def test_a_post_needs_the_csrf_value_and_its_own_origin(
    app_recorder: RecordingEngine, ui_client: MakeClient, form: dict, headers: dict
) -> None:
    client = ui_client(app_recorder, writes=True)
    app_recorder.calls.clear()
    answer = client.post("/forget/preview", {"ids": "a" * 40, **form}, headers=headers)
    assert answer.status_code == 403
    assert app_recorder.calls == []


def test_a_post_without_any_csrf_field_is_refused(
    app_recorder: RecordingEngine, ui_client: MakeClient
) -> None:
    client = ui_client(app_recorder, writes=True)
    app_recorder.calls.clear()
    answer = client.client.post("/forget", data={"ids": "a" * 40}, base_url=client.base_url)
    assert answer.status_code == 403
    assert app_recorder.calls == []


def test_a_post_with_the_csrf_value_and_same_origin_passes(
    app_recorder: RecordingEngine, ui_client: MakeClient
) -> None:
    client = ui_client(app_recorder, writes=True)
    for headers in ({}, {"Origin": f"http://127.0.0.1:{PORT}"}):
        answer = client.post("/forget/preview", {"ids": "a" * 40}, headers=headers)
        assert answer.status_code == 200
        assert '<span id="preview-count">0</span>' in answer.text


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_without_write_the_write_routes_are_refused(
    app_recorder: RecordingEngine, ui_client: MakeClient, method: str, path: str
) -> None:
    client = ui_client(app_recorder)
    app_recorder.calls.clear()
    if method == "GET":
        answer = client.get(path)
    else:
        answer = client.post(path, {"ids": "a" * 40, "at": "root", "confirm": "root"})
    assert answer.status_code == 403
    assert "read-only" in answer.text
    assert app_recorder.calls == []


@pytest.mark.parametrize("path", ["/", "/tree", "/items/nope", "/?token=TOKEN", "/erase"])
def test_every_response_carries_the_headers(
    app_recorder: RecordingEngine, ui_client: MakeClient, path: str
) -> None:
    client = ui_client(app_recorder)
    for answer in (
        client.get(path.replace("TOKEN", client.guard.token)),
        fresh(app_recorder).get(path),
    ):
        for name, value in RESPONSE_HEADERS.items():
            assert answer.headers[name] == value, (path, answer.status_code, name)


def test_the_guard_shows_no_secret() -> None:
    guard = Guard(port=PORT, writes=True)
    assert guard.token != guard.csrf
    assert len(guard.token) >= 43
    assert guard.token not in repr(guard)
    assert guard.csrf not in repr(guard)
    assert guard.url() == f"http://127.0.0.1:{PORT}/?token={guard.token}"
    assert Guard(port=PORT, writes=True).token != guard.token


@pytest.fixture
def app_logged_in(app_recorder: RecordingEngine, ui_client: MakeClient) -> UiClient:
    """A client of the recorder, logged in: one app for every example of a property."""
    return ui_client(app_recorder)


#: Host headers of every shape: any printable text, and loopback-like names with any port.
HOSTS = st.one_of(
    st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), max_size=40),
    st.builds(
        "{}:{}".format,
        st.sampled_from(["127.0.0.1", "localhost", "LOCALHOST", "127.0.0.2", "::1"]),
        st.integers(0, 65535),
    ),
)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(host=HOSTS)
def test_only_the_two_loopback_hosts_of_the_port_pass(
    app_recorder: RecordingEngine, app_logged_in: UiClient, host: str
) -> None:
    client = app_logged_in
    app_recorder.calls.clear()
    answer = client.get("/tree", headers={"Host": host})
    allowed = host in {f"127.0.0.1:{PORT}", f"localhost:{PORT}"}
    assert (answer.status_code == 200) is allowed
    assert (app_recorder.calls != []) is allowed
