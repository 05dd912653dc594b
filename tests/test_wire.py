"""The JSON forms of the contract types (contract-notes §2) and reading them back."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from tinymemory import (
    Citation,
    Conversation,
    Document,
    DocumentBody,
    EngineDescriptor,
    EngineHealth,
    EraseReport,
    EraseRequest,
    ExplorePage,
    ExploreRequest,
    Exported,
    ExportPage,
    Facet,
    FacetBucket,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetReport,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    ItemKind,
    Learning,
    LearningKind,
    ListPage,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    RecallAnswer,
    RecallRequest,
    Role,
    SourceKind,
    SourceRef,
    StoreReceipt,
    ToolCallRef,
    Turn,
    TurnRange,
)
from tinymemory._items import StoreItem
from tinymemory._wire import dumps, from_data, from_json, to_data, to_json
from tinymemory.conformance import strategies as tms

AT = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)
DEFAULT_META = '{"source":{"kind":"agent"}}'


# --- exact shapes: items -----------------------------------------------------


def test_learning_is_tagged_by_type_in_field_order():
    item = Learning(text="prefers tabs", kind=LearningKind.PREFERENCE, confidence=0.8)
    assert to_json(item) == (
        '{"type":"learning","text":"prefers tabs","kind":"preference","confidence":0.8,'
        '"meta":{"source":{"kind":"agent"}}}'
    )
    # The worked fingerprint of contract-notes §2 hashes exactly that text.
    assert item.fingerprint() == "8a8f01f6a30ffa27d488a48fc9218a8ec5af4228"


def test_learning_writes_evidence_between_confidence_and_meta():
    item = Learning(text="ci runs tox", kind="procedure", confidence=1, evidence="seen in ci.yml")
    assert to_json(item) == (
        '{"type":"learning","text":"ci runs tox","kind":"procedure","confidence":1.0,'
        f'"evidence":"seen in ci.yml","meta":{DEFAULT_META}}}'
    )


def test_document_with_every_field_in_order():
    item = Document(
        title="Plan", body="step one", mime="text/markdown", meta=MemoryMeta(tags=["plan"])
    )
    assert to_json(item) == (
        '{"type":"document","title":"Plan","body":{"text":"step one"},"mime":"text/markdown",'
        '"meta":{"source":{"kind":"agent"},"tags":["plan"]}}'
    )


def test_document_leaves_out_unset_title_and_mime():
    assert to_json(Document(body="just text")) == (
        f'{{"type":"document","body":{{"text":"just text"}},"meta":{DEFAULT_META}}}'
    )


def test_document_body_is_externally_tagged():
    assert to_json(DocumentBody(text="hello")) == '{"text":"hello"}'
    assert to_json(DocumentBody(uri="https://example.com/a")) == '{"uri":"https://example.com/a"}'
    uri_doc = Document(body=DocumentBody(uri="file:///a.md"))
    assert to_json(uri_doc) == (
        f'{{"type":"document","body":{{"uri":"file:///a.md"}},"meta":{DEFAULT_META}}}'
    )
    assert from_json('{"uri":"file:///a.md"}', DocumentBody) == DocumentBody(uri="file:///a.md")


def test_conversation_turns_in_order_with_times_and_tool_calls():
    item = Conversation(
        turns=[
            Turn(role=Role.USER, text="plan it", at=AT),
            Turn(
                role="assistant",
                text="done",
                at=AT,
                tool_calls=[ToolCallRef("read_plan", "call-1"), ToolCallRef("write")],
            ),
        ]
    )
    assert to_json(item) == (
        '{"type":"conversation","turns":['
        '{"role":"user","text":"plan it","at":"2025-05-06T07:08:09Z"},'
        '{"role":"assistant","text":"done","at":"2025-05-06T07:08:09Z","tool_calls":'
        '[{"name":"read_plan","id":"call-1"},{"name":"write"}]}'
        f'],"meta":{DEFAULT_META}}}'
    )


def test_item_reads_without_meta_and_with_type_anywhere():
    text = '{"kind":"fact","confidence":0.5,"text":"x","type":"learning"}'
    assert from_json(text, StoreItem) == Learning(text="x", kind="fact", confidence=0.5)
    assert from_json('{"type":"document","body":{"text":"b"}}', StoreItem) == Document(body="b")


@pytest.mark.parametrize(
    ("item", "cls"),
    [
        (Document(body="b"), Document),
        (Conversation(turns=[Turn(role="user", text="t")]), Conversation),
        (Learning(text="l"), Learning),
    ],
)
def test_each_item_reads_back_as_its_class_and_as_the_union(item, cls):
    text = to_json(item)
    assert json.loads(text)["type"] == item.item_kind.value
    assert type(from_json(text, StoreItem)) is cls
    assert from_json(text, cls) == item


# --- exact shapes: turns and timestamps -----------------------------------


def test_turn_leaves_out_unset_time_and_empty_tool_calls():
    assert to_json(Turn(role="tool", text="ok")) == '{"role":"tool","text":"ok"}'


@pytest.mark.parametrize(
    ("at", "written"),
    [
        (datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC), "2025-05-06T07:08:09Z"),
        (datetime(2025, 5, 6, 7, 8, 9, 250_000, tzinfo=UTC), "2025-05-06T07:08:09.250Z"),
        (datetime(2025, 5, 6, 7, 8, 9, 1_000, tzinfo=UTC), "2025-05-06T07:08:09.001Z"),
        (datetime(2025, 5, 6, 7, 8, 9, 123_456, tzinfo=UTC), "2025-05-06T07:08:09.123456Z"),
        (datetime(2025, 5, 6, 7, 8, 9, 1, tzinfo=UTC), "2025-05-06T07:08:09.000001Z"),
        (
            datetime(2025, 5, 6, 9, 8, 9, tzinfo=timezone(timedelta(hours=2))),
            "2025-05-06T07:08:09Z",
        ),
    ],
)
def test_turn_time_is_written_in_chrono_form(at, written):
    assert to_json(Turn(role="user", text="hi", at=at)) == (
        f'{{"role":"user","text":"hi","at":"{written}"}}'
    )
    assert to_json(at) == f'"{written}"'


@pytest.mark.parametrize(
    "text",
    ["2025-05-06T07:08:09Z", "2025-05-06T07:08:09+00:00", "2025-05-06T09:08:09+02:00"],
)
def test_timestamps_with_any_offset_read_as_utc(text):
    value = from_json(f'"{text}"', datetime)
    assert value == AT
    assert value.utcoffset() == timedelta(0)


# --- exact shapes: metadata -------------------------------------------------


def test_default_meta_writes_only_the_source():
    assert to_json(MemoryMeta()) == DEFAULT_META
    assert from_json("{}", MemoryMeta) == MemoryMeta()


def test_meta_with_every_field_in_wire_order():
    meta = MemoryMeta(
        namespace="team:acme/agent:writer",
        workspace="/home/ada/ws",
        folder="/home/ada/ws/src",
        file_path="/home/ada/ws/src/main.rs",
        language="rust",
        repo="ada/tinymemory",
        commit="0123abc",
        url="https://example.com/x",
        thread_id="t-1",
        turns=TurnRange(0, 3),
        agent_id="writer",
        tool_call=ToolCallRef("read_plan", "call-1"),
        source=SourceRef(SourceKind.FILE, "src-1"),
        tags=["a", "b"],
        observed_at=AT,
        derive=True,
    )
    assert to_json(meta) == (
        '{"namespace":"team:acme/agent:writer","workspace":"/home/ada/ws",'
        '"folder":"/home/ada/ws/src","file_path":"/home/ada/ws/src/main.rs",'
        '"language":"rust","repo":"ada/tinymemory","commit":"0123abc",'
        '"url":"https://example.com/x","thread_id":"t-1","turns":{"first":0,"last":3},'
        '"agent_id":"writer","tool_call":{"name":"read_plan","id":"call-1"},'
        '"source":{"kind":"file","id":"src-1"},"tags":["a","b"],'
        '"observed_at":"2025-05-06T07:08:09Z","derive":true}'
    )
    assert from_json(to_json(meta), MemoryMeta) == meta


def test_meta_leaves_out_root_namespace_empty_tags_and_unset_options():
    meta = MemoryMeta(namespace=Namespace.ROOT, tags=(), derive=False, agent_id="a")
    assert to_json(meta) == '{"agent_id":"a","source":{"kind":"agent"},"derive":false}'


def test_meta_namespace_reads_root_when_absent_or_written_root():
    assert from_json('{"namespace":"root"}', MemoryMeta).namespace == Namespace.ROOT
    assert from_json("{}", MemoryMeta).namespace == Namespace.ROOT
    assert from_json('{"namespace":"ws:main/agent:a"}', MemoryMeta).namespace == Namespace.parse(
        "ws:main/agent:a"
    )


def test_meta_source_without_kind_reads_as_agent():
    assert from_json('{"source":{"id":"x"}}', MemoryMeta).source == SourceRef(SourceKind.AGENT, "x")


# --- exact shapes: namespaces and reach -------------------------------------


def test_namespace_is_its_written_path():
    assert to_json(Namespace.parse("team:acme/agent:w")) == '"team:acme/agent:w"'
    assert to_json(Namespace.ROOT) == '"root"'
    assert from_json('"ws:main"', Namespace) == Namespace.parse("ws:main")


def test_reach_writes_every_field_and_the_root_as_root():
    assert to_json(Reach()) == '{"at":"root","inherit":true,"descendants":false}'
    assert to_json(Reach.subtree("team:acme")) == (
        '{"at":"team:acme","inherit":false,"descendants":true}'
    )


@pytest.mark.parametrize(
    ("text", "reach"),
    [
        ('{"at":"agent:x"}', Reach.of("agent:x")),
        ("{}", Reach.of(Namespace.ROOT)),
        ('{"inherit":false}', Reach.exact(Namespace.ROOT)),
        ('{"at":"agent:x","inherit":false,"descendants":true}', Reach.subtree("agent:x")),
    ],
)
def test_reach_fields_default_on_read(text, reach):
    assert from_json(text, Reach) == reach


# --- exact shapes: filters and requests -------------------------------------


def test_empty_filter_is_an_empty_object():
    assert to_json(MetaFilter()) == "{}"


def test_filter_writes_only_set_fields():
    flt = MetaFilter(
        kinds=[ItemKind.LEARNING],
        tags_any=["x"],
        observed_after=datetime(2000, 1, 1, tzinfo=UTC),
    )
    assert to_json(flt) == (
        '{"kinds":["learning"],"tags_any":["x"],"observed_after":"2000-01-01T00:00:00Z"}'
    )
    reach_only = MetaFilter(reach=Reach.exact("agent:b"))
    assert to_json(reach_only) == '{"reach":{"at":"agent:b","inherit":false,"descendants":false}}'


def test_forget_target_is_externally_tagged():
    assert to_json(ForgetTarget.by_ids(["a", "b"])) == '{"ids":["a","b"]}'
    by_filter = ForgetTarget.by_filter(MetaFilter(sources=[SourceKind.RSS]))
    assert to_json(by_filter) == '{"filter":{"sources":["rss"]}}'
    assert from_json('{"ids":["a"]}', ForgetTarget) == ForgetTarget.by_ids(["a"])
    assert from_json('{"filter":{}}', ForgetTarget) == ForgetTarget.by_filter(MetaFilter())


def test_get_request_leaves_out_an_absent_reach():
    assert to_json(GetRequest(ids=["a"])) == '{"ids":["a"]}'
    assert to_json(GetRequest(ids=["a"], reach=Reach.of("agent:b"))) == (
        '{"ids":["a"],"reach":{"at":"agent:b","inherit":true,"descendants":false}}'
    )
    assert from_json('{"ids":["a"]}', GetRequest).reach is None


def test_explore_request_defaults_scan_limit_and_filter_on_read():
    request = from_json('{"facet":"tag","limit":7}', ExploreRequest)
    assert request.scan_limit == 5000
    assert request.filter == MetaFilter()
    assert request.facet is Facet.TAG
    assert to_json(request) == '{"facet":"tag","filter":{},"limit":7,"scan_limit":5000}'


@pytest.mark.parametrize(
    ("text", "cls"),
    [
        ('{"question":"q","limit":3}', RecallRequest),
        ('{"query":"q","mode":"keyword","limit":3}', FetchRequest),
        ('{"limit":3}', ListRequest),
    ],
)
def test_request_filter_defaults_to_empty_on_read(text, cls):
    assert from_json(text, cls).filter == MetaFilter()


def test_fetch_request_writes_empty_filter_and_leaves_out_absent_cursor():
    request = FetchRequest(query="q", mode=FetchMode.VECTOR, limit=3)
    assert to_json(request) == '{"query":"q","mode":"vector","filter":{},"limit":3}'
    paged = attrs.evolve(request, cursor="10")
    assert to_json(paged) == '{"query":"q","mode":"vector","filter":{},"limit":3,"cursor":"10"}'


# --- exact shapes: answers ----------------------------------------------------


def test_recall_answer_always_writes_citations():
    assert to_json(RecallAnswer(answer="none")) == '{"answer":"none","citations":[]}'
    assert from_json('{"answer":"none"}', RecallAnswer) == RecallAnswer(answer="none")


def test_recall_answer_with_a_scored_citation_and_model():
    citation = Citation(id="abc", kind="learning", snippet="tabs", meta=MemoryMeta(), score=0.5)
    answer = RecallAnswer(answer="tabs", citations=[citation], model="reference")
    assert to_json(answer) == (
        '{"answer":"tabs","citations":[{"id":"abc","kind":"learning","snippet":"tabs",'
        f'"meta":{DEFAULT_META},"score":0.5}}],"model":"reference"}}'
    )


def test_citation_leaves_out_an_absent_score():
    citation = Citation(id="abc", kind="document", snippet="s", meta=MemoryMeta())
    assert to_json(citation) == (
        f'{{"id":"abc","kind":"document","snippet":"s","meta":{DEFAULT_META}}}'
    )


def test_hit_writes_score_and_a_learnings_confidence():
    learning = Hit.of_item("abc", Learning(text="t", confidence=0.8))
    assert to_json(learning) == (
        f'{{"id":"abc","kind":"learning","text":"t","meta":{DEFAULT_META},'
        '"score":0.0,"confidence":0.8}'
    )
    document = Hit.of_item("d", Document(body="b"), score=0.25)
    assert to_json(document) == (
        f'{{"id":"d","kind":"document","text":"b","meta":{DEFAULT_META},"score":0.25}}'
    )


def test_pages_and_reports():
    hit = Hit.of_item("d", Document(body="b"))
    hit_json = f'{{"id":"d","kind":"document","text":"b","meta":{DEFAULT_META},"score":0.0}}'
    assert to_json(FetchPage(hits=[hit], next_cursor="1")) == (
        f'{{"hits":[{hit_json}],"next_cursor":"1"}}'
    )
    assert to_json(ListPage(items=[])) == '{"items":[]}'
    assert to_json(StoreReceipt("abc", False)) == '{"id":"abc","replayed":false}'
    assert to_json(ForgetReport(2)) == '{"forgotten":2}'
    exported = Exported(id="x", item=Learning(text="l"))
    assert to_json(ExportPage(items=[exported])) == (
        '{"items":[{"id":"x","item":{"type":"learning","text":"l","kind":"fact",'
        f'"confidence":0.8,"meta":{DEFAULT_META}}}}}],"incomplete":[]}}'
    )
    explore = ExplorePage(
        facet="kind",
        buckets=[FacetBucket("learning", 2)],
        total=3,
        missing=1,
        more_buckets=0,
        truncated=False,
    )
    assert to_json(explore) == (
        '{"facet":"kind","buckets":[{"value":"learning","count":2}],"total":3,'
        '"missing":1,"more_buckets":0,"truncated":false}'
    )
    erase = EraseRequest(reach=Reach.subtree("agent:a"), kinds=["document"])
    assert to_json(erase) == (
        '{"reach":{"at":"agent:a","inherit":false,"descendants":true},'
        '"kinds":["document"],"whole_tree":false}'
    )
    assert to_json(EraseReport(erased_scopes=1, receipts=["e-1"])) == (
        '{"erased_scopes":1,"receipts":["e-1"]}'
    )
    # serde writes these lists even when empty; only tags, tool calls and filter lists skip.
    assert to_json(EraseReport(erased_scopes=0)) == '{"erased_scopes":0,"receipts":[]}'
    descriptor = EngineDescriptor(id="x", label="l", description="d")
    assert to_json(descriptor).endswith('"fetch_modes":[]}')


@pytest.mark.parametrize(
    ("health", "written"),
    [
        (EngineHealth.ok(), '{"state":"ok"}'),
        (EngineHealth.degraded("slow index"), '{"state":"degraded","reason":"slow index"}'),
        (EngineHealth.down("no route"), '{"state":"down","reason":"no route"}'),
    ],
)
def test_engine_health_is_adjacently_tagged(health, written):
    assert to_json(health) == written
    assert from_json(written, EngineHealth) == health


def test_engine_descriptor_shape():
    descriptor = EngineDescriptor(
        id="reference",
        label="Reference (in-memory)",
        description="d",
        fetch_modes=["keyword", "vector", "hybrid"],
    )
    assert to_json(descriptor) == (
        '{"id":"reference","label":"Reference (in-memory)","description":"d",'
        '"hosted":false,"needs_endpoint":false,"needs_key":false,'
        '"fetch_modes":["keyword","vector","hybrid"]}'
    )


# --- text and numbers ---------------------------------------------------------


def test_non_ascii_is_written_raw():
    item = Learning(text="héllo 中文 🙂 Ж", confidence=0.5)
    text = to_json(item)
    assert '"text":"héllo 中文 🙂 Ж"' in text
    assert "\\u" not in text


def test_strings_are_escaped_like_serde_json():
    assert dumps('a"b\\c\nd\te\x01\x1f\x7f/') == '"a\\"b\\\\c\\nd\\te\\u0001\\u001f\x7f/"'


@pytest.mark.parametrize(
    ("confidence", "written"),
    [
        (0.8, "0.8"),
        (0.75, "0.75"),
        (1.0, "1.0"),
        (1, "1.0"),
        (0.0, "0.0"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (0.1 + 0.2, "0.3"),
        (0.123456789, "0.12345679"),
    ],
)
def test_confidence_is_written_as_shortest_f32(confidence, written):
    item = Learning(text="t", confidence=confidence)
    assert f'"confidence":{written},' in to_json(item)
    assert from_json(to_json(item), StoreItem) == item


@pytest.mark.parametrize(
    ("value", "written"),
    [(0.8, "0.8"), (123456.0, "123456.0"), (1e13, "1e13"), (2.5e-9, "2.5e-9"), (-0.5, "-0.5")],
)
def test_floats_are_written_as_shortest_f32(value, written):
    assert dumps(value) == written
    assert dumps([value, 1, True, None]) == f"[{written},1,true,null]"


def test_dumps_keeps_key_order_and_writes_compactly():
    assert dumps({"b": 1, "a": [1, {"z": None, "y": "ü"}]}) == '{"b":1,"a":[1,{"z":null,"y":"ü"}]}'


# --- reading malformed input ------------------------------------------------


MALFORMED: list[tuple[str, str | bytes, Any, tuple[str, ...]]] = [
    ("invalid json", "{not json", StoreItem, ("not valid json",)),
    ("truncated json", '{"type":"learning"', StoreItem, ("not valid json",)),
    ("not utf-8", b'{"type":"learning","text":"\xff"}', StoreItem, ("not valid json",)),
    (
        "nan literal",
        '{"type":"learning","text":"a","confidence":NaN}',
        StoreItem,
        ("not valid json", "`NaN`"),
    ),
    ("infinity literal", '{"limit":Infinity}', ListRequest, ("not valid json", "`Infinity`")),
    ("item not an object", "[1]", StoreItem, ("json object",)),
    (
        "unknown item type",
        '{"type":"memo","text":"x"}',
        StoreItem,
        ("`memo` is not an item type",),
    ),
    ("missing item type", '{"text":"x"}', StoreItem, ("a stored item needs a `type`",)),
    (
        "body with both keys",
        '{"type":"document","body":{"text":"a","uri":"b"}}',
        StoreItem,
        ("one key: text or uri", "$.body"),
    ),
    (
        "body as a bare string",
        '{"type":"document","body":"a"}',
        StoreItem,
        ("one key: text or uri", "$.body"),
    ),
    ("missing body", '{"type":"document"}', StoreItem, ("required field missing", "$.body")),
    (
        "unknown segment kind",
        '{"type":"learning","text":"a","meta":{"namespace":"workspace:x"}}',
        StoreItem,
        ("`workspace` is not a namespace segment kind", "$.meta.namespace"),
    ),
    (
        "bad segment id",
        '{"type":"learning","text":"a","meta":{"namespace":"agent:a.b"}}',
        StoreItem,
        ("namespace id `a.b` must be 1 to 128 characters", "$.meta.namespace"),
    ),
    (
        "empty segment",
        '{"type":"learning","text":"a","meta":{"namespace":"agent:a//agent:b"}}',
        StoreItem,
        ("must be written kind:id", "$.meta.namespace"),
    ),
    (
        "namespace too deep",
        '{"question":"q","filter":{"reach":{"at":"' + "/".join(["agent:a"] * 9) + '"}}}',
        RecallRequest,
        ("a namespace nests at most 8 deep", "$.filter.reach.at"),
    ),
    (
        "namespace not a string",
        '{"at":5}',
        Reach,
        ("a namespace is written as a string", "$.at"),
    ),
    (
        "unknown learning kind",
        '{"type":"learning","text":"a","kind":"belief"}',
        StoreItem,
        ("`belief`", "learning kind", "$.kind"),
    ),
    (
        "unknown item kind in a filter",
        '{"query":"q","filter":{"kinds":["memo"]}}',
        FetchRequest,
        ("`memo`", "item kind", "$.filter.kinds[0]"),
    ),
    (
        "unknown source kind",
        '{"filter":{"sources":["rss","composio"]}}',
        ListRequest,
        ("`composio`", "source kind", "$.filter.sources[1]"),
    ),
    ("unknown fetch mode", '{"query":"q","mode":"semantic"}', FetchRequest, ("$.mode",)),
    (
        "unknown role",
        '{"type":"conversation","turns":[{"role":"bot","text":"x"}]}',
        StoreItem,
        ("`bot` is not a role", "$.turns[0].role"),
    ),
    ("unknown facet", '{"facet":"colour"}', ExploreRequest, ("`colour`", "$.facet")),
    ("unknown health state", '{"state":"sleepy"}', EngineHealth, ("`sleepy`", "$.state")),
    ("down without a reason", '{"state":"down"}', EngineHealth, ("needs a reason",)),
    (
        "string for a number",
        '{"type":"learning","text":"a","confidence":"0.8"}',
        StoreItem,
        ("expected a number, found str", "$.confidence"),
    ),
    (
        "string for an integer",
        '{"query":"q","limit":"5"}',
        FetchRequest,
        ("expected an integer, found str", "$.limit"),
    ),
    (
        "boolean for an integer",
        '{"query":"q","limit":true}',
        FetchRequest,
        ("found a boolean", "$.limit"),
    ),
    (
        "fraction for an integer",
        '{"limit":1.5}',
        ListRequest,
        ("expected an integer, found float", "$.limit"),
    ),
    ("negative count", '{"limit":-1}', ListRequest, ("`limit` must be a whole number",)),
    (
        "number for a string",
        '{"type":"learning","text":5}',
        StoreItem,
        ("expected a string, found int", "$.text"),
    ),
    (
        "number for a boolean",
        '{"id":"a","replayed":1}',
        StoreReceipt,
        ("expected true or false", "$.replayed"),
    ),
    (
        "string for a list",
        '{"type":"learning","text":"a","meta":{"tags":"x"}}',
        StoreItem,
        ("expected a list, found str", "$.meta.tags"),
    ),
    (
        "object for a list",
        '{"filter":{"kinds":{"learning":1}}}',
        ListRequest,
        ("expected a list, found dict", "$.filter.kinds"),
    ),
    (
        "list for an object",
        '{"filter":[]}',
        ListRequest,
        ("expected an object, found list", "$.filter"),
    ),
    ("string for an object", '"root"', Reach, ("expected an object, found str",)),
    (
        "string for a turn range bound",
        '{"filter":{"turns":{"first":"a","last":1}}}',
        ListRequest,
        ("expected an integer", "$.filter.turns.first"),
    ),
    (
        "timestamp without offset",
        '{"type":"conversation","turns":[{"role":"user","text":"x","at":"2025-01-01T00:00:00"}]}',
        StoreItem,
        ("rfc 3339", "$.turns[0].at"),
    ),
    (
        "not a timestamp",
        '{"question":"q","filter":{"observed_after":"yesterday"}}',
        RecallRequest,
        ("`yesterday` is not an rfc 3339 timestamp", "$.filter.observed_after"),
    ),
    ("forget target with both keys", '{"ids":["a"],"filter":{}}', ForgetTarget, ("ids or filter",)),
    ("empty forget target", "{}", ForgetTarget, ("ids or filter",)),
    ("forget ids as a string", '{"ids":"abc"}', ForgetTarget, ("expected a list",)),
    ("forget id as a number", '{"ids":[1]}', ForgetTarget, ("expected a string, found int",)),
    (
        "missing required field",
        '{"id":"a"}',
        StoreReceipt,
        ("required field missing", "$.replayed"),
    ),
    (
        "bad citation score",
        '{"answer":"a","citations":[{"id":"x","kind":"learning","snippet":"s","meta":{},'
        '"score":"1"}]}',
        RecallAnswer,
        ("expected a number", "$.citations[0].score"),
    ),
    (
        "bad exported item",
        '{"items":[{"id":"x","item":{"type":"x"}}]}',
        ExportPage,
        ("`x` is not an item type", "$.items[0].item"),
    ),
    (
        "unknown fetch mode in a descriptor",
        '{"id":"x","label":"l","description":"d","fetch_modes":["fuzzy"]}',
        EngineDescriptor,
        ("`fuzzy`", "$.fetch_modes[0]"),
    ),
]


@pytest.mark.parametrize(
    ("text", "cls", "fragments"),
    [pytest.param(text, cls, fragments, id=name) for name, text, cls, fragments in MALFORMED],
)
def test_malformed_input_is_an_invalid_request_naming_the_problem(text, cls, fragments):
    with pytest.raises(InvalidRequest) as caught:
        from_json(text, cls)
    assert type(caught.value) is InvalidRequest
    assert str(caught.value).startswith("invalid request: ")
    for fragment in fragments:
        assert fragment in caught.value.message


def test_from_data_refuses_like_from_json():
    with pytest.raises(InvalidRequest, match=r"\$\.filter\.kinds\[0\]"):
        from_data({"query": "q", "filter": {"kinds": [3]}}, FetchRequest)


def test_writing_an_unknown_value_is_refused():
    with pytest.raises(TypeError, match="object has no json form"):
        dumps(object())
    with pytest.raises(ValueError, match="non-finite"):
        dumps(float("inf"))


# --- strategies the properties rely on --------------------------------------


EXAMPLES = settings(max_examples=40, deadline=None)


def _strings(data: Any) -> list[str]:
    if isinstance(data, str):
        return [data]
    if isinstance(data, dict):
        return [text for key, value in data.items() for text in [key, *_strings(value)]]
    if isinstance(data, list):
        return [text for value in data for text in _strings(value)]
    return []


@EXAMPLES
@given(tms.store_items())
def test_strategy_items_are_storable(item):
    item.validate()
    assert all(text.encode("utf-8") for text in _strings(to_data(item)))


@EXAMPLES
@given(
    st.one_of(
        tms.recall_requests(),
        tms.fetch_requests(),
        tms.list_requests(),
        tms.forget_targets(),
        tms.explore_requests(),
        tms.get_requests(),
        tms.erase_requests(),
    )
)
def test_strategy_requests_are_valid(request):
    request.validate()


@EXAMPLES
@given(tms.timestamps())
def test_strategy_timestamps_are_aware_utc(value):
    assert value.tzinfo is UTC
    assert from_json(to_json(value), datetime) == value


def _drawn(strategy: st.SearchStrategy[Any], count: int = 100) -> list[Any]:
    """What ``strategy`` draws over ``count`` examples, the same on every run."""
    values: list[Any] = []

    @settings(max_examples=count, derandomize=True, database=None, deadline=None)
    @given(strategy)
    def collect(value: Any) -> None:
        values.append(value)

    collect()
    return values


def test_strategy_timestamps_cover_every_precision():
    precisions = {
        "s" if not at.microsecond else "ms" if at.microsecond % 1000 == 0 else "us"
        for at in _drawn(tms.timestamps())
    }
    assert precisions == {"s", "ms", "us"}


def _set_fields(values: list[Any], cls: type) -> set[str]:
    default = cls()
    return {
        field.name
        for value in values
        for field in attrs.fields(cls)
        if getattr(value, field.name) != getattr(default, field.name)
    }


def test_strategy_memory_meta_sometimes_sets_each_field():
    drawn = _drawn(tms.memory_meta())
    assert _set_fields(drawn, MemoryMeta) == {field.name for field in attrs.fields(MemoryMeta)}
    assert MemoryMeta() in drawn


def test_strategy_meta_filters_set_any_subset_of_fields():
    drawn = _drawn(tms.meta_filters())
    assert _set_fields(drawn, MetaFilter) == {field.name for field in attrs.fields(MetaFilter)}
    assert any(flt.is_empty() for flt in drawn)
    assert any(flt.observed_after and flt.observed_before for flt in drawn)


@EXAMPLES
@given(tms.meta_filters(min_fields=1))
def test_strategy_meta_filters_with_min_fields_are_never_empty(flt):
    assert not flt.is_empty()
    if flt.observed_after is not None and flt.observed_before is not None:
        assert flt.observed_after <= flt.observed_before


@EXAMPLES
@given(tms.namespaces(max_depth=2))
def test_strategy_namespaces_respect_max_depth(namespace):
    assert namespace.depth <= 2


def test_strategy_arguments_are_checked():
    for depth in (-1, 9):
        with pytest.raises(InvalidArgument):
            tms.namespaces(max_depth=depth)
    with pytest.raises(InvalidArgument):
        tms.meta_filters(min_fields=-1)
    with pytest.raises(InvalidArgument):
        tms.texts(max_size=0)


def test_strategy_store_items_draw_every_kind_and_health_every_state():
    assert {type(item) for item in _drawn(tms.store_items(), 40)} == {
        Document,
        Conversation,
        Learning,
    }
    assert {health.state.value for health in _drawn(tms.engine_healths(), 30)} == {
        "ok",
        "degraded",
        "down",
    }


def test_strategy_text_is_sometimes_non_ascii():
    assert any(not text.isascii() for text in _drawn(tms.texts()))


# --- round trips --------------------------------------------------------------


ROUND_TRIPS = [
    ("namespace", tms.namespaces(max_depth=8), Namespace),
    ("reach", tms.reaches(), Reach),
    ("timestamp", tms.timestamps(), datetime),
    ("source_ref", tms.source_refs(), SourceRef),
    ("tool_call_ref", tms.tool_call_refs(), ToolCallRef),
    ("turn_range", tms.turn_ranges(), TurnRange),
    ("turn", tms.turns(), Turn),
    ("memory_meta", tms.memory_meta(), MemoryMeta),
    ("meta_filter", tms.meta_filters(), MetaFilter),
    ("document_body", tms.document_bodies(), DocumentBody),
    ("document", tms.documents(), Document),
    ("conversation", tms.conversations(), Conversation),
    ("learning", tms.learnings(), Learning),
    ("store_item", tms.store_items(), StoreItem),
    ("recall_request", tms.recall_requests(), RecallRequest),
    ("fetch_request", tms.fetch_requests(), FetchRequest),
    ("list_request", tms.list_requests(), ListRequest),
    ("forget_target", tms.forget_targets(), ForgetTarget),
    ("explore_request", tms.explore_requests(), ExploreRequest),
    ("get_request", tms.get_requests(), GetRequest),
    ("erase_request", tms.erase_requests(), EraseRequest),
    ("hit", tms.hits(), Hit),
    ("citation", tms.citations(), Citation),
    ("recall_answer", tms.recall_answers(), RecallAnswer),
    ("fetch_page", tms.fetch_pages(), FetchPage),
    ("list_page", tms.list_pages(), ListPage),
    ("explore_page", tms.explore_pages(), ExplorePage),
    ("export_page", tms.export_pages(), ExportPage),
    ("erase_report", tms.erase_reports(), EraseReport),
    ("forget_report", tms.forget_reports(), ForgetReport),
    ("store_receipt", tms.store_receipts(), StoreReceipt),
    ("engine_descriptor", tms.engine_descriptors(), EngineDescriptor),
    ("engine_health", tms.engine_healths(), EngineHealth),
]


@pytest.mark.parametrize(
    ("strategy", "cls"),
    [pytest.param(strategy, cls, id=name) for name, strategy, cls in ROUND_TRIPS],
)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_json_round_trip(strategy, cls, data):
    value = data.draw(strategy)
    text = to_json(value)
    read = from_json(text, cls)
    assert read == value
    assert type(read) is type(value)
    # Written again, the text is byte for byte the same.
    assert to_json(read) == text
    # The data form survives structuring, and the text is ordinary JSON of it.
    plain = to_data(value)
    assert to_data(from_data(plain, cls)) == plain
    assert json.loads(text) == plain


@settings(max_examples=50, deadline=None)
@given(tms.store_items())
def test_fingerprint_is_stable_across_a_json_round_trip(item):
    read = from_json(to_json(item), StoreItem)
    assert read.fingerprint() == item.fingerprint()
    unobserved = attrs.evolve(item, meta=attrs.evolve(item.meta, observed_at=None))
    expected = hashlib.sha256(to_json(unobserved).encode("utf-8")).hexdigest()[:40]
    assert item.fingerprint() == expected


@settings(max_examples=50, deadline=None)
@given(tms.store_items(), tms.timestamps())
def test_fingerprint_ignores_when_an_item_was_observed(item, seen):
    observed = item.with_meta(attrs.evolve(item.meta, observed_at=seen))
    assert observed.fingerprint() == item.fingerprint()
    assert '"observed_at":' in to_json(observed)


# --- reading never fails with anything but InvalidRequest -------------------


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 2**40) | st.floats(-1e6, 1e6) | tms.texts(8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(tms.texts(6), inner, max_size=3),
    max_leaves=6,
)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found.extend(_paths(value, (*prefix, key)))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.extend(_paths(value, (*prefix, index)))
    return found


def _replace(data: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {
            key: _replace(value, rest, new) if key == head else value for key, value in data.items()
        }
    return [
        _replace(value, rest, new) if index == head else value for index, value in enumerate(data)
    ]


@pytest.mark.parametrize(
    ("strategy", "cls"),
    [
        pytest.param(tms.store_items(), StoreItem, id="store_item"),
        pytest.param(tms.fetch_requests(), FetchRequest, id="fetch_request"),
        pytest.param(tms.forget_targets(), ForgetTarget, id="forget_target"),
        pytest.param(tms.get_requests(), GetRequest, id="get_request"),
        pytest.param(tms.recall_answers(), RecallAnswer, id="recall_answer"),
        pytest.param(tms.engine_healths(), EngineHealth, id="engine_health"),
    ],
)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_corrupted_input_reads_or_is_an_invalid_request(strategy, cls, data):
    plain = to_data(data.draw(strategy))
    path = data.draw(st.sampled_from(_paths(plain)))
    corrupted = _replace(plain, path, data.draw(_JSON))
    try:
        value = from_data(corrupted, cls)
    except InvalidRequest:
        return
    # What reads is a proper value again: it writes and reads back unchanged.
    assert from_data(to_data(value), cls) == value


def test_deeply_nested_json_is_invalid_request_not_a_crash():
    from tinymemory import InvalidRequest, MetaFilter
    from tinymemory._wire import from_json

    with pytest.raises(InvalidRequest, match="nested too deeply"):
        from_json("[" * 100_000 + "]" * 100_000, MetaFilter)
