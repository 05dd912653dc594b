"""``sniff`` decides in the contract's order: zip parts, %PDF-, mime, name, doctype, UTF-8."""

from __future__ import annotations

import io
import zipfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory_documents import DocumentFormat, language_for_path, sniff

F = DocumentFormat


def _zip(*names: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as package:
        for name in names:
            package.writestr(name, "<x/>")
    return out.getvalue()


@pytest.mark.parametrize(
    ("data", "name", "mime", "expected"),
    [
        # (1) a zip: its part names decide, over a name or mime saying otherwise
        (_zip("[Content_Types].xml", "word/document.xml"), "deck.pptx", None, F.DOCX),
        (_zip("xl/workbook.xml"), "report.docx", "application/pdf", F.XLSX),
        (_zip("ppt/presentation.xml"), None, None, F.PPTX),
        (_zip("other/file.txt"), "book.xlsx", None, F.XLSX),  # no office part: the name
        (_zip("other/file.txt"), None, None, F.DOCX),  # nothing at all: docx
        (b"PK\x03\x04broken", "deck.pptx", None, F.PPTX),
        # (2) %PDF- over any name or mime
        (b"%PDF-1.7\n", "notes.md", "text/html", F.PDF),
        # (3) the declared mime, parameters and case ignored
        (b"plain words", "page.py", "text/markdown; charset=utf-8", F.MARKDOWN),
        (b"x", None, "TEXT/HTML", F.HTML),
        (b"x", None, "application/xhtml+xml", F.HTML),
        (b"x", None, "text/x-source", F.CODE),
        (b"x", None, "application/vnd.ms-excel.sheet.macroEnabled.12", F.XLSX),
        (b"x", "a.md", "application/msword", F.MARKDOWN),  # legacy Word: not claimed, the name
        # (4) the name: code first, then the extensions
        (b"cmake_minimum_required()", "CMakeLists.txt", None, F.CODE),
        (b"FROM debian", "Dockerfile", None, F.CODE),
        (b"x = 1", "src/tool.py", None, F.CODE),
        (b"# T", "README.mdown", None, F.MARKDOWN),
        (b"log line", "server.log", None, F.PLAIN_TEXT),
        (b"<p>x</p>", "page.htm", None, F.HTML),
        (b"a,b", "table.csv", None, F.CSV),
        (b"x", "book.xlsm", None, F.XLSX),
        # (5) a doctype or <html> in the first 512 bytes
        (b"  \n<!DOCTYPE html><p>x", None, None, F.HTML),
        (b"<HTML><body>x", "page.unknown-ext", None, F.HTML),
        (b" " * 600 + b"<html>", None, None, F.PLAIN_TEXT),
        # (6) UTF-8 text, else unknown
        ("caf\u00e9 \u2014 ok".encode(), None, None, F.PLAIN_TEXT),
        (
            "Fran\u00e7ois na\u00efve r\u00e9sum\u00e9 ".encode("latin-1") * 9,
            None,
            None,
            F.PLAIN_TEXT,
        ),
        (bytes(range(1, 256)), None, None, F.UNKNOWN),
        (b"a\x00b", None, None, F.UNKNOWN),
        (b"", None, None, F.UNKNOWN),
        (b"\x89PNG\r\n\x1a\n", "image.png", "image/png", F.UNKNOWN),
    ],
)
def test_sniff_follows_the_contracts_order(
    data: bytes, name: str | None, mime: str | None, expected: DocumentFormat
) -> None:
    assert sniff(data, name, mime) is expected


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("main.rs", "rust"),
        ("a/b/tool.PY", "python"),
        ("app.tsx", "typescript"),
        ("config.yml", "yaml"),
        ("data.json", "json"),
        ("Makefile", "makefile"),
        ("sub/CMakeLists.txt", "cmake"),
        ("Containerfile", "dockerfile"),
        ("Gemfile", "ruby"),
        ("notes.txt", None),
        (".py", None),
        ("README", None),
    ],
)
def test_language_for_path_reads_a_fixed_table(path: str, language: str | None) -> None:
    assert language_for_path(path) == language


def test_every_format_has_its_canonical_mime() -> None:
    assert F.MARKDOWN.mime == "text/markdown"
    assert F.CODE.mime == "text/x-source"
    assert F.UNKNOWN.mime == "application/octet-stream"
    assert F.DOCX.mime.endswith("wordprocessingml.document")


@given(st.binary(max_size=300), st.sampled_from([None, "a.txt", "b.pdf", "c.docx", "d.rs"]))
def test_sniff_always_answers_a_format(data: bytes, name: str | None) -> None:
    assert isinstance(sniff(data, name, None), DocumentFormat)
