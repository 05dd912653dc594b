"""MemoryMeta and MetaFilter: contract notes §2, "MetaFilter matching"."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone

import attrs
import pytest

from tinymemory import (
    InvalidRequest,
    ItemKind,
    MemoryMeta,
    MetaFilter,
    Namespace,
    Reach,
    SourceKind,
    SourceRef,
    ToolCallRef,
    TurnRange,
)

SEEN = datetime(2001, 6, 1, 12, 0, tzinfo=UTC)

FULL = MemoryMeta(
    namespace="team:acme",
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
    observed_at=SEEN,
)
BARE = MemoryMeta()


def matches(filter: MetaFilter, meta: MemoryMeta = FULL, kind: ItemKind = ItemKind.DOCUMENT):
    return filter.matches(kind, meta)


# --- the empty filter ---------------------------------------------------------


def test_empty_filter_matches_everything_outside_sandboxes():
    assert matches(MetaFilter())
    assert matches(MetaFilter(), BARE)
    for kind in ItemKind:
        assert MetaFilter().matches(kind, FULL)
    sandboxed = MemoryMeta(namespace="agent:a/service:job")
    assert not matches(MetaFilter(), sandboxed)


# --- exact fields -------------------------------------------------------------

EXACT = [
    ("workspace", "/work/space", "/work"),
    ("language", "rust", "Rust"),
    ("repo", "owner/name", "owner"),
    ("commit", "abc123", "abc"),
    ("url", "https://example.com/x", "https://example.com/"),
    ("thread_id", "thread-1", "thread-2"),
    ("agent_id", "agent-7", "agent-70"),
    ("source_id", "src-1", "src-2"),
    ("turns", TurnRange(first=0, last=3), TurnRange(first=0, last=2)),
    ("tool_call", "read_plan", "call-1"),
]


@pytest.mark.parametrize(("field", "wanted", "other"), EXACT, ids=[field for field, _, _ in EXACT])
def test_exact_field_matches_equal_value_only(field, wanted, other):
    assert matches(MetaFilter(**{field: wanted}))
    assert not matches(MetaFilter(**{field: other}))


@pytest.mark.parametrize(("field", "wanted", "other"), EXACT, ids=[field for field, _, _ in EXACT])
def test_exact_field_never_matches_an_item_without_a_value(field, wanted, other):
    assert not matches(MetaFilter(**{field: wanted}), BARE)


def test_source_id_reads_the_source_ref_id():
    meta = MemoryMeta(source=SourceRef(kind="rss", id="feed-9"))
    assert matches(MetaFilter(source_id="feed-9"), meta)
    assert not matches(MetaFilter(source_id="rss"), meta)
    assert not matches(MetaFilter(source_id="feed-9"), MemoryMeta(source=SourceRef(kind="rss")))


def test_tool_call_matches_by_name_not_id():
    by_name = MemoryMeta(tool_call=ToolCallRef(name="search"))
    assert matches(MetaFilter(tool_call="search"), by_name)
    assert matches(MetaFilter(tool_call="read_plan"))
    assert not matches(MetaFilter(tool_call="call-1"))
    assert not matches(MetaFilter(tool_call="read"))


def test_turns_compare_the_whole_range():
    meta = MemoryMeta(turns=TurnRange(first=2, last=5))
    assert matches(MetaFilter(turns=TurnRange(first=2, last=5)), meta)
    assert not matches(MetaFilter(turns=TurnRange(first=2, last=4)), meta)
    assert not matches(MetaFilter(turns=TurnRange(first=3, last=5)), meta)


# --- folder and file_path -------------------------------------------------------

PATHS = [
    ("/a/b", "/a/b", True),
    ("/a/b", "/a/b/c.rs", True),
    ("/a/b", "/a/b/c/d/e.rs", True),
    ("/a/b", "/a/bc", False),
    ("/a/b", "/a/bc/d.rs", False),
    ("/a/b", "/a", False),
    ("/a/b", "/x/a/b", False),
    ("/a/b/", "/a/b/c.rs", True),
    ("/a/b/", "/a/b", True),
    ("/a/b/", "/a/bc", False),
    ("/a/b/c.rs", "/a/b/c.rs", True),
    ("/a/b/c.rs", "/a/b/c.rsx", False),
    ("src", "src/lib.rs", True),
    ("src", "srcs/lib.rs", False),
    ("/", "/etc/hosts", True),
]


@pytest.mark.parametrize("field", ["folder", "file_path"])
@pytest.mark.parametrize(("wanted", "value", "expected"), PATHS)
def test_path_prefix_on_slash_boundary(field, wanted, value, expected):
    meta = MemoryMeta(**{field: value})
    assert matches(MetaFilter(**{field: wanted}), meta) is expected


@pytest.mark.parametrize("field", ["folder", "file_path"])
def test_path_field_never_matches_an_item_without_a_value(field):
    assert not matches(MetaFilter(**{field: "/"}), BARE)
    assert not matches(MetaFilter(**{field: "/a/b"}), BARE)


def test_folder_and_file_path_are_checked_against_their_own_field():
    meta = MemoryMeta(folder="/x", file_path="/a/b/c.rs")
    assert not matches(MetaFilter(folder="/a/b"), meta)
    assert matches(MetaFilter(file_path="/a/b"), meta)


# --- kinds, sources, tags -----------------------------------------------------


def test_kinds_membership():
    only_docs = MetaFilter(kinds=[ItemKind.DOCUMENT])
    assert only_docs.matches(ItemKind.DOCUMENT, FULL)
    assert not only_docs.matches(ItemKind.LEARNING, FULL)
    assert not only_docs.matches(ItemKind.CONVERSATION, FULL)
    two = MetaFilter(kinds=["learning", "conversation"])
    assert two.kinds == (ItemKind.LEARNING, ItemKind.CONVERSATION)
    assert two.matches(ItemKind.LEARNING, FULL)
    assert two.matches(ItemKind.CONVERSATION, FULL)
    assert not two.matches(ItemKind.DOCUMENT, FULL)


def test_sources_membership():
    assert matches(MetaFilter(sources=[SourceKind.FILE]))
    assert matches(MetaFilter(sources=["rss", "file"]))
    assert not matches(MetaFilter(sources=["folder"]))
    # the default source is the agent
    assert matches(MetaFilter(sources=["agent"]), BARE)
    assert not matches(MetaFilter(sources=["import"]), BARE)


def test_tags_any_needs_one_shared_tag():
    assert matches(MetaFilter(tags_any=["y", "z"]))
    assert matches(MetaFilter(tags_any=["x"]))
    assert not matches(MetaFilter(tags_any=["z"]))
    assert not matches(MetaFilter(tags_any=["X"]))
    assert not matches(MetaFilter(tags_any=["x"]), BARE)
    assert matches(MetaFilter(tags_any=[]), BARE)


def test_every_set_field_must_match():
    assert matches(MetaFilter(language="rust", repo="owner/name", tags_any=["x"]))
    assert not matches(MetaFilter(language="rust", repo="other/name"))
    assert not matches(MetaFilter(language="rust", kinds=["learning"]))
    assert not matches(MetaFilter(language="rust", sources=["github"]))
    assert not matches(MetaFilter(language="rust", tags_any=["nope"]))


# --- the observed window --------------------------------------------------------


@pytest.mark.parametrize(
    ("after", "before", "expected"),
    [
        (SEEN, None, True),  # after is inclusive
        (None, SEEN, False),  # before is exclusive
        (SEEN + timedelta(microseconds=1), None, False),
        (None, SEEN + timedelta(microseconds=1), True),
        (SEEN - timedelta(days=1), SEEN + timedelta(days=1), True),
        (datetime(2000, 1, 1, tzinfo=UTC), datetime(2002, 1, 1, tzinfo=UTC), True),
        (datetime(2002, 1, 1, tzinfo=UTC), datetime(2003, 1, 1, tzinfo=UTC), False),
        (datetime(1999, 1, 1, tzinfo=UTC), datetime(2000, 1, 1, tzinfo=UTC), False),
        (SEEN, SEEN, False),
        (None, None, True),
    ],
)
def test_window(after, before, expected):
    window = MetaFilter(observed_after=after, observed_before=before)
    assert matches(window) is expected


@pytest.mark.parametrize(
    "window",
    [
        MetaFilter(observed_after=datetime(1970, 1, 1, tzinfo=UTC)),
        MetaFilter(observed_before=datetime(2999, 1, 1, tzinfo=UTC)),
        MetaFilter(
            observed_after=datetime(1970, 1, 1, tzinfo=UTC),
            observed_before=datetime(2999, 1, 1, tzinfo=UTC),
        ),
    ],
)
def test_window_never_matches_an_item_without_observed_at(window):
    assert not matches(window, BARE)


def test_window_bounds_in_other_offsets_are_read_as_utc():
    plus_two = timezone(timedelta(hours=2))
    same_instant = datetime(2001, 6, 1, 14, 0, tzinfo=plus_two)
    window = MetaFilter(observed_after=same_instant)
    assert window.observed_after == SEEN
    assert window.observed_after.utcoffset() == timedelta(0)
    assert matches(window)
    assert not matches(MetaFilter(observed_before=same_instant))


def test_meta_observed_at_is_stored_in_utc():
    meta = MemoryMeta(observed_at=datetime(2001, 6, 1, 7, 0, tzinfo=timezone(timedelta(hours=-5))))
    assert meta.observed_at == SEEN
    assert meta.observed_at.utcoffset() == timedelta(0)


# --- reach --------------------------------------------------------------------


def at(path: str) -> MemoryMeta:
    return MemoryMeta(namespace=path)


def test_reach_confines_the_filter():
    ordinary = MetaFilter(reach=Reach.of("team:acme/agent:w"))
    assert matches(ordinary, at("root"))
    assert matches(ordinary, at("team:acme"))
    assert matches(ordinary, at("team:acme/agent:w"))
    assert not matches(ordinary, at("team:acme/agent:e"))
    assert not matches(ordinary, at("team:acme/agent:w/agent:helper"))
    assert not matches(ordinary, at("team:acme/agent:w/service:job"))


def test_exact_and_subtree_reach():
    exact = MetaFilter(reach=Reach.exact("team:acme"))
    assert matches(exact, at("team:acme"))
    assert not matches(exact, at("root"))
    assert not matches(exact, at("team:acme/agent:w"))
    subtree = MetaFilter(reach=Reach.subtree("team:acme"))
    assert matches(subtree, at("team:acme/agent:w/agent:helper"))
    assert not matches(subtree, at("root"))
    assert not matches(subtree, at("team:acme/service:job"))
    assert not matches(subtree, at("team:acme/service:job/agent:x"))


def test_no_reach_excludes_sandboxes_only():
    unscoped = MetaFilter(language="rust")
    assert matches(unscoped, MemoryMeta(namespace="team:acme/agent:w", language="rust"))
    assert not matches(unscoped, MemoryMeta(namespace="agent:a/service:job", language="rust"))
    assert not matches(MetaFilter(reach=Reach.subtree(Namespace.ROOT)), at("service:job"))


def test_a_sandbox_is_read_by_a_reach_at_it():
    job = at("agent:a/service:job")
    assert matches(MetaFilter(reach=Reach.exact("agent:a/service:job")), job)
    assert matches(MetaFilter(reach=Reach.subtree("agent:a/service:job")), job)
    assert matches(MetaFilter(reach=Reach.of("agent:a/service:job")), job)
    assert matches(MetaFilter(reach=Reach.of("agent:a/service:job")), at("agent:a"))


def test_reach_and_other_fields_both_apply():
    wanted = MetaFilter(reach=Reach.exact("team:acme"), language="rust")
    assert matches(wanted)
    assert not matches(wanted, at("team:acme"))
    assert not matches(wanted, attrs.evolve(FULL, namespace=Namespace.parse("team:other")))


# --- is_empty -----------------------------------------------------------------


def test_default_filter_is_empty():
    assert MetaFilter().is_empty()
    assert MetaFilter(kinds=[], sources=[], tags_any=[]).is_empty()


@pytest.mark.parametrize(
    "changes",
    [
        {"reach": Reach.subtree(Namespace.ROOT)},
        {"reach": Reach.exact("agent:b")},
        {"kinds": ["document"]},
        {"sources": ["file"]},
        {"workspace": "w"},
        {"folder": "/a"},
        {"file_path": "/a/b"},
        {"language": "rust"},
        {"repo": "o/r"},
        {"commit": "c"},
        {"url": "u"},
        {"thread_id": "t"},
        {"turns": TurnRange(first=0, last=0)},
        {"agent_id": "a"},
        {"tool_call": "t"},
        {"source_id": "s"},
        {"tags_any": ["x"]},
        {"observed_after": SEEN},
        {"observed_before": SEEN},
        {"workspace": ""},
    ],
    ids=lambda changes: next(iter(changes)),
)
def test_any_set_field_makes_the_filter_non_empty(changes):
    assert not MetaFilter(**changes).is_empty()


# --- refused values -----------------------------------------------------------


@pytest.mark.parametrize("field", ["observed_after", "observed_before"])
def test_filter_refuses_naive_datetimes(field):
    with pytest.raises(InvalidRequest, match=re.escape("a timestamp must carry a timezone")):
        MetaFilter(**{field: datetime(2001, 1, 1)})


def test_meta_refuses_naive_observed_at():
    with pytest.raises(InvalidRequest, match=re.escape("a timestamp must carry a timezone")):
        MemoryMeta(observed_at=datetime(2001, 1, 1))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"workspace": 3}, "`workspace` must be a string"),
        ({"folder": b"/a"}, "`folder` must be a string"),
        ({"source_id": 1}, "`source_id` must be a string"),
        ({"tool_call": ToolCallRef(name="x")}, "`tool_call` must be a string"),
        ({"kinds": "document"}, "expected a list of item kinds"),
        ({"kinds": ["nope"]}, "`nope` is not an item kind"),
        ({"sources": ["composio"]}, "`composio` is not a source kind"),
        ({"sources": SourceKind.FILE}, "expected a list of source kinds"),
        ({"tags_any": "x"}, "expected a list of strings, not a single string"),
        ({"tags_any": ["x", 1]}, "expected a list of strings, found int"),
        ({"observed_after": "2001-01-01T00:00:00Z"}, "a timestamp must be a datetime, not str"),
        ({"observed_before": 0}, "a timestamp must be a datetime, not int"),
        ({"reach": "agent:a"}, "`reach` must be a Reach"),
        ({"turns": (0, 1)}, "`turns` must be a TurnRange"),
    ],
)
def test_filter_refuses_wrong_types(changes, message):
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        MetaFilter(**changes)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"namespace": "agent:a.b"}, "namespace id `a.b` must be 1 to 128 characters"),
        ({"namespace": "workspace:x"}, "`workspace` is not a namespace segment kind"),
        ({"repo": 5}, "`repo` must be a string"),
        ({"tags": "x"}, "expected a list of strings, not a single string"),
        ({"tags": [None]}, "expected a list of strings, found NoneType"),
        ({"source": "file"}, "`source` must be a SourceRef"),
        ({"tool_call": "read_plan"}, "`tool_call` must be a ToolCallRef"),
        ({"turns": {"first": 0, "last": 1}}, "`turns` must be a TurnRange"),
        ({"derive": "yes"}, "`derive` must be true or false"),
        ({"observed_at": "2001-01-01"}, "a timestamp must be a datetime, not str"),
    ],
)
def test_meta_refuses_wrong_types(changes, message):
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        MemoryMeta(**changes)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: TurnRange(first=-1, last=0), "`first` must be a whole number of zero or more"),
        (lambda: TurnRange(first=0, last=True), "`last` must be a whole number of zero or more"),
        (lambda: ToolCallRef(name=None), "`name` must be a string"),
        (lambda: ToolCallRef(name="x", id=1), "`id` must be a string"),
        (lambda: SourceRef(kind="composio"), "`composio` is not a source kind"),
        (lambda: SourceRef(kind="file", id=2), "`id` must be a string"),
    ],
)
def test_meta_parts_refuse_wrong_values(build, message):
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        build()


def test_meta_defaults():
    assert BARE.namespace == Namespace.ROOT
    assert BARE.source == SourceRef(kind=SourceKind.AGENT, id=None)
    assert BARE.tags == ()
    assert BARE.observed_at is None
    assert BARE.derive is None
    assert MemoryMeta(namespace="ws:main").namespace == Namespace.parse("ws:main")
    assert MemoryMeta(tags=["b", "a"]).tags == ("b", "a")


def test_source_kind_wire_values():
    assert [kind.value for kind in SourceKind] == [
        "folder",
        "file",
        "link",
        "github",
        "rss",
        "conversation",
        "agent",
        "import",
    ]


def test_meta_and_filter_are_built_by_keyword_only() -> None:
    with pytest.raises(TypeError):
        MemoryMeta(Namespace.ROOT)  # type: ignore[misc]
    with pytest.raises(TypeError):
        MetaFilter(None)  # type: ignore[misc]
