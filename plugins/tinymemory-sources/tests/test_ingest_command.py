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
    (root / "bad.txt").write_bytes(b"\x01\x02caf\xe9 au lait")  # control bytes: no text
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


LATIN_1 = (
    "Dieses Paket enth\u00e4lt die Dokumentation f\u00fcr das Programm. Die \u00dcbersetzung "
    "wurde von J\u00fcrgen M\u00fcller erstellt.\nBitte melden Sie Fehler an die Betreuer. "
    "Gr\u00fc\u00dfe aus K\u00f6ln.\nCopyright 1998 Fran\u00e7ois Ren\u00e9, "
    "caf\u00e9 na\u00efve.\n"
)


def stand_in_tree(root: Path) -> dict[str, str]:
    """A folder as a system's doc folder holds it: compressed files, Latin-1, archives, a bomb.

    Returns every file's report path (relative to ``root``'s parent) -> the status expected.
    """
    import bz2
    import gzip
    import io
    import lzma
    import tarfile
    import zipfile

    import zstandard

    root.mkdir()
    (root / "pkg").mkdir()
    (root / "pkg" / "changelog.Debian.gz").write_bytes(
        gzip.compress(b"pkg (1.0) fixed the parser\n")
    )
    (root / "pkg" / "NEWS.bz2").write_bytes(bz2.compress(b"# News\n\nVersion 2 reads xz.\n"))
    (root / "pkg" / "README.xz").write_bytes(lzma.compress(b"Readme of the xz package.\n"))
    (root / "pkg" / "TODO.zst").write_bytes(zstandard.compress(b"Todo: zstd support.\n"))
    (root / "pkg" / "copyright").write_bytes(LATIN_1.encode("latin-1"))
    page = f"<html><body><h1>Handbuch</h1><p>{LATIN_1}</p></body></html>"
    (root / "pkg" / "manual.html").write_bytes(page.encode("latin-1"))
    (root / "pkg" / "bomb.gz").write_bytes(gzip.compress(b"\0" * (40 * 1024 * 1024)))
    held = io.BytesIO()
    with zipfile.ZipFile(held, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("examples/one.md", "# One\n\nThe first example.\n")
        archive.writestr("examples/two.txt", "The second example.\n")
        archive.writestr("../escape.txt", "never read\n")
    (root / "pkg" / "examples.zip").write_bytes(held.getvalue())
    held = io.BytesIO()
    with tarfile.open(fileobj=held, mode="w:gz") as archive:
        data = b"A file inside a tarball.\n"
        info = tarfile.TarInfo("inner/notes.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    (root / "pkg" / "extra.tar.gz").write_bytes(held.getvalue())
    (root / "pkg" / "noise.bin").write_bytes(bytes(range(256)))
    stored = "stored"
    return {
        "doc/pkg/changelog.Debian.gz": stored,
        "doc/pkg/NEWS.bz2": stored,
        "doc/pkg/README.xz": stored,
        "doc/pkg/TODO.zst": stored,
        "doc/pkg/copyright": stored,
        "doc/pkg/manual.html": stored,
        "doc/pkg/bomb.gz": "skipped",
        "doc/pkg/examples.zip/examples/one.md": stored,
        "doc/pkg/examples.zip/examples/two.txt": stored,
        "doc/pkg/examples.zip/../escape.txt": "skipped",
        "doc/pkg/extra.tar.gz/inner/notes.txt": stored,
        "doc/pkg/noise.bin": "skipped",
    }


def test_a_doc_folder_is_read_through_its_wrappers_encodings_and_archives(
    run: object, tmp_path: Path
) -> None:
    expected = stand_in_tree(tmp_path / "doc")
    done = run("ingest", str(tmp_path / "doc"), "--json")  # type: ignore[operator]
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    prefix = f"{tmp_path}/"
    status = {item["what"].removeprefix(prefix): item["status"] for item in report["items"]}
    assert status == expected
    reasons = {skip["what"].removeprefix(prefix): skip["reason"] for skip in report["skipped"]}
    assert "decompression bomb" in reasons["doc/pkg/bomb.gz"]
    assert "outside the archive" in reasons["doc/pkg/examples.zip/../escape.txt"]
    assert "which no document converter reads" in reasons["doc/pkg/noise.bin"]

    # On a pipe: the total of the walk first, no status line; each entry's line on stdout.
    again = run("ingest", str(tmp_path / "doc"))  # type: ignore[operator]
    assert again.stderr == "ingesting folder: 10 entries\n"
    assert len(again.stdout.splitlines()) == len(expected) + 1
    lone = run("ingest", str(tmp_path / "doc" / "pkg" / "noise.bin"))  # type: ignore[operator]
    assert lone.returncode == 1  # everything given was skipped
    assert "nothing was stored" in lone.stderr

    found = run("fetch", "Handbuch", "--json")  # type: ignore[operator]
    assert "J\u00fcrgen M\u00fcller" in found.stdout
    found = run("fetch", "fixed the parser", "--json")  # type: ignore[operator]
    assert "changelog.Debian" in found.stdout
