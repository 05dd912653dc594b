"""The ``github`` reader against a fake GitHub REST API on loopback, through the guard."""

from __future__ import annotations

import http.server
import json
import time
import urllib.parse
from datetime import UTC, datetime
from typing import Any

import pytest
from conftest import LoopbackServer, loopback_fetcher

import tinymemory as tm
from tinymemory.plugin import SourceSkip
from tinymemory_sources.github import repo_name

REPO = "acme/app"


def _commit(sha: str, message: str, date: str) -> dict[str, Any]:
    return {
        "sha": sha,
        "html_url": f"https://github.com/{REPO}/commit/{sha}",
        "commit": {"message": message, "author": {"name": "Ada", "date": date}},
    }


COMMITS = [
    _commit(f"{n:040x}", f"Commit {n}\n\nBody {n}", f"2026-03-0{n}T10:00:00Z") for n in (1, 2, 3)
]
ISSUES = [
    {
        "number": 7,
        "title": "Launch checklist",
        "state": "open",
        "user": {"login": "ada"},
        "labels": [{"name": "launch"}],
        "created_at": "2026-03-01T09:00:00Z",
        "updated_at": "2026-03-04T09:00:00Z",
        "body": "What is left before Friday?",
        "comments": 2,
        "html_url": f"https://github.com/{REPO}/issues/7",
    },
    {"number": 8, "title": "a PR in the issues list", "pull_request": {}, "comments": 0},
    {"number": "nine", "title": "a malformed entry"},
]
PULLS = [
    {
        "number": 8,
        "title": "Add the launch banner",
        "state": "closed",
        "merged_at": "2026-03-05T12:00:00Z",
        "user": {"login": "grace"},
        "base": {"ref": "main"},
        "head": {"ref": "banner"},
        "created_at": "2026-03-02T09:00:00Z",
        "updated_at": "2026-03-05T12:00:00Z",
        "body": "Shows the date.",
        "html_url": f"https://github.com/{REPO}/pull/8",
    }
]
COMMENTS = {
    7: [
        {"user": {"login": "grace"}, "created_at": "2026-03-02T10:00:00Z", "body": "The banner."},
        {"user": {"login": "ada"}, "created_at": "2026-03-03T10:00:00Z", "body": "Done soon."},
    ],
    8: [],
}


class FakeGitHub:
    """The REST routes the reader uses, with paging of 2 per page and an optional rate limit."""

    def __init__(self, server: LoopbackServer) -> None:
        self.server = server
        self.limited: list[dict[str, str]] = []  # headers of refusals still to give, in order
        base = f"/repos/{REPO}"
        server.routes[f"{base}/commits"] = lambda r: self.listing(r, COMMITS)
        server.routes[f"{base}/issues"] = lambda r: self.listing(r, ISSUES)
        server.routes[f"{base}/pulls"] = lambda r: self.listing(r, PULLS)
        for number, comments in COMMENTS.items():
            server.routes[f"{base}/issues/{number}/comments"] = lambda r, c=comments: self.listing(
                r, c
            )

    def listing(self, request: http.server.BaseHTTPRequestHandler, rows: list[Any]) -> None:
        if self.limited:
            headers = self.limited.pop(0)
            request.send_response(int(headers.pop("status", "403")))
            for name, value in headers.items():
                request.send_header(name, value)
            request.send_header("Content-Length", "2")
            request.end_headers()
            request.wfile.write(b"{}")
            return
        parts = urllib.parse.urlsplit(request.path)
        query = urllib.parse.parse_qs(parts.query)
        page = int(query.get("page", ["1"])[0])
        body = json.dumps(rows[(page - 1) * 2 : page * 2]).encode()
        request.send_response(200)
        if page * 2 < len(rows):
            following = dict(query, page=[str(page + 1)])
            link = self.server.url(parts.path + "?" + urllib.parse.urlencode(following, doseq=True))
            request.send_header("Link", f'<{link}>; rel="next", <{link}>; rel="last"')
        request.send_header("X-RateLimit-Remaining", "4999")
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)


def read_repo(
    server: LoopbackServer, credential: tm.EngineCredential | None = None, **options: Any
) -> list[Any]:
    return list(
        tm.read(
            "github",
            options={"repo": REPO, "api_url": server.url(), **options},
            credential=credential,
            fetcher=loopback_fetcher(server),
        )
    )


def test_commits_issues_and_pulls_with_comments(server: LoopbackServer) -> None:
    FakeGitHub(server)
    items = read_repo(server, tm.EngineCredential.static("tok-123"))
    (skip,) = [item for item in items if isinstance(item, SourceSkip)]
    assert (skip.what, skip.reason) == ("issue 'nine'", "the listing gives no number")
    documents = [item for item in items if not isinstance(item, SourceSkip)]
    titles = [item.title for item in documents]
    assert titles == [
        "Commit: Commit 1",
        "Commit: Commit 2",
        "Commit: Commit 3",
        "Issue #7: Launch checklist",
        "PR #8: Add the launch banner",
    ]
    commit, issue, pull = documents[0], documents[3], documents[4]
    assert commit.meta.commit == f"{1:040x}"
    assert commit.meta.repo == REPO
    assert commit.meta.url == f"https://github.com/{REPO}/commit/{1:040x}"
    assert commit.meta.observed_at == datetime(2026, 3, 1, 10, tzinfo=UTC)
    assert commit.meta.source == tm.SourceRef(kind=tm.SourceKind.GITHUB, id=REPO)
    assert "Author: ada" in issue.body.text
    assert "Labels: launch" in issue.body.text
    assert "**grace** (2026-03-02T10:00:00Z):\n\nThe banner." in issue.body.text
    assert issue.body.text.endswith("Done soon.")
    assert issue.meta.url == f"https://github.com/{REPO}/issues/7"
    assert "State: merged" in pull.body.text
    assert "Branches: banner into main" in pull.body.text
    assert "## Comments" not in pull.body.text
    # Every call carried the token; the commits came in two pages.
    assert all(headers.get("Authorization") == "Bearer tok-123" for _, headers in server.requests)
    paths = [path for path, _ in server.requests]
    assert paths[:2] == [
        f"/repos/{REPO}/commits?per_page=100",
        f"/repos/{REPO}/commits?per_page=100&page=2",
    ]


def test_limits_and_no_comments(server: LoopbackServer) -> None:
    FakeGitHub(server)
    items = read_repo(server, max_commits=1, max_issues=0, max_prs=1, comments=False)
    assert [item.title for item in items] == ["Commit: Commit 1", "PR #8: Add the launch banner"]
    assert not any("comments" in path for path, _ in server.requests)
    assert not any(path.startswith(f"/repos/{REPO}/issues") for path, _ in server.requests)


def test_a_rate_limit_is_waited_out(server: LoopbackServer) -> None:
    fake = FakeGitHub(server)
    fake.limited = [
        {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 1)},
        {"status": "429", "Retry-After": "0"},
    ]
    started = time.monotonic()
    items = read_repo(server, max_issues=0, max_prs=0)
    assert len(items) == 3
    assert time.monotonic() - started < 5


def test_a_long_rate_limit_is_unavailable(server: LoopbackServer) -> None:
    fake = FakeGitHub(server)
    reset = int(time.time()) + 3600
    fake.limited = [{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)}]
    shown = datetime.fromtimestamp(reset, UTC).strftime("%H:%M")
    with pytest.raises(tm.Unavailable, match=f"rate limit is reached; it resets at {shown}"):
        read_repo(server, tm.EngineCredential.static("tok-123"), rate_limit_wait=5)


def test_refusals_never_show_the_token(server: LoopbackServer) -> None:
    fake = FakeGitHub(server)
    fake.limited = [{"status": "401"}]
    with pytest.raises(tm.Unauthorized) as refused:
        read_repo(server, tm.EngineCredential.static("tok-123"))
    assert "tok-123" not in str(refused.value)


def test_a_next_page_on_another_host_is_not_followed(server: LoopbackServer) -> None:
    def hostile(request: http.server.BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Link", '<https://evil.example/steal>; rel="next"')
        request.send_header("Content-Length", "2")
        request.end_headers()
        request.wfile.write(b"[]")

    server.routes[f"/repos/{REPO}/commits"] = hostile
    with pytest.raises(tm.EngineError, match="another host"):
        read_repo(server)


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ("acme/app", "acme/app"),
        ("https://github.com/acme/app", "acme/app"),
        ("http://github.com/acme/app.git", "acme/app"),
        ("git@github.com:acme/app.git", "acme/app"),
    ],
)
def test_repository_names(given: str, name: str) -> None:
    assert repo_name(given) == name


@pytest.mark.parametrize("given", ["acme", "https://github.com/acme/app/issues", "../x/y", "a/b/c"])
def test_bad_repository_names(given: str) -> None:
    with pytest.raises(tm.InvalidRequest, match="not a GitHub repository"):
        repo_name(given)
