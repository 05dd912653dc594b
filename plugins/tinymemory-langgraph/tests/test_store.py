"""TinyMemoryStore on the sqlite and reference engines: what LangGraph's own tests do not pin.

Entries read back byte for byte, updates keep one item, the filter holds
past the first page the engine ranks, the base node scopes, items the store
did not write stay out, and bad ops are refused before any engine work.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from langgraph.store.base import GetOp, InvalidNamespaceError, Item, PutOp, SearchOp

import tinymemory as tm
from tinymemory.plugin import EngineWrapper
from tinymemory_langgraph import TinyMemoryStore
from tinymemory_langgraph.store import SEARCH_PAGE

VALUE: dict[str, Any] = {
    "text": "Ada prefers short sentences — and “curly” quotes",
    "ratio": 0.1,
    "big": 12345678901234567890,
    "nested": {"list": [1, 2.5, None, True, "ü"], "empty": {}},
}


def entries(engine: tm.MemoryEngine) -> list[tm.Hit]:
    return list(engine.list(tm.ListRequest(limit=1000)).items)


@pytest.mark.parametrize("key", ["style", "# not a heading", "two\n\nlines", " ", "ключ"])
def test_an_entry_is_a_json_document_whose_key_and_value_read_back_exactly(
    store: TinyMemoryStore, key: str
) -> None:
    store.put(("users", "ada"), key, VALUE)
    [hit] = entries(store.engine)
    assert hit.kind is tm.ItemKind.DOCUMENT
    assert str(hit.meta.namespace) == "ws:users/ws:ada"
    body = json.dumps(VALUE, ensure_ascii=False)
    assert hit.text.endswith(body)
    assert hit.text == tm.Document(title=key, body=body).render_text()
    item = store.get(("users", "ada"), key)
    assert type(item) is Item  # a get answers an Item, a search SearchItems
    assert (item.key, item.namespace) == (key, ("users", "ada"))
    assert item.value == VALUE
    assert json.dumps(item.value, ensure_ascii=False) == body


def test_an_update_keeps_one_item_and_its_creation_time(store: TinyMemoryStore) -> None:
    store.put(("notes",), "k", {"v": 1})
    first = store.get(("notes",), "k")
    store.put(("notes",), "k", {"v": 2})
    second = store.get(("notes",), "k")
    assert first is not None
    assert second is not None
    assert second.value == {"v": 2}
    assert second.created_at == first.created_at
    assert second.updated_at > first.updated_at
    assert len(entries(store.engine)) == 1
    store.put(("notes",), "k", {"v": 2})  # the same value again: a replay
    assert len(entries(store.engine)) == 1
    store.delete(("notes",), "k")
    store.delete(("notes",), "k")  # deleting what is not there is harmless
    assert store.get(("notes",), "k") is None
    assert entries(store.engine) == []


def test_the_filter_holds_past_the_first_page_the_engine_ranks(store: TinyMemoryStore) -> None:
    count = SEARCH_PAGE + 15
    store.batch(
        [PutOp(("fruit",), f"k{i}", {"text": f"apple pie {i}", "i": i}) for i in range(count)]
    )
    late = store.search(("fruit",), query="apple pie", filter={"i": {"$gte": count - 5}}, limit=50)
    assert sorted(item.value["i"] for item in late) == list(range(count - 5, count))
    assert all(item.score is not None for item in late)
    ranked = store.search(("fruit",), query="apple pie", limit=count)
    assert len(ranked) == count
    pages = [
        item.key
        for offset in range(0, count, 7)
        for item in store.search(("fruit",), query="apple pie", limit=7, offset=offset)
    ]
    assert pages == [item.key for item in ranked]
    assert store.search(("fruit",), query="apple pie", limit=0) == []


def test_the_base_node_scopes_a_store(engine: tm.MemoryEngine) -> None:
    acme = TinyMemoryStore(engine, at="team:acme")
    beta = TinyMemoryStore(engine, at="team:beta")
    acme.put(("users", "ada"), "style", {"text": "terse"})
    beta.put(("users", "ada"), "style", {"text": "verbose"})
    assert [item.value["text"] for item in acme.search(())] == ["terse"]
    assert [item.value["text"] for item in beta.search((), query="verbose terse")] == ["verbose"]
    assert acme.list_namespaces() == [("users", "ada")]
    assert {str(hit.meta.namespace) for hit in entries(engine)} == {
        "team:acme/ws:users/ws:ada",
        "team:beta/ws:users/ws:ada",
    }
    root = TinyMemoryStore(engine)  # team: nodes are no LangGraph namespace
    assert root.search(()) == []
    assert root.list_namespaces() == []


def test_items_the_store_did_not_write_stay_out(store: TinyMemoryStore) -> None:
    at = store.node(("users",))
    store.engine.store(
        tm.Learning(text="apple pie is Ada's favourite", meta=tm.MemoryMeta(namespace=at))
    )
    store.engine.store(
        tm.Document(title="k", body="apple {", meta=tm.MemoryMeta(namespace=at, tags=["langgraph"]))
    )
    store.put(("users",), "k", {"text": "apple pie"})
    assert [item.key for item in store.search(("users",), query="apple pie")] == ["k"]
    assert [item.key for item in store.search(())] == ["k"]
    assert store.list_namespaces() == [("users",)]


def test_list_namespaces_pages_after_wildcards_and_depth(store: TinyMemoryStore) -> None:
    for name in [
        ("a", "b", "c"),
        ("a", "x", "c"),
        ("a", "b"),
        ("z", "b", "c"),
        ("a", "b", "c", "d"),
    ]:
        store.put(name, "k", {"v": 1})
    assert store.list_namespaces(prefix=("a", "*", "c")) == [
        ("a", "b", "c"),
        ("a", "b", "c", "d"),
        ("a", "x", "c"),
    ]
    assert store.list_namespaces(suffix=("b", "c")) == [("a", "b", "c"), ("z", "b", "c")]
    assert store.list_namespaces(prefix=("a",), max_depth=2) == [("a", "b"), ("a", "x")]
    assert store.list_namespaces(prefix=("a",), limit=2, offset=1) == [
        ("a", "b", "c"),
        ("a", "b", "c", "d"),
    ]


class Recording(EngineWrapper):
    """An engine that counts the operations asked of it."""

    def __init__(self, inner: tm.MemoryEngine) -> None:
        super().__init__(inner)
        self.calls = 0

    def __getattribute__(self, name: str) -> Any:
        if name.startswith("handle_"):
            object.__setattr__(self, "calls", object.__getattribute__(self, "calls") + 1)
        return super().__getattribute__(name)


@pytest.mark.parametrize(
    ("bad", "error"),
    [
        (PutOp(("a.b",), "k", {"v": 1}), InvalidNamespaceError),
        (PutOp((), "k", {"v": 1}), InvalidNamespaceError),
        (PutOp(("x" * 129,), "k", {"v": 1}), InvalidNamespaceError),
        (PutOp(("a",) * 9, "k", {"v": 1}), InvalidNamespaceError),
        (PutOp(("a",), "k", {"v": {1, 2}}), tm.InvalidRequest),
        (PutOp(("a",), "k", {"v": float("nan")}), tm.InvalidRequest),
        (PutOp(("a",), "k", {"v": 1}, ttl=5.0), NotImplementedError),
        (SearchOp(("a",), filter={"v": {"$in": [1]}}), ValueError),
        (SearchOp(("a",), limit=-1), ValueError),
        (GetOp(("",), "k"), InvalidNamespaceError),
    ],
)
def test_a_bad_op_is_refused_before_any_engine_work(
    engine: tm.MemoryEngine, bad: Any, error: type[Exception]
) -> None:
    recording = Recording(engine)
    store = TinyMemoryStore(recording)
    with pytest.raises(error):
        store.batch([PutOp(("a",), "good", {"v": 1}), bad])
    assert recording.calls == 0
    store.batch([PutOp(("a",), "good", {"v": 1})])
    assert recording.calls > 0  # the count does see the engine's work


def test_ttl_and_index_configurations_are_refused(engine: tm.MemoryEngine) -> None:
    with pytest.raises(tm.Unsupported, match="embedder in TinyMemory"):
        TinyMemoryStore(
            engine, index={"dims": 3, "embed": lambda texts: [[0.0] * 3 for _ in texts]}
        )
    with pytest.raises(tm.Unsupported, match="do not expire"):
        TinyMemoryStore(engine, ttl={"default_ttl": 5})
    store = TinyMemoryStore(engine)
    assert store.supports_ttl is False
    with pytest.raises(NotImplementedError):
        store.put(("a",), "k", {"v": 1}, ttl=5)
    store.put(("a",), "k", {"v": 1}, index=["v"])  # no index: the argument is ignored
    assert store.get(("a",), "k") is not None


def test_async_calls_run_the_engine_in_threads_one_at_a_time(store: TinyMemoryStore) -> None:
    async def many() -> list[Any]:
        await asyncio.gather(*(store.aput(("a", str(i % 3)), f"k{i}", {"i": i}) for i in range(30)))
        return await asyncio.gather(*(store.aget(("a", str(i % 3)), f"k{i}") for i in range(30)))

    got = asyncio.run(many())
    assert [item.value["i"] for item in got] == list(range(30))
    assert asyncio.run(store.alist_namespaces()) == [("a", "0"), ("a", "1"), ("a", "2")]


class Redactor:
    """A scrubber that redacts one secret, or (``break_json``) every brace."""

    name = "redactor"

    def __init__(self, *, break_json: bool = False) -> None:
        self.break_json = break_json

    def scrub(self, item: tm.StoreItem) -> tm.StoreItem:
        assert isinstance(item, tm.Document)
        assert item.body.text is not None
        text = item.body.text.replace("sk-live-123", "[secret]")
        if self.break_json:
            text = text.replace("{", "(")
        return tm.Document(title=item.title, body=text, mime=item.mime, meta=item.meta)


def test_scrubbers_see_every_entry(engine: tm.MemoryEngine) -> None:
    store = TinyMemoryStore(tm.ScrubbingEngine(engine, [Redactor()]))
    store.put(("a",), "k", {"token": "sk-live-123"})
    item = store.get(("a",), "k")
    assert item is not None
    assert item.value == {"token": "[secret]"}
    breaking = TinyMemoryStore(tm.ScrubbingEngine(engine, [Redactor(break_json=True)]))
    with pytest.raises(tm.InvalidRequest, match="scrubber"):
        breaking.put(("b",), "k", {"v": 1})
    assert breaking.get(("b",), "k") is None
    assert len(entries(engine)) == 1
