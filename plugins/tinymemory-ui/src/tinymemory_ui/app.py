"""The web view: a Flask app over one engine, every page rendered on the server.

:func:`create_app` builds it; each request first passes the
:class:`~tinymemory_ui.security.Guard`. An error of the contract's types is
shown as a page with ``#error`` (status 400, 404 for an item not found),
never a traceback.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

import attrs
from flask import Flask, Response, redirect, render_template, request, url_for
from werkzeug.exceptions import HTTPException

import tinymemory as tm
from tinymemory.commands import (
    MIN_PREFIX,
    count_items,
    erase_question,
    hit_source,
    is_prefix,
    is_whole_tree,
    items_starting,
    listed_items,
    short_ids,
)
from tinymemory.jsonl import export_line
from tinymemory.passages import passage
from tinymemory.plugin import to_data
from tinymemory.retrieval import PIECE_TARGET, cut_pieces

from . import overview
from .forms import SearchForm, shown
from .security import RESPONSE_HEADERS, Guard

#: Hits or items per page of a search.
PAGE_SIZE = 20
#: How many items the engine is asked for at a time by the export download.
EXPORT_PAGE = 200
#: The most items one forget may remove (a larger filter is to be narrowed first).
MAX_FORGET = 1000
#: The routes that change memory: refused unless the server was started with ``--write``.
WRITE_ROUTES = frozenset({"forget_preview", "forget", "erase"})
#: A citation marker in an answer: ``[1]`` (ASCII digits, no more than an answer can cite).
_MARKER = re.compile(r"\[([0-9]{1,4})\]", re.ASCII)
#: The highest page number a search link may carry (a page is display only; the cursor reads).
MAX_PAGE = 10**9
#: A page number as a link writes it: ASCII digits, no sign, no leading zero.
_PAGE = re.compile(r"[1-9][0-9]{0,9}", re.ASCII)
#: The largest request body: a forget of ``MAX_FORGET`` ids with its form fields fits many
#: times over. Waitress refuses a longer body before the app reads it.
MAX_BODY_BYTES = 1024 * 1024
#: The most fields one form may post: the forget form's ids and its other fields.
MAX_FORM_FIELDS = MAX_FORGET + 50

log = logging.getLogger("tinymemory_ui")


class ItemNotFound(tm.NotFound):
    """An item page for an id no stored item has, or a prefix several start."""


@attrs.frozen
class UiState:
    """What every page reads: the engine, the guard, and the reach reads default to."""

    engine: tm.MemoryEngine
    guard: Guard
    reach: tm.Reach | None = None


def create_app(engine: tm.MemoryEngine, guard: Guard, *, reach: tm.Reach | None = None) -> Flask:
    """The app serving ``engine``, checking every request with ``guard``.

    ``reach`` confines every read whose form names no node (``--at``/``--reach``).
    """
    app = Flask("tinymemory_ui")
    # Bounds werkzeug enforces as it reads a request (a 413 page past them).
    app.config.update(MAX_CONTENT_LENGTH=MAX_BODY_BYTES, MAX_FORM_PARTS=MAX_FORM_FIELDS)
    state = UiState(engine=engine, guard=guard, reach=reach)
    pages = Pages(state)
    app.add_url_rule("/", "index", pages.search)
    app.add_url_rule("/search", "search", pages.search)
    app.add_url_rule("/items/<item_id>", "item", pages.item)
    app.add_url_rule("/tree", "tree", pages.tree)
    app.add_url_rule("/facets", "facets", pages.facets)
    app.add_url_rule("/export", "export", pages.export)
    app.add_url_rule("/export.jsonl", "export_download", pages.export_download)
    app.add_url_rule("/forget/preview", "forget_preview", pages.forget_preview, methods=["POST"])
    app.add_url_rule("/forget", "forget", pages.forget, methods=["POST"])
    app.add_url_rule("/erase", "erase", pages.erase, methods=["GET", "POST"])

    @app.before_request
    def check() -> Any:
        refusal = guard.refusal(request, write_route=request.endpoint in WRITE_ROUTES)
        if refusal is not None:
            return Response(refusal.reason + "\n", refusal.status, mimetype="text/plain")
        if "token" in request.args:
            return guard.token_redirect(request)
        return None

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers.update(RESPONSE_HEADERS)
        return response

    @app.context_processor
    def common() -> dict[str, Any]:
        return {"writes": guard.writes, "csrf": guard.csrf, "engine_id": engine.descriptor.id}

    @app.errorhandler(tm.TinyMemoryError)
    def contract_error(error: tm.TinyMemoryError) -> tuple[str, int]:
        status = 404 if isinstance(error, ItemNotFound) else 400
        return render_template("error.html", message=str(error)), status

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[str, int]:
        return render_template("error.html", message=error.description or ""), error.code or 500

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> tuple[str, int]:
        log.error("%s %s failed", request.method, request.path, exc_info=error)
        message = "the server met an unexpected error; its log (stderr) says what"
        return render_template("error.html", message=message), 500

    return app


class Pages:
    """The pages, each a view function over the state."""

    def __init__(self, state: UiState) -> None:
        self.state = state

    @property
    def engine(self) -> tm.MemoryEngine:
        """The engine the pages read."""
        return self.state.engine

    def modes(self) -> list[str]:
        """The search form's modes: recall, then every fetch mode the engine declares."""
        return ["recall", *(mode.value for mode in self.engine.descriptor.fetch_modes)]

    # --- search ---------------------------------------------------------------------

    def search(self) -> str:
        """The search form; a recall's answer, a page of fetch hits, or a filter's listing."""
        form = SearchForm.read(request.args)
        context: dict[str, Any] = {"form": form, "modes": self.modes(), "results": None}
        if not form.q and not form.filtered():
            return render_template("search.html", **context)
        filter = form.filter(self.state.reach)
        mode = form.mode or "recall"
        if mode not in self.modes():
            raise tm.InvalidRequest(
                f"mode must be one of {', '.join(self.modes())}, not `{shown(mode)}`"
            )
        if form.q and mode == "recall":
            answer = self.engine.recall(tm.RecallRequest(question=form.q, filter=filter))
            context.update(results="answer", parts=_answer_parts(answer), answer=answer)
            context["ids"] = short_ids(citation.id for citation in answer.citations)
            return render_template("search.html", **context)
        cursor = request.args.get("cursor") or None
        page_number = _page_number(request.args.get("page"))
        hits: tuple[tm.Hit, ...]
        if form.q:
            fetch_mode = tm.FetchMode(mode)
            fetched = self.engine.fetch(
                tm.FetchRequest(
                    query=form.q, mode=fetch_mode, filter=filter, limit=PAGE_SIZE, cursor=cursor
                )
            )
            hits, next_cursor = fetched.hits, fetched.next_cursor
        else:
            listed = self.engine.list(tm.ListRequest(filter=filter, limit=PAGE_SIZE, cursor=cursor))
            hits, next_cursor = listed.items, listed.next_cursor
        next_url = None
        if next_cursor is not None and hits:
            kept = {**form.params(), "mode": mode if form.q else ""}
            kept.update(cursor=next_cursor, page=str(page_number + 1))
            next_url = url_for("search") + "?" + urlencode({k: v for k, v in kept.items() if v})
        context.update(
            results="hits",
            ranked=bool(form.q),
            hits=[self._hit_row(hit, form.q) for hit in hits],
            next_url=next_url,
            page_number=page_number,
            first=(page_number - 1) * PAGE_SIZE + 1,
            forget_fields=form.fields,
        )
        return render_template("search.html", **context)

    def _hit_row(self, hit: tm.Hit, query: str) -> dict[str, Any]:
        return {
            "id": hit.id,
            "short": short_ids([hit.id])[hit.id],
            "kind": hit.kind.value,
            "source": hit_source(hit) or "",
            "score": f"{hit.score:.3f}",
            "snippet": passage(hit.text, query),
        }

    # --- items ----------------------------------------------------------------------

    def item(self, item_id: str) -> Any:
        """An item whole: text, metadata, provenance and a document's pieces."""
        given = item_id.lower()
        if is_prefix(given):
            return redirect(url_for("item", item_id=self._whole_id(given)), code=303)
        found = self.engine.get(tm.GetRequest(ids=(item_id,), reach=self.state.reach))
        if not found:
            raise ItemNotFound(f"no stored item has the id `{item_id}`")
        hit = found[0]
        meta = to_data(hit.meta)
        pieces = cut_pieces(hit.text, PIECE_TARGET) if hit.kind is tm.ItemKind.DOCUMENT else None
        provenance = {
            "file": hit.meta.file_path,
            "folder": hit.meta.folder,
            "url": hit.meta.url,
            "repo": hit.meta.repo,
        }
        return render_template(
            "item.html",
            hit=hit,
            meta=meta,
            provenance={key: value for key, value in provenance.items() if value},
            pieces=pieces,
        )

    def _whole_id(self, prefix: str) -> str:
        if len(prefix) < MIN_PREFIX:
            raise ItemNotFound(f"id `{prefix}` is too short: give at least {MIN_PREFIX} hex digits")
        found = items_starting(self.engine, [prefix])[prefix]
        if not found:
            raise ItemNotFound(f"no stored item has an id starting `{prefix}`")
        if len(found) > 1:
            raise ItemNotFound(
                f"id `{prefix}` is ambiguous: {len(found)} items start with it; give more digits"
            )
        return found[0].id

    # --- tree, facets, export -------------------------------------------------------

    def tree(self) -> str:
        """The namespace tree and the folder tree, each node with its count and its link."""
        return render_template("tree.html", trees=overview.trees(self.engine, self.state.reach))

    def facets(self) -> str:
        """Kind, tags, workspace and months as bars."""
        views = overview.facets(self.engine, self.state.reach, datetime.now(UTC))
        return render_template("facets.html", facets=views)

    def export(self) -> str:
        """The page offering the download."""
        return render_template("export.html")

    def export_download(self) -> Response:
        """Every item the reach reads as JSON lines, the form ``tinymemory export`` writes."""
        filter = tm.MetaFilter(reach=self.state.reach)
        first = self.engine.export(tm.ListRequest(filter=filter, limit=EXPORT_PAGE))

        def lines() -> Iterator[str]:
            page = first
            while True:
                for entry in page.items:
                    yield export_line(entry) + "\n"
                cursor = page.next_cursor
                if cursor is None:
                    return
                page = self.engine.export(
                    tm.ListRequest(filter=filter, limit=EXPORT_PAGE, cursor=cursor)
                )

        disposition = 'attachment; filename="tinymemory-export.jsonl"'
        return Response(
            lines(),
            mimetype="application/x-ndjson",
            headers={"Content-Disposition": disposition},
        )

    # --- writes ---------------------------------------------------------------------

    def forget_preview(self) -> str:
        """What a forget would remove (the ids given, or every item a filter admits)."""
        ids = tuple(dict.fromkeys(request.form.getlist("ids")))
        if ids:
            hits = self.engine.get(tm.GetRequest(ids=ids))
        else:
            filter = SearchForm.read(request.form).filter(self.state.reach)
            tm.ForgetTarget.by_filter(attrs.evolve(filter, reach=None)).validate()
            hits = self._every_match(filter)
        rows = [self._hit_row(hit, "") for hit in hits]
        return render_template("preview.html", hits=rows)

    def _every_match(self, filter: tm.MetaFilter) -> list[tm.Hit]:
        found = list(itertools.islice(listed_items(self.engine, filter), MAX_FORGET + 1))
        if len(found) > MAX_FORGET:
            raise tm.InvalidRequest(
                f"the filter admits more than {MAX_FORGET} items: narrow it to forget them"
            )
        return found

    def forget(self) -> str:
        """Forget exactly the ids the preview listed."""
        ids = tuple(dict.fromkeys(request.form.getlist("ids")))
        report = self.engine.forget(tm.ForgetTarget.by_ids(ids))
        return render_template("forgot.html", forgotten=report.forgotten)

    def erase(self) -> str | tuple[str, int]:
        """The erase form; asked again with the question until the node is typed into ``confirm``.

        The node box starts empty (empty is the root), so a typed node is the
        node. A whole-tree erase without its box ticked is refused on the
        form, naming the box.
        """
        kinds = [kind.value for kind in tm.ItemKind]
        if request.method == "GET":
            return self._erase_form(kinds, {})
        form = request.form
        typed = (form.get("at") or "").strip()
        at = tm.Namespace.parse(typed or str(tm.Namespace.ROOT))
        subtree = form.get("subtree") == "on"
        chosen = form.getlist("kind")
        reach = tm.Reach.subtree(at) if subtree else tm.Reach.exact(at)
        whole_tree = form.get("whole_tree") == "on"
        erase_request = tm.EraseRequest(reach=reach, kinds=tuple(chosen), whole_tree=whole_tree)
        shown = {"at": typed, "subtree": subtree, "kinds": chosen, "whole_tree": whole_tree}
        if is_whole_tree(erase_request) and not whole_tree:
            refused = (
                f"Erasing every item at every node needs the “{WHOLE_TREE_BOX}” box ticked too."
            )
            return self._erase_form(kinds, shown, refused=refused), 400
        erase_request.validate()
        if (form.get("confirm") or "").strip() != str(at):
            return self._erase_form(kinds, shown, question=erase_question(erase_request))
        counted = count_items(self.engine, reach, chosen)
        report = self.engine.erase(erase_request)
        return render_template(
            "erased.html",
            at=str(at),
            subtree=subtree,
            counted=counted,
            scopes=report.erased_scopes,
            whole=is_whole_tree(erase_request),
        )

    def _erase_form(
        self,
        kinds: list[str],
        form: dict[str, object],
        question: str | None = None,
        refused: str | None = None,
    ) -> str:
        return render_template(
            "erase.html",
            kinds=kinds,
            form=form,
            question=question,
            refused=refused,
            WHOLE_TREE_BOX=WHOLE_TREE_BOX,
        )


#: The erase form's box that allows erasing every item at every node.
WHOLE_TREE_BOX = "the whole tree"


def _answer_parts(answer: tm.RecallAnswer) -> list[tuple[str, int | None]]:
    """The answer's text cut at its citation markers: (text, None) and (marker, number)."""
    parts: list[tuple[str, int | None]] = []
    last = 0
    for match in _MARKER.finditer(answer.answer):
        number = int(match.group(1))
        if 1 <= number <= len(answer.citations):
            parts.append((answer.answer[last : match.start()], None))
            parts.append((match.group(0), number))
            last = match.end()
    parts.append((answer.answer[last:], None))
    return [part for part in parts if part[0]]


def _page_number(given: str | None) -> int:
    """The ``page`` of a search link: 1 when absent; anything but a page number is a 400."""
    if given is None:
        return 1
    if _PAGE.fullmatch(given) is None or int(given) > MAX_PAGE:
        raise tm.InvalidRequest(f"page must be a whole number from 1 to {MAX_PAGE}")
    return int(given)
