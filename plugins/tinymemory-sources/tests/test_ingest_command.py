"""``tinymemory ingest`` end to end: a docs folder into the sqlite engine, then ``recall``.

The command runs as a new user would run it (a fresh home, no configuration),
so the engine is the default one, the installed sqlite plugin.
"""

from __future__ import annotations

import json
import os
import shutil
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
    assert lines[:2] == ["stored    docs/guides/deploy.md", "stored    docs/launch.md"]
    assert lines[2].startswith("skipped   docs/logo.png: `logo.png` is png, which no document")
    assert lines[3:] == [
        "stored    docs/notes.txt",
        f"ingested 3 items from {docs}: 3 stored, 0 replayed, 1 skipped",
    ]
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
    assert placed.stdout.splitlines()[-1].startswith("ingested 1 item from"), placed.stderr
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
    assert "--include is an option of `folder`, not of `file`" in wrong.stderr


def test_conversations_and_include(run: object, tmp_path: Path, docs: Path) -> None:
    threads = tmp_path / "threads"
    threads.mkdir()
    (threads / "t1.json").write_text(
        json.dumps(
            {"messages": [{"role": "user", "content": "hi"}, {"role": "ai", "content": "hello"}]}
        )
    )
    done = run("ingest", str(threads), "--reader", "conversations")  # type: ignore[operator]
    assert done.stdout.splitlines()[-1].startswith("ingested 1 item from"), done.stderr
    only = run("ingest", str(docs), "--include", "guides/**", "--json")  # type: ignore[operator]
    assert json.loads(only.stdout)["stored"] == 1
    assert tm.SourceKind.CONVERSATION.value == "conversation"


def installed_package(name: str) -> Path:
    """The folder of an installed package (its source as pip put it)."""
    module = __import__(name)
    return Path(module.__file__).parent  # type: ignore[arg-type]


#: Empty files of every kind a folder holds: markers, licenses, notes, code, office files.
EMPTY = ("py.typed", "LICENSE", "empty.md", "empty.py", "empty.docx", "empty.pdf",
         "empty.pptx", "empty.xlsx", "empty.csv", "empty.html", "__init__.py")  # fmt: skip


def test_a_real_folder_is_ingested_whole_with_every_skip_named(run: object, tmp_path: Path) -> None:
    """An installed package's source, empty files of every kind, whitespace, binary data."""
    root = tmp_path / "project"
    shutil.copytree(installed_package("attrs"), root / "attrs",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    for name in EMPTY:
        (root / "empty" / name).parent.mkdir(exist_ok=True)
        (root / "empty" / name).write_bytes(b"")
    (root / "blank.txt").write_text("  \n\t\n\n")
    (root / "noise.bin").write_bytes(bytes(range(256)))
    (root / "bad.txt").write_bytes(b"caf\xe9 au lait")  # Latin-1, not UTF-8
    every = {path.relative_to(tmp_path).as_posix() for path in root.rglob("*") if path.is_file()}
    readable = {
        name for name in every
        if (tmp_path / name).read_bytes().strip() and name.startswith("project/attrs/")
    }  # fmt: skip

    done = run("ingest", str(root), "--json")  # type: ignore[operator]
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    status = {Path(item["what"]).relative_to(tmp_path).as_posix(): item["status"]
              for item in report["items"]}  # fmt: skip
    assert set(status) == every  # every file is in the report, once
    assert {name for name, said in status.items() if said == "stored"} == readable
    skipped = {Path(skip["what"]).relative_to(tmp_path).as_posix(): skip["reason"]
               for skip in report["skipped"]}  # fmt: skip
    assert set(skipped) == every - readable
    assert all(reason.strip() for reason in skipped.values())
    assert (report["stored"], report["complete"], report["stopped"]) == (len(readable), True, None)

    text = run("ingest", str(root))  # type: ignore[operator]
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    for name, reason in skipped.items():
        assert f"skipped   {name}: {reason}" in lines
    assert lines[-1] == (
        f"ingested {len(readable)} items from {root}: 0 stored, {len(readable)} replayed, "
        f"{len(skipped)} skipped"
    )
