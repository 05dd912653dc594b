"""The seven memory tools: specs, scope, results, and fuzzing that the scope always holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import attrs
import pytest
from doc_examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory._engine import EngineDescriptor, EngineHealth, MemoryEngine
from tinymemory._errors import InvalidRequest, TinyMemoryError, Unsupported
from tinymemory._items import Conversation, Document, Learning, LearningKind, Role, StoreItem, Turn
from tinymemory._meta import ItemKind, MemoryMeta, MetaFilter, SourceKind, SourceRef
from tinymemory._namespace import Namespace, Reach
from tinymemory._operations import (
    Citation,
    ExploreRequest,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    ListPage,
    ListRequest,
    RecallAnswer,
    RecallRequest,
)
from tinymemory._tool_schemas import FILTER_FIELDS, TOOL_NAMES
from tinymemory._tools import MemoryTools, ToolScope, ToolSpec, render_score
from tinymemory.conformance import strategies as tms
from tinymemory.reference import ReferenceEngine

FIXTURE = Path(__file__).parent / "fixtures" / "tool_contracts.json"
DOCS = Path(__file__).resolve().parent.parent / "docs"
NOW = datetime(2025, 5, 6, 7, 8, 9, 500000, tzinfo=UTC)
WRITER = Namespace.parse("team:acme/agent:writer")
EDITOR = Namespace.parse("team:acme/agent:editor")
TEAM = Namespace.parse("team:acme")


def clock() -> datetime:
    return NOW


def call(tools: MemoryTools, name: str, arguments: Any = None) -> Any:
    """Run a tool and read its JSON result back."""
    text = tools.call(name, arguments)
    assert isinstance(text, str)
    return json.loads(text)


def refused(tools: MemoryTools, name: str, arguments: Any = None) -> str:
    with pytest.raises(InvalidRequest) as caught:
        tools.call(name, arguments)
    return caught.value.message


class RecordingEngine(MemoryEngine):
    """The reference engine, with every request the tools send it recorded."""

    def __init__(self, inner: MemoryEngine | None = None) -> None:
        self.inner = inner or ReferenceEngine()
        self.calls: list[tuple[str, Any]] = []

    @property
    def descriptor(self) -> EngineDescriptor:
        return self.inner.descriptor

    def health(self) -> EngineHealth:
        return self.inner.health()

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        self.calls.append(("recall", request))
        return self.inner.recall(request)

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        self.calls.append(("fetch", request))
        return self.inner.fetch(request)

    def handle_list(self, request: ListRequest) -> ListPage:
        self.calls.append(("list", request))
        return self.inner.list(request)

    def handle_explore(self, request: ExploreRequest) -> tm.ExplorePage:
        self.calls.append(("explore", request))
        return self.inner.explore(request)

    def handle_get(self, request: GetRequest) -> list[Hit]:
        self.calls.append(("get", request))
        return self.inner.get(request)

    def handle_store(self, item: StoreItem) -> tm.StoreReceipt:
        self.calls.append(("store", item))
        return self.inner.store(item)

    def handle_forget(self, target: ForgetTarget) -> ForgetReport:
        self.calls.append(("forget", target))
        return self.inner.forget(target)

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


def seeded(*placed: tuple[str, Namespace]) -> tuple[RecordingEngine, dict[str, str]]:
    """An engine holding one learning per (text, namespace); ids by text."""
    engine = RecordingEngine()
    ids = {}
    for text, namespace in placed:
        ids[text] = engine.inner.store(Learning(text=text, meta=MemoryMeta(namespace=namespace)))
        ids[text] = ids[text].id
    return engine, ids


# --- specs and the frozen fixture -------------------------------------------------------


def spec_data(tools: MemoryTools) -> list[dict[str, Any]]:
    return [spec.as_data() for spec in tools.specs()]


def test_the_specs_match_the_frozen_fixture():
    """Regenerate on purpose with BLESS_TOOL_CONTRACTS=1 when a schema changes."""
    specs = spec_data(MemoryTools(ReferenceEngine()))
    if os.environ.get("BLESS_TOOL_CONTRACTS") == "1":
        FIXTURE.parent.mkdir(exist_ok=True)
        FIXTURE.write_text(json.dumps(specs, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == specs


def test_the_fixture_is_pretty_sorted_json_with_the_confidence_default_as_written():
    text = FIXTURE.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    assert '"default": 0.8,' in text
    assert "0.800000011920929" not in text
    assert '"learning_kind"' not in text  # one name: `kind`, as in Python and on the CLI
    assert '"maximum": 1.0,' in text
    assert '"minimum": 0.0,' in text
    assert "composio" not in text


def test_reads_come_first_and_writes_only_when_allowed():
    tools = MemoryTools(ReferenceEngine())
    assert [spec.name for spec in tools.specs()] == list(TOOL_NAMES)
    assert [spec.name for spec in tools.read_only().specs()] == list(TOOL_NAMES[:5])


class ModesEngine(ReferenceEngine):
    """The reference engine declaring other fetch modes."""

    def __init__(self, *modes: FetchMode) -> None:
        super().__init__()
        self._descriptor = attrs.evolve(super().descriptor, id="modes", fetch_modes=modes)

    @property
    def descriptor(self) -> EngineDescriptor:
        return self._descriptor


@pytest.mark.parametrize(
    ("modes", "default"),
    [
        ((FetchMode.KEYWORD, FetchMode.VECTOR, FetchMode.HYBRID), "hybrid"),
        ((FetchMode.VECTOR, FetchMode.KEYWORD), "vector"),
        ((FetchMode.HYBRID, FetchMode.KEYWORD), "hybrid"),
        ((FetchMode.KEYWORD,), "keyword"),
    ],
)
def test_the_fetch_mode_enum_is_exactly_the_engines_modes(modes, default):
    (fetch,) = [
        spec for spec in MemoryTools(ModesEngine(*modes)).specs() if spec.name == "memory_fetch"
    ]
    mode = fetch.parameters["properties"]["mode"]
    assert mode["enum"] == [m.value for m in modes]
    assert mode["default"] == default


def test_an_engine_without_modes_offers_no_fetch_and_refuses_it():
    tools = MemoryTools(ModesEngine())
    assert "memory_fetch" not in [spec.name for spec in tools.specs()]
    with pytest.raises(Unsupported) as caught:
        tools.call("memory_fetch", {"query": "x"})
    assert caught.value.message == "memory_fetch: engine `modes` serves no fetch mode"


def test_a_fetch_mode_the_engine_lacks_is_invalid():
    tools = MemoryTools(ModesEngine(FetchMode.VECTOR, FetchMode.KEYWORD))
    assert refused(tools, "memory_fetch", {"query": "x", "mode": "hybrid"}) == (
        "memory_fetch: `mode` must be one of vector, keyword"
    )


def walk_schemas(schema: dict[str, Any], path: str = "") -> list[tuple[str, dict[str, Any]]]:
    found = [(path, schema)]
    for key, child in schema.get("properties", {}).items():
        found += walk_schemas(child, f"{path}{key}.")
    if isinstance(schema.get("items"), dict):
        found += walk_schemas(schema["items"], f"{path}[].")
    return found


def test_every_object_schema_is_closed_and_names_no_host_fixed_key():
    for spec in MemoryTools(ReferenceEngine()).specs():
        for path, schema in walk_schemas(spec.parameters):
            assert "namespace" not in schema.get("properties", {}), (spec.name, path)
            assert "reach" not in schema.get("properties", {}), (spec.name, path)
            if schema.get("type") == "object":
                assert schema["additionalProperties"] is False, (spec.name, path)
                assert schema.get("required", ["x"]) != [], (spec.name, path)


def test_the_filter_schema_lists_exactly_the_fields_a_model_may_set():
    (recall, *_) = MemoryTools(ReferenceEngine()).specs()
    properties = recall.parameters["properties"]["filter"]["properties"]
    assert tuple(properties) == FILTER_FIELDS
    assert properties["sources"]["items"]["enum"] == [kind.value for kind in SourceKind]
    assert properties["kinds"]["items"]["enum"] == ["document", "conversation", "learning"]
    assert properties["observed_after"]["format"] == "date-time"


def test_required_fields_per_tool():
    required = {
        spec.name: spec.parameters.get("required")
        for spec in MemoryTools(ReferenceEngine()).specs()
    }
    assert required == {
        "memory_recall": ["question"],
        "memory_fetch": ["query"],
        "memory_list": None,
        "memory_get": ["ids"],
        "memory_explore": ["facet"],
        "memory_store": None,
        "memory_forget": None,
    }


def test_openai_and_anthropic_shapes():
    tools = MemoryTools(ReferenceEngine()).read_only()
    specs = tools.specs()
    assert tools.openai_tools() == [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.parameters,
            },
        }
        for spec in specs
    ]
    assert tools.anthropic_tools() == [
        {"name": spec.name, "description": spec.description, "input_schema": spec.parameters}
        for spec in specs
    ]
    json.dumps(tools.openai_tools() + tools.anthropic_tools())  # plain JSON all through


def test_each_specs_call_builds_fresh_schemas():
    tools = MemoryTools(ReferenceEngine())
    first = tools.specs()
    first[0].parameters["properties"].clear()
    assert tools.specs()[0].parameters["properties"]
    assert isinstance(first[0], ToolSpec)


# --- the scope and its builders ---------------------------------------------------------


def test_the_default_scope_writes_at_the_root_and_reads_everything_but_sandboxes():
    assert MemoryTools(ReferenceEngine()).scope == ToolScope(
        place=Namespace.ROOT, reach=None, writes=True
    )
    assert ToolScope.at("agent:a") == ToolScope(
        place=Namespace.parse("agent:a"), reach=Reach.of("agent:a"), writes=True
    )


def test_placed_at_resets_the_reach_and_keeps_the_writes_flag():
    tools = MemoryTools(ReferenceEngine()).reach(Reach.subtree(TEAM)).read_only()
    placed = tools.placed_at(WRITER)
    assert placed.scope == ToolScope(place=WRITER, reach=Reach.of(WRITER), writes=False)
    assert placed.reach(Reach.exact(WRITER)).scope.reach == Reach.exact(WRITER)
    # Builders leave the original alone.
    assert tools.scope == ToolScope(reach=Reach.subtree(TEAM), writes=False)


def test_with_scope_and_bad_builder_arguments():
    engine = ReferenceEngine()
    scope = ToolScope(place=WRITER, reach=Reach.exact(WRITER), writes=False)
    assert MemoryTools.with_scope(engine, scope).scope == scope
    assert MemoryTools.with_scope(engine, scope).engine is engine
    with pytest.raises(InvalidRequest):
        MemoryTools(object())  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest):
        MemoryTools(engine, "root")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest):
        MemoryTools(engine).reach("of(root)")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequest):
        ToolScope(writes="yes")  # type: ignore[arg-type]


# --- dispatch and refusals --------------------------------------------------------------


def test_an_unknown_tool_is_refused_first_listing_the_tools():
    engine = RecordingEngine()
    assert refused(MemoryTools(engine).read_only(), "memory_search", {"namespace": 1}) == (
        "unknown memory tool `memory_search`; expected one of memory_recall, memory_fetch, "
        "memory_list, memory_get, memory_explore, memory_store, memory_forget"
    )
    assert engine.calls == []


@pytest.mark.parametrize("name", ["memory_store", "memory_forget"])
def test_a_write_tool_on_read_only_tools_is_unsupported_before_its_arguments(name):
    engine = RecordingEngine()
    with pytest.raises(Unsupported) as caught:
        MemoryTools(engine).read_only().call(name, "not json at all")
    assert caught.value.message == f"{name} is not offered: these memory tools are read-only"
    assert engine.calls == []


#: Arguments naming a host-fixed key, and the path each refusal names (JSON text as a string;
#: the MCP plugin's tests send the same ones over the protocol).
HOST_FIXED_ARGUMENTS = [
    tuple(case)
    for case in json.loads((FIXTURE.parent / "host_fixed_arguments.json").read_text("utf-8"))
]


@pytest.mark.parametrize("name", TOOL_NAMES)
@pytest.mark.parametrize(("arguments", "path"), HOST_FIXED_ARGUMENTS)
def test_a_host_fixed_key_is_refused_before_anything_else(name, arguments, path):
    engine = RecordingEngine()
    assert refused(MemoryTools(engine).placed_at(WRITER), name, arguments) == (
        f"{name}: `{path}` is fixed by the host and cannot be passed to a memory tool"
    )
    assert engine.calls == []


@pytest.mark.parametrize(
    ("name", "arguments", "problem"),
    [
        ("memory_list", {"limt": 3}, "`limt` is not an argument of this tool"),
        ("memory_list", [1], "arguments must be a json object"),
        ("memory_list", "[1]", "arguments must be a json object"),
        ("memory_list", "{", "arguments are not valid json"),
        ("memory_list", {"limit": "5"}, "`limit` must be an integer from 1 to 50"),
        ("memory_list", {"limit": 51}, "`limit` must be an integer from 1 to 50"),
        ("memory_list", {"limit": 0}, "`limit` must be an integer from 1 to 50"),
        ("memory_list", {"limit": -1}, "`limit` must be an integer from 1 to 50"),
        ("memory_list", {"cursor": 2}, "`cursor` must be a string"),
        ("memory_list", {"filter": []}, "`filter` must be an object"),
        (
            "memory_list",
            {"filter": {"kinds": ["memo"]}},
            "`filter.kinds` `memo` is not an item kind",
        ),
        (
            "memory_list",
            {"filter": {"observed_after": "today"}},
            "`filter.observed_after` must be an rfc 3339 timestamp",
        ),
        ("memory_recall", {}, "`question` is required and must not be blank"),
        ("memory_recall", {"question": "  "}, "`question` is required and must not be blank"),
        ("memory_recall", {"question": "q", "instructions": 1}, "`instructions` must be a string"),
        (
            "memory_fetch",
            {"query": "q", "mode": "semantic"},
            "`mode` must be one of keyword, vector, hybrid",
        ),
        ("memory_fetch", {"mode": "keyword"}, "`query` is required and must not be blank"),
        ("memory_get", {}, "`ids` must list from 1 to 200 ids"),
        ("memory_get", {"ids": ["a", ""]}, "`ids` must not hold a blank id"),
        (
            "memory_explore",
            {"facet": "namespace"},
            "`facet` must be one of kind, source, source_id, workspace, folder, file_path, "
            "language, repo, url, thread, agent, tool_call, tag",
        ),
        (
            "memory_explore",
            {"facet": "kind", "limit": 500},
            "`limit` must be an integer from 1 to 50",
        ),
        ("memory_store", {}, "pass exactly one of `learning`, `document` or `conversation`"),
        (
            "memory_store",
            {"learning": {"text": "a"}, "document": {"text": "b"}},
            "pass exactly one of `learning`, `document` or `conversation`",
        ),
        (
            "memory_store",
            {"learning": None, "tags": ["x"]},
            "pass exactly one of `learning`, `document` or `conversation`",
        ),
        ("memory_store", {"learning": "tabs"}, "`learning` must be an object"),
        (
            "memory_store",
            {"learning": {"text": " "}},
            "`learning.text` is required and must not be blank",
        ),
        (
            "memory_store",
            {"learning": {"text": "a", "kinds": "fact"}},
            "`learning.kinds` is not an argument of this tool",
        ),
        (
            "memory_store",
            {"learning": {"text": "a", "learning_kind": "opinion"}},
            "`learning.learning_kind` must be one of "
            "preference, fact, procedure, correction, other",
        ),
        (
            "memory_store",
            {"learning": {"text": "a", "confidence": 2}},
            "`learning.confidence` must be a number from 0 to 1",
        ),
        (
            "memory_store",
            {"document": {"title": "t"}},
            "`document.text` is required and must not be blank",
        ),
        (
            "memory_store",
            {"document": {"text": "b", "mime": "text/plain"}},
            "`document.mime` is not an argument of this tool",
        ),
        (
            "memory_store",
            {"conversation": {"turns": []}},
            "`conversation.turns` must hold at least one turn",
        ),
        ("memory_store", {"conversation": {}}, "`conversation.turns` must hold at least one turn"),
        (
            "memory_store",
            {"conversation": {"turns": ["hi"]}},
            "`conversation.turns` must hold only objects",
        ),
        (
            "memory_store",
            {"conversation": {"turns": [{"role": "bot", "text": "x"}]}},
            "`conversation.turns[].role` must be one of user, assistant, system, tool",
        ),
        (
            "memory_store",
            {"conversation": {"turns": [{"role": "user"}]}},
            "`conversation.turns[].text` is required and must not be blank",
        ),
        (
            "memory_store",
            {"conversation": {"turns": [{"role": "user", "text": "x", "at": "now"}]}},
            "`conversation.turns[].at` is not an argument of this tool",
        ),
        (
            "memory_store",
            {"learning": {"text": "a"}, "tags": "x"},
            "`tags` must be an array of strings",
        ),
        ("memory_forget", {}, "pass exactly one of `ids` or `filter`"),
        (
            "memory_forget",
            {"ids": ["a"], "filter": {"workspace": "w"}},
            "pass exactly one of `ids` or `filter`",
        ),
        (
            "memory_forget",
            {"filter": {}},
            "`filter` must set at least one field; an empty filter would mean everything",
        ),
        (
            "memory_forget",
            {"filter": {"kinds": [], "tags_any": []}},
            "`filter` must set at least one field; an empty filter would mean everything",
        ),
        ("memory_forget", {"ids": []}, "`ids` must list from 1 to 200 ids"),
    ],
)
def test_bad_arguments_are_refused_with_the_contract_message(name, arguments, problem):
    engine = RecordingEngine()
    assert refused(MemoryTools(engine), name, arguments) == f"{name}: {problem}"
    assert [call for call in engine.calls if call[0] in ("store", "forget")] == []


def test_null_arguments_are_no_arguments():
    tools = MemoryTools(ReferenceEngine())
    assert call(tools, "memory_list", None) == {"items": []}
    assert call(tools, "memory_list", "null") == {"items": []}
    assert call(tools, "memory_list", {"filter": None, "limit": None, "cursor": None}) == {
        "items": []
    }


def test_the_callers_arguments_are_left_unchanged():
    arguments = {"learning": {"text": "tabs"}, "tags": ["style"]}
    snapshot = json.dumps(arguments)
    MemoryTools(ReferenceEngine()).call("memory_store", arguments)
    assert json.dumps(arguments) == snapshot


# --- every read is confined to the scope's reach ----------------------------------------


def test_every_read_carries_the_scopes_reach():
    engine, ids = seeded(("root fact", Namespace.ROOT), ("writer fact", WRITER))
    reach = Reach.of(WRITER)
    tools = MemoryTools(engine, clock=clock).placed_at(WRITER)
    call(tools, "memory_recall", {"question": "fact", "filter": {"kinds": ["learning"]}})
    call(tools, "memory_fetch", {"query": "fact"})
    call(tools, "memory_list", {"filter": {"tags_any": ["x"]}})
    call(tools, "memory_explore", {"facet": "tag"})
    call(tools, "memory_get", {"ids": list(ids.values())})
    requests = dict(engine.calls)
    assert requests["recall"].filter == MetaFilter(kinds=("learning",), reach=reach)
    assert requests["fetch"].filter == MetaFilter(reach=reach)
    assert requests["list"].filter == MetaFilter(tags_any=("x",), reach=reach)
    assert requests["explore"].filter == MetaFilter(reach=reach)
    assert requests["get"].reach == reach


def test_no_reach_means_none_in_every_request():
    engine, _ = seeded(("fact", Namespace.ROOT))
    tools = MemoryTools(engine)
    call(tools, "memory_list", {})
    call(tools, "memory_get", {"ids": ["x"]})
    assert engine.calls[0][1].filter.reach is None
    assert engine.calls[1][1].reach is None


def test_a_sibling_is_never_read():
    engine, ids = seeded(
        ("shared rule", Namespace.ROOT),
        ("team rule", TEAM),
        ("writer rule", WRITER),
        ("editor rule", EDITOR),
    )
    tools = MemoryTools(engine).placed_at(WRITER)
    listed = call(tools, "memory_list", {"limit": 50})
    assert sorted(item["text"] for item in listed["items"]) == [
        "shared rule",
        "team rule",
        "writer rule",
    ]
    fetched = call(tools, "memory_fetch", {"query": "editor rule", "mode": "keyword"})
    assert "editor rule" not in [hit["text"] for hit in fetched["hits"]]
    got = call(tools, "memory_get", {"ids": [ids["editor rule"], ids["writer rule"], "nope"]})
    assert [item["text"] for item in got["items"]] == ["writer rule"]
    assert got["missing"] == [ids["editor rule"], "nope"]
    counted = call(tools, "memory_explore", {"facet": "kind"})
    assert counted["total"] == 3
    answer = call(tools, "memory_recall", {"question": "editor rule"})
    assert ids["editor rule"] not in [citation["id"] for citation in answer["citations"]]


# --- writes -----------------------------------------------------------------------------


def test_store_places_items_at_place_with_metadata_built_by_the_tool():
    engine = RecordingEngine()
    tools = MemoryTools(engine, clock=clock).placed_at(WRITER)
    stored = call(
        tools,
        "memory_store",
        {
            "learning": {
                "text": "prefers tabs",
                "learning_kind": "preference",
                "confidence": 0.9,
                "evidence": "said so",
            },
            "tags": ["style"],
        },
    )
    call(tools, "memory_store", {"document": {"title": "Plan", "text": "Ship friday"}})
    call(
        tools,
        "memory_store",
        {
            "conversation": {
                "turns": [{"role": "user", "text": "hi"}, {"role": "tool", "text": "ok"}]
            }
        },
    )
    call(tools, "memory_store", {"learning": {"text": "plain"}})
    meta = MemoryMeta(
        namespace=WRITER, source=SourceRef(kind=SourceKind.AGENT), tags=("style",), observed_at=NOW
    )
    plain_meta = attrs.evolve(meta, tags=())
    items = [item for name, item in engine.calls if name == "store"]
    assert items == [
        Learning(
            text="prefers tabs",
            kind=LearningKind.PREFERENCE,
            confidence=0.9,
            evidence="said so",
            meta=meta,
        ),
        Document(title="Plan", body="Ship friday", meta=plain_meta),
        Conversation(
            turns=[Turn(role=Role.USER, text="hi"), Turn(role=Role.TOOL, text="ok")],
            meta=plain_meta,
        ),
        Learning(text="plain", kind=LearningKind.FACT, confidence=0.8, meta=plain_meta),
    ]
    assert stored == {"id": items[0].fingerprint(), "replayed": False}
    assert call(tools, "memory_store", {"learning": {"text": "plain"}}) == {
        "id": items[3].fingerprint(),
        "replayed": True,
    }


def test_store_observes_the_current_time_by_default():
    engine = RecordingEngine()
    before = datetime.now(UTC)
    MemoryTools(engine).call("memory_store", {"learning": {"text": "x"}})
    (item,) = [item for name, item in engine.calls if name == "store"]
    assert before <= item.meta.observed_at <= datetime.now(UTC)


def test_forget_by_ids_forgets_only_what_the_reach_sees():
    engine, ids = seeded(("mine", WRITER), ("team", TEAM), ("theirs", EDITOR))
    tools = MemoryTools(engine).placed_at(WRITER).reach(Reach.exact(WRITER))
    result = call(tools, "memory_forget", {"ids": [ids["theirs"], ids["mine"], ids["team"], "x"]})
    assert result == {"forgotten": 1, "skipped": [ids["theirs"], ids["team"], "x"]}
    left = {
        hit.text
        for hit in engine.inner.list(
            ListRequest(filter=MetaFilter(reach=Reach.subtree(TEAM)))
        ).items
    }
    assert left == {"team", "theirs"}
    # Read back under the reach, then the confined forget (itself a get and a forget).
    assert engine.names() == ["get", "get", "forget"]
    assert [call[1].reach for call in engine.calls if call[0] == "get"] == [Reach.exact(WRITER)] * 2
    assert engine.calls[-1][1] == ForgetTarget.by_ids([ids["mine"]])


def test_forget_by_ids_that_match_nothing_calls_no_forget():
    engine, ids = seeded(("theirs", EDITOR))
    tools = MemoryTools(engine).placed_at(WRITER)
    assert call(tools, "memory_forget", {"ids": [ids["theirs"], ids["theirs"]]}) == {
        "forgotten": 0,
        "skipped": [ids["theirs"]],
    }
    assert engine.names() == ["get"]


def test_forget_by_ids_without_a_reach_skips_sandboxes_and_forgets_by_id():
    job = Namespace.parse("agent:a/service:job")
    engine, ids = seeded(("job note", job), ("root note", Namespace.ROOT))
    result = call(
        MemoryTools(engine), "memory_forget", {"ids": [ids["job note"], ids["root note"]]}
    )
    assert result == {"forgotten": 1, "skipped": [ids["job note"]]}
    assert engine.calls[-1] == ("forget", ForgetTarget.by_ids([ids["root note"]]))


def test_forget_by_filter_is_confined_to_the_reach():
    engine, _ = seeded(("a", WRITER), ("b", EDITOR), ("c", Namespace.ROOT))
    tools = MemoryTools(engine).placed_at(WRITER).reach(Reach.exact(WRITER))
    assert call(tools, "memory_forget", {"filter": {"kinds": ["learning"]}}) == {
        "forgotten": 1,
        "skipped": [],
    }
    assert engine.calls == [
        (
            "forget",
            ForgetTarget.by_filter(MetaFilter(kinds=("learning",), reach=Reach.exact(WRITER))),
        )
    ]


def test_forget_with_an_ordinary_reach_can_remove_inherited_memory():
    # The documented caveat: of(place) sees the root, so a forget can remove it.
    engine, ids = seeded(("shared", Namespace.ROOT))
    tools = MemoryTools(engine).placed_at(WRITER)
    assert call(tools, "memory_forget", {"ids": [ids["shared"]]})["forgotten"] == 1


# --- results ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "shown"),
    [
        (0.03125, 0.0313),  # exactly half way: away from zero, where round() gives 0.0312
        (-0.03125, -0.0313),
        (0.09375, 0.0938),
        (0.00005, 0.0),  # the f32 is just below half way once widened
        (0.1, 0.1),
        (0.8, 0.8),
        (1.0, 1.0),
        (0.0, 0.0),
        (0.123456, 0.1235),
        (12.5, 12.5),
    ],
)
def test_scores_are_rounded_half_away_from_zero_to_four_places(score, shown):
    assert (
        render_score(
            tm.Hit(id="x", kind="learning", text="t", meta=MemoryMeta(), score=score).score
        )
        == shown
    )


def test_a_non_finite_score_has_no_json_number():
    assert render_score(float("nan")) is None
    assert render_score(float("inf")) is None
    assert render_score(1e39) == 1e39


class FixedEngine(ReferenceEngine):
    """Answers fetch and recall with fixed hits and citations."""

    def __init__(self, hits: list[Hit], citations: list[Citation], cursor: str | None) -> None:
        super().__init__()
        self.hits, self.citations, self.cursor = hits, citations, cursor

    def handle_fetch(self, request: FetchRequest) -> FetchPage:
        return FetchPage(hits=self.hits, next_cursor=self.cursor)

    def handle_recall(self, request: RecallRequest) -> RecallAnswer:
        return RecallAnswer(answer="a", citations=self.citations, model="m")


def test_hits_render_with_the_small_meta_and_nothing_absent():
    rich = MemoryMeta(
        namespace=WRITER,
        workspace="acme",
        file_path="/a.py",
        url="https://e.com",
        thread_id="t1",
        repo="o/r",
        source=SourceRef(kind=SourceKind.GITHUB, id="gh-1"),
        tags=("x", "y"),
        observed_at=datetime(2025, 5, 6, 7, 8, 9, 999999, tzinfo=UTC),
    )
    hits = [
        Hit(id="l", kind=ItemKind.LEARNING, text="t", meta=rich, score=0.03125, confidence=0.9),
        Hit(id="d", kind=ItemKind.DOCUMENT, text="u", meta=MemoryMeta(), score=0.5),
    ]
    citations = [
        Citation(id="l", kind=ItemKind.LEARNING, snippet="t", meta=rich, score=0.25),
        Citation(id="d", kind=ItemKind.DOCUMENT, snippet="u", meta=MemoryMeta()),
    ]
    tools = MemoryTools(FixedEngine(hits, citations, "7"))
    text = tools.call("memory_fetch", {"query": "q"})
    assert text == (
        '{"hits":[{"confidence":0.9,"id":"l","kind":"learning","meta":{"file_path":"/a.py",'
        '"observed_at":"2025-05-06T07:08:09Z","source":{"id":"gh-1","kind":"github"},'
        '"tags":["x","y"],"thread_id":"t1","url":"https://e.com"},"score":0.0313,"text":"t"},'
        '{"id":"d","kind":"document","meta":{"source":{"kind":"agent"}},"score":0.5,"text":"u"}],'
        '"next_cursor":"7"}'
    )
    assert "null" not in text
    answer = call(tools, "memory_recall", {"question": "q"})
    assert answer == {
        "answer": "a",
        "citations": [
            {
                "id": "l",
                "kind": "learning",
                "snippet": "t",
                "score": 0.25,
                "meta": json.loads(text)["hits"][0]["meta"],
            },
            {"id": "d", "kind": "document", "snippet": "u", "meta": {"source": {"kind": "agent"}}},
        ],
    }


def test_results_are_compact_sorted_json_with_raw_unicode():
    tools = MemoryTools(ReferenceEngine(), clock=clock)
    call(tools, "memory_store", {"learning": {"text": "Grüße 🙂", "confidence": 0.03125}})
    text = tools.call("memory_list", {})
    assert "Grüße 🙂" in text
    assert ", " not in text
    assert ": " not in text
    (item,) = json.loads(text)["items"]
    assert list(item) == sorted(item)
    assert item["confidence"] == 0.0313
    assert item["score"] == 0.0
    assert item["meta"] == {"observed_at": "2025-05-06T07:08:09Z", "source": {"kind": "agent"}}


def test_list_pages_with_a_cursor_and_explore_reports_its_counts():
    engine = ReferenceEngine()
    tools = MemoryTools(engine, clock=clock)
    for n in range(3):
        call(tools, "memory_store", {"learning": {"text": f"fact {n}"}, "tags": ["a", f"t{n}"]})
    first = call(tools, "memory_list", {"limit": 2})
    assert [item["text"] for item in first["items"]] == ["fact 0", "fact 1"]
    second = call(tools, "memory_list", {"limit": 2, "cursor": first["next_cursor"]})
    assert [item["text"] for item in second["items"]] == ["fact 2"]
    assert "next_cursor" not in second
    assert call(tools, "memory_explore", {"facet": "tag", "limit": 2}) == {
        "facet": "tag",
        "buckets": [{"value": "a", "count": 3}, {"value": "t0", "count": 1}],
        "total": 3,
        "missing": 0,
        "more_buckets": 2,
        "truncated": False,
    }


def test_engine_errors_pass_through():
    tools = MemoryTools(ReferenceEngine())
    with pytest.raises(InvalidRequest, match="unknown cursor `abc`"):
        tools.call("memory_list", {"cursor": "abc"})


# --- fuzzing ----------------------------------------------------------------------------

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-3, 60)
    | st.sampled_from([2**31, 2**32, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(["", "  ", "learning", "keyword", "kind", "user", "2025-01-01T00:00:00Z"])
    | st.sampled_from(
        [
            "0001-01-01T00:00:00+05:00",
            "9999-12-31T23:59:59-05:00",
            "\ud800",
            "a\udfff b",
            "\u200b\u200d",
            "dG0xLmwuOTk5OTk5OTk5OTk5OTk5OTk5OQ",  # a crafted cursor, tm1.l.9999999999999999999
        ]
    )
    | tms.texts(8)
)
KEYS = st.sampled_from(
    [
        "filter",
        "limit",
        "cursor",
        "ids",
        "kinds",
        "text",
        "turns",
        "role",
        "learning",
        "document",
        "conversation",
        "tags",
        "query",
        "question",
        "facet",
        "mode",
        "observed_after",
        "observed_before",
        "confidence",
        "x",
    ]
)
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=3),
    max_leaves=12,
)


def _filters() -> st.SearchStrategy[dict[str, Any]]:
    text = tms.texts(10)
    return st.fixed_dictionaries(
        {},
        optional={
            "kinds": st.lists(st.sampled_from([kind.value for kind in ItemKind]), max_size=2),
            "sources": st.lists(st.sampled_from([kind.value for kind in SourceKind]), max_size=2),
            "tags_any": st.lists(text, max_size=2),
            "workspace": text,
            "folder": text,
            "file_path": text,
            "repo": text,
            "url": text,
            "thread_id": text,
            "agent_id": text,
            "observed_after": tms.timestamps().map(datetime.isoformat),
            "observed_before": tms.timestamps().map(datetime.isoformat),
        },
    )


FILTERS = _filters()


def filters() -> st.SearchStrategy[dict[str, Any]]:
    return FILTERS


def valid_arguments(ids: list[str]) -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    text = tms.texts(16)
    limit = st.integers(1, 50)
    some_ids = st.lists(st.sampled_from(ids) | tms.item_ids(), min_size=1, max_size=4)
    recall = st.fixed_dictionaries(
        {"question": text}, optional={"filter": filters(), "limit": limit, "instructions": text}
    )
    fetch = st.fixed_dictionaries(
        {"query": text},
        optional={
            "mode": st.sampled_from(["keyword", "vector", "hybrid"]),
            "filter": filters(),
            "limit": limit,
            "cursor": st.sampled_from(["0", "1", "5"]),
        },
    )
    listing = st.fixed_dictionaries(
        {}, optional={"filter": filters(), "limit": limit, "cursor": st.sampled_from(["0", "2"])}
    )
    explore = st.fixed_dictionaries(
        {"facet": st.sampled_from([f.value for f in tm.Facet if f is not tm.Facet.NAMESPACE])},
        optional={"filter": filters(), "limit": limit},
    )
    learning = st.fixed_dictionaries(
        {"text": text},
        optional={
            "learning_kind": st.sampled_from([kind.value for kind in LearningKind]),
            "confidence": st.floats(0, 1),
            "evidence": text,
        },
    )
    document = st.fixed_dictionaries({"text": text}, optional={"title": text})
    turn = st.fixed_dictionaries(
        {"role": st.sampled_from([role.value for role in Role]), "text": text}
    )
    conversation = st.fixed_dictionaries({"turns": st.lists(turn, min_size=1, max_size=3)})
    shape = st.one_of(
        learning.map(lambda v: {"learning": v}),
        document.map(lambda v: {"document": v}),
        conversation.map(lambda v: {"conversation": v}),
    )
    store = st.tuples(shape, st.none() | st.lists(text, max_size=2)).map(
        lambda pair: pair[0] if pair[1] is None else {**pair[0], "tags": pair[1]}
    )
    some_filter = filters().filter(lambda fields: any(fields.values()))
    forget = some_ids.map(lambda v: {"ids": v}) | some_filter.map(lambda v: {"filter": v})
    return st.one_of(
        recall.map(lambda v: ("memory_recall", v)),
        fetch.map(lambda v: ("memory_fetch", v)),
        listing.map(lambda v: ("memory_list", v)),
        some_ids.map(lambda v: ("memory_get", {"ids": v})),
        explore.map(lambda v: ("memory_explore", v)),
        store.map(lambda v: ("memory_store", v)),
        forget.map(lambda v: ("memory_forget", v)),
    )


def containers(value: Any) -> list[Any]:
    """Every dict and list in a JSON tree, outermost first."""
    found = []
    if isinstance(value, (dict, list)):
        found.append(value)
        for child in value.values() if isinstance(value, dict) else value:
            found += containers(child)
    return found


@st.composite
def mutated(draw: st.DrawFn, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``arguments`` changed one way or another; whether a host-fixed key was put in."""
    arguments = json.loads(json.dumps(arguments))
    how = draw(st.sampled_from(["none", "host-fixed", "replace", "blank", "limit", "extra"]))
    if how == "host-fixed":
        nodes = containers(arguments)
        node = draw(st.sampled_from(nodes))
        key = draw(st.sampled_from(["namespace", "reach"]))
        value = draw(JSON | st.just({"at": "root", "descendants": True}))
        if isinstance(node, dict):
            node[key] = value
        else:
            node.append({key: value})
        return arguments, True
    dicts = [node for node in containers(arguments) if isinstance(node, dict) and node]
    if how == "replace" and dicts:
        node = draw(st.sampled_from(dicts))
        node[draw(st.sampled_from(sorted(node)))] = draw(JSON)
    elif how == "blank" and dicts:
        node = draw(st.sampled_from(dicts))
        node[draw(st.sampled_from(sorted(node)))] = draw(st.sampled_from(["", " ", "\n\t"]))
    elif how == "limit":
        arguments["limit"] = draw(st.sampled_from([0, -1, 51, 10**12, 2.0, "3", True]))
    elif how == "extra" and dicts:
        node = draw(st.sampled_from(dicts))
        node[draw(KEYS | tms.texts(6))] = draw(JSON)
    return arguments, False


@st.composite
def scopes(draw: st.DrawFn) -> ToolScope:
    place = draw(tms.namespaces(3))
    reach = draw(st.sampled_from(["none", "of", "exact", "subtree", "any"]))
    chosen = {
        "none": None,
        "of": Reach.of(place),
        "exact": Reach.exact(place),
        "subtree": Reach.subtree(place),
    }.get(reach) or (draw(tms.reaches(3)) if reach == "any" else None)
    return ToolScope(place=place, reach=chosen, writes=draw(st.booleans()))


@st.composite
def worlds(draw: st.DrawFn) -> tuple[RecordingEngine, ToolScope, dict[str, Namespace]]:
    """A recording engine holding items at the scope's place, around it and elsewhere."""
    scope = draw(scopes())
    engine = RecordingEngine()
    around = [scope.place, Namespace.ROOT, *scope.place.ancestors_and_self()]
    service = tm.Segment(tm.SegmentKind.SERVICE, "job")
    if scope.place.depth < 8:
        around.append(scope.place.child(service))
    where = st.sampled_from(around) | tms.namespaces(3)
    placed: dict[str, Namespace] = {}
    for item, namespace in draw(st.lists(st.tuples(tms.store_items(), where), max_size=4)):
        item = item.with_meta(attrs.evolve(item.meta, namespace=namespace))
        placed[engine.inner.store(item).id] = namespace
    return engine, scope, placed


def assert_no_null(result: Any) -> None:
    """A result is an object, and no optional in it is written ``null``."""
    assert isinstance(result, dict)
    for node in containers(result):
        values = node.values() if isinstance(node, dict) else node
        assert None not in list(values), result


def check_scope_held(engine: RecordingEngine, scope: ToolScope, placed: dict[str, Namespace]):
    """No request the tools sent widened the scope; every write landed at place."""
    for name, request in engine.calls:
        if name in ("recall", "fetch", "list", "explore"):
            assert request.filter.reach == scope.reach, (name, request)
        elif name == "get":
            assert request.reach == scope.reach, request
        elif name == "store":
            assert scope.writes
            assert request.meta.namespace == scope.place
            assert request.meta.source == SourceRef(kind=SourceKind.AGENT)
            assert request.meta.observed_at == NOW
            placed[request.fingerprint()] = scope.place
        elif name == "forget":
            assert scope.writes
            if request.filter is not None:
                assert request.filter.reach == scope.reach
                assert not attrs.evolve(request.filter, reach=None).is_empty()
            else:
                for item_id in request.ids:
                    namespace = placed.get(item_id)  # an unknown id is never sent either
                    assert namespace is not None, item_id
                    assert Reach.admitted_by(scope.reach, namespace), item_id


def check_outside_survived(engine: RecordingEngine, scope: ToolScope, placed: dict[str, Namespace]):
    for item_id, namespace in placed.items():
        if not Reach.admitted_by(scope.reach, namespace):
            found = engine.inner.get(GetRequest(ids=[item_id], reach=Reach.exact(namespace)))
            assert [hit.id for hit in found] == [item_id]


def has_json_form(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


FUZZ = settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(world=worlds(), data=st.data())
def test_fuzzed_valid_and_mutated_calls_never_widen_the_scope(world, data):
    engine, scope, placed = world
    tools = MemoryTools(engine, scope, clock=clock)
    calls = valid_arguments(list(placed) or ["none"])
    for _ in range(3):
        name, valid = data.draw(calls)
        arguments, injected = data.draw(mutated(valid))
        # As text only when the arguments have a JSON form (an injected inf or nan has none:
        # json.dumps would write ``Infinity``, which is not JSON, and the call would fail on
        # that before the scope check this test is about).
        as_text = data.draw(st.booleans()) and has_json_form(arguments)
        before = len(engine.calls)
        failure: TinyMemoryError | None = None
        try:
            result = tools.call(name, json.dumps(arguments) if as_text else arguments)
        except TinyMemoryError as error:
            failure = error
        if failure is None:
            assert not injected
            assert_no_null(json.loads(result))
        elif injected and (scope.writes or name not in ("memory_store", "memory_forget")):
            assert isinstance(failure, InvalidRequest)
            assert "is fixed by the host and cannot be passed to a memory tool" in failure.message
            assert len(engine.calls) == before
        check_scope_held(engine, scope, placed)
    check_outside_survived(engine, scope, placed)


@FUZZ
@given(
    world=worlds(),
    name=st.sampled_from([*TOOL_NAMES, "memory_nothing"]),
    arguments=JSON | st.dictionaries(KEYS, JSON, max_size=4),
    as_text=st.booleans(),
)
def test_fuzzed_argument_trees_raise_only_contract_errors(world, name, arguments, as_text):
    engine, scope, placed = world
    tools = MemoryTools(engine, scope, clock=clock)
    try:
        encoded = json.dumps(arguments, allow_nan=False) if as_text else arguments
    except ValueError:
        encoded = arguments
    try:
        result = tools.call(name, encoded)
    except TinyMemoryError:
        pass
    else:
        assert_no_null(json.loads(result))
    check_scope_held(engine, scope, placed)
    check_outside_survived(engine, scope, placed)


@settings(FUZZ, max_examples=40)
@given(world=worlds(), extra=st.lists(tms.item_ids(), max_size=2))
def test_forgetting_every_id_removes_only_what_the_reach_sees(world, extra):
    engine, scope, placed = world
    tools = MemoryTools(engine, attrs.evolve(scope, writes=True), clock=clock)
    ids = [*placed, *extra]
    if not ids:
        return
    result = call(tools, "memory_forget", {"ids": ids})
    visible = [
        item_id
        for item_id in dict.fromkeys(ids)
        if item_id in placed and Reach.admitted_by(scope.reach, placed[item_id])
    ]
    assert result["forgotten"] == len(visible)
    assert result["skipped"] == [
        item_id for item_id in dict.fromkeys(ids) if item_id not in visible
    ]
    check_scope_held(engine, attrs.evolve(scope, writes=True), placed)
    check_outside_survived(engine, scope, placed)
    assert (
        engine.inner.get(GetRequest(ids=visible or ["x"], reach=Reach.subtree(Namespace.ROOT)))
        == []
    )


def test_valid_calls_mostly_succeed_under_the_fuzz_strategies():
    """Guard against fuzzing that only ever exercises refusals."""
    engine, ids = seeded(("a fact", Namespace.ROOT))
    tools = MemoryTools(engine, clock=clock)
    outcomes: list[str] = []
    refusals: list[str] = []

    @settings(max_examples=60, deadline=None)
    @given(valid_arguments(list(ids.values())))
    def run(named):
        name, arguments = named
        try:
            tools.call(name, arguments)
        except TinyMemoryError as error:
            refusals.append(error.message)
        else:
            outcomes.append(name)

    run()
    # Only the engine may refuse a valid call (a cursor past the end is not one).
    assert [message for message in refusals if message.startswith("memory_")] == []
    assert len(set(outcomes)) >= 5


# --- lazy import and the docs -----------------------------------------------------------


def test_import_tinymemory_loads_neither_tools_nor_context():
    probe = (
        "import json, sys\n"
        "import tinymemory\n"
        "names = ['tinymemory._tools', 'tinymemory._tool_schemas', 'tinymemory._tool_arguments',\n"
        "         'tinymemory._context', 'logging']\n"
        "before = [name for name in names if name in sys.modules]\n"
        "tinymemory.MemoryTools, tinymemory.compile_context\n"
        "after = [name for name in names if name in sys.modules]\n"
        "print(json.dumps([before, after]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    before, after = json.loads(done.stdout)
    assert before == []
    assert set(after) >= {"tinymemory._tools", "tinymemory._context"}


def test_the_tools_page_shows_a_whole_loop():
    shown_examples = [example.values for example in examples(DOCS / "tools.md")]
    assert len(shown_examples) >= 2
    shown = "".join(expected or "" for _, expected in shown_examples)
    for name in TOOL_NAMES:
        assert f"> {name} " in shown, name
    assert "is fixed by the host" in shown


# --- problems named in the original's order ---------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ([{"namespace": "x"}], "memory_list: arguments must be a json object"),
        ('"\\ud800"', "memory_list: arguments must be a json object"),
        ("[1]", "memory_list: arguments must be a json object"),
    ],
)
def test_arguments_that_are_not_an_object_are_refused_first(arguments, problem):
    with pytest.raises(InvalidRequest) as caught:
        MemoryTools(ReferenceEngine()).call("memory_list", arguments)
    assert caught.value.message == problem


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        (
            {"learning": {"learning_kind": 5}},
            "memory_store: `learning.learning_kind` must be a string",
        ),
        (
            {"conversation": {"turns": [{"role": "bot", "text": "hi"}, 5]}},
            "memory_store: `conversation.turns[].role` must be one of "
            "user, assistant, system, tool",
        ),
    ],
)
def test_store_names_the_problem_the_original_reads_first(arguments, problem):
    with pytest.raises(InvalidRequest) as caught:
        MemoryTools(ReferenceEngine()).call("memory_store", arguments)
    assert caught.value.message == problem


def test_a_learnings_kind_is_kind_as_in_python_and_the_old_name_is_still_read() -> None:
    engine = ReferenceEngine()
    tools = MemoryTools(engine, scope=ToolScope(writes=True))
    (store,) = [spec for spec in tools.specs() if spec.name == "memory_store"]
    learning = store.parameters["properties"]["learning"]["properties"]
    assert "kind" in learning
    assert "learning_kind" not in learning
    assert learning["confidence"]["default"] == 0.8
    for key, text in (("kind", "prefers tabs"), ("learning_kind", "prefers spaces")):
        call(tools, "memory_store", {"learning": {"text": text, key: "preference"}})
    stored = {entry.item.text: entry.item.kind for entry in engine.export(tm.ListRequest()).items}  # type: ignore[union-attr]
    assert stored == {
        "prefers tabs": LearningKind.PREFERENCE,
        "prefers spaces": LearningKind.PREFERENCE,
    }
    both = {"learning": {"text": "x", "kind": "fact", "learning_kind": "fact"}}
    assert refused(tools, "memory_store", both) == (
        "memory_store: `learning.learning_kind` is the old name of `kind`: give one"
    )
