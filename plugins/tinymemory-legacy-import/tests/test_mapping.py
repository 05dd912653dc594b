"""The v1 -> v2 mapping of every section, field by field, and the reference's worked examples."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from legacy_workspaces import LegacyBuilder

import tinymemory as tm
from tinymemory.plugin import to_data
from tinymemory_legacy_import import LegacyReadError, LegacyWorkspace


def read_all(builder: LegacyBuilder) -> list[tuple[str, tm.StoreItem]]:
    builder.commit()
    with LegacyWorkspace.open(builder.root) as workspace:
        return [(imported.section, imported.item) for imported in workspace.items()]


def only(builder: LegacyBuilder) -> tm.StoreItem:
    found = read_all(builder)
    assert len(found) == 1, found
    return found[0][1]


def wire(item: tm.StoreItem) -> dict:
    return to_data(item)


def at(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


# --- documents -------------------------------------------------------------------------------


def test_the_reference_document_example(builder: LegacyBuilder) -> None:
    builder.doc(
        "3f9d8232",
        "document_notes",
        "Ship the importer.",
        title="Q3 plan",
        tags=["work"],
        metadata={"mime": "text/markdown", "url": "https://example.org/q3"},
        logical="document:notes",
    )
    data = wire(only(builder))
    assert data == {
        "type": "document",
        "title": "Q3 plan",
        "body": {"text": "Ship the importer."},
        "mime": "text/markdown",
        "meta": {
            "source": {"kind": "import", "id": "memory_docs:3f9d8232"},
            "workspace": str(builder.root.resolve()),
            "url": "https://example.org/q3",
            "tags": ["work", "ns:document:notes"],
            "observed_at": "2023-11-14T22:13:20.500Z",
        },
    }


def test_a_document_title_is_trimmed_and_its_body_kept_verbatim(builder: LegacyBuilder) -> None:
    builder.doc("d1", "notes", "  body with edges \n", title="\u3000 Title \u00a0")
    item = only(builder)
    assert isinstance(item, tm.Document)
    assert (item.title, item.body.text) == ("Title", "  body with edges \n")


def test_a_blank_title_is_none_and_bad_json_columns_are_absent(builder: LegacyBuilder) -> None:
    builder.doc("d1", "notes", "body", title=" ", tags="{oops", metadata='["not an object"]')
    item = only(builder)
    assert isinstance(item, tm.Document)
    assert (item.title, item.mime, item.meta.url) == (None, None, None)
    assert item.meta.tags == ("ns:notes",)


def test_tags_keep_duplicates_and_drop_blank_or_non_strings(builder: LegacyBuilder) -> None:
    builder.doc("d1", "notes", "body", tags=["a", "a", " ", 3, None, "ns:notes", "b"])
    assert only(builder).meta.tags == ("a", "a", "ns:notes", "b")


def test_url_and_mime_must_be_non_blank_strings(builder: LegacyBuilder) -> None:
    builder.doc("d1", "notes", "body", metadata={"url": " ", "mime": 7})
    item = only(builder)
    assert isinstance(item, tm.Document)
    assert (item.mime, item.meta.url) == (None, None)


@pytest.mark.parametrize(
    ("stored", "logical", "expected"),
    [
        ("document_abc_def", None, "document:abc_def"),
        ("source_gmail_conn-1", None, "source:gmail_conn-1"),  # lossy: only the first separator
        ("user_notes", None, "user_notes"),
        ("team/alpha", None, "team/alpha"),
        ("document_x", " ", "document:x"),  # a blank logical namespace is not used
        ("source_gmail_conn-1", "source:gmail:conn-1", "source:gmail:conn-1"),
        ("tool-x", None, "tool-x"),
    ],
)
def test_the_logical_namespace_tag(
    builder: LegacyBuilder, stored: str, logical: str | None, expected: str
) -> None:
    builder.doc("d1", stored, "body", logical=logical)
    assert only(builder).meta.tags == (f"ns:{expected}",)


@pytest.mark.parametrize(
    ("taint", "external"),
    [
        ("internal", False),
        (" Internal ", False),
        ("external_sync", True),
        ("", True),
        ("sideloaded", True),
    ],
)
def test_taint(builder: LegacyBuilder, taint: str, external: bool) -> None:
    builder.doc("d1", "notes", "body", taint=taint)
    builder.doc("g1", "global", "fact", taint=taint)
    tags = [item.meta.tags for _, item in read_all(builder)]
    assert ("taint:external_sync" in tags[0], "taint:external_sync" in tags[1]) == (
        external,
        external,
    )


@pytest.mark.parametrize("namespace", ["event", "event_chat", "event:chat"])
def test_event_rows_are_skipped_everywhere(builder: LegacyBuilder, namespace: str) -> None:
    builder.doc("d1", namespace, '{"kind":"message"}')
    builder.doc("d2", "eventually", "kept: not an event namespace")
    assert [(section, item.render_text()) for section, item in read_all(builder)] == [
        ("documents", "kept: not an event namespace")
    ]


@pytest.mark.parametrize("blank", ["", "   ", "\u00a0\u3000", "\n\t\u2028"])
def test_blank_content_is_skipped_in_every_memory_docs_section(
    builder: LegacyBuilder, blank: str
) -> None:
    builder.doc("d1", "notes", blank)
    builder.doc("d2", "global", blank)
    builder.doc("d3", "learning_style", blank)
    assert read_all(builder) == []


@pytest.mark.parametrize("kept", ["\u200b", "\x1c"])
def test_only_rust_white_space_is_blank(builder: LegacyBuilder, kept: str) -> None:
    """U+200B is no white space to Rust, and Rust keeps U+001C..U+001F that Python strips."""
    builder.turn("t", 1.0, "user", kept)
    item = only(builder)
    assert isinstance(item, tm.Conversation)
    assert item.turns[0].text == kept


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (1700000000.5, "2023-11-14T22:13:20.500Z"),
        (0.0000005, "1970-01-01T00:00:00.000001Z"),  # half a microsecond rounds away from zero
        (0.0000015, "1970-01-01T00:00:00.000002Z"),  # half to even would give ...000002 too
        (0.0000025, "1970-01-01T00:00:00.000003Z"),  # and here half to even gives ...000002
        (-0.0000005, "1969-12-31T23:59:59.999999Z"),
    ],
)
def test_seconds_round_half_away_from_zero(
    builder: LegacyBuilder, seconds: float, expected: str
) -> None:
    builder.doc("d1", "notes", "body", updated_at=seconds)
    assert wire(only(builder))["meta"]["observed_at"] == expected


# SQLite stores a NaN as NULL, so no NaN reaches the importer.
@pytest.mark.parametrize("seconds", [float("inf"), float("-inf"), 1e300, -1e20])
def test_a_time_out_of_range_gives_no_observed_at(builder: LegacyBuilder, seconds: float) -> None:
    builder.doc("d1", "notes", "body", updated_at=seconds)
    assert only(builder).meta.observed_at is None


# --- learnings and global records --------------------------------------------------------------


def test_the_reference_learning_example(builder: LegacyBuilder) -> None:
    candidate = {
        "class": "veto",
        "key": "emoji_in_commits",
        "value": "never",
        "cue_family": "explicit",
        "evidence": {"type": "episodic", "episodic_id": 43},
        "initial_confidence": 0.7,
        "observed_at": 1699654400.125,
    }
    builder.doc(
        "266b6eda",
        "learning_veto",
        json.dumps(candidate),
        title="emoji_in_commits",
        updated_at=1700002831.75,
    )
    section, item = read_all(builder)[0]
    assert section == "learnings"
    data = wire(item)
    assert data == {
        "type": "learning",
        "text": "emoji_in_commits: never",
        "kind": "correction",
        "confidence": 0.7,
        "evidence": '{"episodic_id":43,"type":"episodic"}',
        "meta": {
            "workspace": str(builder.root.resolve()),
            "source": {"kind": "import", "id": "memory_docs:266b6eda"},
            "tags": ["veto"],
            "observed_at": "2023-11-10T22:13:20.125Z",
        },
    }


@pytest.mark.parametrize(
    ("written_class", "kind"),
    [
        ("style", "preference"),
        ("channel", "preference"),
        (" Identity ", "fact"),
        ("tooling", "procedure"),
        ("veto", "correction"),
        ("goal", "other"),
        ("unheard-of", "other"),
    ],
)
def test_the_kind_follows_the_class(builder: LegacyBuilder, written_class: str, kind: str) -> None:
    builder.doc("d1", "learning", json.dumps({"class": written_class, "key": "k", "value": "v"}))
    item = only(builder)
    assert isinstance(item, tm.Learning)
    assert (item.kind.value, item.meta.tags) == (kind, (written_class,))  # the tag as written (T7)


def test_the_candidate_class_beats_the_namespace_class(builder: LegacyBuilder) -> None:
    builder.doc("d1", "learning_style", json.dumps({"class": "veto", "key": "k", "value": "v"}))
    builder.doc("d2", "learning_style", json.dumps({"key": "k2", "value": "v", "class": " "}))
    first, second = (item for _, item in read_all(builder))
    assert isinstance(first, tm.Learning)
    assert isinstance(second, tm.Learning)
    assert (first.kind.value, first.meta.tags) == ("correction", ("veto",))
    assert (second.kind.value, second.meta.tags) == ("preference", ("style",))


def test_a_candidate_value_that_is_not_a_string_is_compact_sorted_json(
    builder: LegacyBuilder,
) -> None:
    value = {"z": [1, 2.5, True], "a": "ünï"}
    builder.doc("d1", "learning:goal", json.dumps({"key": "plan", "value": value}))
    item = only(builder)
    assert isinstance(item, tm.Learning)
    assert item.text == 'plan: {"a":"ünï","z":[1,2.5,true]}'


@pytest.mark.parametrize(
    ("confidence", "expected"),
    [(0.25, 0.25), (1.7, 1.0), (-3, 0.0), ("0.9", 0.5), (None, 0.5)],
)
def test_candidate_confidence_is_clamped_or_defaulted(
    builder: LegacyBuilder, confidence: object, expected: float
) -> None:
    builder.doc(
        "d1", "learning", json.dumps({"key": "k", "value": "v", "initial_confidence": confidence})
    )
    item = only(builder)
    assert isinstance(item, tm.Learning)
    assert item.confidence == expected


def test_a_candidate_without_evidence_or_observed_at(builder: LegacyBuilder) -> None:
    builder.doc(
        "d1",
        "learning",
        json.dumps({"key": "k", "value": 3, "evidence": None, "observed_at": "soon"}),
        updated_at=100.0,
    )
    item = only(builder)
    assert isinstance(item, tm.Learning)
    assert (item.text, item.evidence, item.meta.tags) == ("k: 3", None, ())
    assert item.meta.observed_at == datetime(1970, 1, 1, 0, 1, 40, tzinfo=UTC)


def test_numbers_past_the_float_range_and_deep_json_are_tolerated(
    builder: LegacyBuilder,
) -> None:
    huge = "1" + "0" * 400
    builder.doc(
        "d1",
        "learning",
        f'{{"key": "k", "value": "v", "initial_confidence": {huge}, "observed_at": {huge}}}',
    )
    builder.doc("d2", "learning", "[" * 100_000 + "]" * 100_000)
    first, second = (item for _, item in read_all(builder))
    assert isinstance(first, tm.Learning)
    assert isinstance(second, tm.Learning)
    assert (first.confidence, first.meta.observed_at) == (0.5, None)  # a number, out of range
    assert (second.kind.value, len(second.text)) == ("other", 200_000)


@pytest.mark.parametrize(
    "content",
    [
        '{"key": " ", "value": "v"}',
        '{"key": "k", "value": null}',
        '{"key": "k"}',
        "[1]",
        "{oops",
        "plain words",
    ],
)
def test_a_learning_row_that_is_no_candidate_is_kept_whole(
    builder: LegacyBuilder, content: str
) -> None:
    builder.doc("d1", "learning:tooling", content, taint="external_sync")
    item = only(builder)
    assert isinstance(item, tm.Learning)
    assert (item.text, item.kind.value, item.confidence, item.evidence) == (
        content,
        "other",
        0.5,
        None,
    )
    assert item.meta.tags == ("tooling", "taint:external_sync")


def test_a_global_row_is_a_fact(builder: LegacyBuilder) -> None:
    builder.doc(
        "a1c077e2",
        "global",
        "User lives in Lisbon.",
        taint="external_sync",
        updated_at=1700000700.5,
    )
    item = only(builder)
    assert isinstance(item, tm.Learning)
    assert (item.text, item.kind.value, item.confidence) == ("User lives in Lisbon.", "fact", 0.5)
    assert item.meta.tags == ("global", "taint:external_sync")
    assert item.meta.source == tm.SourceRef(kind="import", id="memory_docs:a1c077e2")


def test_documents_and_learnings_share_the_table_but_not_their_rows(builder: LegacyBuilder) -> None:
    """Trap T1: ``learning_style`` (stored) is a learning, found by its restored namespace."""
    builder.doc("a", "learning_style", "a learning")
    builder.doc("b", "document_x", "a document")
    builder.doc("c", "global", "a fact")
    builder.doc("d", "learningish", "a document too")
    assert [(section, item.meta.source.id) for section, item in read_all(builder)] == [
        ("documents", "memory_docs:b"),
        ("documents", "memory_docs:d"),
        ("learnings", "memory_docs:a"),
        ("learnings", "memory_docs:c"),
    ]


# --- conversations -----------------------------------------------------------------------------


def test_the_reference_conversation_example(builder: LegacyBuilder) -> None:
    builder.turn("a", 101.0, "user", "a: hi")
    builder.turn("a", 103.0, "assistant", "a: hello back", tool_calls="{oops")
    builder.turn("a", 103.0, "Tool", "a: tool output")
    builder.turn("a", 104.0, "narrator", "a: aside")
    builder.turn("a", 105.0, "user", "  ")
    item = only(builder)
    assert isinstance(item, tm.Conversation)
    assert [(turn.role.value, turn.text, turn.tool_calls) for turn in item.turns] == [
        ("user", "a: hi", ()),
        ("assistant", "a: hello back", ()),
        ("tool", "a: tool output", ()),
        ("user", "a: aside", ()),
    ]
    assert item.meta.turns == tm.TurnRange(first=0, last=3)
    assert item.meta.observed_at == datetime(1970, 1, 1, 0, 1, 44, tzinfo=UTC)
    assert (item.meta.thread_id, item.meta.source.id) == ("a", "episodic_log:a")


def test_turns_are_grouped_by_thread_in_time_then_insertion_order(builder: LegacyBuilder) -> None:
    builder.turn("t-b", 5.0, "user", "b late")
    builder.turn("t-a", 2.0, "user", "a second")
    builder.turn("t-b", 1.0, "user", "b early")
    builder.turn("t-a", 2.0, "assistant", "a third (same time, inserted later)")
    builder.turn("t-a", 1.0, "user", "a first")
    threads = [item for _, item in read_all(builder)]
    assert [[turn.text for turn in item.turns] for item in threads] == [  # type: ignore[union-attr]
        ["a first", "a second", "a third (same time, inserted later)"],
        ["b early", "b late"],
    ]


@pytest.mark.parametrize(
    ("written", "role"),
    [
        (" Assistant ", "assistant"),
        ("AI", "assistant"),
        ("agent", "assistant"),
        ("bot", "assistant"),
        ("model", "assistant"),
        ("system", "system"),
        ("DEVELOPER", "system"),
        ("tool", "tool"),
        ("function", "tool"),
        ("tool_result", "tool"),
        ("human", "user"),
        ("", "user"),
        ("narrator", "user"),
    ],
)
def test_roles(builder: LegacyBuilder, written: str, role: str) -> None:
    builder.turn("t", 1.0, written, "text")
    item = only(builder)
    assert isinstance(item, tm.Conversation)
    assert item.turns[0].role.value == role


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        ('[{"id":"call_1","name":"web_search"}]', [("web_search", "call_1")]),
        (
            '{"tool_calls":[{"call_id":"c2","tool":"grep"},{"id":7,"tool_name":"ls"}]}',
            [("grep", "c2"), ("ls", None)],
        ),
        ('{"function":{"name":"lookup"},"id":" "}', [("lookup", None)]),
        ('[{"id":"x"},{"name":" ","function":{"name":"f"}}, 5]', [("f", None)]),
        ("{oops", []),
        ("null", []),
    ],
)
def test_tool_calls(
    builder: LegacyBuilder, calls: str, expected: list[tuple[str, str | None]]
) -> None:
    builder.turn("t", 1.0, "assistant", "text", tool_calls=calls)
    item = only(builder)
    assert isinstance(item, tm.Conversation)
    assert [(call.name, call.id) for call in item.turns[0].tool_calls] == expected


def test_a_thread_of_one_turn_and_a_thread_of_blank_turns(builder: LegacyBuilder) -> None:
    builder.turn("blank", 1.0, "user", "\u3000")
    builder.turn("one", 2.0, "user", "おはようございます 👋")
    item = only(builder)
    assert isinstance(item, tm.Conversation)
    assert (len(item.turns), item.meta.turns, item.turns[0].text) == (
        1,
        tm.TurnRange(first=0, last=0),
        "おはようございます 👋",
    )


# --- profile facets ----------------------------------------------------------------------------


def test_the_reference_facet_example(builder: LegacyBuilder) -> None:
    builder.facet(
        "f1",
        "preference",
        "tone",
        "terse",
        confidence=0.9,
        last_seen_at=1700000000.0,
        state="active",
        user_state="pinned",
        facet_class="style",
        evidence='[{"type": "episodic",  "episodic_id":42}]',
    )
    item = only(builder)
    assert isinstance(item, tm.Learning)
    assert wire(item) == {
        "type": "learning",
        "text": "tone: terse",
        "kind": "preference",
        "confidence": 0.9,
        "evidence": '[{"type": "episodic",  "episodic_id":42}]',  # verbatim, not re-encoded
        "meta": {
            "workspace": str(builder.root.resolve()),
            "source": {"kind": "import", "id": "user_profile:f1"},
            "tags": ["preference", "style"],
            "observed_at": "2023-11-14T22:13:20Z",
        },
    }


def test_every_facet_type_is_a_preference_with_raw_text(builder: LegacyBuilder) -> None:
    builder.facet(
        "f1", "skill", " key ", " value ", confidence=7.0, facet_class="skill", evidence=" "
    )
    builder.facet("f2", " ", "k", "v", confidence=float("inf"))
    first, second = (item for _, item in read_all(builder))
    assert isinstance(first, tm.Learning)
    assert isinstance(second, tm.Learning)
    assert (first.text, first.kind.value, first.confidence, first.evidence) == (
        " key :  value ",
        "preference",
        1.0,
        None,
    )
    assert first.meta.tags == ("skill",)  # the class equals the type: not repeated
    assert (second.meta.tags, second.confidence) == ((), 0.5)


def test_only_exactly_dropped_or_forgotten_facets_are_left_out(builder: LegacyBuilder) -> None:
    for number, (state, user_state) in enumerate(
        [
            ("dropped", "auto"),
            ("active", "forgotten"),
            ("Dropped", "auto"),
            (None, None),
            ("provisional", "pinned"),
            ("candidate", "Forgotten"),
        ]
    ):
        builder.facet(
            f"f{number}", "preference", f"k{number}", "v", state=state, user_state=user_state
        )
    builder.facet("f9", "preference", "k9", " ")  # blank value
    assert [item.meta.source.id for _, item in read_all(builder)] == [
        "user_profile:f2",
        "user_profile:f3",
        "user_profile:f4",
        "user_profile:f5",
    ]


# --- chunk sources -----------------------------------------------------------------------------


def test_a_chat_chunk_source_is_a_conversation_of_user_turns(builder: LegacyBuilder) -> None:
    builder.chunk(
        "c2", "chat", "slack:c", 1, "second", timestamp_ms=1700000000250, tags='["x","y"]'
    )
    builder.chunk("c1", "chat", "slack:c", 0, "first", timestamp_ms=1700000000999, tags='["y","z"]')
    builder.chunk("c3", "chat", "slack:c", 2, " ")
    item = only(builder)
    assert isinstance(item, tm.Conversation)
    assert [(turn.role.value, turn.text, turn.tool_calls) for turn in item.turns] == [
        ("user", "first", ()),
        ("user", "second", ()),
    ]
    assert item.turns[1].at == datetime(2023, 11, 14, 22, 13, 20, 250000, tzinfo=UTC)
    assert item.meta.tags == ("y", "z", "x", "source_kind:chat")
    assert (item.meta.thread_id, item.meta.turns) == ("slack:c", tm.TurnRange(first=0, last=1))
    assert item.meta.observed_at == datetime(2023, 11, 14, 22, 13, 20, 999000, tzinfo=UTC)
    assert item.meta.source.id == "mem_tree_chunks:chat:slack:c"


def test_another_chunk_source_is_a_document_read_from_its_files(builder: LegacyBuilder) -> None:
    front = "---\nsource_kind: email\nseq: 0\n---\n"
    builder.chunk(
        "c1",
        "email",
        "gmail:a|b",
        0,
        "preview…",
        content_path="email/a-b/c1.md",
        body=front + "full body\r\n",
    )
    builder.chunk(
        "c2", "email", "gmail:a|b", 1, "the preview stands in", content_path="email/a-b/missing.md"
    )
    builder.chunk(
        "c3",
        "email",
        "gmail:a|b",
        2,
        "unsafe path: preview",
        content_path="../outside.md",
        body="never read",
    )
    builder.chunk(
        "c4",
        "email",
        "gmail:a|b",
        3,
        "dot path: preview",
        content_path="email/./c4.md",
        body="never read",
    )
    item = only(builder)
    assert isinstance(item, tm.Document)
    assert item.body.text == (
        front
        + "full body\r\n\n\nthe preview stands in\n\nunsafe path: preview\n\ndot path: preview"
    )
    assert (item.title, item.mime, item.meta.tags) == (None, None, ("source_kind:email",))


def test_chunk_sources_come_in_kind_then_id_order(builder: LegacyBuilder) -> None:
    builder.chunk("1", "email", "b", 0, "email b")
    builder.chunk("2", "chat", "z", 0, "chat z")
    builder.chunk("3", "email", "Z", 0, "email Z")  # binary order: Z before b
    builder.chunk("4", "document", "a", 0, " ")  # blank: skipped
    assert [item.meta.source.id for _, item in read_all(builder)] == [
        "mem_tree_chunks:chat:z",
        "mem_tree_chunks:email:Z",
        "mem_tree_chunks:email:b",
    ]


@pytest.mark.parametrize("spoil", ["a folder", "not utf-8"])
def test_a_chunk_file_that_cannot_be_read_is_a_read_error(
    builder: LegacyBuilder, spoil: str
) -> None:
    if spoil == "a folder":
        (builder.root / "memory_tree" / "content" / "email" / "x.md").mkdir(parents=True)
        builder.chunk("c1", "email", "e", 0, "p", content_path="email/x.md")
    else:
        builder.chunk("c1", "email", "e", 0, "p", content_path="email/x.md", body=b"\xff\xfe bad")
    with pytest.raises(LegacyReadError, match=r"email/x\.md"):
        read_all(builder)


# --- the early schema, unicode, strict types -----------------------------------------------------


def test_the_early_schema_reads_with_every_optional_column_defaulted(tmp_path: Path) -> None:
    builder = LegacyBuilder(tmp_path, era="early")
    builder.doc("d1", "document_notes", "doc")
    builder.doc("d2", "learning_style", "remark")
    builder.turn("t", 1.0, "assistant", "hello", lesson="a lesson, not imported")
    builder.facet("f1", "preference", "k", "v")
    found = read_all(builder)
    assert [(section, item.meta.tags) for section, item in found] == [
        ("documents", ("ns:document:notes",)),  # restored, no taint column: internal
        ("conversations", ()),
        ("learnings", ("style",)),
        ("profile", ("preference",)),  # no class or evidence column
    ]
    conversation = found[1][1]
    assert isinstance(conversation, tm.Conversation)
    assert conversation.turns[0].tool_calls == ()


@pytest.mark.parametrize(
    "spoil",
    [
        "UPDATE memory_docs SET updated_at = 'yesterday'",
        "UPDATE memory_docs SET document_id = CAST('d1' AS BLOB)",
        "UPDATE memory_docs SET content = CAST('x' AS BLOB)",
        "UPDATE memory_docs SET content = CAST(X'FFFE41' AS TEXT)",
        "UPDATE episodic_log SET timestamp = 'later'",
        "UPDATE user_profile SET confidence = 'high'",
        "UPDATE user_profile SET last_seen_at = X'00'",
    ],
)
def test_a_value_in_the_wrong_storage_class_is_a_read_error(
    builder: LegacyBuilder, spoil: str
) -> None:
    builder.doc("d1", "notes", "body")
    builder.turn("t", 1.0, "user", "hi")
    builder.facet("f1", "preference", "k", "v")
    assert builder.memory is not None
    builder.memory.execute(spoil)
    with pytest.raises(LegacyReadError) as raised:
        read_all(builder)
    assert "\ufffd" not in str(raised.value)
    assert "FFFE" not in str(raised.value)


def test_a_read_error_ends_the_stream_after_the_items_before_it(builder: LegacyBuilder) -> None:
    builder.doc("d1", "notes", "fine")
    builder.doc("d2", "notes", "broken", updated_at="yesterday")
    builder.doc("d3", "notes", "never reached")
    builder.commit()
    with LegacyWorkspace.open(builder.root) as workspace:
        stream = workspace.items_from(None, page_size=1)
        assert next(stream).item.render_text() == "fine"
        with pytest.raises(
            LegacyReadError, match="memory_docs row 'd2': column updated_at holds str"
        ):
            next(stream)
        assert list(stream) == []


def test_every_item_is_an_import_of_the_workspace(tmp_path: Path) -> None:
    from legacy_workspaces import mixed_workspace

    root = mixed_workspace(tmp_path / "ws", scale=2)
    with LegacyWorkspace.open(root) as workspace:
        items = [imported.item for imported in workspace.items()]
    assert items
    assert all(item.meta.source.kind is tm.SourceKind.IMPORT for item in items)
    assert {item.meta.workspace for item in items} == {str(root.resolve())}
    assert {item.meta.namespace for item in items} == {tm.Namespace.ROOT}


def test_a_broken_row_of_one_memory_docs_section_stops_only_that_section(
    builder: LegacyBuilder,
) -> None:
    """The documents section passes over learning rows undecoded, so it imports whole first."""
    builder.doc("a", "notes", "a document")
    builder.doc("b", "global", "a broken fact", updated_at="yesterday")
    builder.turn("t", 1.0, "user", "hi")
    builder.commit()
    with LegacyWorkspace.open(builder.root) as workspace:
        stream = workspace.items()
        assert [next(stream).section, next(stream).section] == ["documents", "conversations"]
        with pytest.raises(LegacyReadError, match="memory_docs row 'b'"):
            next(stream)
