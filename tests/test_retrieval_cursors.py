"""The kit's cursor codec: what it issues round-trips; anything else is InvalidRequest."""

from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.retrieval import LARGEST_POSITION, CursorCodec, new_secret, read_key

SECRET = bytes(range(32))
CODEC = CursorCodec(SECRET, engine="sqlite")
READ = read_key("fetch", "keyword", "lantern", "{}")
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

positions = st.lists(st.integers(0, LARGEST_POSITION), min_size=1, max_size=3).map(tuple)


@given(positions)
def test_an_issued_cursor_opens_to_its_positions(issued: tuple[int, ...]) -> None:
    cursor = CODEC.encode(READ, *issued)
    assert CODEC.decode(READ, cursor, len(issued)) == issued
    assert set(cursor) <= set(ALPHABET)
    # Deterministic: the same read at the same place is the same cursor, byte for byte.
    assert CODEC.encode(READ, *issued) == cursor


def test_no_cursor_is_the_first_page() -> None:
    assert CODEC.decode(READ, None, 2) is None


def _refused(cursor: str, count: int, codec: CursorCodec = CODEC, read: str = READ) -> None:
    with pytest.raises(tm.InvalidRequest, match="unknown cursor `"):
        codec.decode(read, cursor, count)


@given(positions, st.data())
def test_every_one_character_change_is_refused(
    issued: tuple[int, ...], data: st.DataObject
) -> None:
    cursor = CODEC.encode(READ, *issued)
    count = len(issued)
    at = data.draw(st.integers(0, len(cursor) - 1), label="at")
    other = data.draw(st.sampled_from(ALPHABET).filter(lambda c: c != cursor[at]), label="to")
    _refused(cursor[:at] + other + cursor[at + 1 :], count)  # changed
    _refused(cursor[:at] + cursor[at + 1 :], count)  # removed
    _refused(cursor[:at] + other + cursor[at:], count)  # inserted
    _refused(cursor + other, count)  # appended


@given(positions, st.sampled_from(["=", "==", "\n", " ", "~", "+", "/", "é"]))
def test_padding_and_foreign_characters_are_refused(issued: tuple[int, ...], extra: str) -> None:
    cursor = CODEC.encode(READ, *issued)
    _refused(cursor + extra, len(issued))
    _refused(extra + cursor, len(issued))


@given(positions)
def test_the_same_bytes_spelled_otherwise_are_refused(issued: tuple[int, ...]) -> None:
    cursor = CODEC.encode(READ, *issued)
    sealed = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    for spelling in (
        base64.urlsafe_b64encode(sealed).decode("ascii"),  # padded
        base64.b64encode(sealed).decode("ascii").rstrip("="),  # the standard alphabet
        cursor.swapcase(),
    ):
        if spelling != cursor:
            _refused(spelling, len(issued))


def test_unused_low_bits_of_the_last_character_are_refused() -> None:
    cursor = CODEC.encode(READ, 7, 3)
    # Two positions (33 bytes) give 44 characters exactly; one (25 bytes) leaves the
    # last character's 4 low bits unused.
    single = CODEC.encode(READ, 7)
    last = ALPHABET.index(single[-1])
    assert last % 16 == 0
    for low in (1, 2, 4, 8):
        _refused(single[:-1] + ALPHABET[last + low], 1)
    assert CODEC.decode(READ, cursor, 2) == (7, 3)


@given(positions)
def test_another_read_memory_or_engine_refuses_the_cursor(issued: tuple[int, ...]) -> None:
    cursor = CODEC.encode(READ, *issued)
    count = len(issued)
    _refused(cursor, count, read=read_key("fetch", "keyword", "lanterns", "{}"))
    _refused(cursor, count, codec=CursorCodec(new_secret(), engine="sqlite"))
    _refused(cursor, count, codec=CursorCodec(SECRET, engine="postgres"))
    _refused(cursor, count + 1)


@given(st.text(max_size=80))
def test_any_text_not_issued_is_refused(text: str) -> None:
    for count in (1, 2):
        _refused(text, count)


def test_positions_out_of_range_are_never_sealed() -> None:
    for bad in (-1, LARGEST_POSITION + 1):
        with pytest.raises(ValueError, match="cursor position"):
            CODEC.encode(READ, bad)


def test_the_secret_stays_out_of_the_repr() -> None:
    assert SECRET.hex() not in repr(CODEC)
    assert repr(CODEC) == "<CursorCodec>"


def test_a_long_refused_cursor_is_shortened_in_the_message() -> None:
    with pytest.raises(tm.InvalidRequest) as refused:
        CODEC.decode(READ, "x" * 10_000, 1)
    assert len(str(refused.value)) < 120
