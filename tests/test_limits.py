"""Caps on an item's size, tags and turns; integer widths; blank and non-unicode text."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory import (
    ConfigError,
    Conversation,
    Document,
    FetchRequest,
    InvalidRequest,
    Learning,
    ListRequest,
    MemoryMeta,
    MetaFilter,
    RecallRequest,
    Role,
    Turn,
    TurnRange,
)
from tinymemory._items import item_size, validate_item
from tinymemory._limits import U32_MAX, USIZE_MAX, ItemLimits, item_limits, set_item_limits
from tinymemory._timestamps import parse_timestamp, to_utc
from tinymemory._validators import is_blank
from tinymemory.conformance import strategies as tms
from tinymemory.reference import ReferenceEngine


@pytest.fixture
def small_limits() -> Iterator[ItemLimits]:
    limits = ItemLimits(max_item_bytes=100, max_tags=3, max_turns=2)
    previous = set_item_limits(limits)
    yield limits
    set_item_limits(previous)


def test_the_default_caps_are_generous_but_finite():
    limits = item_limits()
    assert limits == ItemLimits(max_item_bytes=10 * 1024 * 1024, max_tags=1000, max_turns=10_000)


def test_an_item_at_the_default_byte_cap_passes_and_one_byte_more_is_refused():
    cap = item_limits().max_item_bytes
    validate_item(Learning(text="a" * cap))
    with pytest.raises(InvalidRequest, match="at most 10485760 bytes of utf-8"):
        validate_item(Learning(text="a" * (cap + 1)))


def test_the_byte_cap_counts_utf8_bytes_of_text_and_metadata(small_limits: ItemLimits):
    validate_item(Learning(text="é" * 50))  # 100 bytes
    with pytest.raises(InvalidRequest, match="at most 100 bytes"):
        validate_item(Learning(text="é" * 50 + "x"))
    with pytest.raises(InvalidRequest, match="at most 100 bytes"):
        validate_item(Learning(text="a" * 90, meta=MemoryMeta(workspace="w" * 11)))
    with pytest.raises(InvalidRequest, match="at most 100 bytes"):
        validate_item(Document(title="t" * 60, body="b" * 41))


def test_tags_and_turns_are_capped(small_limits: ItemLimits):
    validate_item(Learning(text="x", meta=MemoryMeta(tags=("a", "b", "c"))))
    with pytest.raises(InvalidRequest, match="at most 3 tags"):
        validate_item(Learning(text="x", meta=MemoryMeta(tags=("a", "b", "c", "d"))))
    turn = Turn(role=Role.USER, text="hi")
    validate_item(Conversation(turns=[turn, turn]))
    with pytest.raises(InvalidRequest, match="at most 2 turns"):
        validate_item(Conversation(turns=[turn, turn, turn]))


def test_the_default_tag_and_turn_caps_refuse_what_the_tools_used_to_take():
    with pytest.raises(InvalidRequest, match="at most 1000 tags"):
        validate_item(Learning(text="x", meta=MemoryMeta(tags=[f"t{n}" for n in range(1001)])))
    turn = Turn(role=Role.USER, text="hi")
    with pytest.raises(InvalidRequest, match="at most 10000 turns"):
        validate_item(Conversation(turns=[turn] * 10_001))


def test_the_caps_must_be_positive_whole_numbers():
    with pytest.raises(ConfigError):
        ItemLimits(max_tags=0)
    with pytest.raises(ConfigError):
        ItemLimits(max_turns=True)
    with pytest.raises(ConfigError):
        set_item_limits("big")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text", ["\u200b", "\u200b\u200c\u200d\u2060\ufeff", " \u200b\n\u3164\u2800", "\x00\x01"]
)
def test_text_of_only_invisible_characters_is_blank(text: str):
    with pytest.raises(InvalidRequest, match="must not be empty"):
        validate_item(Learning(text=text))
    with pytest.raises(InvalidRequest, match="must not be empty"):
        validate_item(Document(body=text))
    with pytest.raises(InvalidRequest, match="must not be empty"):
        validate_item(Conversation(turns=[Turn(role=Role.USER, text=text)]))
    with pytest.raises(InvalidRequest, match="must not be empty"):
        FetchRequest(query=text).validate()
    with pytest.raises(InvalidRequest, match="must not be empty"):
        RecallRequest(question=text).validate()


def test_visible_text_beside_invisible_characters_is_not_blank():
    validate_item(Learning(text="\u200bx\u200b"))


def shows_nothing(text: str) -> bool:
    """The rule of blank text, character by character."""
    invisible = "\u115f\u1160\u2800\u3164\uffa0"
    return all(
        char.isspace() or char in invisible or unicodedata.category(char) in ("Cf", "Cc")
        for char in text
    )


@pytest.mark.parametrize("code", range(128))
def test_each_ascii_character_is_blank_as_the_rule_says(code: int):
    char = chr(code)
    assert is_blank(char) == shows_nothing(char)
    assert is_blank(f"{char} {char}\t") == shows_nothing(char)
    assert not is_blank(f"{char}x{char}")


@given(st.text(st.characters(codec="utf-8") | st.sampled_from(" \t\n\x00\u200b\u3164")))
def test_blank_text_is_what_shows_nothing(text: str):
    assert is_blank(text) == shows_nothing(text)


@given(tms.store_items(), st.data())
def test_an_item_is_refused_for_its_size_exactly_when_it_is_over_the_cap(
    item: Learning | Document | Conversation, data: st.DataObject
):
    size = item_size(item)
    cap = data.draw(st.sampled_from([max(size - 1, 1), size, size + 1]))
    previous = set_item_limits(ItemLimits(max_item_bytes=cap))
    try:
        if size <= cap:
            validate_item(item)
        else:
            with pytest.raises(InvalidRequest, match=f"at most {cap} bytes of utf-8"):
                validate_item(item)
    finally:
        set_item_limits(previous)


def test_a_lone_surrogate_anywhere_in_an_item_is_refused_by_validation():
    with pytest.raises(InvalidRequest, match="`text` holds a lone surrogate"):
        validate_item(Learning(text="ok \ud800"))
    with pytest.raises(InvalidRequest, match=r"`meta\.tags` holds a lone surrogate"):
        validate_item(Learning(text="ok", meta=MemoryMeta(tags=["\udc80"])))


@pytest.mark.parametrize(
    "build",
    [
        lambda: MetaFilter(workspace="\udc80"),
        lambda: MetaFilter(tags_any=["ok", "\ud800"]),
        lambda: FetchRequest(query="a \ud800"),
        lambda: RecallRequest(question="a \ud800"),
        lambda: ListRequest(cursor="\ud800"),
    ],
)
def test_strings_an_engine_cannot_encode_are_refused(build):
    with pytest.raises(InvalidRequest, match="lone surrogate"):
        build()


def test_limits_are_usize_and_turn_ranges_u32():
    ListRequest(limit=USIZE_MAX)
    with pytest.raises(InvalidRequest, match="at most 18446744073709551615"):
        ListRequest(limit=USIZE_MAX + 1)
    with pytest.raises(InvalidRequest, match="at most"):
        RecallRequest(question="q", limit=2**70)
    TurnRange(0, U32_MAX)
    with pytest.raises(InvalidRequest, match="at most 4294967295"):
        TurnRange(0, U32_MAX + 1)


def test_a_timestamp_whose_utc_form_is_out_of_range_is_refused():
    early = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))
    with pytest.raises(InvalidRequest, match="outside years 1 to 9999"):
        to_utc(early)
    with pytest.raises(InvalidRequest, match="outside years 1 to 9999"):
        MemoryMeta(observed_at=early)
    with pytest.raises(InvalidRequest, match="outside years 1 to 9999"):
        parse_timestamp("9999-12-31T23:59:59-05:00")


def test_store_many_takes_a_generator_and_any_iterable():
    engine = ReferenceEngine()
    receipts = engine.store_many(Learning(text=f"fact {n}") for n in range(3))
    assert len(receipts) == 3
    assert len(engine.store_many(iter([Learning(text="fact 9")]))) == 1
    assert len(engine.store_many({Learning(text="fact 8")})) == 1


def test_store_many_refuses_an_endless_iterable_without_reading_it_all():
    def endless() -> Iterator[Learning]:
        number = 0
        while True:
            number += 1
            yield Learning(text=f"fact {number}")

    with pytest.raises(InvalidRequest, match="between 1 and 100"):
        ReferenceEngine().store_many(endless())


def test_store_many_refuses_what_is_not_iterable():
    with pytest.raises(InvalidRequest, match="iterable of items, not int"):
        ReferenceEngine().store_many(5)  # type: ignore[arg-type]


def test_the_store_tool_is_held_to_the_caps(small_limits: ItemLimits):
    from tinymemory import MemoryTools

    engine = ReferenceEngine()
    tools = MemoryTools(engine)
    with pytest.raises(InvalidRequest, match="at most 100 bytes"):
        tools.call("memory_store", {"learning": {"text": "a" * 101}})
    with pytest.raises(InvalidRequest, match="at most 3 tags"):
        tools.call("memory_store", {"learning": {"text": "a"}, "tags": ["a", "b", "c", "d"]})
    turns = [{"role": "user", "text": "hi"}] * 3
    with pytest.raises(InvalidRequest, match="at most 2 turns"):
        tools.call("memory_store", {"conversation": {"turns": turns}})
    assert engine.list(ListRequest()).items == ()
