"""The memory a LangGraph graph writes is TinyMemory's: ``tinymemory fetch`` (another process,
the same sqlite file) and the web view read it."""

from __future__ import annotations

import html
import json
from pathlib import Path

import tinymemory as tm
from tinymemory.testing import Cli, Sandbox
from tinymemory_langgraph import TinyMemoryStore
from tinymemory_ui import Guard, create_app

VALUE = {"text": "Ada prefers the 07:40 train to Lyon", "kind": "travel"}


def test_tinymemory_fetch_reads_what_the_store_wrote(
    sqlite_store: TinyMemoryStore, sqlite_file: Path, tmp_path: Path
) -> None:
    sqlite_store.put(("users", "ada", "memories"), "train", VALUE)
    sandbox = Sandbox(tmp_path / "home", extra={"TINYMEMORY_SQLITE_PATH": str(sqlite_file)})
    sandbox.folder.mkdir()
    done = Cli(sandbox).run(
        "fetch", "train to Lyon", "--at", "ws:users/ws:ada/ws:memories",
        "--reach", "exact", "--json",
    )  # fmt: skip
    assert done.exit_code == 0, done.stderr
    [hit] = json.loads(done.stdout)["hits"]
    assert hit["kind"] == "document"
    assert hit["text"] == "# train\n\n" + json.dumps(VALUE, ensure_ascii=False)
    assert hit["meta"]["namespace"] == "ws:users/ws:ada/ws:memories"
    assert "langgraph:key=train" in hit["meta"]["tags"]


def test_the_web_view_lists_and_shows_it(sqlite_store: TinyMemoryStore) -> None:
    sqlite_store.put(("users", "ada", "memories"), "train", VALUE)
    guard = Guard(port=38519, writes=False)
    client = create_app(sqlite_store.engine, guard).test_client()
    base = f"http://127.0.0.1:{guard.port}"
    assert client.get(f"/?token={guard.token}", base_url=base).status_code == 303
    [item_id] = [hit.id for hit in sqlite_store.engine.list(tm.ListRequest()).items]
    found = client.get("/search?q=train+to+Lyon", base_url=base)
    assert found.status_code == 200
    assert f'href="/items/{item_id}"' in found.text  # recall cites it
    tree = client.get("/tree", base_url=base)
    assert "/search?at=ws:users/ws:ada/ws:memories&amp;reach=subtree" in tree.text
    shown = client.get(f"/items/{item_id}", base_url=base)
    assert shown.status_code == 200
    assert json.dumps(VALUE, ensure_ascii=False) in html.unescape(shown.text)
