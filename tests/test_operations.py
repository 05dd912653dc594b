"""Requests' validate() rules, facets and hits: contract notes §2."""

from __future__ import annotations

import re

import attrs
import pytest

from tinymemory import (
    MAX_BUCKETS,
    MAX_GET_IDS,
    MAX_SCAN_LIMIT,
    Conversation,
    Document,
    EraseRequest,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    Hit,
    InvalidRequest,
    ItemKind,
    Learning,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    RecallRequest,
    SourceKind,
    SourceRef,
    ToolCallRef,
    Turn,
    TurnRange,
)
from tinymemory._operations import DEFAULT_SCAN_LIMIT

ROOT = Namespace.ROOT


def refuses(request, message: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        request.validate()
    assert caught.value.message == message


# --- recall, fetch, list ------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "message"),
    [
        (RecallRequest(question=""), "recall question must not be empty"),
        (RecallRequest(question=" \n\t"), "recall question must not be empty"),
        (RecallRequest(question="who?", limit=0), "recall limit must be positive"),
        (FetchRequest(query=""), "fetch query must not be empty"),
        (FetchRequest(query="   "), "fetch query must not be empty"),
        (FetchRequest(query="tabs", limit=0), "fetch limit must be positive"),
        (ListRequest(limit=0), "list limit must be positive"),
    ],
)
def test_read_requests_refuse(request_, message):
    refuses(request_, message)


@pytest.mark.parametrize(
    "request_",
    [
        RecallRequest(question="who?"),
        RecallRequest(question="who?", limit=1),
        RecallRequest(question="who?", limit=1_000_000),
        FetchRequest(query="tabs"),
        FetchRequest(query="tabs", limit=1_000_000, mode="keyword"),
        ListRequest(),
        ListRequest(limit=1),
        ListRequest(limit=1_000_000),
    ],
)
def test_read_requests_accept(request_):
    assert request_.validate() is None


def test_blank_question_is_checked_before_limit():
    refuses(RecallRequest(question=" ", limit=0), "recall question must not be empty")
    refuses(FetchRequest(query=" ", limit=0), "fetch query must not be empty")


def test_request_defaults():
    assert RecallRequest(question="q").filter == MetaFilter()
    assert FetchRequest(query="q").mode is FetchMode.HYBRID
    assert FetchRequest(query="q").cursor is None
    assert ListRequest().filter.is_empty()
    assert RecallRequest(question="q", filter=None).filter == MetaFilter()


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: RecallRequest(question=None), "`question` must be a string"),
        (lambda: RecallRequest(question="q", limit=-1), "`limit` must be a whole number"),
        (lambda: RecallRequest(question="q", limit=True), "`limit` must be a whole number"),
        (lambda: RecallRequest(question="q", limit=2.0), "`limit` must be a whole number"),
        (lambda: FetchRequest(query="q", mode="semantic"), "`semantic` is not a fetch mode"),
        (lambda: FetchRequest(query="q", filter={}), "`filter` must be a MetaFilter"),
        (lambda: ListRequest(cursor=3), "`cursor` must be a string"),
    ],
)
def test_requests_refuse_wrong_types(build, message):
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        build()


def test_fetch_mode_wire_values():
    assert [mode.value for mode in FetchMode] == ["keyword", "vector", "hybrid"]


# --- forget -------------------------------------------------------------------


def test_forget_refuses_no_ids():
    refuses(ForgetTarget.by_ids([]), "forget needs at least one id")


@pytest.mark.parametrize("ids", [[""], ["a", " "], ["\t", "b"]])
def test_forget_refuses_a_blank_id(ids):
    refuses(ForgetTarget.by_ids(ids), "an id must not be blank")


def test_forget_refuses_an_empty_filter():
    refuses(
        ForgetTarget.by_filter(MetaFilter()),
        "forget refuses an empty filter, which would mean everything",
    )
    refuses(
        ForgetTarget.by_filter(MetaFilter(kinds=[], tags_any=[])),
        "forget refuses an empty filter, which would mean everything",
    )


@pytest.mark.parametrize(
    "target",
    [
        ForgetTarget.by_ids(["a"]),
        ForgetTarget.by_ids(["a", "b", "a"]),
        ForgetTarget.by_filter(MetaFilter(reach=Reach.exact("agent:b"))),
        ForgetTarget.by_filter(MetaFilter(reach=Reach.subtree(ROOT))),
        ForgetTarget.by_filter(MetaFilter(tags_any=["drop"])),
    ],
)
def test_forget_accepts(target):
    assert target.validate() is None


def test_forget_target_holds_exactly_one_of_ids_or_filter():
    message = "a forget target holds exactly one of ids or filter"
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        ForgetTarget()
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        ForgetTarget(ids=["a"], filter=MetaFilter(tags_any=["x"]))
    assert ForgetTarget(ids=["a"]).filter is None
    assert ForgetTarget(filter=MetaFilter(language="x")).ids is None


def test_forget_target_refuses_wrong_types():
    with pytest.raises(InvalidRequest, match=re.escape("`filter` must be a MetaFilter")):
        ForgetTarget(filter={"tags_any": ["x"]})
    with pytest.raises(InvalidRequest, match=re.escape("not a single string")):
        ForgetTarget.by_ids("abc")
    with pytest.raises(InvalidRequest, match=re.escape("found int")):
        ForgetTarget.by_ids([1])


def test_forget_by_ids_keeps_order_and_takes_any_iterable():
    assert ForgetTarget.by_ids(iter(["b", "a"])).ids == ("b", "a")


# --- get ----------------------------------------------------------------------


def test_get_refuses_no_ids():
    refuses(GetRequest(ids=[]), "get takes between 1 and 200 ids")


def test_get_refuses_more_ids_than_its_cap_when_built():
    assert MAX_GET_IDS == 200
    GetRequest(ids=[f"id{index}" for index in range(MAX_GET_IDS)]).validate()
    with pytest.raises(InvalidRequest, match=r"`ids` holds at most 200 entries \(cap-get-ids\)$"):
        GetRequest(ids=(f"id{index}" for index in range(10**12)))


@pytest.mark.parametrize("ids", [[""], [" "], ["a", "", "b"]])
def test_get_refuses_a_blank_id(ids):
    refuses(GetRequest(ids=ids), "an id must not be blank")


@pytest.mark.parametrize("count", [1, 200])
def test_get_accepts(count):
    request = GetRequest(ids=[f"id{index}" for index in range(count)])
    assert request.validate() is None
    assert request.reach is None


def test_get_refuses_wrong_types():
    with pytest.raises(InvalidRequest, match=re.escape("`reach` must be a Reach")):
        GetRequest(ids=["a"], reach="agent:a")
    with pytest.raises(InvalidRequest, match=re.escape("not a single string")):
        GetRequest(ids="a")


# --- explore ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"limit": 0}, "explore limit must be between 1 and 500"),
        ({"limit": MAX_BUCKETS + 1}, "explore limit must be between 1 and 500"),
        ({"scan_limit": 0}, "explore scan_limit must be between 1 and 50000"),
        ({"scan_limit": MAX_SCAN_LIMIT + 1}, "explore scan_limit must be between 1 and 50000"),
    ],
)
def test_explore_refuses(changes, message):
    refuses(ExploreRequest(facet="kind", **changes), message)


@pytest.mark.parametrize(
    "changes",
    [{}, {"limit": 1}, {"limit": 500}, {"scan_limit": 1}, {"scan_limit": 50_000}],
)
def test_explore_accepts(changes):
    assert ExploreRequest(facet=Facet.TAG, **changes).validate() is None


def test_explore_defaults():
    request = ExploreRequest(facet="namespace")
    assert request.facet is Facet.NAMESPACE
    assert request.scan_limit == 5_000 == DEFAULT_SCAN_LIMIT
    assert request.filter == MetaFilter()
    assert 1 <= request.limit <= 500
    assert (MAX_BUCKETS, MAX_SCAN_LIMIT) == (500, 50_000)


def test_explore_refuses_an_unknown_facet():
    with pytest.raises(InvalidRequest, match=re.escape("`agent_id` is not a facet")):
        ExploreRequest(facet="agent_id")


# --- erase --------------------------------------------------------------------

ALL_KINDS = [ItemKind.DOCUMENT, ItemKind.CONVERSATION, ItemKind.LEARNING]


@pytest.mark.parametrize(
    "request_",
    [
        EraseRequest(reach=Reach.subtree(ROOT)),
        EraseRequest(reach=Reach.subtree(ROOT), kinds=ALL_KINDS),
        EraseRequest(reach=Reach.subtree(ROOT), kinds=["learning", "document", "conversation"]),
        EraseRequest(reach=Reach.subtree(ROOT), kinds=[*ALL_KINDS, ItemKind.DOCUMENT]),
        EraseRequest(reach=Reach(ROOT, inherit=True, descendants=True)),
        EraseRequest(reach=Reach.subtree("root"), whole_tree=False),
    ],
)
def test_erase_interlock_refuses_the_whole_tree(request_):
    refuses(request_, "erasing the whole tree needs whole_tree: true")


@pytest.mark.parametrize(
    "request_",
    [
        EraseRequest(reach=Reach.subtree(ROOT), whole_tree=True),
        EraseRequest(reach=Reach.subtree(ROOT), kinds=ALL_KINDS, whole_tree=True),
        EraseRequest(reach=Reach.subtree(ROOT), kinds=[ItemKind.LEARNING]),
        EraseRequest(reach=Reach.subtree(ROOT), kinds=["document", "conversation"]),
        EraseRequest(reach=Reach.exact(ROOT)),
        EraseRequest(reach=Reach.of(ROOT)),
        EraseRequest(reach=Reach.subtree("agent:a")),
        EraseRequest(reach=Reach.subtree("team:acme"), kinds=ALL_KINDS),
    ],
)
def test_erase_accepts(request_):
    assert request_.validate() is None


def test_erase_needs_a_reach():
    with pytest.raises(InvalidRequest, match=re.escape("`reach` must be a Reach")):
        EraseRequest(reach=None)
    with pytest.raises(InvalidRequest, match=re.escape("`reach` must be a Reach")):
        EraseRequest(reach="root")


def test_erase_defaults():
    request = EraseRequest(reach=Reach.subtree("agent:a"))
    assert request.kinds == ()
    assert request.whole_tree is False


# --- facets -------------------------------------------------------------------

FULL = MemoryMeta(
    namespace="team:acme/agent:w",
    workspace="/work/space",
    folder="/a/b",
    file_path="/a/b/c.rs",
    language="rust",
    repo="owner/name",
    commit="abc123",
    url="https://example.com/x",
    thread_id="thread-1",
    turns=TurnRange(first=0, last=3),
    agent_id="agent-7",
    tool_call=ToolCallRef(name="read_plan", id="call-1"),
    source=SourceRef(kind=SourceKind.FILE, id="src-1"),
    tags=("x", "y"),
)

FACET_VALUES = [
    (Facet.KIND, ("learning",)),
    (Facet.SOURCE, ("file",)),
    (Facet.SOURCE_ID, ("src-1",)),
    (Facet.WORKSPACE, ("/work/space",)),
    (Facet.FOLDER, ("/a/b",)),
    (Facet.FILE_PATH, ("/a/b/c.rs",)),
    (Facet.LANGUAGE, ("rust",)),
    (Facet.REPO, ("owner/name",)),
    (Facet.URL, ("https://example.com/x",)),
    (Facet.THREAD, ("thread-1",)),
    (Facet.AGENT, ("agent-7",)),
    (Facet.TOOL_CALL, ("read_plan",)),
    (Facet.TAG, ("x", "y")),
    (Facet.NAMESPACE, ("team:acme/agent:w",)),
]


def test_facet_wire_values():
    assert [facet.value for facet in Facet] == [
        "kind",
        "source",
        "source_id",
        "workspace",
        "folder",
        "file_path",
        "language",
        "repo",
        "url",
        "thread",
        "agent",
        "tool_call",
        "tag",
        "namespace",
    ]


@pytest.mark.parametrize(("facet", "values"), FACET_VALUES, ids=[f.value for f, _ in FACET_VALUES])
def test_facet_values(facet, values):
    assert facet.values(ItemKind.LEARNING, FULL) == values


@pytest.mark.parametrize(
    ("facet", "values"),
    [
        (Facet.KIND, ("document",)),
        (Facet.SOURCE, ("agent",)),
        (Facet.NAMESPACE, ("root",)),
        (Facet.TAG, ()),
        (Facet.SOURCE_ID, ()),
        (Facet.WORKSPACE, ()),
        (Facet.FOLDER, ()),
        (Facet.FILE_PATH, ()),
        (Facet.LANGUAGE, ()),
        (Facet.REPO, ()),
        (Facet.URL, ()),
        (Facet.THREAD, ()),
        (Facet.AGENT, ()),
        (Facet.TOOL_CALL, ()),
    ],
)
def test_facet_values_of_bare_meta(facet, values):
    assert facet.values(ItemKind.DOCUMENT, MemoryMeta()) == values


def test_facet_kind_follows_the_item_kind():
    assert Facet.KIND.values(ItemKind.CONVERSATION, FULL) == ("conversation",)


BASE = MetaFilter(
    reach=Reach.of("agent:a"),
    kinds=[ItemKind.DOCUMENT, ItemKind.CONVERSATION],
    sources=[SourceKind.RSS],
    workspace="old-ws",
    folder="/old",
    file_path="/old/f",
    language="old-lang",
    repo="old/repo",
    url="old-url",
    thread_id="old-thread",
    agent_id="old-agent",
    tool_call="old-tool",
    source_id="old-source",
    tags_any=["old1", "old2"],
)

NARROW = [
    (Facet.KIND, "learning", {"kinds": (ItemKind.LEARNING,)}),
    (Facet.SOURCE, "file", {"sources": (SourceKind.FILE,)}),
    (Facet.SOURCE_ID, "src-1", {"source_id": "src-1"}),
    (Facet.WORKSPACE, "/work/space", {"workspace": "/work/space"}),
    (Facet.FOLDER, "/a", {"folder": "/a"}),
    (Facet.FILE_PATH, "/a/b", {"file_path": "/a/b"}),
    (Facet.LANGUAGE, "rust", {"language": "rust"}),
    (Facet.REPO, "owner/name", {"repo": "owner/name"}),
    (Facet.URL, "https://example.com/x", {"url": "https://example.com/x"}),
    (Facet.THREAD, "thread-1", {"thread_id": "thread-1"}),
    (Facet.AGENT, "agent-7", {"agent_id": "agent-7"}),
    (Facet.TOOL_CALL, "read_plan", {"tool_call": "read_plan"}),
    (Facet.TAG, "y", {"tags_any": ("y",)}),
    (
        Facet.NAMESPACE,
        "team:acme/agent:w",
        {"reach": Reach.exact(Namespace.parse("team:acme/agent:w"))},
    ),
    (Facet.NAMESPACE, "root", {"reach": Reach.exact(ROOT)}),
]


@pytest.mark.parametrize(
    ("facet", "value", "changes"), NARROW, ids=[f"{f.value}={v}" for f, v, _ in NARROW]
)
def test_narrow_replaces_only_its_field(facet, value, changes):
    narrowed = facet.narrow(BASE, value)
    assert narrowed == attrs.evolve(BASE, **changes)
    assert narrowed != BASE


@pytest.mark.parametrize(
    ("facet", "value", "changes"), NARROW, ids=[f"{f.value}={v}" for f, v, _ in NARROW]
)
def test_narrow_an_empty_filter(facet, value, changes):
    assert facet.narrow(MetaFilter(), value) == MetaFilter(**changes)


def test_narrow_does_not_modify_the_filter():
    before = attrs.evolve(BASE)
    Facet.TAG.narrow(BASE, "new")
    assert before == BASE


@pytest.mark.parametrize(("facet", "values"), FACET_VALUES, ids=[f.value for f, _ in FACET_VALUES])
def test_narrowing_a_bucket_admits_the_item_it_came_from(facet, values):
    other = MemoryMeta(namespace="team:acme/agent:w/agent:sub")
    for value in values:
        narrowed = facet.narrow(MetaFilter(), value)
        assert narrowed.matches(ItemKind.LEARNING, FULL)
        assert not narrowed.matches(ItemKind.DOCUMENT, other)


def test_folder_and_file_path_narrow_by_prefix():
    folder = Facet.FOLDER.narrow(MetaFilter(), "/a")
    assert folder.matches(ItemKind.DOCUMENT, MemoryMeta(folder="/a/b/c"))
    assert not folder.matches(ItemKind.DOCUMENT, MemoryMeta(folder="/ab"))
    file_path = Facet.FILE_PATH.narrow(MetaFilter(), "/a/b")
    assert file_path.matches(ItemKind.DOCUMENT, MemoryMeta(file_path="/a/b/c.rs"))
    assert not file_path.matches(ItemKind.DOCUMENT, MemoryMeta(file_path="/a/bc.rs"))


def test_namespace_narrows_to_exactly_that_node():
    narrowed = Facet.NAMESPACE.narrow(MetaFilter(reach=Reach.subtree(ROOT)), "team:acme")
    assert narrowed.reach == Reach.exact("team:acme")
    assert narrowed.matches(ItemKind.LEARNING, MemoryMeta(namespace="team:acme"))
    assert not narrowed.matches(ItemKind.LEARNING, MemoryMeta(namespace="team:acme/agent:w"))
    assert not narrowed.matches(ItemKind.LEARNING, MemoryMeta())


@pytest.mark.parametrize("facet", list(Facet), ids=lambda facet: facet.value)
@pytest.mark.parametrize("value", ["", "   ", "\t\n"])
def test_narrow_refuses_a_blank_value(facet, value):
    message = f"a `{facet.value}` value must not be blank"
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        facet.narrow(MetaFilter(), value)


def test_narrow_blank_kind_message():
    with pytest.raises(InvalidRequest) as caught:
        Facet.KIND.narrow(MetaFilter(), " ")
    assert caught.value.message == "a `kind` value must not be blank"


@pytest.mark.parametrize(
    ("facet", "value", "message"),
    [
        (Facet.KIND, "x", "`x` is not an item kind"),
        (Facet.KIND, "Document", "`Document` is not an item kind"),
        (Facet.SOURCE, "x", "`x` is not a source kind"),
        (Facet.SOURCE, "composio", "`composio` is not a source kind"),
        (Facet.NAMESPACE, "agent:a.b", "namespace id `a.b` must be 1 to 128 characters"),
        (Facet.NAMESPACE, "workspace:x", "`workspace` is not a namespace segment kind"),
        (Facet.NAMESPACE, "agent", "namespace segment `agent` must be written kind:id"),
    ],
)
def test_narrow_refuses_bad_values(facet, value, message):
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        facet.narrow(MetaFilter(), value)


# --- hits ---------------------------------------------------------------------


def test_hit_of_learning():
    item = Learning(text="prefers tabs", kind="preference", confidence=0.8, meta=FULL)
    hit = Hit.of_item("id-1", item)
    assert hit == Hit(
        id="id-1", kind=ItemKind.LEARNING, text="prefers tabs", meta=FULL, score=0.0, confidence=0.8
    )
    assert hit.confidence == 0.8
    assert hit.score == 0.0


def test_hit_of_document_and_conversation_have_no_confidence():
    document = Document(title="T", body="b")
    hit = Hit.of_item("d", document, score=0.5)
    assert (hit.id, hit.kind, hit.text, hit.score, hit.confidence) == (
        "d",
        ItemKind.DOCUMENT,
        "# T\n\nb",
        0.5,
        None,
    )
    assert hit.meta == MemoryMeta()
    conversation = Conversation(
        turns=[
            Turn(role="user", text="hi"),
            Turn(role="assistant", text="yo", tool_calls=[ToolCallRef(name="t", id="1")]),
        ]
    )
    hit = Hit.of_item("c", conversation)
    assert hit.kind is ItemKind.CONVERSATION
    assert hit.text == "user: hi\nassistant: yo [tools: t (1)]"
    assert hit.confidence is None


def test_hit_score_is_f32():
    hit = Hit.of_item("d", Document(body="b"), score=1 / 3)
    assert hit.score == 0.33333334
    with pytest.raises(InvalidRequest, match=re.escape("`score` must be a number")):
        Hit.of_item("d", Document(body="b"), score="high")
