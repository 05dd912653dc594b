"""LangMem's memory tools on TinyMemoryStore (sqlite): create, update, search and delete a memory,
called as a model's tool calls are, with no model."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from langmem import (  # type: ignore[import-untyped]
    create_manage_memory_tool,
    create_search_memory_tool,
)

from tinymemory_langgraph import TinyMemoryStore

NAMESPACE = ("memories", "ada")


def created_id(answer: str) -> str:
    found = re.fullmatch(r"(?:created|updated) memory ([0-9a-f-]{36})", answer)
    assert found is not None, answer
    return found.group(1)


def test_langmems_tools_manage_and_search_memories(sqlite_store: TinyMemoryStore) -> None:
    manage = create_manage_memory_tool(NAMESPACE, store=sqlite_store)
    search = create_search_memory_tool(NAMESPACE, store=sqlite_store)

    first = created_id(manage.invoke({"content": "Ada prefers the 07:40 train to Lyon"}))
    created_id(manage.invoke({"content": "Ada's badge number is 4411"}))
    found: list[dict[str, Any]] = json.loads(search.invoke({"query": "train to Lyon"}))
    assert found[0]["key"] == first
    assert found[0]["value"] == {"content": "Ada prefers the 07:40 train to Lyon"}
    assert found[0]["namespace"] == list(NAMESPACE)
    assert found[0]["score"] is not None

    updated = manage.invoke(
        {"content": "Ada now takes the 09:10 train", "action": "update", "id": first}
    )
    assert created_id(updated) == first
    item = sqlite_store.get(NAMESPACE, first)
    assert item is not None
    assert item.value == {"content": "Ada now takes the 09:10 train"}

    assert manage.invoke({"action": "delete", "id": first}) == f"Deleted memory {first}"
    assert sqlite_store.get(NAMESPACE, first) is None
    left = json.loads(search.invoke({"query": "badge"}))
    assert [entry["value"]["content"] for entry in left] == ["Ada's badge number is 4411"]


def test_langmems_async_tools_run_the_store_in_a_thread(sqlite_store: TinyMemoryStore) -> None:
    manage = create_manage_memory_tool(NAMESPACE, store=sqlite_store)
    search = create_search_memory_tool(NAMESPACE, store=sqlite_store)

    async def session() -> list[dict[str, Any]]:
        await asyncio.gather(
            *(
                manage.ainvoke({"content": f"fact {word} about Ada"})
                for word in ("one", "two", "three")
            )
        )
        return list(json.loads(await search.ainvoke({"query": "fact two", "limit": 10})))

    found = asyncio.run(session())
    assert found[0]["value"] == {"content": "fact two about Ada"}
    assert len(found) == 3
