"""Strict reading of a model's tool arguments: host-fixed keys, unknown keys, types and ranges."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from tinymemory._errors import InvalidRequest
from tinymemory._meta import ItemKind, MetaFilter, SourceKind
from tinymemory._operations import Facet, FetchMode
from tinymemory._tool_arguments import Arguments, decode, refuse_host_fixed


def message(call, *args):
    with pytest.raises(InvalidRequest) as caught:
        call(*args)
    return caught.value.message


# --- decoding -------------------------------------------------------------------------


def test_json_text_is_parsed_and_anything_else_is_taken_as_is():
    assert decode("t", '{"limit": 3}') == {"limit": 3}
    assert decode("t", b'{"limit": 3}') == {"limit": 3}
    data = {"limit": 3}
    assert decode("t", data) is data
    assert decode("t", None) is None


@pytest.mark.parametrize("text", ["{", "", "{'a': 1}", '{"a": NaN}', '{"a": Infinity}', b"\xff"])
def test_text_that_is_not_json_is_refused(text):
    assert message(decode, "memory_list", text) == "memory_list: arguments are not valid json"


# --- host-fixed keys ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"namespace": "agent:other"}, "namespace"),
        ({"reach": {"at": "root"}}, "reach"),
        ({"filter": {"reach": {"at": "root"}}}, "filter.reach"),
        (
            {"conversation": {"turns": [{"role": "user", "reach": "x"}]}},
            "conversation.turns[].reach",
        ),
        ({"unknown": {"namespace": "root"}}, "unknown.namespace"),
        ({"a": [[{"namespace": 1}]]}, "a[][].namespace"),
        ([{"reach": None}], "[].reach"),
        # Breadth first: the shallowest is named.
        ({"filter": {"reach": 1}, "namespace": 2}, "namespace"),
    ],
)
def test_a_host_fixed_key_is_refused_at_any_depth_naming_its_path(value, path):
    assert message(refuse_host_fixed, "memory_list", value) == (
        f"memory_list: `{path}` is fixed by the host and cannot be passed to a memory tool"
    )


def test_ordinary_arguments_pass_the_host_fixed_walk():
    refuse_host_fixed("t", {"filter": {"kinds": ["learning"]}, "note": "my namespace is reach"})
    refuse_host_fixed("t", None)
    refuse_host_fixed("t", [1, "two", {"three": [4]}])


def test_a_cycle_does_not_hang_the_walk():
    value: dict = {"a": {}}
    value["a"]["self"] = value
    refuse_host_fixed("t", value)
    value["a"]["namespace"] = 1
    assert "`a.namespace`" in message(refuse_host_fixed, "t", value)


@pytest.mark.parametrize(
    ("value", "path"),
    [({"query": "a\ud800"}, "query"), ({"x\udfff": 1}, "x\udfff"), ("\ud800", "arguments")],
)
def test_a_lone_surrogate_is_refused(value, path):
    assert message(refuse_host_fixed, "t", value) == (
        f"t: `{path}` holds a lone surrogate, which is not unicode text"
    )


# --- keys -----------------------------------------------------------------------------------


def test_null_arguments_read_as_none():
    args = Arguments.parse("memory_list", None, ("limit",))
    assert not args.has("limit")
    assert args.count("limit", 7, 50) == 7


@pytest.mark.parametrize("value", [[1, 2], "x", 3, True])
def test_arguments_that_are_not_an_object_are_refused(value):
    assert message(Arguments.parse, "memory_list", value, ()) == (
        "memory_list: arguments must be a json object"
    )


def test_an_unknown_key_is_refused_by_name():
    assert message(Arguments.parse, "memory_list", {"limt": 3}, ("limit",)) == (
        "memory_list: `limt` is not an argument of this tool"
    )
    assert message(Arguments.parse, "memory_list", {1: 3}, ("limit",)) == (
        "memory_list: `1` is not an argument of this tool"
    )


def test_a_host_fixed_key_is_refused_even_when_listed_as_allowed():
    assert "is fixed by the host" in message(
        Arguments.parse, "memory_list", {"namespace": "root"}, ("namespace",)
    )


def test_an_explicit_null_is_absent():
    args = Arguments.parse("t", {"cursor": None, "filter": None}, ("cursor", "filter"))
    assert args.string("cursor") is None
    assert not args.has("cursor")
    assert args.filter() == MetaFilter()


# --- values -----------------------------------------------------------------------------------


def test_counts_default_and_are_range_checked():
    values = {"a": 5, "b": 0, "c": 51, "d": "5", "e": -1, "f": 5.0, "g": True, "h": 10**30}
    args = Arguments.parse("t", values, values)
    assert args.count("a", 1, 50) == 5
    assert args.count("missing", 9, 50) == 9
    for key in "bcdefgh":
        assert message(args.count, key, 1, 50) == f"t: `{key}` must be an integer from 1 to 50"


def test_units_default_are_range_checked_and_single_precision():
    values = {"ok": 0.1, "one": 1, "high": 1.5, "low": -0.01, "text": "0.5", "nan": math.nan}
    args = Arguments.parse("t", {**values, "yes": True}, (*values, "yes"))
    assert args.unit("ok", 0.8) == 0.1
    assert args.unit("one", 0.8) == 1.0
    assert args.unit("missing", 0.8) == 0.8
    assert Arguments.parse("t", {"x": 0.123456789}, ("x",)).unit("x", 0.8) == 0.12345679
    for key in ("high", "low", "text", "nan", "yes"):
        assert message(args.unit, key, 0.8) == f"t: `{key}` must be a number from 0 to 1"


def test_strings_are_type_checked():
    values = {"s": 1, "blank": "  ", "list": ["a", 2], "notlist": "a", "ok": ["a", "b"]}
    args = Arguments.parse("t", values, values)
    assert message(args.string, "s") == "t: `s` must be a string"
    assert message(args.required_string, "blank") == "t: `blank` is required and must not be blank"
    assert message(args.required_string, "missing") == (
        "t: `missing` is required and must not be blank"
    )
    assert message(args.strings, "list") == "t: `list` must be an array of strings"
    assert message(args.strings, "notlist") == "t: `notlist` must be an array of strings"
    assert args.strings("ok") == ("a", "b")
    assert args.strings("missing") == ()


def test_nested_objects_and_arrays_name_their_path():
    value = {"filter": "kinds=learning", "conversation": {"turns": ["hi"]}}
    args = Arguments.parse("t", value, value)
    assert message(args.object, "filter", ()) == "t: `filter` must be an object"
    conversation = args.required_object("conversation", ("turns",))
    assert message(lambda: list(conversation.elements("turns", ()))) == (
        "t: `conversation.turns` must hold only objects"
    )
    bad = Arguments.parse("t", {"c": {"turns": {"role": "user"}}}, ("c",))
    nested = bad.required_object("c", ("turns",))
    assert message(lambda: list(nested.elements("turns", ()))) == ("t: `c.turns` must be an array")
    turns = Arguments.parse("t", {"turns": [{"role": "user", "txt": "x"}]}, ("turns",))
    assert message(lambda: list(turns.elements("turns", ("role", "text")))) == (
        "t: `turns[].txt` is not an argument of this tool"
    )
    assert message(args.required_object, "absent", ()) == "t: `absent` is required"


def test_choices_name_what_is_allowed():
    args = Arguments.parse("t", {"facet": "namespace", "mode": "vector"}, ("facet", "mode"))
    facets = tuple(facet for facet in Facet if facet is not Facet.NAMESPACE)
    assert message(args.choice, "facet", facets) == (
        "t: `facet` must be one of kind, source, source_id, workspace, folder, file_path, "
        "language, repo, url, thread, agent, tool_call, tag"
    )
    keyword_only = (FetchMode.KEYWORD,)
    assert message(args.choice, "mode", keyword_only, FetchMode.KEYWORD) == (
        "t: `mode` must be one of keyword"
    )
    assert args.choice("absent", keyword_only, FetchMode.KEYWORD) is FetchMode.KEYWORD
    assert args.choice("mode", tuple(FetchMode), FetchMode.HYBRID) is FetchMode.VECTOR
    assert message(args.choice, "absent", facets) == "t: `absent` is required and must not be blank"


def test_ids_are_counted_checked_and_deduplicated():
    def ids(value):
        return Arguments.parse("memory_get", {"ids": value}, ("ids",)).item_ids("ids")

    assert ids(["b", "a", "b"]) == ("b", "a")
    assert message(ids, []) == "memory_get: `ids` must list from 1 to 200 ids"
    assert message(ids, None) == "memory_get: `ids` must list from 1 to 200 ids"
    assert message(ids, ["x"] * 201) == "memory_get: `ids` must list from 1 to 200 ids"
    assert len(ids(["x"] * 200)) == 1
    assert message(ids, ["a", " "]) == "memory_get: `ids` must not hold a blank id"
    assert message(ids, "abc") == "memory_get: `ids` must be an array of strings"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-05-06T07:08:09Z", datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)),
        ("2025-05-06t07:08:09z", datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)),
        ("2025-05-06 07:08:09.25+02:00", datetime(2025, 5, 6, 5, 8, 9, 250000, tzinfo=UTC)),
        ("2025-05-06T07:08:09.123456789-01:30", datetime(2025, 5, 6, 8, 38, 9, 123456, tzinfo=UTC)),
    ],
)
def test_timestamps_are_rfc3339_with_an_offset(text, expected):
    args = Arguments.parse("t", {"at": text}, ("at",))
    assert args.timestamp("at") == expected
    assert args.timestamp("at").tzinfo is UTC
    assert args.timestamp("missing") is None


@pytest.mark.parametrize(
    "text",
    [
        "2025-05-06",
        "2025-05-06T07:08:09",
        "2025-05-06T07:08Z",
        "2025-13-06T07:08:09Z",
        "20250506T070809Z",
        "2025-05-06T07:08:09+25:00",
        "0000-01-01T00:00:00Z",
        "yesterday",
        " 2025-05-06T07:08:09Z",
    ],
)
def test_a_timestamp_that_is_not_rfc3339_is_refused(text):
    args = Arguments.parse("t", {"filter": {"observed_after": text}}, ("filter",))
    assert message(args.filter) == "t: `filter.observed_after` must be an rfc 3339 timestamp"


def test_the_filter_reads_every_model_field_and_never_a_reach():
    value = {
        "kinds": ["learning", "document"],
        "sources": ["agent", "import"],
        "tags_any": ["a"],
        "workspace": "acme",
        "folder": "/src",
        "file_path": "/src/a.py",
        "repo": "o/r",
        "url": "https://example.com",
        "thread_id": "t1",
        "agent_id": "writer",
        "observed_after": "2025-01-01T00:00:00Z",
        "observed_before": "2025-02-01T00:00:00+01:00",
    }
    read = Arguments.parse("t", {"filter": value}, ("filter",)).filter()
    assert read == MetaFilter(
        kinds=(ItemKind.LEARNING, ItemKind.DOCUMENT),
        sources=(SourceKind.AGENT, SourceKind.IMPORT),
        tags_any=("a",),
        workspace="acme",
        folder="/src",
        file_path="/src/a.py",
        repo="o/r",
        url="https://example.com",
        thread_id="t1",
        agent_id="writer",
        observed_after=datetime(2025, 1, 1, tzinfo=UTC),
        observed_before=datetime(2025, 2, 1, tzinfo=UTC) - timedelta(hours=1),
    )
    assert read.reach is None


@pytest.mark.parametrize(
    ("field", "value", "problem"),
    [
        ("kinds", ["memo"], "`filter.kinds` `memo` is not an item kind"),
        ("sources", ["composio"], "`filter.sources` `composio` is not a source kind"),
        ("kinds", "learning", "`filter.kinds` must be an array of strings"),
        ("language", "python", "`filter.language` is not an argument of this tool"),
        ("commit", "abc", "`filter.commit` is not an argument of this tool"),
        ("source_id", "x", "`filter.source_id` is not an argument of this tool"),
        ("workspace", 3, "`filter.workspace` must be a string"),
    ],
)
def test_a_bad_filter_field_is_named(field, value, problem):
    args = Arguments.parse("memory_list", {"filter": {field: value}}, ("filter",))
    assert message(args.filter) == f"memory_list: {problem}"


# --- the order in which problems are named ----------------------------------------------


def test_the_first_bad_key_in_sorted_order_is_named():
    # The original reads arguments into key-sorted maps.
    assert message(Arguments.parse, "memory_list", {"zzz": 1, "aaa": 2}, ("limit",)) == (
        "memory_list: `aaa` is not an argument of this tool"
    )
    assert message(refuse_host_fixed, "memory_list", {"reach": 1, "namespace": 1}) == (
        "memory_list: `namespace` is fixed by the host and cannot be passed to a memory tool"
    )
