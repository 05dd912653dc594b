"""The server's guard, through the real ``tinymemory ui`` process with ``requests``: the token
and its cookie, the ``Host`` header (DNS rebinding), the CSRF value and Origin of every POST,
the security headers; and the process itself (one line printed, loopback only, exit 0)."""

from __future__ import annotations

import signal
import socket
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests

from .browser_harness import COOKIE, URL_PATTERN, Memory, UiServer

PAGES = ["/", "/search?q=shelf&mode=keyword", "/tree", "/facets", "/export", "/export.jsonl"]
#: How the server may answer a request carrying the token: a redirect to the same URL without it.
REDIRECTS = {302, 303, 307}
HEADERS = {
    "Content-Security-Policy": "default-src 'self'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def get(server: UiServer, path: str, **options: object) -> requests.Response:
    return requests.get(server.at(path), allow_redirects=False, timeout=30, **options)  # type: ignore[arg-type]


def signed(server: UiServer) -> dict[str, str]:
    return {COOKIE: server.token}


def other_token(token: str) -> str:
    """A token of the same length and alphabet that differs in one character."""
    return ("A" if token[0] != "A" else "B") + token[1:]


@pytest.mark.parametrize("path", [*PAGES, "/items/{item}"])
def test_without_the_token_every_page_is_refused(ui: UiServer, memory: Memory, path: str) -> None:
    answer = get(ui, path.format(item=memory.shelf[0]))
    assert answer.status_code == 403
    assert "tinymemory ui" in answer.text  # says to open the URL it printed
    assert "Archive shelf note" not in answer.text
    assert COOKIE not in answer.headers.get("Set-Cookie", "")


def test_a_wrong_token_or_cookie_is_refused_and_sets_no_cookie(ui: UiServer) -> None:
    wrong = other_token(ui.token)
    by_token = get(ui, f"/?token={wrong}")
    assert by_token.status_code == 403
    assert "Set-Cookie" not in by_token.headers
    assert get(ui, "/", cookies={COOKIE: wrong}).status_code == 403
    assert get(ui, "/", cookies={COOKIE: ""}).status_code == 403
    assert get(ui, "/", cookies={COOKIE: ui.token}).status_code == 200  # the right one passes


@pytest.mark.parametrize(
    ("path", "after"),
    [
        ("/?token={token}", "/"),
        ("/search?q=shelf&mode=keyword&token={token}", "/search?q=shelf&mode=keyword"),
    ],
)
def test_the_token_becomes_a_strict_http_only_cookie_and_leaves_the_address(
    ui: UiServer, path: str, after: str
) -> None:
    answer = get(ui, path.format(token=ui.token))
    assert answer.status_code in REDIRECTS
    assert urljoin(ui.at("/"), answer.headers["Location"]) == ui.at(after)
    cookie = answer.headers["Set-Cookie"]
    assert cookie.startswith(f"{COOKIE}={ui.token};")
    attributes = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= attributes


@pytest.mark.parametrize(
    "host",
    [
        "evil.example:{port}",
        "localhost.evil.example:{port}",
        "127.0.0.1.evil.example:{port}",
        "127.0.0.1",
        "localhost",
        "127.0.0.1:{other}",
    ],
)
def test_a_foreign_host_is_refused_even_with_the_token_or_the_cookie(
    ui: UiServer, host: str
) -> None:
    header = {"Host": host.format(port=ui.port, other=ui.port + 1)}
    for answer in (
        get(ui, "/", headers=header, cookies=signed(ui)),
        get(ui, f"/?token={ui.token}", headers=header),
        get(ui, "/export.jsonl", headers=header, cookies=signed(ui)),
    ):
        assert answer.status_code == 403
        assert "Set-Cookie" not in answer.headers
        assert '"id"' not in answer.text


@pytest.mark.parametrize("host", ["127.0.0.1:{port}", "localhost:{port}"])
def test_both_names_of_the_loopback_pass(ui: UiServer, host: str) -> None:
    answer = get(ui, "/", headers={"Host": host.format(port=ui.port)}, cookies=signed(ui))
    assert answer.status_code == 200


@pytest.mark.parametrize("path", ["/", "/facets", "/export.jsonl", "/no-such-page", "/?token=x"])
def test_every_response_sends_the_security_headers(ui: UiServer, path: str) -> None:
    for answer in (get(ui, path, cookies=signed(ui)), get(ui, path)):
        for name, value in HEADERS.items():
            assert answer.headers.get(name) == value, (path, answer.status_code, name)


def test_the_export_is_an_attachment_of_every_item(ui: UiServer, memory: Memory) -> None:
    answer = get(ui, "/export.jsonl", cookies=signed(ui))
    assert answer.status_code == 200
    assert answer.headers["Content-Disposition"] == 'attachment; filename="tinymemory-export.jsonl"'
    assert answer.text.splitlines() == memory.home.run("export").stdout.splitlines()


def test_an_unknown_item_is_a_404_with_the_error_shown(ui: UiServer) -> None:
    answer = get(ui, "/items/" + "f" * 40, cookies=signed(ui))
    assert answer.status_code == 404
    assert 'id="error"' in answer.text
    assert "Traceback" not in answer.text


class Forms(HTMLParser):
    """Every form of a page: its id, and the fields a browser would submit (hidden inputs)."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.fields: dict[str, dict[str, str]] = {}
        self.actions: dict[str, str] = {}
        self._form: str | None = None
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = {key: value or "" for key, value in attrs}
        if tag == "form":
            self._form = named.get("id", "")
            self.fields[self._form] = {}
            self.actions[self._form] = named.get("action", "")
        elif tag == "input" and self._form is not None and "name" in named:
            self.fields[self._form][named["name"]] = named.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def post(server: UiServer, path: str, fields: dict[str, str], **headers: str) -> requests.Response:
    return requests.post(
        server.at(path),
        data=fields,
        cookies=signed(server),
        headers=headers,
        allow_redirects=False,
        timeout=30,
    )


def test_a_post_needs_the_csrf_value_and_its_own_origin(
    write_ui: UiServer, writable: Memory
) -> None:
    target = writable.shelf[0]
    page = get(write_ui, f"/items/{target}", cookies=signed(write_ui))
    fields = Forms(page.text).fields["forget-item-form"]
    assert fields["csrf"]
    without = {name: value for name, value in fields.items() if name != "csrf"}
    wrong = {**fields, "csrf": other_token(fields["csrf"])}
    origin = f"http://127.0.0.1:{write_ui.port}"

    assert post(write_ui, "/forget/preview", without).status_code == 403
    assert post(write_ui, "/forget/preview", wrong).status_code == 403
    foreign = post(write_ui, "/forget/preview", fields, Origin="http://evil.example")
    assert foreign.status_code == 403
    preview = post(write_ui, "/forget/preview", fields, Origin=origin)
    assert preview.status_code == 200
    assert 'id="preview"' in preview.text

    confirm = Forms(preview.text).fields["forget-confirm-form"]
    refused = {name: value for name, value in confirm.items() if name != "csrf"}
    assert post(write_ui, "/forget", refused).status_code == 403
    assert target in writable.home.stored()
    done = post(write_ui, "/forget", confirm)
    assert done.status_code == 200
    assert 'id="forget-result"' in done.text
    assert target not in writable.home.stored()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_the_server_prints_one_line_and_a_signal_right_after_it_ends_it_with_0(
    memory: Memory, sig: signal.Signals
) -> None:
    # The line says the server is ready: a signal from then on (Ctrl-C, a supervisor's
    # SIGTERM) must end it cleanly. Three times each, as soon as the line is read.
    for _ in range(3):
        server = UiServer(memory.home)
        code, rest = server.stop(sig)
        assert (code, rest) == (0, ""), server.errors()
        assert server.line.startswith(f"tinymemory ui: serving sqlite at {server.url}")
        assert len(URL_PATTERN.findall(server.line)) == 1
        assert "read-write" not in server.line


def test_with_write_the_line_says_read_write_and_a_port_is_kept(memory: Memory) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = UiServer(memory.home, "--port", str(port), "--write")
    try:
        assert server.port == port
        assert server.line == f"tinymemory ui: serving sqlite at {server.url} (read-write)"
        assert listening(port) == {"127.0.0.1"}
    finally:
        assert server.stop()[0] == 0


def listening(port: int) -> set[str]:
    """The local addresses a socket listens on at ``port`` (Linux: /proc/net/tcp and tcp6)."""
    found: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text(encoding="ascii").splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hexport = local.split(":")
            if state == "0A" and int(hexport, 16) == port:
                if len(address) == 8:
                    found.add(socket.inet_ntop(socket.AF_INET, bytes.fromhex(address)[::-1]))
                else:
                    found.add(address)
    return found


def test_a_post_carrying_the_token_is_only_redirected(write_ui: UiServer, writable: Memory) -> None:
    target = writable.shelf[0]
    answer = requests.post(
        write_ui.at(f"/forget?token={write_ui.token}"),
        data={"ids": target},
        allow_redirects=False,
        timeout=30,
    )
    assert answer.status_code in REDIRECTS
    assert target in writable.home.stored()  # nothing forgotten


def test_the_token_never_reaches_the_servers_log(ui: UiServer) -> None:
    assert get(ui, f"/?token={ui.token}").status_code in REDIRECTS
    assert get(ui, f"/search?q=x&token={other_token(ui.token)}").status_code == 403
    assert get(ui, "/no-such-page", cookies=signed(ui)).status_code == 404
    assert ui.token not in ui.errors()
