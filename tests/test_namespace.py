"""Namespaces, segments and reaches: contract notes §1."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory import MAX_DEPTH, InvalidRequest, Namespace, Reach, Segment, SegmentKind

ROOT = Namespace.ROOT
R = ROOT
T = Namespace.parse("team:acme")
W = Namespace.parse("team:acme/agent:writer")
H = Namespace.parse("team:acme/agent:writer/agent:helper")
E = Namespace.parse("team:acme/agent:editor")
S = Namespace.parse("team:acme/agent:writer/service:job")
NODES = {"R": R, "T": T, "W": W, "H": H, "E": E, "S": S}

ID_MESSAGE = "must be 1 to 128 characters of A-Z, a-z, 0-9, `_` or `-`"
VALID_ID = re.compile(r"[A-Za-z0-9_-]{1,128}", re.ASCII)


def seg(kind: SegmentKind, ident: str) -> Segment:
    return Segment(kind, ident)


def fnv1a_32(data: bytes) -> int:
    """Reference FNV-1a (32 bit), written out here to check the sanitizer's suffix."""
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) % 2**32
    return value


def deep(depth: int) -> str:
    return "/".join(f"agent:a{index}" for index in range(depth))


# --- parse ------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "root", "  root\t", "\nroot\n"])
def test_parse_root_forms(text):
    ns = Namespace.parse(text)
    assert ns == ROOT
    assert ns.segments == ()
    assert ns.depth == 0
    assert ns.is_root


def test_parse_trims_the_whole_string():
    ns = Namespace.parse("  team:acme/agent:writer \n")
    assert ns.segments == (
        seg(SegmentKind.TEAM, "acme"),
        seg(SegmentKind.AGENT, "writer"),
    )
    assert ns.depth == 2
    assert not ns.is_root


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("agent:x", SegmentKind.AGENT),
        ("team:x", SegmentKind.TEAM),
        ("user:x", SegmentKind.USER),
        ("ws:x", SegmentKind.WORKSPACE),
        ("project:x", SegmentKind.PROJECT),
        ("source:x", SegmentKind.SOURCE),
        ("service:x", SegmentKind.SERVICE),
    ],
)
def test_parse_every_prefix(text, kind):
    assert Namespace.parse(text).segments == (seg(kind, "x"),)


def test_parse_keeps_ids_of_the_whole_charset():
    ns = Namespace.parse("user:Az09_-/agent:" + "b" * 128)
    assert ns.segments[0].id == "Az09_-"
    assert ns.segments[1].id == "b" * 128


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("agent", "agent"),
        ("ROOT", "ROOT"),
        ("root/agent:a", "root"),
        ("agent:a/", ""),
        ("/agent:a", ""),
        ("agent:a//agent:b", ""),
        ("agent:a/writer", "writer"),
    ],
)
def test_parse_refuses_a_part_without_colon(text, part):
    message = f"namespace segment `{part}` must be written kind:id"
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        Namespace.parse(text)


@pytest.mark.parametrize(
    ("text", "prefix"),
    [
        ("workspace:x", "workspace"),
        ("Agent:x", "Agent"),
        ("AGENT:x", "AGENT"),
        ("bot:x", "bot"),
        (":x", ""),
        ("team:acme/org:x", "org"),
        (" agent:x/ agent:y", " agent"),
    ],
)
def test_parse_refuses_an_unknown_prefix(text, prefix):
    kinds = "agent, team, user, ws, project, source, service"
    message = f"`{prefix}` is not a namespace segment kind (kinds: {kinds})"
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        Namespace.parse(text)


def test_ws_parses_where_workspace_does_not():
    assert Namespace.parse("ws:x").segments[0].kind is SegmentKind.WORKSPACE
    with pytest.raises(InvalidRequest, match=re.escape("`workspace` is not a namespace")):
        Namespace.parse("workspace:x")


@pytest.mark.parametrize(
    ("text", "ident"),
    [
        ("agent:", ""),
        ("agent:a.b", "a.b"),
        ("agent:a:b", "a:b"),
        ("agent:a b", "a b"),
        ("agent:é", "é"),
        ("agent:٣", "٣"),
        ("agent:\uff41", "\uff41"),  # fullwidth a: alphanumeric, but not ASCII
        ("agent:" + "a" * 129, "a" * 129),
        ("team:acme/agent:o'neil", "o'neil"),
    ],
)
def test_parse_refuses_a_bad_id(text, ident):
    message = f"namespace id `{ident}` {ID_MESSAGE}"
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        Namespace.parse(text)


def test_parse_depth_eight_is_accepted_nine_refused():
    assert Namespace.parse(deep(MAX_DEPTH)).depth == 8
    with pytest.raises(InvalidRequest, match=re.escape("a namespace nests at most 8 deep")):
        Namespace.parse(deep(9))


def test_parse_refuses_a_non_string():
    with pytest.raises(InvalidRequest, match="a namespace is written as a string, not int"):
        Namespace.parse(5)  # type: ignore[arg-type]


def test_parse_errors_are_invalid_request_with_display_prefix():
    with pytest.raises(InvalidRequest) as caught:
        Namespace.parse("agent:a.b")
    assert str(caught.value) == f"invalid request: namespace id `a.b` {ID_MESSAGE}"


@pytest.mark.parametrize(
    "text",
    [
        "root",
        "agent:a",
        "ws:x",
        "team:acme/agent:writer",
        "user:u1/ws:main/project:p/source:pdf/service:newsletter",
        deep(8),
    ],
)
def test_str_round_trips(text):
    ns = Namespace.parse(text)
    assert str(ns) == text
    assert Namespace.parse(str(ns)) == ns


def test_root_prints_as_root():
    assert str(ROOT) == "root"
    assert str(Namespace()) == "root"
    assert repr(W) == "Namespace('team:acme/agent:writer')"


def test_namespace_new_checks_depth():
    segments = [seg(SegmentKind.AGENT, f"a{index}") for index in range(9)]
    assert Namespace(segments[:8]).depth == 8
    with pytest.raises(InvalidRequest, match=re.escape("a namespace nests at most 8 deep")):
        Namespace(segments)


def test_segment_new_checks_the_id():
    assert str(Segment(SegmentKind.WORKSPACE, "main")) == "ws:main"
    with pytest.raises(InvalidRequest, match=re.escape(f"namespace id `a.b` {ID_MESSAGE}")):
        Segment(SegmentKind.AGENT, "a.b")
    with pytest.raises(InvalidRequest, match=re.escape(f"namespace id `` {ID_MESSAGE}")):
        Segment(SegmentKind.AGENT, "")


# --- tree helpers -------------------------------------------------------------


def test_child():
    assert ROOT.child(seg(SegmentKind.TEAM, "acme")) == T
    assert T.child(seg(SegmentKind.AGENT, "writer")) == W
    eight = Namespace.parse(deep(8))
    with pytest.raises(InvalidRequest, match=re.escape("a namespace nests at most 8 deep")):
        eight.child(seg(SegmentKind.AGENT, "one-more"))


def test_parent():
    assert H.parent() == W
    assert W.parent() == T
    assert T.parent() == ROOT
    assert ROOT.parent() is None


def test_ancestors_and_self_root_first():
    assert H.ancestors_and_self() == (ROOT, T, W, H)
    assert T.ancestors_and_self() == (ROOT, T)
    assert ROOT.ancestors_and_self() == (ROOT,)


@pytest.mark.parametrize(
    ("inner", "outer", "expected"),
    [
        (W, T, True),
        (H, T, True),
        (W, ROOT, True),
        (ROOT, ROOT, True),
        (W, W, True),
        (T, W, False),
        (ROOT, T, False),
        (E, W, False),
        (W, E, False),
        (Namespace.parse("agent:researchers"), Namespace.parse("agent:researcher"), False),
        (Namespace.parse("agent:researcher"), Namespace.parse("agent:researchers"), False),
        (Namespace.parse("agent:researcher/agent:x"), Namespace.parse("agent:researcher"), True),
        (Namespace.parse("team:x/agent:a"), Namespace.parse("agent:x"), False),
        (Namespace.parse("agent:x"), Namespace.parse("team:x"), False),
    ],
)
def test_is_within(inner, outer, expected):
    assert inner.is_within(outer) is expected


def test_namespace_agent_sanitizes():
    assert Namespace.agent("writer") == Namespace.parse("agent:writer")
    assert Namespace.agent("o'neil@acme.com") == Namespace.parse("agent:o-neil-acme-com-c5acae54")


# --- Segment.sanitized --------------------------------------------------------


def test_reference_fnv_matches_published_vectors():
    # Published FNV-1a 32-bit test vectors, so the helper used below is trustworthy.
    assert fnv1a_32(b"") == 0x811C9DC5
    assert fnv1a_32(b"a") == 0xE40C292C
    assert fnv1a_32(b"foobar") == 0xBF9CF968


@pytest.mark.parametrize("raw", ["writer", "a_b", "A-9", "-", "_", "x" * 128])
def test_sanitized_keeps_a_valid_id(raw):
    assert Segment.sanitized(SegmentKind.AGENT, raw) == Segment(SegmentKind.AGENT, raw)


def test_sanitized_empty_is_underscore():
    assert Segment.sanitized(SegmentKind.USER, "").id == "_"
    assert Segment.sanitized(SegmentKind.USER, "") == Segment.sanitized(SegmentKind.USER, "_")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("o'neil@acme.com", "o-neil-acme-com-c5acae54"),
        ("a.b", "a-b-108bf50c"),
    ],
)
def test_sanitized_worked_examples(raw, expected):
    segment = Segment.sanitized(SegmentKind.AGENT, raw)
    assert segment.id == expected
    assert segment.kind is SegmentKind.AGENT
    assert str(segment) == f"agent:{expected}"


def test_sanitized_distinguishes_invalid_from_valid_lookalikes():
    dotted = Segment.sanitized(SegmentKind.AGENT, "a.b").id
    assert dotted != Segment.sanitized(SegmentKind.AGENT, "a_b").id == "a_b"
    assert dotted != Segment.sanitized(SegmentKind.AGENT, "a,b").id


def test_sanitized_suffix_is_fnv1a_of_the_raw_utf8():
    raw = "Jane Doe (HR)"
    assert Segment.sanitized(SegmentKind.USER, raw).id == (
        f"Jane-Doe--HR--{fnv1a_32(raw.encode()):08x}"
    )


def test_sanitized_cuts_a_long_input_to_128():
    raw = "a" * 200
    ident = Segment.sanitized(SegmentKind.AGENT, raw).id
    assert len(ident) == 128
    assert ident == "a" * 119 + f"-{fnv1a_32(raw.encode()):08x}"


def test_sanitized_long_invalid_input():
    raw = "a.b" * 100
    ident = Segment.sanitized(SegmentKind.AGENT, raw).id
    assert ident == ("a-b" * 40)[:119] + f"-{fnv1a_32(raw.encode()):08x}"
    assert len(ident) == 128


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("é", "-"),
        ("日本語", "---"),
        ("naïve", "na-ve"),
        ("🙂x", "-x"),
        ("٣", "-"),
    ],
)
def test_sanitized_one_output_char_per_input_char(raw, cleaned):
    ident = Segment.sanitized(SegmentKind.AGENT, raw).id
    assert ident == f"{cleaned}-{fnv1a_32(raw.encode('utf-8')):08x}"
    assert len(ident) == len(raw) + 9


def test_sanitized_non_ascii_long_input_counts_chars_not_bytes():
    raw = "é" * 200  # 400 bytes
    ident = Segment.sanitized(SegmentKind.AGENT, raw).id
    assert ident == "-" * 119 + f"-{fnv1a_32(raw.encode()):08x}"


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_sanitized_is_always_a_valid_segment(raw):
    segment = Segment.sanitized(SegmentKind.PROJECT, raw)
    assert VALID_ID.fullmatch(segment.id)
    if VALID_ID.fullmatch(raw):
        assert segment.id == raw
    # it can always be written and read back
    assert Namespace.parse(str(Namespace((segment,)))).segments == (segment,)


# --- SegmentKind --------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "prefix", "wire"),
    [
        (SegmentKind.AGENT, "agent", "agent"),
        (SegmentKind.TEAM, "team", "team"),
        (SegmentKind.USER, "user", "user"),
        (SegmentKind.WORKSPACE, "ws", "workspace"),
        (SegmentKind.PROJECT, "project", "project"),
        (SegmentKind.SOURCE, "source", "source"),
        (SegmentKind.SERVICE, "service", "service"),
    ],
)
def test_segment_kind_prefix_and_wire(kind, prefix, wire):
    assert kind.prefix == prefix
    assert kind.value == wire
    assert SegmentKind(wire) is kind
    assert SegmentKind.from_prefix(prefix) is kind


def test_segment_kind_from_prefix_refuses_the_serde_name():
    with pytest.raises(InvalidRequest, match=re.escape("`workspace` is not a namespace")):
        SegmentKind.from_prefix("workspace")


# --- Reach --------------------------------------------------------------------


def test_reach_defaults():
    reach = Reach()
    assert reach.at == ROOT
    assert reach.inherit is True
    assert reach.descendants is False
    assert reach == Reach.of(ROOT)
    assert Reach(at="agent:x") == Reach.of("agent:x")
    assert Reach(at="agent:x").inherit is True


@pytest.mark.parametrize(
    ("reach", "inherit", "descendants"),
    [
        (Reach.of(W), True, False),
        (Reach.exact(W), False, False),
        (Reach.subtree(W), False, True),
    ],
)
def test_reach_constructors(reach, inherit, descendants):
    assert reach.at == W
    assert reach.inherit is inherit
    assert reach.descendants is descendants


def test_reach_constructors_take_written_paths():
    assert Reach.exact("team:acme/agent:writer") == Reach.exact(W)
    assert Reach.subtree("root").at == ROOT
    with pytest.raises(InvalidRequest, match=re.escape("`workspace` is not a namespace")):
        Reach.of("workspace:x")


REACH_TABLE = [
    ("of(W)", Reach.of(W), "RTW"),
    ("of(E)", Reach.of(E), "RTE"),
    ("exact(W)", Reach.exact(W), "W"),
    ("of(H)", Reach.of(H), "RTWH"),
    ("subtree(W)", Reach.subtree(W), "WH"),
    ("subtree(T)", Reach.subtree(T), "TWHE"),
    ("T+inherit+descendants", Reach(T, inherit=True, descendants=True), "RTWHE"),
    ("of(root)", Reach.of(ROOT), "R"),
    ("subtree(root)", Reach.subtree(ROOT), "RTWHE"),
    ("no reach", None, "RTWHE"),
    ("exact(S)", Reach.exact(S), "S"),
    ("subtree(S)", Reach.subtree(S), "S"),
    ("of(S)", Reach.of(S), "RTWS"),
]


@pytest.mark.parametrize(
    ("reach", "expected"),
    [(reach, expected) for _, reach, expected in REACH_TABLE],
    ids=[name for name, _, _ in REACH_TABLE],
)
def test_reach_worked_table(reach, expected):
    admitted = {name for name, ns in NODES.items() if Reach.admitted_by(reach, ns)}
    assert admitted == set(expected)
    if reach is not None:
        assert {name for name, ns in NODES.items() if reach.admits(ns)} == set(expected)


def test_service_node_is_read_only_by_reaches_at_it():
    readers = {name for name, reach, _ in REACH_TABLE if Reach.admitted_by(reach, S)}
    assert readers == {"exact(S)", "subtree(S)", "of(S)"}


def test_sandbox_excludes_everything_below_it():
    below = S.child(seg(SegmentKind.AGENT, "worker"))
    assert not Reach.subtree(W).admits(below)
    assert not Reach.subtree(ROOT).admits(below)
    assert not Reach.admitted_by(None, below)
    assert Reach.subtree(S).admits(below)
    assert not Reach.exact(S).admits(below)
    assert Reach.of(below).admits(S)


def test_reach_inside_a_sandbox_reads_its_own_subtree():
    inside = S.child(seg(SegmentKind.AGENT, "worker"))
    deeper = inside.child(seg(SegmentKind.AGENT, "sub"))
    nested_service = inside.child(seg(SegmentKind.SERVICE, "inner"))
    assert Reach.subtree(inside).admits(deeper)
    assert not Reach.subtree(inside).admits(nested_service)
    assert Reach.subtree(S).admits(deeper)
    assert not Reach.subtree(S).admits(nested_service)


def test_a_service_under_the_root_is_a_sandbox_too():
    job = Namespace.parse("service:newsletter")
    assert not Reach.admitted_by(None, job)
    assert not Reach.subtree(ROOT).admits(job)
    assert Reach.exact(job).admits(job)


def test_sibling_never_admitted():
    for reach in (Reach.of(W), Reach.subtree(W), Reach(W, inherit=True, descendants=True)):
        assert not reach.admits(E)
        assert not reach.admits(E.child(seg(SegmentKind.AGENT, "x")))


def test_admitted_by_none_is_subtree_of_root():
    for ns in (R, T, W, H, E):
        assert Reach.admitted_by(None, ns) is True
    assert Reach.admitted_by(None, S) is False
    assert Reach.admitted_by(Reach.exact(S), S) is True
    assert Reach.admitted_by(Reach.exact(W), T) is False


def test_reach_nodes():
    assert Reach.of(W).nodes() == (R, T, W)
    assert Reach.exact(W).nodes() == (W,)
    assert Reach.subtree(W).nodes() == (W,)
    assert Reach.of(ROOT).nodes() == (ROOT,)


# --- Reach.within --------------------------------------------------------------


@pytest.mark.parametrize(
    ("inner", "outer", "expected"),
    [
        # outer = subtree(team:acme)
        (Reach.exact(W), Reach.subtree(T), True),
        (Reach.subtree(W), Reach.subtree(T), True),
        (Reach.of(W), Reach.subtree(T), False),
        # outer = of(team:acme/agent:w)
        (Reach.of(T), Reach.of(W), True),
        (Reach.exact(ROOT), Reach.of(W), True),
        (Reach.subtree(T), Reach.of(W), False),
        # more
        (Reach.of(W), Reach.of(W), True),
        (Reach.exact(W), Reach.exact(W), True),
        (Reach.subtree(W), Reach.subtree(W), True),
        (Reach.of(W), Reach.subtree(ROOT), True),
        (Reach.of(H), Reach.of(W), False),
        (Reach.exact(E), Reach.subtree(W), False),
        (Reach.exact(E), Reach.of(W), False),
        (Reach.subtree(T), Reach.subtree(W), False),
        (Reach.subtree(W), Reach.exact(W), False),
        (Reach.subtree(E), Reach(T, inherit=True, descendants=True), True),
        (Reach(T, inherit=True, descendants=True), Reach.subtree(T), False),
        (Reach(T, inherit=True, descendants=True), Reach.subtree(ROOT), True),
        # sandboxes stay out of a descendant read
        (Reach.exact(S), Reach.subtree(W), False),
        (Reach.subtree(S), Reach.subtree(W), False),
        (Reach.exact(S), Reach.subtree(ROOT), False),
        (Reach.exact(S), Reach.of(S), True),
        (Reach.of(W), Reach.of(S), True),
        (Reach.of(S), Reach.of(W), False),
    ],
)
def test_within(inner, outer, expected):
    assert inner.within(outer) is expected


def test_within_depth_eight_descendants_count_as_exact():
    eight = Namespace.parse(deep(8))
    seven = Namespace.parse(deep(7))
    assert Reach.subtree(eight).within(Reach.exact(eight)) is True
    assert Reach.subtree(eight).within(Reach.of(eight)) is True
    assert Reach.subtree(seven).within(Reach.exact(seven)) is False
    assert Reach(eight, inherit=True, descendants=True).within(Reach.of(eight)) is True


def test_reach_str():
    assert str(Reach.of(W)) == "of(team:acme/agent:writer)"
    assert str(Reach.exact(ROOT)) == "exact(root)"
    assert str(Reach.subtree(T)) == "subtree(team:acme)"
