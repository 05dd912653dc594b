"""Hostile files end in InvalidRequest within seconds and bounded memory.

Each file is built here, written to disk and converted in a child process
that measures the time of each conversion and its own peak resident memory
(the libraries imported first, so the peak is the files' doing). The child
converts every file in turn: its peak bounds each one's.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from fixture_files import (
    BILLION_LAUGHS,
    billion_laughs_docx,
    deep_docx,
    encrypted_pdf,
    lying_size_docx,
    many_elements_docx,
    many_parts_docx,
    pdf_declaring_pages,
    prose_docx,
    rewritten,
    sample_xlsx,
    text_pdf,
    xlsx_declaring,
    xlsx_of_cells,
    xml_under_another_name_docx,
    zip_bomb_docx,
)

import tinymemory as tm
from tinymemory_documents import Limits, OfficeConverter

#: Seconds and resident megabytes no hostile file may pass (perf-security-notes G11).
MAX_SECONDS = 5.0
MAX_PEAK_MB = 300

CHILD = r"""
import json, resource, sys, time
import tinymemory as tm
import docx, openpyxl, pptx, pypdf  # imported first: their memory is not the files'
tm.convert(b"warm up", name="a.txt")  # the plugins load once, before any file is timed
results = {}
for path, name in json.loads(sys.argv[1]):
    data = open(path, "rb").read()
    start = time.perf_counter()
    try:
        tm.convert(data, name=name)
        outcome = ["converted", ""]
    except tm.TinyMemoryError as error:
        outcome = [type(error).__name__, error.message]
    results[name] = [*outcome, time.perf_counter() - start]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"results": results, "peak_mb": peak}))
"""

HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "zip-bomb.docx": (
        lambda: zip_bomb_docx(300),
        r"unpacks to 299,\d{3},\d{3} bytes, over the 67,108,864-byte limit",
    ),
    "ratio-bomb.docx": (lambda: zip_bomb_docx(20), r"is compressed \d+ to 1, over the limit"),
    "lying-directory.docx": (lying_size_docx, r"zip entry `word/document.xml` is damaged"),
    "billion-laughs.docx": (billion_laughs_docx, r"declares a DTD; entity expansion is refused"),
    "truncated.pdf": (
        lambda: text_pdf([["some text"]] * 3)[:400],
        r"is a truncated PDF \(it has no end-of-file marker\)",
    ),
    "encrypted.pdf": (encrypted_pdf, r"is an encrypted PDF; decrypt it first"),
    "million-pages.pdf": (
        lambda: pdf_declaring_pages(1_000_000),
        r"declares 1,000,000 pages, over the limit of 2,000",
    ),
    "two-million-cells.xlsx": (
        lambda: xlsx_declaring("A1:T100000"),
        r"declares 2,000,000 cells, over the limit of 1,000,000",
    ),
    # Under every limit of the zip directory (32 MiB file, 64 MiB unpacked, ratio 4 to 1),
    # yet more XML than a library may hold as a tree.
    "xml-heavy.docx": (
        lambda: prose_docx(60),
        r"holds over 16,777,216 bytes of XML, the limit \(at part `word/document.xml`\)",
    ),
    "many-elements.docx": (
        lambda: many_elements_docx(400_000),
        r"holds over 300,000 XML elements, the limit \(at part `word/document.xml`\)",
    ),
    "deep-nesting.docx": (
        lambda: deep_docx(3_000),
        r"part `word/document.xml` nests XML elements over 256 deep, the limit",
    ),
    "many-parts.docx": (
        lambda: many_parts_docx(5_000, 4_000),
        r"holds over 16,777,216 bytes of XML, the limit \(at part `customXml/extra\d+\.xml`\)",
    ),
    "xml-under-another-name.docx": (
        lambda: xml_under_another_name_docx(400_000),
        r"holds over 300,000 XML elements, the limit \(at part `word/media/blob\.bin`\)",
    ),
    "not-a-zip.docx": (lambda: b"PK\x03\x04" + b"\x00" * 200, r"is not a readable zip package"),
    "garbage-part.xlsx": (
        lambda: rewritten(sample_xlsx(sheets=1), {"xl/workbook.xml": lambda _: b"<broken"}),
        r"could not be read as xlsx: the file is damaged",
    ),
}


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    folder = tmp_path_factory.mktemp("hostile")
    files = []
    for name, (build, _) in HOSTILE.items():
        path = folder / name
        path.write_bytes(build())
        files.append((str(path), name))
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_file_is_refused_fast_with_a_clear_message(
    measured: dict[str, object], name: str
) -> None:
    kind, message, seconds = measured["results"][name]  # type: ignore[index]
    assert kind == "InvalidRequest", message
    assert message.startswith(f"`{name}`")
    assert re.search(HOSTILE[name][1], message), message
    assert seconds < MAX_SECONDS


def test_no_hostile_file_grows_memory_past_the_bound(measured: dict[str, object]) -> None:
    assert measured["peak_mb"] < MAX_PEAK_MB  # type: ignore[operator]


def test_the_zip_bombs_are_refused_before_any_parse(measured: dict[str, object]) -> None:
    for name in ("zip-bomb.docx", "ratio-bomb.docx"):
        assert measured["results"][name][2] < 0.1  # type: ignore[index]


def test_a_sheet_holding_more_cells_than_it_declares_stops_at_the_limit() -> None:
    def declare_one_cell(xml: bytes) -> bytes:
        start = xml.index(b'<dimension ref="') + len(b'<dimension ref="')
        return xml[:start] + b"A1" + xml[xml.index(b'"', start) :]

    data = xlsx_of_cells(rows=200, columns=10)
    lying = rewritten(data, {"xl/worksheets/sheet1.xml": declare_one_cell})
    converter = OfficeConverter(Limits(max_cells=1_000))
    with pytest.raises(tm.InvalidRequest, match="holds more cells than the limit allows"):
        tm.convert(lying, name="grid.xlsx", converters=[converter])
    # Under the limit, all it holds is read, not the one cell it declares.
    assert (
        tm.convert(lying, name="grid.xlsx").body.text == tm.convert(data, name="g.xlsx").body.text
    )
    assert tm.convert(data, name="grid.xlsx").body.text.count("\n") == 200 + 2


def test_billion_laughs_in_a_sheet_is_refused_too() -> None:
    def attack(xml: bytes) -> bytes:
        return BILLION_LAUGHS + xml.split(b"?>", 1)[-1]

    data = rewritten(sample_xlsx(sheets=1), {"xl/worksheets/sheet1.xml": attack})
    with pytest.raises(tm.InvalidRequest, match=r"sheet1\.xml` declares a DTD"):
        tm.convert(data, name="laughs.xlsx")


def test_the_deadline_stops_a_long_conversion() -> None:
    converter = OfficeConverter(Limits(deadline_seconds=1e-9))
    with pytest.raises(tm.InvalidRequest, match=r"took over 1e-09 s to convert"):
        tm.convert(text_pdf([["page"]] * 3), name="slow.pdf", converters=[converter])


def test_a_library_failure_names_no_content_of_the_file(tmp_path: Path) -> None:
    secret = b"<w:document>password=hunter2"
    data = rewritten(
        (Path(__file__).parent / "office_suite" / "report.docx").read_bytes(),
        {"word/document.xml": lambda _: secret},
    )
    with pytest.raises(tm.InvalidRequest) as caught:
        tm.convert(data, name="broken.docx")
    assert "hunter2" not in str(caught.value)
    assert "could not be read as docx" in caught.value.message


def test_the_xml_heavy_file_is_under_every_limit_of_its_zip_directory() -> None:
    data = prose_docx(60)
    limits = Limits()
    assert 14_000_000 < len(data) < 17_000_000 < limits.max_bytes
    with zipfile.ZipFile(io.BytesIO(data)) as package:
        unpacked = sum(entry.file_size for entry in package.infolist())
        xml = package.getinfo("word/document.xml")
    assert 60_000_000 < unpacked < limits.max_unzipped_bytes
    assert xml.file_size / xml.compress_size < limits.max_ratio


def test_xml_just_within_the_limits_converts() -> None:
    # Beside the body, the sample's parts hold 18,632 elements; the body wraps its own in
    # two (document, body) and ends with a paragraph of text (three).
    elements = 18_632 + 2 + 4_000 + 3
    # The text of 12 nested tables is 2 + 3 * 12 + 3 deep.
    depth = 2 + 36 + 3
    converter = OfficeConverter(Limits(max_xml_elements=elements, max_xml_depth=depth))
    for data in (many_elements_docx(4_000), deep_docx(36)):
        assert "the end" in tm.convert(data, name="within.docx", converters=[converter]).body.text
    converter = OfficeConverter(Limits(max_xml_elements=elements - 1, max_xml_depth=depth - 1))
    with pytest.raises(tm.InvalidRequest, match=f"over {elements - 1:,} XML elements"):
        tm.convert(many_elements_docx(4_000), name="over.docx", converters=[converter])
    with pytest.raises(tm.InvalidRequest, match=f"over {depth - 1} deep"):
        tm.convert(deep_docx(36), name="over.docx", converters=[converter])
