"""The ``github`` reader: a repository's commits, issues and pull requests, with comments.

It talks to the GitHub REST API through the context's fetcher (the guard by
default), at ``api_url`` (default ``https://api.github.com``; a GitHub
Enterprise server's ``https://host/api/v3`` works the same). The context's
credential, when given, is sent as a bearer token and never appears in an
error. Pages are followed through the ``Link`` header, only while they stay on
the API's origin. A rate-limited answer (403 or 429 with
``X-RateLimit-Remaining: 0`` or ``Retry-After``) is waited out when the wait is
at most ``rate_limit_wait`` seconds, else it is ``Unavailable`` saying when the
limit resets.
"""

from __future__ import annotations

import itertools
import json
import re
import time
import urllib.parse
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import attrs

import tinymemory as tm
from tinymemory.plugin import HttpResponse, ReaderContext, ReaderOption, SourceSkip
from tinymemory_sources.reader_options import (
    bool_option,
    check_names,
    int_option,
    option_names,
    text_option,
)
from tinymemory_sources.responses import check_status, header

DEFAULT_API = "https://api.github.com"
#: The hosts whose urls name a repository.
GITHUB_HOSTS = ("github.com", "www.github.com")
PER_PAGE = 100
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_WEB = re.compile(
    r"^(?:https?://(?:www\.)?github\.com/|git@github\.com:)"
    r"([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$"
)
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


def repo_name(given: str) -> str:
    """``owner/name`` from itself, its ``https://github.com/...`` url or ``git@github.com:...``."""
    text = given.strip()
    found = _WEB.match(text)
    if found:
        return f"{found.group(1)}/{found.group(2)}"
    if _REPO.match(text) and ".." not in text:
        return text
    raise tm.InvalidRequest(
        f"`{given}` is not a GitHub repository (owner/name or its github.com url)"
    )


def _stamp(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _json(response: HttpResponse) -> Any:
    try:
        return json.loads(response.body)
    except (ValueError, RecursionError):
        return None


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _login(user: object) -> str:
    return str(user.get("login", "unknown")) if isinstance(user, Mapping) else "unknown"


class GitHubApi:
    """The REST calls of one read: authenticated, paged, rate-limit aware."""

    def __init__(self, context: ReaderContext, api_url: str, wait_limit: int) -> None:
        self.fetcher = context.fetcher
        self.api = api_url.rstrip("/")
        self.origin = urllib.parse.urlsplit(self.api)[:2]
        self.wait_limit = wait_limit
        self.headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": "2022-11-28",
        }
        token = context.credential.bearer()
        if token:
            self.headers["Authorization"] = f"Bearer {token}"

    def get(self, url: str) -> HttpResponse:
        """One call, a rate-limited answer waited out (twice at most) or refused."""
        for _ in range(3):
            response = self.fetcher(url, headers=self.headers)
            wait = self._limited_for(response)
            if wait is None:
                break
            if wait > self.wait_limit:
                reset = datetime.fromtimestamp(time.time() + wait, UTC).strftime("%H:%M:%S UTC")
                raise tm.Unavailable(
                    f"the GitHub API rate limit is reached; it resets at {reset} (in {wait:.0f} s)"
                )
            time.sleep(wait)
        if response.status == 401:
            raise tm.Unauthorized("GitHub refused the credential (401)")
        return check_status(response)

    def _limited_for(self, response: HttpResponse) -> float | None:
        """Seconds to wait before asking again, when ``response`` is a rate-limit refusal."""
        if response.status not in (403, 429):
            return None
        retry_after = header(response, "retry-after")
        if retry_after and retry_after.strip().isdigit():
            return float(retry_after)
        if header(response, "x-ratelimit-remaining") == "0":
            reset = header(response, "x-ratelimit-reset") or ""
            return max(0.0, float(reset) - time.time()) if reset.isdigit() else float("inf")
        return None

    def pages(self, path: str, limit: int) -> Iterator[Mapping[str, Any]]:
        """Up to ``limit`` objects of a listing, page after page."""
        url: str | None = f"{self.api}/{path}{'&' if '?' in path else '?'}per_page={PER_PAGE}"
        count = 0
        while url is not None and count < limit:
            response = self.get(url)
            listed = _json(response)
            if not isinstance(listed, list):
                raise tm.EngineError(f"GitHub answered {path.split('?')[0]} with no JSON list")
            for entry in listed:
                if isinstance(entry, Mapping) and count < limit:
                    count += 1
                    yield entry
            url = self._next(response)

    def _next(self, response: HttpResponse) -> str | None:
        found = _NEXT.search(header(response, "link") or "")
        if found is None:
            return None
        following = found.group(1)
        if urllib.parse.urlsplit(following)[:2] != self.origin:
            raise tm.EngineError("GitHub's next page is on another host; it is not followed")
        return following


def _comments(api: GitHubApi, repo: str, number: int, count: object) -> str:
    """The thread's comments as markdown, asked for only when the listing says there are some."""
    if not isinstance(count, int) or count <= 0:
        return ""
    lines = []
    for comment in api.pages(f"repos/{repo}/issues/{number}/comments", 1000):
        lines += ["", f"**{_login(comment.get('user'))}** ({comment.get('created_at', '')}):"]
        lines += ["", str(comment.get("body") or "").strip()]
    return "\n".join(["", "", "## Comments", *lines]) if lines else ""


def _thread_body(entry: Mapping[str, Any], facts: list[str], comments: str) -> str:
    labels = ", ".join(
        str(label.get("name")) for label in entry.get("labels") or () if isinstance(label, Mapping)
    )
    lines = [*facts, f"Author: {_login(entry.get('user'))}"]
    lines += [f"Labels: {labels}"] if labels else []
    lines += [f"Created: {entry.get('created_at', '')}", f"Updated: {entry.get('updated_at', '')}"]
    text = str(entry.get("body") or "").strip()
    return "\n".join([*lines, "", text or "(no description)"]) + comments


class GitHubReader:
    """``github``: a repository's activity (commits, issues, pull requests) as documents.

    Options: ``repo`` (required: ``owner/name`` or its github.com url),
    ``api_url`` (default ``https://api.github.com``), ``max_commits``,
    ``max_issues``, ``max_prs`` (each default 1000; 0 reads none),
    ``comments`` (default true), ``rate_limit_wait`` (seconds, default 60),
    ``workspace``. The credential, if any, is the token. Items carry ``repo``,
    ``url``, ``commit`` (commits) and ``observed_at``.
    """

    name = "github"
    source_option = "repo"
    options = (
        ReaderOption(name="api_url", help="The GitHub API (default https://api.github.com)."),
        *(
            ReaderOption(
                name=f"max_{kind}", kind="integer", help=f"Most {shown} read (default 1000)."
            )
            for kind, shown in (
                ("commits", "commits"),
                ("issues", "issues"),
                ("prs", "pull requests"),
            )
        ),
        ReaderOption(name="comments", kind="flag", help="Read issue and pull request comments."),
        ReaderOption(
            name="rate_limit_wait", kind="integer", help="Most seconds to wait on the rate limit."
        ),
    )
    OPTIONS = option_names(source_option, options, "workspace")
    #: The token is sent to the GitHub API only.
    credential_variable = "GITHUB_TOKEN"

    def claims(self, source: str) -> bool:
        """A github.com url, or ``git@github.com:owner/name``."""
        if source.startswith("git@github.com:"):
            return True
        parts = urllib.parse.urlsplit(source)
        return parts.scheme in ("http", "https") and (parts.hostname or "") in GITHUB_HOSTS

    def read(self, context: ReaderContext) -> Iterator[tm.StoreItem | SourceSkip]:
        """Yield the repository's commits, then its issues, then its pull requests."""
        options = context.options
        check_names(self.name, options, self.OPTIONS)
        repo = repo_name(str(text_option(self.name, options, "repo", required=True)))
        api_url = text_option(self.name, options, "api_url") or DEFAULT_API
        if urllib.parse.urlsplit(api_url).scheme not in ("http", "https"):
            raise tm.InvalidRequest("reader `github`: `api_url` must be an http(s) url")
        limits = {
            kind: int_option(self.name, options, f"max_{kind}", 1000, 0, 100_000)
            for kind in ("commits", "issues", "prs")
        }
        with_comments = bool_option(self.name, options, "comments", True)
        wait = int_option(self.name, options, "rate_limit_wait", 60, 0, 3600)
        workspace = text_option(self.name, options, "workspace")
        api = GitHubApi(context, api_url, wait)
        meta = tm.MemoryMeta(
            workspace=workspace, repo=repo, source=tm.SourceRef(kind=tm.SourceKind.GITHUB, id=repo)
        )
        return self._activity(api, repo, limits, with_comments, meta)

    def _activity(
        self,
        api: GitHubApi,
        repo: str,
        limits: Mapping[str, int],
        with_comments: bool,
        meta: tm.MemoryMeta,
    ) -> Iterator[tm.StoreItem | SourceSkip]:
        for commit in api.pages(f"repos/{repo}/commits", limits["commits"]):
            yield self._commit(commit, meta)
        issues = (
            issue
            for issue in api.pages(f"repos/{repo}/issues?state=all", 10**9)
            if "pull_request" not in issue
        )
        # islice stops asking (and so fetching pages) once the limit is reached.
        for issue in itertools.islice(issues, limits["issues"]):
            number = issue.get("number")
            if not isinstance(number, int):
                yield SourceSkip(what=f"issue {number!r}", reason="the listing gives no number")
                continue
            comments = _comments(api, repo, number, issue.get("comments")) if with_comments else ""
            facts = [f"State: {issue.get('state', '')}"]
            yield self._thread(issue, f"Issue #{number}", facts, comments, meta)
        for pull in api.pages(f"repos/{repo}/pulls?state=all", limits["prs"]):
            number = pull.get("number")
            if not isinstance(number, int):
                yield SourceSkip(
                    what=f"pull request {number!r}", reason="the listing gives no number"
                )
                continue
            # The pulls listing carries no comment count: ask for the thread's comments.
            comments = _comments(api, repo, number, 1) if with_comments else ""
            state = "merged" if pull.get("merged_at") else str(pull.get("state", ""))
            base = _mapping(pull.get("base")).get("ref", "")
            head = _mapping(pull.get("head")).get("ref", "")
            facts = [f"State: {state}", f"Branches: {head} into {base}"]
            yield self._thread(pull, f"PR #{number}", facts, comments, meta)

    def _commit(self, commit: Mapping[str, Any], meta: tm.MemoryMeta) -> tm.StoreItem | SourceSkip:
        sha = str(commit.get("sha", ""))
        detail = _mapping(commit.get("commit"))
        author = _mapping(detail.get("author"))
        message = str(detail.get("message") or "").strip()
        if not sha or not message:
            return SourceSkip(
                what=f"commit {sha or '?'}", reason="the commit has no sha or message"
            )
        subject = message.splitlines()[0]
        body = "\n".join(
            [
                f"Commit {sha}",
                f"Author: {author.get('name', 'unknown')}",
                f"Date: {author.get('date', '')}",
                "",
                message,
            ]
        )
        placed = attrs.evolve(
            meta,
            commit=sha,
            url=commit.get("html_url") or None,
            observed_at=_stamp(author.get("date")),
        )
        return tm.Document(title=f"Commit: {subject}", body=body, mime="text/markdown", meta=placed)

    def _thread(
        self,
        entry: Mapping[str, Any],
        label: str,
        facts: list[str],
        comments: str,
        meta: tm.MemoryMeta,
    ) -> tm.StoreItem:
        placed = attrs.evolve(
            meta, url=entry.get("html_url") or None, observed_at=_stamp(entry.get("updated_at"))
        )
        return tm.Document(
            title=f"{label}: {entry.get('title', '')}",
            body=_thread_body(entry, facts, comments),
            mime="text/markdown",
            meta=placed,
        )
