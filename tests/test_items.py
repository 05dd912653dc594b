"""Items: render_text, fingerprint, validate; f32 and timestamp forms (contract notes §2)."""

from __future__ import annotations

import hashlib
import math
import re
from datetime import UTC, datetime, timedelta, timezone

import attrs
import pytest

from tinymemory import (
    MAX_STORE_MANY,
    Conversation,
    Document,
    DocumentBody,
    InvalidRequest,
    ItemKind,
    Learning,
    LearningKind,
    MemoryMeta,
    Namespace,
    Role,
    SourceKind,
    SourceRef,
    ToolCallRef,
    Turn,
    TurnRange,
)
from tinymemory._f32 import display_f32, format_f32, to_f32
from tinymemory._items import validate_item, validate_many
from tinymemory._timestamps import format_timestamp, parse_timestamp

AT = datetime(2025, 5, 6, 7, 8, 9, tzinfo=UTC)


def sha40(canonical: str) -> str:
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:40]


def learning(**changes) -> Learning:
    fields = {"text": "prefers tabs", "kind": "preference", "confidence": 0.8}
    fields.update(changes)
    return Learning(**fields)


# --- render_text --------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Plan", "# Plan\n\nstep one"),
        ("  Plan  ", "#   Plan  \n\nstep one"),
        (None, "step one"),
        ("", "step one"),
        ("   \t", "step one"),
    ],
)
def test_render_document(title, expected):
    assert Document(title=title, body="step one").render_text() == expected


@pytest.mark.parametrize(
    "body",
    [
        "# Travel policy\n\nWe fly economy.",  # the case
        "\n\n## travel   POLICY ##\nWe fly economy.",  # any level, case, spacing, closing #s
        "Travel policy\n=============\n\nWe fly economy.",  # underlined
        "Travel policy\n\nWe fly economy.",  # plain text whose first line is the title
        "**Travel policy**\n\nWe fly economy.",  # a docx's bold first line
        '<h1 class="t">Travel <em>policy</em></h1><p>We fly economy.</p>',  # HTML
    ],
)
def test_a_document_never_shows_its_title_twice(body):
    document = Document(title="Travel policy", body=body)
    assert document.render_text() == body
    assert document.render_text().casefold().count("travel") == 1


@pytest.mark.parametrize(
    "body",
    [
        "# Travel policy for 2025\n\nWe fly economy.",  # another heading: the title is added
        "We fly economy.\n\n# Travel policy",  # the title further down is not its opening
        "#Travel policy\n\nnot a heading in markdown, yet not the title line either",
    ],
)
def test_a_body_opening_otherwise_is_shown_under_its_title(body):
    assert Document(title="Travel policy", body=body).render_text() == (
        f"# Travel policy\n\n{body}"
    )


def test_render_document_uri_body_renders_the_uri():
    body = DocumentBody(uri="https://example.com/a.pdf")
    assert Document(body=body).render_text() == "https://example.com/a.pdf"
    assert Document(title="A", body=body).render_text() == "# A\n\nhttps://example.com/a.pdf"


def test_render_conversation_lines():
    conversation = Conversation(
        turns=[Turn(role="user", text="hi"), Turn(role="assistant", text="yo")]
    )
    assert conversation.render_text() == "user: hi\nassistant: yo"


def test_render_conversation_tool_calls():
    conversation = Conversation(
        turns=[
            Turn(role="system", text="be brief"),
            Turn(
                role="assistant",
                text="done",
                tool_calls=[ToolCallRef(name="a", id="id1"), ToolCallRef(name="b")],
            ),
            Turn(role="tool", text="ok", tool_calls=[ToolCallRef(name="c")]),
        ]
    )
    assert conversation.render_text() == (
        "system: be brief\nassistant: done [tools: a (id1), b]\ntool: ok [tools: c]"
    )


def test_render_single_turn_has_no_newline():
    assert Conversation(turns=[Turn(role="user", text="hi")]).render_text() == "user: hi"


def test_render_learning_is_its_text():
    assert learning(text="uses ruff").render_text() == "uses ruff"


# --- fingerprint --------------------------------------------------------------


def test_fingerprint_worked_vector():
    canonical = (
        '{"type":"learning","text":"prefers tabs","kind":"preference",'
        '"confidence":0.8,"meta":{"source":{"kind":"agent"}}}'
    )
    assert sha40(canonical) == "8a8f01f6a30ffa27d488a48fc9218a8ec5af4228"
    item = Learning(text="prefers tabs", kind=LearningKind.PREFERENCE, confidence=0.8)
    assert item.fingerprint() == "8a8f01f6a30ffa27d488a48fc9218a8ec5af4228"


def test_fingerprint_document_with_title_mime_namespace_tags():
    item = Document(
        title="Notes",
        body='line1\nline2\t"q" \\ </x> ü\x01',
        mime="text/markdown",
        meta=MemoryMeta(
            namespace="team:acme/agent:writer",
            workspace="ws",
            source=SourceRef(kind="file", id="f1"),
            tags=["b", "a"],
            observed_at=datetime(2020, 1, 1, tzinfo=UTC),
            derive=False,
        ),
    )
    canonical = (
        r'{"type":"document","title":"Notes",'
        r'"body":{"text":"line1\nline2\t\"q\" \\ </x> ü\u0001"},'
        r'"mime":"text/markdown",'
        r'"meta":{"namespace":"team:acme/agent:writer","workspace":"ws",'
        r'"source":{"kind":"file","id":"f1"},"tags":["b","a"],"derive":false}}'
    )
    assert item.fingerprint() == sha40(canonical)


def test_fingerprint_document_uri_body_and_workspace_segment():
    item = Document(body=DocumentBody(uri="https://x.test/a"), meta=MemoryMeta(namespace="ws:main"))
    canonical = (
        '{"type":"document","body":{"uri":"https://x.test/a"},'
        '"meta":{"namespace":"ws:main","source":{"kind":"agent"}}}'
    )
    assert item.fingerprint() == sha40(canonical)


def test_fingerprint_conversation_with_times_and_tool_calls():
    item = Conversation(
        turns=[
            Turn(role="user", text="hi", at=AT),
            Turn(
                role="assistant",
                text="yo",
                at=AT.replace(microsecond=250_000),
                tool_calls=[ToolCallRef(name="read_plan", id="call-1"), ToolCallRef(name="grep")],
            ),
            Turn(
                role="tool",
                text="ok",
                at=datetime(2025, 5, 6, 9, 8, 9, 123456, tzinfo=timezone(timedelta(hours=2))),
            ),
            Turn(role="system", text="sys"),
        ],
        meta=MemoryMeta(
            thread_id="t1",
            turns=TurnRange(first=0, last=3),
            agent_id="ag",
            tool_call=ToolCallRef(name="read_plan"),
            source=SourceRef(kind=SourceKind.CONVERSATION, id="t1"),
        ),
    )
    canonical = (
        '{"type":"conversation","turns":['
        '{"role":"user","text":"hi","at":"2025-05-06T07:08:09Z"},'
        '{"role":"assistant","text":"yo","at":"2025-05-06T07:08:09.250Z",'
        '"tool_calls":[{"name":"read_plan","id":"call-1"},{"name":"grep"}]},'
        '{"role":"tool","text":"ok","at":"2025-05-06T07:08:09.123456Z"},'
        '{"role":"system","text":"sys"}],'
        '"meta":{"thread_id":"t1","turns":{"first":0,"last":3},"agent_id":"ag",'
        '"tool_call":{"name":"read_plan"},"source":{"kind":"conversation","id":"t1"}}}'
    )
    assert item.fingerprint() == sha40(canonical)


def test_fingerprint_learning_with_evidence_non_ascii_and_f32():
    item = Learning(
        text="préfère les onglets 日本",
        kind="correction",
        confidence=0.123456789,
        evidence="said «tabs»",
        meta=MemoryMeta(namespace="user:u1", language="fr"),
    )
    canonical = (
        '{"type":"learning","text":"préfère les onglets 日本","kind":"correction",'
        '"confidence":0.12345679,"evidence":"said «tabs»",'
        '"meta":{"namespace":"user:u1","language":"fr","source":{"kind":"agent"}}}'
    )
    assert item.fingerprint() == sha40(canonical)


@pytest.mark.parametrize(
    ("confidence", "written"),
    [(1.0, "1.0"), (0.0, "0.0"), (1e-7, "1e-7"), (0.5, "0.5"), (1 / 3, "0.33333334")],
)
def test_fingerprint_confidence_forms(confidence, written):
    canonical = (
        '{"type":"learning","text":"prefers tabs","kind":"preference",'
        f'"confidence":{written},"meta":{{"source":{{"kind":"agent"}}}}}}'
    )
    assert learning(confidence=confidence).fingerprint() == sha40(canonical)


def test_fingerprint_is_40_lowercase_hex():
    fingerprint = Document(body="x").fingerprint()
    assert re.fullmatch(r"[0-9a-f]{40}", fingerprint)


def test_observed_at_does_not_change_the_fingerprint():
    base = learning()
    seen = base.with_meta(MemoryMeta(observed_at=AT))
    later = base.with_meta(MemoryMeta(observed_at=AT + timedelta(days=3)))
    assert base.fingerprint() == seen.fingerprint() == later.fingerprint()
    conversation = Conversation(turns=[Turn(role="user", text="hi")])
    assert (
        conversation.fingerprint()
        == conversation.with_meta(MemoryMeta(observed_at=AT)).fingerprint()
    )


def test_fingerprint_does_not_modify_the_item():
    item = learning(meta=MemoryMeta(observed_at=AT))
    item.fingerprint()
    assert item.meta.observed_at == AT


@pytest.mark.parametrize(
    "meta",
    [
        MemoryMeta(namespace="agent:a"),
        MemoryMeta(namespace="agent:b"),
        MemoryMeta(tags=["x"]),
        MemoryMeta(tags=["y"]),
        MemoryMeta(tags=["x", "y"]),
        MemoryMeta(tags=["y", "x"]),
        MemoryMeta(tool_call=ToolCallRef(name="t")),
        MemoryMeta(tool_call=ToolCallRef(name="t", id="c1")),
        MemoryMeta(tool_call=ToolCallRef(name="t", id="c2")),
        MemoryMeta(source=SourceRef(kind="import")),
        MemoryMeta(derive=False),
        MemoryMeta(workspace="w"),
    ],
)
def test_meta_fields_change_the_fingerprint(meta):
    base = learning()
    assert base.with_meta(meta).fingerprint() != base.fingerprint()


def test_distinct_metas_give_distinct_fingerprints():
    metas = [
        MemoryMeta(namespace="agent:a"),
        MemoryMeta(namespace="agent:b"),
        MemoryMeta(tags=["x", "y"]),
        MemoryMeta(tags=["y", "x"]),
        MemoryMeta(tool_call=ToolCallRef(name="t", id="c1")),
        MemoryMeta(tool_call=ToolCallRef(name="t", id="c2")),
        MemoryMeta(tool_call=ToolCallRef(name="t")),
    ]
    fingerprints = {learning().with_meta(meta).fingerprint() for meta in metas}
    assert len(fingerprints) == len(metas)


def test_explicit_root_namespace_hashes_like_no_namespace():
    assert learning(meta=MemoryMeta(namespace="root")).fingerprint() == learning().fingerprint()


def test_turn_contents_change_the_fingerprint():
    def conversation(**turn) -> Conversation:
        return Conversation(turns=[Turn(role="user", text="hi", **turn)])

    plain = conversation().fingerprint()
    assert conversation(at=AT).fingerprint() != plain
    assert conversation(tool_calls=[ToolCallRef(name="t", id="1")]).fingerprint() != (
        conversation(tool_calls=[ToolCallRef(name="t", id="2")]).fingerprint()
    )


@pytest.mark.parametrize(
    "changes",
    [
        {"text": "prefers spaces"},
        {"kind": "fact"},
        {"confidence": 0.7},
        {"evidence": "said so"},
    ],
)
def test_learning_fields_change_the_fingerprint(changes):
    assert learning(**changes).fingerprint() != learning().fingerprint()


def test_document_fields_change_the_fingerprint():
    base = Document(body="x")
    assert Document(body="x", title="t").fingerprint() != base.fingerprint()
    assert Document(body="x", mime="text/plain").fingerprint() != base.fingerprint()
    assert Document(body=DocumentBody(uri="x")).fingerprint() != base.fingerprint()


def test_equal_items_share_a_fingerprint():
    assert learning().fingerprint() == learning().fingerprint()
    assert (
        learning(confidence=0.8).fingerprint()
        == learning(confidence=0.800000011920929).fingerprint()
    )


# --- validate -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (Document(body=""), "document body must not be empty"),
        (Document(title="t", body="  \n\t"), "document body must not be empty"),
        (
            Document(body=DocumentBody(uri="https://x")),
            "document body is an unresolved uri; resolve it through a source first",
        ),
        (Conversation(turns=[]), "conversation must have at least one turn"),
        (
            Conversation(turns=[Turn(role="user", text="hi"), Turn(role="assistant", text=" ")]),
            "conversation turns must not be empty",
        ),
        (Conversation(turns=[Turn(role="user", text="")]), "conversation turns must not be empty"),
        (learning(text=""), "learning text must not be empty"),
        (learning(text="  \n"), "learning text must not be empty"),
        (learning(confidence=-0.1), "learning confidence -0.1 is outside 0.0..=1.0"),
        (learning(confidence=1.1), "learning confidence 1.1 is outside 0.0..=1.0"),
        (learning(confidence=math.nan), "learning confidence NaN is outside 0.0..=1.0"),
        (learning(confidence=2), "learning confidence 2 is outside 0.0..=1.0"),
        (learning(confidence=math.inf), "learning confidence inf is outside 0.0..=1.0"),
        (learning(text=" ", confidence=2), "learning text must not be empty"),
    ],
)
def test_validate_refuses(item, message):
    with pytest.raises(InvalidRequest) as caught:
        item.validate()
    assert caught.value.message == message
    assert str(caught.value) == f"invalid request: {message}"


@pytest.mark.parametrize(
    "item",
    [
        Document(body="x"),
        Document(title="  ", body=" x "),
        Conversation(turns=[Turn(role="user", text="hi")]),
        learning(confidence=0.0),
        learning(confidence=1.0),
        learning(confidence=-0.0),
    ],
)
def test_validate_accepts(item):
    assert item.validate() is None
    assert validate_item(item) is item


def test_validate_item_refuses_a_non_item():
    with pytest.raises(
        InvalidRequest,
        match=re.escape("a stored item is a Document, Conversation or Learning, not str"),
    ):
        validate_item("prefers tabs")


@pytest.mark.parametrize("count", [0, MAX_STORE_MANY + 1])
def test_validate_many_refuses_batch_sizes(count):
    assert MAX_STORE_MANY == 100
    with pytest.raises(InvalidRequest, match=re.escape("store_many takes between 1 and 100 items")):
        validate_many([Document(body=f"d{index}") for index in range(count)])


def test_validate_many_accepts_1_and_100():
    one = [Document(body="x")]
    assert validate_many(one) == one
    hundred = [Document(body=f"d{index}") for index in range(100)]
    assert validate_many(hundred) == hundred


def test_validate_many_reports_the_first_invalid_item():
    batch = [Document(body="ok"), learning(confidence=1.5), Document(body=" ")]
    with pytest.raises(InvalidRequest) as caught:
        validate_many(batch)
    assert caught.value.message == "learning confidence 1.5 is outside 0.0..=1.0"


def test_validate_many_refuses_a_string():
    with pytest.raises(InvalidRequest, match=re.escape("store_many takes between 1 and 100")):
        validate_many("x")


# --- construction -------------------------------------------------------------


def test_document_body_holds_exactly_one():
    message = "a document body holds exactly one of text or uri"
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        DocumentBody()
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        DocumentBody(text="a", uri="b")
    assert Document(body="plain").body == DocumentBody(text="plain")


@pytest.mark.parametrize(
    ("confidence", "stored"),
    [
        (0.8, 0.8),
        (0.800000011920929, 0.8),
        (0.123456789, 0.12345679),
        (1, 1.0),
        (0.1, 0.1),
        (1 / 3, 0.33333334),
    ],
)
def test_learning_confidence_is_narrowed_to_f32(confidence, stored):
    item = learning(confidence=confidence)
    assert item.confidence == stored
    assert type(item.confidence) is float


def test_learning_confidence_repr_stays_short():
    assert repr(learning(confidence=0.8).confidence) == "0.8"


@pytest.mark.parametrize("confidence", ["0.5", True, None])
def test_learning_confidence_must_be_a_number(confidence):
    with pytest.raises(InvalidRequest, match=re.escape("`confidence` must be a number")):
        learning(confidence=confidence)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: learning(kind="opinion"), "`opinion` is not a learning kind"),
        (lambda: Turn(role="bot", text="x"), "`bot` is not a role"),
        (lambda: Turn(role="user", text=None), "`text` must be a string"),
        (lambda: Turn(role="user", text="x", at=datetime(2025, 1, 1)), "must carry a timezone"),
        (lambda: Turn(role="user", text="x", tool_calls=["t"]), "`tool_calls` must hold"),
        (lambda: Conversation(turns=["user: hi"]), "`turns` must hold Turn values"),
        (lambda: Document(body="x", meta={"tags": []}), "`meta` must be a MemoryMeta"),
        (lambda: learning(text=5), "`text` must be a string"),
    ],
)
def test_items_refuse_wrong_types(build, message):
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        build()


def test_item_kinds_and_wire_values():
    assert Document(body="x").item_kind is ItemKind.DOCUMENT
    assert Conversation(turns=[]).item_kind is ItemKind.CONVERSATION
    assert learning().item_kind is ItemKind.LEARNING
    assert [role.value for role in Role] == ["user", "assistant", "system", "tool"]
    assert [kind.value for kind in LearningKind] == [
        "preference",
        "fact",
        "procedure",
        "correction",
        "other",
    ]


def test_with_meta_replaces_the_meta_only():
    item = learning(evidence="e")
    moved = item.with_meta(MemoryMeta(namespace="agent:x"))
    assert moved.meta.namespace == Namespace.parse("agent:x")
    assert attrs.evolve(moved, meta=item.meta) == item


# --- f32 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (0.8, "0.8"),
        (1.0, "1.0"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (1e-7, "1e-7"),
        (1e-6, "0.000001"),
        (1e-5, "0.00001"),
        (0.12345679, "0.12345679"),
        (0.123456789, "0.12345679"),
        (0.1, "0.1"),
        (1 / 3, "0.33333334"),
        (-2.5, "-2.5"),
        (100.0, "100.0"),
        (123456.78, "123456.78"),
        (1e12, "1000000000000.0"),
        (1e13, "1e13"),
        (1.5e-10, "1.5e-10"),
        (3.4028235e38, "3.4028235e38"),
        (2.0**-96, "1.2621775e-29"),  # lopsided interval at a power of two
        (2.0**87, "1.5474251e26"),
        (2.0**-149, "1e-45"),
    ],
)
def test_format_f32(value, written):
    assert format_f32(value) == written


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_format_f32_refuses_non_finite(value):
    with pytest.raises(ValueError, match="non-finite"):
        format_f32(value)


@pytest.mark.parametrize(
    ("value", "narrowed"),
    [
        (0.8, 0.8),
        (0.800000011920929, 0.8),
        (0.123456789, 0.12345679),
        (2.0**-96, 1.2621775e-29),
        (3.4028235e38, 3.4028235e38),  # the largest f32, not overflowed to inf
        (1e39, math.inf),
        (-1e39, -math.inf),
        (0.0, 0.0),
    ],
)
def test_to_f32(value, narrowed):
    assert to_f32(value) == narrowed


def test_to_f32_keeps_nan():
    assert math.isnan(to_f32(math.nan))


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (math.nan, "NaN"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
        (0.0, "0"),
        (2.0, "2"),
        (-0.1, "-0.1"),
        (1.1, "1.1"),
        (1e-7, "0.0000001"),
        (1e20, "100000000000000000000"),
        (0.123456789, "0.12345679"),
    ],
)
def test_display_f32_is_rusts_display(value, written):
    assert display_f32(value) == written


# --- timestamps ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (AT, "2025-05-06T07:08:09Z"),
        (AT.replace(microsecond=250_000), "2025-05-06T07:08:09.250Z"),
        (AT.replace(microsecond=1_000), "2025-05-06T07:08:09.001Z"),
        (AT.replace(microsecond=123_456), "2025-05-06T07:08:09.123456Z"),
        (AT.replace(microsecond=1), "2025-05-06T07:08:09.000001Z"),
        (AT.replace(microsecond=120_500), "2025-05-06T07:08:09.120500Z"),
        (
            datetime(2025, 5, 6, 9, 8, 9, tzinfo=timezone(timedelta(hours=2))),
            "2025-05-06T07:08:09Z",
        ),
        (
            datetime(2025, 12, 31, 22, 0, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
            "2026-01-01T03:30:00Z",
        ),
        (datetime(1999, 1, 2, 3, 4, 5, tzinfo=UTC), "1999-01-02T03:04:05Z"),
        (datetime(999, 1, 2, 3, 4, 5, tzinfo=UTC), "0999-01-02T03:04:05Z"),
        (datetime(5, 1, 2, 3, 4, 5, 500_000, tzinfo=UTC), "0005-01-02T03:04:05.500Z"),
    ],
)
def test_format_timestamp(value, written):
    assert format_timestamp(value) == written
    assert parse_timestamp(written) == value


def test_format_timestamp_refuses_naive_and_non_datetimes():
    with pytest.raises(InvalidRequest, match=re.escape("a timestamp must carry a timezone")):
        format_timestamp(datetime(2025, 5, 6))
    with pytest.raises(InvalidRequest, match=re.escape("a timestamp must be a datetime, not str")):
        format_timestamp("2025-05-06T07:08:09Z")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2025-05-06T07:08:09Z", AT),
        ("2025-05-06T07:08:09.250Z", AT.replace(microsecond=250_000)),
        ("2025-05-06T09:08:09+02:00", AT),
        (" 2025-05-06T07:08:09Z ", AT),
    ],
)
def test_parse_timestamp(text, value):
    parsed = parse_timestamp(text)
    assert parsed == value
    assert parsed.utcoffset() == timedelta(0)


def test_parse_then_format_round_trips():
    for text in ("2025-05-06T07:08:09Z", "2025-05-06T07:08:09.250Z", "2025-05-06T07:08:09.000001Z"):
        assert format_timestamp(parse_timestamp(text)) == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not a time", "`not a time` is not an rfc 3339 timestamp"),
        ("2025-13-01T00:00:00Z", "`2025-13-01T00:00:00Z` is not an rfc 3339 timestamp"),
        ("", "`` is not an rfc 3339 timestamp"),
        (
            "2025-05-06T07:08:09",
            "`2025-05-06T07:08:09` is not an rfc 3339 timestamp: it has no offset",
        ),
        (1715000000, "a timestamp must be an rfc 3339 string"),
        (None, "a timestamp must be an rfc 3339 string"),
    ],
)
def test_parse_timestamp_errors(text, message):
    with pytest.raises(InvalidRequest, match=re.escape(message)):
        parse_timestamp(text)


def test_an_item_with_a_lone_surrogate_has_no_fingerprint():
    from tinymemory.reference import ReferenceEngine

    item = Learning(text="half a pair: \ud83d")
    with pytest.raises(InvalidRequest, match="lone surrogate"):
        item.fingerprint()
    with pytest.raises(InvalidRequest, match="lone surrogate"):
        ReferenceEngine().store(item)
