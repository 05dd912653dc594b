"""Cursors are sealed: refused when tampered with or given to another read, and read by
another engine holding the same key (a command line pages across processes)."""

from __future__ import annotations

import pytest
from conftest import EngineMaker, fresh_token

import tinymemory as tm


def _tampered(cursor: str) -> list[str]:
    changed = "A" if cursor[-1] != "A" else "B"
    middle = len(cursor) // 2
    swapped = "A" if cursor[middle] != "A" else "B"
    return [
        cursor + "A",
        cursor + "~",
        cursor[:-1],
        cursor[:-1] + changed,
        cursor[:middle] + swapped + cursor[middle + 1 :],
        cursor + "==",
        "",
    ]


@pytest.fixture
def filled(make_engine: EngineMaker) -> tuple[tm.MemoryEngine, str]:
    token = fresh_token()
    engine = make_engine(token)
    engine.store_many([tm.Learning(text=f"note {number} about the harbour") for number in range(5)])
    return engine, token


def test_a_tampered_list_cursor_is_refused(filled: tuple[tm.MemoryEngine, str]) -> None:
    engine, _ = filled
    cursor = engine.list(tm.ListRequest(limit=2)).next_cursor
    assert cursor is not None
    for bad in _tampered(cursor):
        with pytest.raises(tm.InvalidRequest, match="unknown cursor"):
            engine.list(tm.ListRequest(limit=2, cursor=bad))


def test_a_tampered_fetch_cursor_is_refused(filled: tuple[tm.MemoryEngine, str]) -> None:
    engine, _ = filled
    request = tm.FetchRequest(query="harbour", mode=tm.FetchMode.HYBRID, limit=2)
    cursor = engine.fetch(request).next_cursor
    assert cursor is not None
    for bad in _tampered(cursor):
        with pytest.raises(tm.InvalidRequest, match="unknown cursor"):
            engine.fetch(tm.FetchRequest(query="harbour", mode=request.mode, limit=2, cursor=bad))


def test_a_cursor_belongs_to_its_read(filled: tuple[tm.MemoryEngine, str]) -> None:
    engine, _ = filled
    listed = engine.list(tm.ListRequest(limit=2)).next_cursor
    fetched = engine.fetch(
        tm.FetchRequest(query="harbour", mode=tm.FetchMode.HYBRID, limit=2)
    ).next_cursor
    assert listed is not None
    assert fetched is not None
    with pytest.raises(tm.InvalidRequest):
        engine.fetch(
            tm.FetchRequest(query="harbour", mode=tm.FetchMode.HYBRID, limit=2, cursor=listed)
        )
    with pytest.raises(tm.InvalidRequest):
        engine.fetch(
            tm.FetchRequest(query="note", mode=tm.FetchMode.HYBRID, limit=2, cursor=fetched)
        )
    with pytest.raises(tm.InvalidRequest):
        engine.list(tm.ListRequest(limit=2, cursor=fetched))
    with pytest.raises(tm.InvalidRequest):
        engine.list(
            tm.ListRequest(limit=2, cursor=listed, filter=tm.MetaFilter(tags_any=["elsewhere"]))
        )


def test_another_engine_with_the_same_key_resumes_the_listing(
    filled: tuple[tm.MemoryEngine, str], make_engine: EngineMaker
) -> None:
    engine, token = filled
    first = engine.list(tm.ListRequest(limit=2))
    assert first.next_cursor is not None
    again = make_engine(token).list(tm.ListRequest(limit=2, cursor=first.next_cursor))
    assert again == engine.list(tm.ListRequest(limit=2, cursor=first.next_cursor))
    other_key = make_engine(fresh_token())
    with pytest.raises(tm.InvalidRequest):
        other_key.list(tm.ListRequest(limit=2, cursor=first.next_cursor))


@pytest.mark.parametrize("page", [1, 2, 3, 5])
def test_a_listing_ending_at_the_limit_returns_no_cursor(
    filled: tuple[tm.MemoryEngine, str], page: int
) -> None:
    engine, _ = filled
    cursor: str | None = None
    pages = 0
    while True:
        listed = engine.list(tm.ListRequest(limit=page, cursor=cursor))
        pages += 1
        cursor = listed.next_cursor
        if cursor is None:
            break
        assert len(listed.items) == page
    assert pages == -(-5 // page)  # no trailing empty page after exactly 5 items


@pytest.mark.parametrize(("page", "written"), [(1, 1), (2, 3), (2, 250)])
def test_writes_elsewhere_between_pages_repeat_no_item(
    filled: tuple[tm.MemoryEngine, str], page: int, written: int
) -> None:
    engine, _ = filled
    mine = tm.MetaFilter(tags_any=("harbour",))
    engine.store_many(
        [tm.Learning(text=f"tagged {n}", meta=tm.MemoryMeta(tags=("harbour",))) for n in range(4)]
    )
    seen: list[str] = []
    cursor: str | None = None
    batch = 0
    while True:
        listed = engine.list(tm.ListRequest(filter=mine, limit=page, cursor=cursor))
        seen.extend(hit.id for hit in listed.items)
        cursor = listed.next_cursor
        if cursor is None:
            break
        # Newer events land at the head of the newest-first listing, before the cursor.
        for start in range(0, written, 100):
            others = range(start, min(start + 100, written))
            engine.store_many([tm.Learning(text=f"other {batch} {n}") for n in others])
        batch += 1
    assert len(seen) == len(set(seen)) == 4
