"""``TinyMemoryStore``: LangGraph's ``BaseStore`` over any TinyMemory engine.

An entry ``(namespace, key, value)`` is one ``tinymemory.Document`` at the
node the namespace names (:mod:`tinymemory_langgraph.namespaces`): its title
is the key, its body the value as JSON (``json.dumps`` with
``ensure_ascii=False``; NaN and infinities refused), its mime
``application/json``, its ``observed_at`` the time of the put (LangGraph's
``updated_at``) and its tags ``langgraph``, ``langgraph:key=<key>`` and
``langgraph:created=<ISO time>`` (``created_at``, kept across updates).
Reading gives the key and the value back exactly as put.

A put stores the new document first and then forgets the entry's earlier
ones, so a crash between the two leaves both and a read takes the newest;
putting an unchanged value again is a replay (its ``updated_at`` stays).
The engine's scrubbers (``build_engine`` wraps every engine in them) see
the document like any other: a secret in a value is redacted in what is
kept; a scrubbed entry that no longer reads back as its key and a JSON
object is forgotten again and the put refused (``tinymemory.InvalidRequest``).
A search with a ``query`` ranks with the engine's own ``fetch`` (hybrid when
the engine serves it); without one it lists in the engine's order. The
namespace prefix is a ``Reach.subtree`` and "is a LangGraph entry" the tag
``langgraph``, both read by the engine; the ``filter`` on the value has no
TinyMemory metadata to map onto, so it is applied here, exactly
(:mod:`tinymemory_langgraph.filters`), while paging.

The operations of one ``batch`` run in order, one at a time per store (a
lock), and every op is checked before the first runs. ``abatch`` runs
``batch`` in a worker thread. TTL is not supported (``supports_ttl`` is
false: a put with a ``ttl`` raises ``NotImplementedError``, as LangGraph's
``BaseStore`` does, and a ``ttl`` configuration is refused); an ``index``
configuration is refused, since the engine's own embedder ranks (configure
it in TinyMemory); a put's ``index`` argument is then ignored, as LangGraph
documents for a store without one.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    IndexConfig,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

import tinymemory as tm
from tinymemory.commands import default_mode, listed_items
from tinymemory_langgraph.filters import check_filter, matches
from tinymemory_langgraph.namespaces import encode_label, labels_of, node_of

#: The tag every entry carries.
MARK = "langgraph"
#: The tag holding an entry's key, after this prefix.
KEY_TAG = "langgraph:key="
#: The tag holding an entry's creation time (ISO 8601, UTC), after this prefix.
CREATED_TAG = "langgraph:created="
#: How many ranked hits a search reads from the engine at a time.
SEARCH_PAGE = 50
MIME = "application/json"
_DOCUMENTS = (tm.ItemKind.DOCUMENT,)


class TinyMemoryStore(BaseStore):
    """LangGraph's long-term memory store on a TinyMemory engine.

    ``engine``: any engine ``tinymemory.build_engine`` hands out (the caller
    closes it). ``at``: the node every LangGraph namespace nests below (the
    root by default), so a host scopes a graph as it scopes an agent.
    """

    __slots__ = ("_base", "_engine", "_lock")

    def __init__(
        self,
        engine: tm.MemoryEngine,
        *,
        at: tm.Namespace | str = tm.Namespace.ROOT,
        index: IndexConfig | None = None,
        ttl: TTLConfig | None = None,
    ) -> None:
        if index is not None:
            raise tm.Unsupported(
                "TinyMemoryStore ranks with the engine's own retrieval: configure the "
                "embedder in TinyMemory, not a LangGraph `index`"
            )
        if ttl is not None:
            raise tm.Unsupported(
                "TinyMemoryStore keeps no time to live: TinyMemory items do not expire"
            )
        self._engine = engine
        self._base = at if isinstance(at, tm.Namespace) else tm.Namespace.parse(at)
        self._lock = threading.Lock()

    @property
    def engine(self) -> tm.MemoryEngine:
        """The engine the store reads and writes."""
        return self._engine

    def node(self, namespace: tuple[str, ...]) -> tm.Namespace:
        """The TinyMemory node a LangGraph namespace names (``InvalidNamespaceError`` if none)."""
        return node_of(self._base, namespace)

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run ``ops`` in order; every op is checked before the first runs."""
        listed = list(ops)
        for op in listed:
            _check(self._base, op)
        with self._lock:
            return [self._run(op) for op in listed]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """:meth:`batch` in a worker thread."""
        return await asyncio.to_thread(self.batch, list(ops))

    def _run(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            self._put(op)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        return self._list_namespaces(op)

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        held = self._held(namespace, key)
        if not held:
            return None
        newest = max((entry for _, entry in held), key=lambda entry: entry.updated_at)
        return Item(
            value=newest.value,
            key=newest.key,
            namespace=newest.namespace,
            created_at=newest.created_at,
            updated_at=newest.updated_at,
        )

    def _held(self, namespace: tuple[str, ...], key: str) -> list[tuple[str, SearchItem]]:
        """The ids and entries stored for ``key`` at ``namespace``."""
        meta = tm.MetaFilter(
            reach=tm.Reach.exact(self.node(namespace)), tags_any=[KEY_TAG + key], kinds=_DOCUMENTS
        )
        found = []
        for hit in listed_items(self._engine, meta):
            entry = self._entry(hit)
            if entry is not None and entry.key == key and entry.namespace == namespace:
                found.append((hit.id, entry))
        return found

    def _put(self, op: PutOp) -> None:
        held = self._held(op.namespace, op.key)
        stale = [item_id for item_id, _ in held]
        if op.value is not None:
            now = datetime.now(UTC)
            created = min((entry.created_at for _, entry in held), default=now)
            document = tm.Document(
                title=op.key,
                body=_dump(op.value),
                mime=MIME,
                meta=tm.MemoryMeta(
                    namespace=self.node(op.namespace),
                    tags=[MARK, KEY_TAG + op.key, CREATED_TAG + created.isoformat()],
                    observed_at=now,
                ),
            )
            kept = self._engine.store(document).id
            if kept != document.fingerprint():
                self._check_scrubbed(kept, op.key)
            stale = [item_id for item_id in stale if item_id != kept]
        if stale:
            self._engine.forget(tm.ForgetTarget.by_ids(stale))

    def _check_scrubbed(self, item_id: str, key: str) -> None:
        """A scrubber rewrote the entry as it was stored: it must still read as an entry.

        When it does not (the value is no longer a JSON object, or the key
        changed), the stored item is forgotten and the put refused, so an entry
        is never kept in a form the store cannot give back.
        """
        stored = self._engine.get(tm.GetRequest(ids=[item_id]))
        entry = self._entry(stored[0]) if stored else None
        if entry is None or entry.key != key:
            self._engine.forget(tm.ForgetTarget.by_ids([item_id]))
            raise tm.InvalidRequest(
                "a scrubber rewrote this entry into one that no longer reads as a key and a "
                "JSON value; it was not kept"
            )

    def _search(self, op: SearchOp) -> list[SearchItem]:
        meta = tm.MetaFilter(
            reach=tm.Reach.subtree(self.node(op.namespace_prefix)),
            tags_any=[MARK],
            kinds=_DOCUMENTS,
        )
        wanted = op.offset + op.limit
        found: list[SearchItem] = []
        if op.limit == 0:
            return found
        candidates = (
            self._ranked(op.query, meta) if op.query and op.query.strip() else self._listed(meta)
        )
        for entry in candidates:
            if matches(entry.value, op.filter):
                found.append(entry)
                if len(found) == wanted:
                    break
        return found[op.offset :]

    def _listed(self, meta: tm.MetaFilter) -> Iterator[SearchItem]:
        for hit in listed_items(self._engine, meta):
            entry = self._entry(hit)
            if entry is not None:
                yield entry

    def _ranked(self, query: str, meta: tm.MetaFilter) -> Iterator[SearchItem]:
        """The entries the engine's fetch finds for ``query``, best first, a page at a time.

        A fetch hit may carry only a long document's best piece, so each page
        is read back whole with ``get``; the fetch's score is kept.
        """
        mode = default_mode(self._engine.descriptor.fetch_modes)
        if mode is None:
            raise tm.Unsupported(
                f"engine `{self._engine.descriptor.id}` offers no fetch to rank a query"
            )
        cursor: str | None = None
        while True:
            page = self._engine.fetch(
                tm.FetchRequest(
                    query=query, mode=mode, filter=meta, limit=SEARCH_PAGE, cursor=cursor
                )
            )
            if page.hits:
                whole = {
                    hit.id: hit
                    for hit in self._engine.get(
                        tm.GetRequest(ids=[hit.id for hit in page.hits], reach=meta.reach)
                    )
                }
                for hit in page.hits:
                    entry = self._entry(whole[hit.id], hit.score) if hit.id in whole else None
                    if entry is not None:
                        yield entry
            if page.next_cursor is None or page.next_cursor == cursor:
                return
            cursor = page.next_cursor

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        conditions = op.match_conditions or ()
        prefix = next((c.path for c in conditions if c.match_type == "prefix"), ())
        fixed = tuple(label for label in _until_wildcard(prefix))
        meta = tm.MetaFilter(
            reach=tm.Reach.subtree(self.node(fixed)), tags_any=[MARK], kinds=_DOCUMENTS
        )
        page = self._engine.explore(
            tm.ExploreRequest(
                facet=tm.Facet.NAMESPACE,
                filter=meta,
                limit=tm.MAX_BUCKETS,
                scan_limit=tm.MAX_SCAN_LIMIT,
            )
        )
        if page.more_buckets or page.truncated:
            nodes = {hit.meta.namespace for hit in listed_items(self._engine, meta)}
        else:
            nodes = {tm.Namespace.parse(bucket.value) for bucket in page.buckets}
        names = {labels_of(self._base, node) for node in nodes}
        chosen = {
            name[: op.max_depth] if op.max_depth is not None else name
            for name in names
            if name and all(_meets(condition, name) for condition in conditions)
        }
        return sorted(chosen)[op.offset : op.offset + op.limit]

    def _entry(self, hit: tm.Hit, score: float | None = None) -> SearchItem | None:
        """The LangGraph entry a hit holds, or None for an item this store did not write."""
        namespace = labels_of(self._base, hit.meta.namespace)
        key = _tagged(hit.meta.tags, KEY_TAG)
        created = _tagged(hit.meta.tags, CREATED_TAG)
        if not namespace or key is None or created is None or hit.meta.observed_at is None:
            return None
        title = _rendered_title(key)
        if not hit.text.startswith(title):
            return None
        try:
            value = json.loads(hit.text[len(title) :])
            created_at = datetime.fromisoformat(created)
        except ValueError:
            return None
        if not isinstance(value, dict):
            return None
        return SearchItem(
            namespace=namespace,
            key=key,
            value=value,
            created_at=created_at,
            updated_at=hit.meta.observed_at,
            score=score,
        )


def _check(base: tm.Namespace, op: Op) -> None:
    """Refuse a malformed op before any engine work."""
    if isinstance(op, (GetOp, PutOp)):
        node_of(base, op.namespace)
        if not isinstance(op.key, str):
            raise tm.InvalidRequest(f"a LangGraph key is a string, not {type(op.key).__name__}")
    if isinstance(op, PutOp):
        if not op.namespace:
            raise InvalidNamespaceError("a put needs a namespace of at least one label")
        if op.ttl is not None:
            raise NotImplementedError("TTL is not supported by TinyMemoryStore: set ttl=None")
        if op.value is not None:
            _dump(op.value)
    elif isinstance(op, SearchOp):
        node_of(base, op.namespace_prefix)
        check_filter(op.filter)
        _check_window(op.limit, op.offset)
    elif isinstance(op, ListNamespacesOp):
        for condition in op.match_conditions or ():
            if condition.match_type not in ("prefix", "suffix"):
                raise ValueError(f"unsupported namespace match type {condition.match_type!r}")
            for label in condition.path:
                if label != "*":
                    encode_label(label)
        if op.max_depth is not None and op.max_depth < 1:
            raise ValueError("list_namespaces max_depth must be at least 1")
        _check_window(op.limit, op.offset)
    elif not isinstance(op, (GetOp, PutOp)):
        raise ValueError(f"unknown store operation {type(op).__name__}")


def _check_window(limit: int, offset: int) -> None:
    if limit < 0 or offset < 0:
        raise ValueError("limit and offset must be zero or more")


def _dump(value: Mapping[str, Any]) -> str:
    """The JSON a value is stored as; ``InvalidRequest`` for a value that is not a JSON object."""
    if not isinstance(value, Mapping):
        raise tm.InvalidRequest(f"a LangGraph value is a mapping, not {type(value).__name__}")
    try:
        return json.dumps(dict(value), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise tm.InvalidRequest(f"a LangGraph value must be JSON: {error}") from error


def _rendered_title(key: str) -> str:
    """What a document titled ``key`` renders before its body."""
    marker = "\N{OBJECT REPLACEMENT CHARACTER}"
    return tm.Document(title=key, body=marker).render_text().removesuffix(marker)


def _tagged(tags: Iterable[str], prefix: str) -> str | None:
    return next((tag[len(prefix) :] for tag in tags if tag.startswith(prefix)), None)


def _until_wildcard(path: tuple[str, ...]) -> Iterator[str]:
    for label in path:
        if label == "*":
            return
        yield label


def _meets(condition: MatchCondition, name: tuple[str, ...]) -> bool:
    path = condition.path
    if len(name) < len(path):
        return False
    part = name[: len(path)] if condition.match_type == "prefix" else name[len(name) - len(path) :]
    return all(wanted in ("*", found) for wanted, found in zip(path, part, strict=True))


__all__ = ["CREATED_TAG", "KEY_TAG", "MARK", "TinyMemoryStore"]
