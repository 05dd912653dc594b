"""The ``folder`` and ``file`` readers on real folders, and syncing them into an engine."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.plugin import SourceSkip
from tinymemory.testing import registered
from tinymemory_sources.local_files import compile_glob


class PdfConverter:
    """A test converter for a binary format: claims ``%PDF`` data and reads its one text line."""

    name = "test-pdf"

    def sniff(self, data: bytes, name: str | None, mime: str | None) -> bool:
        return data.startswith(b"%PDF-")

    def convert(self, data: bytes, name: str | None, mime: str | None) -> tm.Document:
        return tm.Document(title=None, body=data.split(b"\n", 1)[1].decode(), mime="text/markdown")


class _ConverterPlugin:
    @tm.hookimpl
    def tinymemory_document_converters(self) -> list[PdfConverter]:
        return [PdfConverter()]


@pytest.fixture
def pdf_converter() -> Iterator[None]:
    with registered(_ConverterPlugin(), "test-pdf"):
        yield


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def read_folder(root: Path, **options: object) -> list[tm.StoreItem | SourceSkip]:
    return list(tm.read("folder", options={"path": str(root), **options}))


def paths(found: list[tm.StoreItem | SourceSkip], root: Path) -> list[str]:
    return [
        Path(str(item.meta.file_path)).relative_to(root).as_posix()
        for item in found
        if not isinstance(item, SourceSkip)
    ]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write(
        root,
        {
            "README.md": "# Project\n\nThe launch is on Friday.",
            "src/app.py": "print('hello')\n",
            "src/app.log": "noise",
            "src/keep.log": "kept by a negation",
            "build/out.txt": "built",
            "docs/guide.md": "guide",
            "docs/drafts/wip.md": "draft",
            "docs/.gitignore": "drafts/\n",
            ".gitignore": "*.log\n!keep.log\nbuild/\n",
            ".hidden/secret.md": "hidden",
            ".env": "TOKEN=x",
            "node_modules/lib/index.js": "module",
            "__pycache__/app.pyc": b"\x00\x01",
            "venv/lib/site.py": "venv",
        },
    )
    return root


def test_the_walk_honours_gitignores_hidden_and_tool_folders(tree: Path) -> None:
    found = read_folder(tree)
    assert paths(found, tree) == ["README.md", "docs/guide.md", "src/app.py", "src/keep.log"]
    assert [item for item in found if isinstance(item, SourceSkip)] == []


def test_items_carry_their_metadata(tree: Path) -> None:
    (item,) = read_folder(tree, include="src/*.py", workspace="acme")
    assert isinstance(item, tm.Document)
    meta = item.meta
    assert meta.workspace == "acme"
    assert meta.folder == (tree / "src").as_posix()
    assert meta.file_path == (tree / "src/app.py").as_posix()
    assert meta.language == "python"
    assert meta.source == tm.SourceRef(kind=tm.SourceKind.FILE)
    mtime = os.stat(tree / "src/app.py").st_mtime
    assert meta.observed_at is not None
    assert abs(meta.observed_at.timestamp() - mtime) < 1e-3
    assert item.title == "app.py"
    assert item.body.text == "print('hello')\n"


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("*.md", ["a.md"], ["d/a.md", "a.mdx"]),
        ("**/*.md", ["a.md", "d/a.md", "d/e/a.md"], ["a.txt"]),
        ("docs/**", ["docs/a", "docs/b/c"], ["doc/a"]),
        ("src/?.py", ["src/a.py"], ["src/ab.py", "src/a/b.py"]),
        ("a+b(c).md", ["a+b(c).md"], ["aab(c).md"]),
    ],
)
def test_the_include_glob(pattern: str, matches: list[str], misses: list[str]) -> None:
    compiled = compile_glob(pattern)
    assert all(compiled.fullmatch(path) for path in matches)
    assert not any(compiled.fullmatch(path) for path in misses)


def test_the_include_glob_selects_files(tree: Path) -> None:
    assert paths(read_folder(tree, include="**/*.md"), tree) == ["README.md", "docs/guide.md"]


def test_a_file_over_the_cap_is_a_skip(tree: Path) -> None:
    write(tree, {"big.md": "x" * 2000})
    found = read_folder(tree, max_file_bytes=1000, include="*.md")
    assert paths(found, tree) == ["README.md"]
    (skip,) = [item for item in found if isinstance(item, SourceSkip)]
    assert skip.what == (tree / "big.md").as_posix()
    assert skip.reason == "2000 bytes, over the cap of 1000"


def test_links_are_never_followed(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, {"secret.md": "outside the folder"})
    (tree / "linked.md").symlink_to(outside / "secret.md")
    (tree / "linked-dir").symlink_to(outside, target_is_directory=True)
    found = read_folder(tree)
    texts = [item.body.text for item in found if isinstance(item, tm.Document)]
    assert "outside the folder" not in texts
    skips = sorted(item.what for item in found if isinstance(item, SourceSkip))
    assert skips == [(tree / "linked-dir").as_posix(), (tree / "linked.md").as_posix()]


def test_a_binary_file_nothing_reads_is_a_skip_naming_its_format(
    tree: Path, without_converters: None
) -> None:
    write(tree, {"report.pdf": b"%PDF-1.7\nQuarterly numbers"})
    (skip,) = [item for item in read_folder(tree) if isinstance(item, SourceSkip)]
    assert skip.reason.startswith("`report.pdf` is pdf, which no document converter reads")


def test_an_installed_converter_reads_a_binary_file(tree: Path, pdf_converter: None) -> None:
    write(tree, {"report.pdf": b"%PDF-1.7\nQuarterly numbers"})
    (item,) = read_folder(tree, include="*.pdf")
    assert isinstance(item, tm.Document)
    assert (item.body.text, item.title) == ("Quarterly numbers", "report.pdf")
    assert item.meta.source.kind is tm.SourceKind.FILE


def test_bad_options_are_refused_before_reading(tmp_path: Path) -> None:
    with pytest.raises(tm.InvalidRequest, match="takes no option `glob`"):
        tm.read("folder", options={"path": str(tmp_path), "glob": "*"})
    with pytest.raises(tm.InvalidRequest, match="needs the option `path`"):
        tm.read("folder", options={})
    with pytest.raises(tm.InvalidRequest, match="is not a folder"):
        tm.read("folder", options={"path": str(tmp_path / "missing")})
    with pytest.raises(tm.InvalidRequest, match="max_file_bytes"):
        tm.read("folder", options={"path": str(tmp_path), "max_file_bytes": 0})


def test_the_file_reader(tree: Path) -> None:
    (item,) = tm.read("file", options={"path": str(tree / "README.md"), "workspace": "acme"})
    assert isinstance(item, tm.Document)
    assert item.meta.source == tm.SourceRef(kind=tm.SourceKind.FILE)
    assert (item.meta.file_path, item.meta.language) == (
        (tree / "README.md").as_posix(),
        "markdown",
    )
    (skip,) = tm.read("file", options={"path": str(tree / "README.md"), "max_file_bytes": 5})
    assert isinstance(skip, SourceSkip)
    (tree / "link.md").symlink_to(tree / "README.md")
    with pytest.raises(tm.InvalidRequest, match="not a regular file"):
        tm.read("file", options={"path": str(tree / "link.md")})


def test_resyncing_stores_nothing_new_and_a_change_is_stored_anew(tree: Path) -> None:
    write(tree, {"big.md": "x" * 2000})
    engine = tm.build_engine("reference")
    options = {"path": str(tree), "max_file_bytes": 1000}
    first = tm.sync(engine, tm.read("folder", options=options))
    assert (first.stored, first.replayed) == (4, 0)
    assert [skip.reason for skip in first.skipped] == [
        f"{(tree / 'big.md').as_posix()}: 2000 bytes, over the cap of 1000"
    ]
    again = tm.sync(engine, tm.read("folder", options=options))
    assert (again.stored, again.replayed, len(again.skipped)) == (0, 4, 1)
    os.utime(tree / "src/app.py", (1, 1))  # a new mtime alone is no change
    (tree / "docs/guide.md").write_text("guide, second edition", encoding="utf-8")
    changed = tm.sync(engine, tm.read("folder", options=options))
    assert (changed.stored, changed.replayed) == (1, 3)


def test_a_file_is_one_item_whichever_root_or_reader_reached_it(tree: Path) -> None:
    """``ingest docs/notes`` then ``ingest .`` (or the file alone): the same ids, all replays."""
    engine = tm.build_engine("reference")
    first = tm.sync(engine, tm.read("folder", options={"path": str(tree / "docs")}))
    assert first.stored > 0
    wider = tm.sync(engine, tm.read("folder", options={"path": str(tree)}))
    assert wider.replayed == first.stored  # every file of docs/ is already held
    alone = tm.sync(engine, tm.read("file", options={"path": str(tree / "docs" / "guide.md")}))
    assert (alone.stored, alone.replayed) == (0, 1)
    (tree.parent / "via").symlink_to(tree)  # a root reached through a link names the same files
    linked = tm.sync(engine, tm.read("folder", options={"path": str(tree.parent / "via")}))
    assert linked.stored == 0
