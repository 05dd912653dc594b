"""``tinymemory ingest`` end to end: a docs folder into the sqlite engine, then ``recall``.

The command runs as a new user would run it (a fresh home, no configuration),
so the engine is the default one, the installed sqlite plugin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tinymemory as tm


@pytest.fixture
def run(tmp_path: Path) -> object:
    command = Path(sys.executable).parent / "tinymemory"
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    for name in ("TINYMEMORY_CONFIG", "TINYMEMORY_ENGINE", "TINYMEMORY_PLUGINS", "GITHUB_TOKEN"):
        env.pop(name, None)

    def tinymemory(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(command), *args], env=env, cwd=tmp_path, capture_output=True, text=True,
            timeout=60, check=False,
        )  # fmt: skip

    return tinymemory


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "guides").mkdir(parents=True)
    (root / "launch.md").write_text("# Launch\n\nThe launch is on Friday at noon.\n")
    (root / "guides" / "deploy.md").write_text(
        "# Deploy\n\nDeploys go out through the blue pipeline.\n"
    )
    (root / "notes.txt").write_text("Office plants need water on Mondays.\n")
    (root / "scratch.tmp").write_text("ignored\n")
    (root / ".gitignore").write_text("*.tmp\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    return root


def test_ingest_twice_then_recall(run: object, docs: Path) -> None:
    first = run("ingest", str(docs))  # type: ignore[operator]
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == f"ingested 3 items from {docs}: 3 stored, 0 replayed, 1 skipped"
    assert lines[1].startswith(f"skipped: {(docs / 'logo.png').as_posix()}: `logo.png` is png")
    again = run("ingest", str(docs), "--json")  # type: ignore[operator]
    report = json.loads(again.stdout)
    assert (report["stored"], report["replayed"], len(report["skipped"])) == (0, 3, 1)
    answer = run("recall", "when is the launch", "--json")  # type: ignore[operator]
    assert answer.returncode == 0, answer.stderr
    assert "Friday at noon" in answer.stdout
    # The best hit is the deploy guide, whatever title a converter gave it.
    deploy = run("fetch", "blue pipeline", "--json")  # type: ignore[operator]
    best = json.loads(deploy.stdout)["hits"][0]
    assert best["meta"]["file_path"] == (docs / "guides" / "deploy.md").as_posix()


def test_ingest_places_items_at_a_node_and_refuses_a_private_url(run: object, docs: Path) -> None:
    placed = run("ingest", str(docs / "launch.md"), "--at", "team:acme", "--workspace", "w1")  # type: ignore[operator]
    assert placed.stdout.startswith("ingested 1 item from"), placed.stderr
    listed = run("list", "--at", "team:acme", "--reach", "exact", "--json")  # type: ignore[operator]
    (hit,) = json.loads(listed.stdout)["items"]
    assert hit["meta"]["workspace"] == "w1"
    refused = run("ingest", "http://169.254.169.254/latest/meta-data/")  # type: ignore[operator]
    assert refused.returncode == 1
    assert "refused to fetch from `169.254.169.254`" in refused.stderr


def test_ingest_usage_errors(run: object, docs: Path) -> None:
    missing = run("ingest", str(docs / "nope"))  # type: ignore[operator]
    assert missing.returncode == 2
    assert "no such file or folder" in missing.stderr
    wrong = run("ingest", str(docs / "launch.md"), "--include", "*.md")  # type: ignore[operator]
    assert wrong.returncode == 2
    assert "--include is for folders" in wrong.stderr


def test_conversations_and_include(run: object, tmp_path: Path, docs: Path) -> None:
    threads = tmp_path / "threads"
    threads.mkdir()
    (threads / "t1.json").write_text(
        json.dumps(
            {"messages": [{"role": "user", "content": "hi"}, {"role": "ai", "content": "hello"}]}
        )
    )
    done = run("ingest", str(threads), "--reader", "conversations")  # type: ignore[operator]
    assert done.stdout.startswith("ingested 1 item from"), done.stderr
    only = run("ingest", str(docs), "--include", "guides/**", "--json")  # type: ignore[operator]
    assert json.loads(only.stdout)["stored"] == 1
    assert tm.SourceKind.CONVERSATION.value == "conversation"
