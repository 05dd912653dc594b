"""The seven memory tools a model calls, over any engine, under a scope the host fixes.

:class:`MemoryTools` offers ``memory_recall``, ``memory_fetch``,
``memory_list``, ``memory_get`` and ``memory_explore`` (reads), and
``memory_store`` and ``memory_forget`` (writes). :meth:`MemoryTools.specs`
describes them (name, description, JSON Schema) for a host to hand its model
API; :meth:`MemoryTools.call` runs one with the model's arguments and returns
the compact JSON text to hand back as the tool's result.

The model never chooses whose memory it touches. A :class:`ToolScope` fixes
it: every stored item is placed at ``scope.place`` with metadata the tool
builds; every read's reach is ``scope.reach``, whatever the arguments say;
``memory_forget`` by ids reads the ids back under that reach and forgets only
those found. Arguments naming ``namespace`` or ``reach`` at any depth, or any
key a tool does not take, are refused with
:class:`~tinymemory._errors.InvalidRequest`.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import attrs

from tinymemory._engine import MemoryEngine
from tinymemory._errors import InvalidRequest, Unsupported
from tinymemory._items import (
    Conversation,
    Document,
    Learning,
    LearningKind,
    Role,
    StoreItem,
    Turn,
    validate_item,
)
from tinymemory._meta import MemoryMeta, MetaFilter, SourceKind, SourceRef
from tinymemory._namespace import Namespace, Reach, as_namespace
from tinymemory._operations import (
    Citation,
    ExplorePage,
    ExploreRequest,
    FetchMode,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ListRequest,
    RecallRequest,
)
from tinymemory._timestamps import format_whole_seconds
from tinymemory._tool_arguments import Arguments, decode, refuse_host_fixed
from tinymemory._tool_schemas import (
    DEFAULT_CONFIDENCE,
    DEFAULT_LEARNING_KIND,
    DEFAULT_TOOL_LIMIT,
    EXPLORE_FACETS,
    LEARNING_KIND_ALIAS,
    MAX_TOOL_LIMIT,
    MEMORY_EXPLORE,
    MEMORY_FETCH,
    MEMORY_FORGET,
    MEMORY_GET,
    MEMORY_LIST,
    MEMORY_RECALL,
    MEMORY_STORE,
    READ_TOOLS,
    TOOL_NAMES,
    WRITE_TOOLS,
    ToolSpec,
    anthropic_tools,
    default_mode,
    openai_tools,
    tool_specs,
)
from tinymemory._validators import instance_of

__all__ = [
    "MEMORY_EXPLORE",
    "MEMORY_FETCH",
    "MEMORY_FORGET",
    "MEMORY_GET",
    "MEMORY_LIST",
    "MEMORY_RECALL",
    "MEMORY_STORE",
    "READ_TOOLS",
    "TOOL_NAMES",
    "WRITE_TOOLS",
    "MemoryTools",
    "ToolScope",
    "ToolSpec",
    "anthropic_tools",
    "openai_tools",
    "render_score",
    "tool_specs",
]

#: What ``call`` accepts as a model's arguments: JSON text, or the parsed object.
ToolArguments = str | bytes | bytearray | Mapping[str, Any] | None
#: A checked call's engine work: it returns the tool's result.
Work = Callable[[], dict[str, Any]]
_STORE_SHAPES = ("learning", "document", "conversation")


@attrs.frozen(kw_only=True)
class ToolScope:
    """Where a model's memory tools write, how far they read, and whether they write at all.

    The default is a single-tenant host's scope: writes at the root, reads of
    every namespace but the ``service:`` sandboxes, writes on.
    """

    place: Namespace = attrs.field(default=Namespace.ROOT, converter=as_namespace)
    reach: Reach | None = attrs.field(default=None, validator=instance_of(Reach, optional=True))
    writes: bool = attrs.field(default=True, validator=instance_of(bool, optional=False))

    @classmethod
    def at(cls, place: Namespace | str) -> ToolScope:
        """An agent's scope: writes land at ``place``; reads see it and its ancestors."""
        placed = as_namespace(place)
        return cls(place=placed, reach=Reach.of(placed), writes=True)


class MemoryTools:
    """The memory tools a host offers a model: one engine, one :class:`ToolScope`.

    Builders return new tools and leave this one as it is::

        tools = MemoryTools(engine).placed_at("team:acme/agent:writer").read_only()

    ``clock`` gives the ``observed_at`` of stored items (the current time by
    default); pass a fixed one for reproducible output.
    """

    def __init__(
        self,
        engine: MemoryEngine,
        scope: ToolScope | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        if not isinstance(engine, MemoryEngine):
            raise InvalidRequest(f"memory tools need a MemoryEngine, not {type(engine).__name__}")
        if scope is not None and not isinstance(scope, ToolScope):
            raise InvalidRequest(f"`scope` must be a ToolScope, not {type(scope).__name__}")
        self._engine = engine
        self._scope = scope or ToolScope()
        self._clock = clock or _now

    @classmethod
    def with_scope(
        cls,
        engine: MemoryEngine,
        scope: ToolScope,
        *,
        clock: Callable[[], datetime] | None = None,
    ) -> MemoryTools:
        """Tools over ``engine`` with an explicit scope."""
        return cls(engine, scope, clock=clock)

    # --- the scope ---------------------------------------------------------------

    @property
    def engine(self) -> MemoryEngine:
        """The engine the tools call."""
        return self._engine

    @property
    def scope(self) -> ToolScope:
        """The scope the tools run in."""
        return self._scope

    def _rescoped(self, scope: ToolScope) -> MemoryTools:
        return MemoryTools(self._engine, scope, clock=self._clock)

    def placed_at(self, place: Namespace | str) -> MemoryTools:
        """Write at ``place`` and read ``Reach.of(place)``, keeping the writes flag.

        Any reach set before is dropped, so a placed scope never keeps reading
        more than its own branch by accident: call :meth:`reach` afterwards.
        """
        placed = ToolScope.at(place)
        return self._rescoped(attrs.evolve(placed, writes=self._scope.writes))

    def reach(self, reach: Reach) -> MemoryTools:
        """Confine every read, and every forget, to ``reach``."""
        if not isinstance(reach, Reach):
            raise InvalidRequest(f"`reach` must be a Reach, not {type(reach).__name__}")
        return self._rescoped(attrs.evolve(self._scope, reach=reach))

    def read_only(self) -> MemoryTools:
        """Leave out ``memory_store`` and ``memory_forget``: not offered, and refused if called."""
        return self._rescoped(attrs.evolve(self._scope, writes=False))

    # --- what the model is shown ----------------------------------------------

    def specs(self) -> tuple[ToolSpec, ...]:
        """The tools to offer, reads first (see :func:`~tinymemory._tool_schemas.tool_specs`)."""
        return tool_specs(self._engine.descriptor.fetch_modes, writes=self._scope.writes)

    def openai_tools(self) -> list[dict[str, Any]]:
        """:meth:`specs` as an OpenAI-style ``tools`` list."""
        return openai_tools(self.specs())

    def anthropic_tools(self) -> list[dict[str, Any]]:
        """:meth:`specs` as an Anthropic-style ``tools`` list."""
        return anthropic_tools(self.specs())

    # --- running a tool -----------------------------------------------------------

    def call(self, name: str, arguments: ToolArguments = None) -> str:
        """Run the tool ``name`` with the model's arguments; its result as compact JSON text.

        ``arguments`` is the JSON text a model produced (OpenAI-style APIs hand
        it over as text) or the object already parsed (Anthropic-style
        ``input``); ``None`` means no arguments. The result's keys are sorted,
        as the original writes them, and an absent optional is left out
        rather than written ``null``; ``json.loads`` reads it back.

        Raises :class:`~tinymemory._errors.InvalidRequest` for an unknown tool
        or bad arguments, :class:`~tinymemory._errors.Unsupported` for a write
        tool on read-only tools or ``memory_fetch`` on an engine serving no
        mode, and whatever the engine raises.
        """
        return self.prepare(name, arguments)()

    def prepare(self, name: str, arguments: ToolArguments = None) -> Callable[[], str]:
        """Check a call as :meth:`call` does, without touching the engine; the call, ready to run.

        Every refusal of the arguments (a bad type, a cap of the contract) is
        raised here, so a server can answer it at once while the engine is
        busy; calling the result does the engine's work and returns the JSON.
        """
        if name not in TOOL_NAMES:
            raise InvalidRequest(
                f"unknown memory tool `{name}`; expected one of {', '.join(TOOL_NAMES)}"
            )
        if name in WRITE_TOOLS and not self._scope.writes:
            raise Unsupported(f"{name} is not offered: these memory tools are read-only")
        if name == MEMORY_FETCH:
            self._default_mode()  # a tool that is not offered is refused before its arguments
        value = decode(name, arguments)
        if value is not None and not isinstance(value, Mapping):
            raise InvalidRequest(f"{name}: arguments must be a json object")
        refuse_host_fixed(name, value)
        handlers: dict[str, Callable[[object], Callable[[], dict[str, Any]]]] = {
            MEMORY_RECALL: self._recall,
            MEMORY_FETCH: self._fetch,
            MEMORY_LIST: self._list,
            MEMORY_GET: self._get,
            MEMORY_EXPLORE: self._explore,
            MEMORY_STORE: self._store,
            MEMORY_FORGET: self._forget,
        }
        work = handlers[name](value)

        def run() -> str:
            return json.dumps(
                work(), ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
            )

        return run

    # --- the reads ------------------------------------------------------------------

    def _confined(self, filter: MetaFilter) -> MetaFilter:
        return attrs.evolve(filter, reach=self._scope.reach)

    def _recall(self, value: object) -> Work:
        args = Arguments.parse(
            MEMORY_RECALL, value, ("question", "filter", "limit", "instructions")
        )
        filter = self._confined(args.filter())
        request = RecallRequest(
            question=args.required_string("question"),
            filter=filter,
            limit=args.count("limit", DEFAULT_TOOL_LIMIT, MAX_TOOL_LIMIT),
            instructions=args.string("instructions"),
        )
        request.validate()

        def run() -> dict[str, Any]:
            answer = self._engine.recall(request)
            return {"answer": answer.answer, "citations": [_citation(c) for c in answer.citations]}

        return run

    def _fetch(self, value: object) -> Work:
        modes = self._engine.descriptor.fetch_modes
        args = Arguments.parse(MEMORY_FETCH, value, ("query", "mode", "filter", "limit", "cursor"))
        filter = self._confined(args.filter())
        request = FetchRequest(
            query=args.required_string("query"),
            mode=args.choice("mode", modes, self._default_mode()),
            filter=filter,
            limit=args.count("limit", DEFAULT_TOOL_LIMIT, MAX_TOOL_LIMIT),
            cursor=args.string("cursor"),
        )
        request.validate()

        def run() -> dict[str, Any]:
            page = self._engine.fetch(request)
            return _paged("hits", page.hits, page.next_cursor)

        return run

    def _default_mode(self) -> FetchMode:
        mode = default_mode(self._engine.descriptor.fetch_modes)
        if mode is None:
            raise Unsupported(
                f"{MEMORY_FETCH}: engine `{self._engine.descriptor.id}` serves no fetch mode"
            )
        return mode

    def _list(self, value: object) -> Work:
        args = Arguments.parse(MEMORY_LIST, value, ("filter", "limit", "cursor"))
        request = ListRequest(
            filter=self._confined(args.filter()),
            limit=args.count("limit", DEFAULT_TOOL_LIMIT, MAX_TOOL_LIMIT),
            cursor=args.string("cursor"),
        )
        request.validate()

        def run() -> dict[str, Any]:
            page = self._engine.list(request)
            return _paged("items", page.items, page.next_cursor)

        return run

    def _get(self, value: object) -> Work:
        args = Arguments.parse(MEMORY_GET, value, ("ids",))
        request = self._visible(args.item_ids("ids"))

        def run() -> dict[str, Any]:
            found = self._engine.get(request)
            seen = {hit.id for hit in found}
            return {
                "items": [_hit(hit) for hit in found],
                "missing": [item_id for item_id in request.ids if item_id not in seen],
            }

        return run

    def _explore(self, value: object) -> Work:
        args = Arguments.parse(MEMORY_EXPLORE, value, ("facet", "filter", "limit"))
        facet = args.choice("facet", EXPLORE_FACETS)
        limit = args.count("limit", DEFAULT_TOOL_LIMIT, MAX_TOOL_LIMIT)
        request = ExploreRequest(facet=facet, filter=self._confined(args.filter()), limit=limit)
        request.validate()
        return lambda: _explored(self._engine.explore(request))

    def _visible(self, ids: tuple[str, ...]) -> GetRequest:
        """The get of ``ids`` the scope's reach can see (checked, not yet read)."""
        request = GetRequest(ids=ids, reach=self._scope.reach)
        request.validate()
        return request

    # --- the writes -------------------------------------------------------------------

    def _store(self, value: object) -> Work:
        args = Arguments.parse(MEMORY_STORE, value, (*_STORE_SHAPES, "tags"))
        shapes = [shape for shape in _STORE_SHAPES if args.has(shape)]
        if len(shapes) != 1:
            raise InvalidRequest(
                f"{MEMORY_STORE}: pass exactly one of `learning`, `document` or `conversation`"
            )
        meta = MemoryMeta(
            namespace=self._scope.place,
            source=SourceRef(kind=SourceKind.AGENT),
            tags=args.strings("tags"),
            observed_at=self._clock(),
        )
        item = validate_item(_STORE_BUILDERS[shapes[0]](args, meta))

        def run() -> dict[str, Any]:
            receipt = self._engine.store(item)
            return {"id": receipt.id, "replayed": receipt.replayed}

        return run

    def _forget(self, value: object) -> Work:
        args = Arguments.parse(MEMORY_FORGET, value, ("ids", "filter"))
        if args.has("ids") == args.has("filter"):
            raise InvalidRequest(f"{MEMORY_FORGET}: pass exactly one of `ids` or `filter`")
        if args.has("ids"):
            request = self._visible(args.item_ids("ids"))
            return lambda: self._forget_ids(request)
        filter = args.filter()
        if filter.is_empty():
            raise args.error(
                "filter", "must set at least one field; an empty filter would mean everything"
            )
        target = ForgetTarget.by_filter(self._confined(filter))

        def run() -> dict[str, Any]:
            return {"forgotten": self._engine.forget(target).forgotten, "skipped": []}

        return run

    def _forget_ids(self, request: GetRequest) -> dict[str, Any]:
        found = [hit.id for hit in self._engine.get(request)]
        seen = set(found)
        skipped = [item_id for item_id in request.ids if item_id not in seen]
        reach = self._scope.reach
        if not found:
            report = ForgetReport(0)
        elif reach is not None:
            report = self._engine.forget_within(found, reach)
        else:
            report = self._engine.forget(ForgetTarget.by_ids(found))
        return {"forgotten": report.forgotten, "skipped": skipped}

    def __repr__(self) -> str:
        return f"<MemoryTools {self._engine.descriptor.id!r} {self._scope!r}>"


def _now() -> datetime:
    return datetime.now(UTC)


# --- building stored items ------------------------------------------------------------


def _learning(args: Arguments, meta: MemoryMeta) -> StoreItem:
    learning = args.required_object(
        "learning", ("text", "kind", LEARNING_KIND_ALIAS, "confidence", "evidence")
    )
    # `kind`, or the original's `learning_kind` (never both); checked before the text, as the
    # original reads them.
    named = "kind"
    if learning.has(LEARNING_KIND_ALIAS):
        if learning.has("kind"):
            raise learning.error(LEARNING_KIND_ALIAS, "is the old name of `kind`: give one")
        named = LEARNING_KIND_ALIAS
    kind = learning.choice(named, tuple(LearningKind), DEFAULT_LEARNING_KIND)
    return Learning(
        text=learning.required_string("text"),
        kind=kind,
        confidence=learning.unit("confidence", DEFAULT_CONFIDENCE),
        evidence=learning.string("evidence"),
        meta=meta,
    )


def _document(args: Arguments, meta: MemoryMeta) -> StoreItem:
    document = args.required_object("document", ("text", "title"))
    title = document.string("title")
    return Document(title=title, body=document.required_string("text"), meta=meta)


def _conversation(args: Arguments, meta: MemoryMeta) -> StoreItem:
    conversation = args.required_object("conversation", ("turns",))
    turns = [
        Turn(role=turn.choice("role", tuple(Role)), text=turn.required_string("text"))
        for turn in conversation.elements("turns", ("role", "text"))
    ]
    if not turns:
        raise conversation.error("turns", "must hold at least one turn")
    return Conversation(turns=turns, meta=meta)


_STORE_BUILDERS: dict[str, Callable[[Arguments, MemoryMeta], StoreItem]] = {
    "learning": _learning,
    "document": _document,
    "conversation": _conversation,
}


# --- rendering results -------------------------------------------------------------------


def render_score(value: float) -> float | None:
    """A score or confidence as a model reads it: four decimal places.

    The single-precision value is widened to a double exactly, multiplied by
    10000, rounded half away from zero (not Python's half-to-even ``round``)
    and divided back, so ``0.1`` reads ``0.1`` rather than
    ``0.10000000149011612``. A non-finite value has no JSON form: ``None``.
    """
    if not math.isfinite(value):
        return None
    try:
        widened = float(struct.unpack("<f", struct.pack("<f", value))[0])
    except OverflowError:  # beyond single precision: nothing to widen
        widened = value
    scaled = abs(widened) * 10_000.0
    whole = math.floor(scaled)
    if scaled - whole >= 0.5:
        whole += 1
    return math.copysign(whole / 10_000.0, widened)


def _meta(meta: MemoryMeta) -> dict[str, Any]:
    source: dict[str, Any] = {"kind": meta.source.kind.value}
    if meta.source.id is not None:
        source["id"] = meta.source.id
    shown: dict[str, Any] = {"source": source}
    for key in ("file_path", "url", "thread_id"):
        value = getattr(meta, key)
        if value is not None:
            shown[key] = value
    if meta.tags:
        shown["tags"] = list(meta.tags)
    if meta.observed_at is not None:
        shown["observed_at"] = format_whole_seconds(meta.observed_at)
    return shown


def _hit(hit: Hit) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "id": hit.id,
        "kind": hit.kind.value,
        "text": hit.text,
        "score": render_score(hit.score),
    }
    if hit.confidence is not None:
        shown["confidence"] = render_score(hit.confidence)
    shown["meta"] = _meta(hit.meta)
    return shown


def _citation(citation: Citation) -> dict[str, Any]:
    shown: dict[str, Any] = {
        "id": citation.id,
        "kind": citation.kind.value,
        "snippet": citation.snippet,
    }
    if citation.score is not None:
        shown["score"] = render_score(citation.score)
    shown["meta"] = _meta(citation.meta)
    return shown


def _paged(key: str, hits: Iterable[Hit], next_cursor: str | None) -> dict[str, Any]:
    shown: dict[str, Any] = {key: [_hit(hit) for hit in hits]}
    if next_cursor is not None:
        shown["next_cursor"] = next_cursor
    return shown


def _explored(page: ExplorePage) -> dict[str, Any]:
    return {
        "facet": page.facet.value,
        "buckets": [{"value": bucket.value, "count": bucket.count} for bucket in page.buckets],
        "total": page.total,
        "missing": page.missing,
        "more_buckets": page.more_buckets,
        "truncated": page.truncated,
    }
