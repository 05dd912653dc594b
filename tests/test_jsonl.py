"""``tinymemory.jsonl``: export lines read back as they were written, and strict about keys."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

import tinymemory as tm
from tinymemory.jsonl import export_line, read_items

ITEMS: list[tm.StoreItem] = [
    tm.Learning(text="prefers tabs", kind="preference", meta=tm.MemoryMeta(tags=["style"])),
    tm.Document(title="Notes", body="# Notes\n\nMet Dana.", meta=tm.MemoryMeta(workspace="acme")),
    tm.Conversation(
        turns=[tm.Turn(role="user", text="hi"), tm.Turn(role="assistant", text="hello")],
        meta=tm.MemoryMeta(namespace="agent:a", tags=["chat", "greeting"]),
    ),
]


def exported(item: tm.StoreItem) -> bytes:
    return (export_line(tm.Exported(id=item.fingerprint(), item=item)) + "\n").encode()


def test_export_lines_read_back_as_the_items_they_hold() -> None:
    items, notes = read_items([exported(item) for item in ITEMS])
    assert items == ITEMS
    assert notes == []


def object_paths(data: Any, path: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    """The path of every JSON object in ``data``."""
    if isinstance(data, dict):
        yield path
        for key, value in data.items():
            yield from object_paths(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from object_paths(value, (*path, index))


def with_key_twice(data: Any, path: tuple[str | int, ...], key: str) -> str:
    """``data`` as JSON text with the object at ``path`` giving ``key`` twice (a decoy first)."""
    marker = "\x00duplicated\x00"
    target = data
    for step in path:
        target = target[step]
    target[marker] = None
    text = json.dumps(data)
    value = json.dumps(target[key])
    return text.replace(json.dumps(marker) + ": null", f"{json.dumps(key)}: {value}")


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: type(item).__name__)
def test_a_key_given_twice_anywhere_is_refused_naming_the_line_and_key(item: tm.StoreItem) -> None:
    data = json.loads(exported(item))
    places = [(path, key) for path in object_paths(data) for key in _keys_at(data, path)]
    assert len(places) >= 5
    for path, key in places:
        line = with_key_twice(json.loads(exported(item)), path, key)
        with pytest.raises(tm.InvalidRequest) as refused:
            read_items([b"\n", line.encode()])
        assert refused.value.message == f"line 2: duplicate key `{key}`", (path, key)


def _keys_at(data: Any, path: tuple[str | int, ...]) -> list[str]:
    for step in path:
        data = data[step]
    return list(data)
