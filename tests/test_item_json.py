"""The hand-written canonical JSON of items, held byte-equal to the generic converter's.

The oracle is ``wire.dumps(wire.to_data(item))``: the cattrs converter that
writes every other contract type, kept for them and for items nested in
other values (an export page). The fingerprint vectors of test_items.py and
test_wire.py hold both to the original's bytes.
"""

from __future__ import annotations

from datetime import UTC, datetime

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory import (
    Conversation,
    Document,
    DocumentBody,
    InvalidRequest,
    Learning,
    MemoryMeta,
    SourceRef,
    ToolCallRef,
    Turn,
    TurnRange,
)
from tinymemory._canonical import fingerprint_json
from tinymemory._item_json import item_from_json, item_json, json_and_id
from tinymemory._items import StoreItem
from tinymemory._wire import dumps, from_json, to_data, to_json
from tinymemory.conformance import strategies as tms

# Any text at all in the free-text fields: quotes, backslashes, control and non-BMP characters.
ANY_TEXT = st.text(min_size=1, max_size=40).filter(str.strip)


def generic_json(item: StoreItem) -> str:
    return dumps(to_data(item))


def wild(item: StoreItem, text: str) -> StoreItem:
    """``item`` with ``text`` in its free-text fields."""
    meta = attrs.evolve(item.meta, agent_id=text, tags=(text, "b"))
    if isinstance(item, Learning):
        return attrs.evolve(item, text=text, evidence=text, meta=meta)
    if isinstance(item, Document):
        return attrs.evolve(item, title=text, body=DocumentBody(text=text), mime=text, meta=meta)
    turns = [attrs.evolve(turn, text=text) for turn in item.turns]
    return attrs.evolve(item, turns=turns, meta=meta)


@settings(max_examples=400)
@given(tms.store_items())
def test_item_json_is_the_converters_json(item):
    assert item_json(item) == generic_json(item)
    assert to_json(item) == generic_json(item)


@given(tms.store_items(), ANY_TEXT)
def test_item_json_escapes_any_text_as_the_converter_does(item, text):
    item = wild(item, text)
    assert item_json(item) == generic_json(item)


@given(tms.store_items())
def test_the_id_hashes_the_json_without_observed_at(item):
    text, item_id = json_and_id(item)
    unobserved = item.with_meta(attrs.evolve(item.meta, observed_at=None))
    assert text == generic_json(item)
    assert item_id == fingerprint_json(generic_json(unobserved)) == item.fingerprint()


@given(st.builds(DocumentBody, uri=ANY_TEXT), tms.memory_meta())
def test_uri_bodies_are_written_as_the_converter_does(body, meta):
    item = Document(body=body, meta=meta)
    assert item_json(item) == generic_json(item)


def test_every_optional_field_set_and_empty_strings_are_written():
    at = datetime(2025, 5, 6, 7, 8, 9, 250_000, tzinfo=UTC)
    meta = MemoryMeta(
        namespace="team:acme/agent:w",
        workspace="",
        folder="/f",
        file_path="/f/a.py",
        language="py",
        repo="o/r",
        commit="abc",
        url="https://x.test",
        thread_id="t",
        turns=TurnRange(first=0, last=2),
        agent_id="a",
        tool_call=ToolCallRef(name="grep", id="c1"),
        source=SourceRef(kind="file", id="s"),
        tags=["x"],
        observed_at=at,
        derive=True,
    )
    items: list[StoreItem] = [
        Learning(text="t", evidence="", confidence=1e-7, meta=meta),
        Document(title="", body="b", mime="", meta=meta),
        Conversation(
            turns=[Turn(role="tool", text="ok", at=at, tool_calls=[ToolCallRef(name="n")])],
            meta=meta,
        ),
    ]
    for item in items:
        assert item_json(item) == generic_json(item)
        assert ',"observed_at":"2025-05-06T07:08:09.250Z","derive":true}}' in item_json(item)


def test_a_lone_surrogate_has_no_id():
    with pytest.raises(InvalidRequest, match="lone surrogate"):
        json_and_id(Learning(text="a\ud800b"))


@given(st.one_of(tms.store_items(), st.builds(Document, body=tms.document_bodies())))
def test_reading_back_gives_the_item_the_converter_reads(item):
    text = item_json(item)
    assert item_from_json(text) == item == from_json(text, StoreItem)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "[]",
        "{}",
        '{"type":"note","meta":{"source":{"kind":"agent"}}}',
        '{"type":"learning","text":5,"kind":"fact","confidence":0.8,'
        '"meta":{"source":{"kind":"agent"}}}',
        '{"type":"learning","text":"t","kind":"fact","confidence":0.8,"meta":{}}',
        "not json",
    ],
)
def test_reading_what_is_not_a_stored_item_is_invalid_request(text):
    with pytest.raises(InvalidRequest):
        item_from_json(text)
