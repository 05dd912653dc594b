"""The checks every request passes before a page touches the engine.

In order: the ``Host`` header names this server (``127.0.0.1:<port>`` or
``localhost:<port>``; a DNS-rebound name is refused); the per-run token,
given once as ``?token=`` and then carried by an HttpOnly, SameSite=Strict
cookie; the read-only gate on the write routes; and on every POST the
per-run CSRF value and, when the browser sends one, a same-site ``Origin``.
Every response carries headers that keep the pages from being framed,
cached, or sending a referrer to another site, and confine what they load to this server.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Mapping
from urllib.parse import urlencode

import attrs
from flask import Request, redirect
from werkzeug.wrappers import Response

#: The cookie the token is kept in after the first visit.
TOKEN_COOKIE = "tinymemory_ui_token"
#: The form field every POST carries the CSRF value in.
CSRF_FIELD = "csrf"
#: The headers every response carries.
RESPONSE_HEADERS: Mapping[str, str] = {
    "Content-Security-Policy": "default-src 'self'",
    "X-Frame-Options": "DENY",
    # same-origin, not no-referrer: under no-referrer a browser sends ``Origin: null`` with a
    # same-origin form POST, which the Origin check must refuse. Pages carry no token in their
    # URLs (it moves to the cookie at once), and nothing is sent to another origin.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}


@attrs.frozen
class Refusal:
    """Why a request is refused: the status and a short plain sentence for the page."""

    status: int
    reason: str


@attrs.frozen(repr=False)
class Guard:
    """The per-run secrets and the port a server checks requests against.

    The repr names neither secret.
    """

    port: int
    writes: bool
    token: str = attrs.field(factory=lambda: secrets.token_urlsafe(32))
    csrf: str = attrs.field(factory=lambda: secrets.token_urlsafe(32))

    def __repr__(self) -> str:
        mode = "read-write" if self.writes else "read-only"
        return f"Guard(port={self.port}, {mode})"

    @property
    def hosts(self) -> frozenset[str]:
        """The ``Host`` values this server answers to."""
        return frozenset({f"127.0.0.1:{self.port}", f"localhost:{self.port}"})

    def url(self) -> str:
        """The URL to open: the start page with the token."""
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def refusal(self, request: Request, *, write_route: bool) -> Refusal | None:
        """Why ``request`` is refused, or ``None`` when it may go on.

        A request carrying ``?token=`` passes with the right token alone (it is
        then answered by :meth:`token_redirect`); any other needs the cookie.
        """
        if request.environ.get("HTTP_HOST", "") not in self.hosts:
            return Refusal(403, "This server answers only to 127.0.0.1 and localhost.")
        given = request.args.get("token", request.cookies.get(TOKEN_COOKIE))
        if not _same(given, self.token):
            return Refusal(
                403, "No valid token: open the URL `tinymemory ui` printed when it started."
            )
        if "token" in request.args:
            return None
        if write_route and not self.writes:
            return Refusal(403, "This server is read-only: start `tinymemory ui --write`.")
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is not None and origin != f"http://{request.environ['HTTP_HOST']}":
                return Refusal(403, "The request came from another site.")
            if not _same(request.form.get(CSRF_FIELD), self.csrf):
                return Refusal(403, "The form is stale or foreign: reload the page and try again.")
        return None

    def token_redirect(self, request: Request) -> Response:
        """The answer to a request :meth:`refusal` let through with ``?token=``: the same URL
        without the token, setting the cookie that carries it from then on."""
        rest = [(key, value) for key, value in request.args.items(multi=True) if key != "token"]
        target = request.path + (f"?{urlencode(rest)}" if rest else "")
        response = redirect(target, code=303)
        response.set_cookie(
            TOKEN_COOKIE, self.token, httponly=True, samesite="Strict", path="/", secure=False
        )
        return response


def _same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())
