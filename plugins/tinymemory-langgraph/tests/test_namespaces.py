"""How a LangGraph namespace becomes a TinyMemory node and back: fixed cases, then properties."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from langgraph.store.base import InvalidNamespaceError

import tinymemory as tm
from tinymemory_langgraph import labels_of, node_of
from tinymemory_langgraph.namespaces import decode_label, encode_label

ROOT = tm.Namespace.ROOT
ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


@pytest.mark.parametrize(
    ("label", "written"),
    [
        ("users", "users"),
        ("user-1", "user-1"),
        ("a_%", "a_5f_25"),
        ("_", "_5f"),
        ("é", "_c3_a9"),
        ("two words", "two_20words"),
        ("a/b:c", "a_2fb_3ac"),
    ],
)
def test_a_label_is_written_with_the_underscore_escape(label: str, written: str) -> None:
    assert encode_label(label) == written
    assert decode_label(written) == label


def test_a_tuple_nests_below_the_base_node_as_workspaces() -> None:
    node = node_of(tm.Namespace.parse("team:acme"), ("users", "a_%", "memories"))
    assert str(node) == "team:acme/ws:users/ws:a_5f_25/ws:memories"
    assert labels_of(tm.Namespace.parse("team:acme"), node) == ("users", "a_%", "memories")
    assert labels_of(ROOT, node) is None  # team:acme is no label
    assert labels_of(tm.Namespace.parse("team:beta"), node) is None  # not below that base


def test_the_escaped_length_is_bounded_at_the_segment_limit() -> None:
    assert encode_label("x" * 128) == "x" * 128
    with pytest.raises(InvalidNamespaceError, match="129 characters once escaped"):
        encode_label("x" * 129)
    assert len(encode_label("x" * 125 + "%")) == 128
    with pytest.raises(InvalidNamespaceError, match="at most 128"):
        encode_label("x" * 126 + "%")


def test_the_depth_counts_the_base_nodes_segments() -> None:
    node_of(ROOT, ("a",) * 8)
    with pytest.raises(InvalidNamespaceError, match="at most 8"):
        node_of(ROOT, ("a",) * 9)
    base = tm.Namespace.parse("team:acme/agent:writer")
    node_of(base, ("a",) * 6)
    with pytest.raises(InvalidNamespaceError, match="at most 6"):
        node_of(base, ("a",) * 7)


@pytest.mark.parametrize("label", ["", "a.b", 123, None, "\udc80"])
def test_a_label_langgraph_or_a_segment_cannot_hold_is_refused(label: object) -> None:
    with pytest.raises(InvalidNamespaceError):
        encode_label(label)


@pytest.mark.parametrize("written", ["_41", "_2F", "_ff", "a_5", "a__5f", "%", ""])
def test_an_id_no_label_writes_reads_as_none(written: str) -> None:
    # "_41" is "A" escaped, but "A" is written plain: only the one written form reads back.
    assert decode_label(written) is None


def test_a_node_of_another_kind_is_no_namespace() -> None:
    assert labels_of(ROOT, tm.Namespace.parse("ws:users/agent:x")) is None
    assert labels_of(ROOT, ROOT) == ()


labels = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="."), min_size=1)


@given(labels)
def test_every_label_writes_a_valid_id_that_reads_back(label: str) -> None:
    try:
        written = encode_label(label)
    except InvalidNamespaceError:
        assert len(label.encode()) * 3 > 128  # refused only when the escape is too long
        return
    assert ID.fullmatch(written)
    assert decode_label(written) == label


@given(st.lists(st.text("ab_.%-é", min_size=1, max_size=3), min_size=1, max_size=4))
def test_distinct_tuples_name_distinct_nodes(parts: list[str]) -> None:
    names = {tuple(parts), tuple(reversed(parts)), (*parts[:-1], parts[-1] + "_")}
    written = set()
    for name in names:
        try:
            written.add(node_of(ROOT, name))
        except InvalidNamespaceError:
            assert any("." in label for label in name)
            return
    assert len(written) == len(names)
