"""``tinymemory.files``: reads held to a bound before anything is held, and whole replacements."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import lzma
import os
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.files import (
    MAX_FILE_BYTES,
    MAX_RATIO,
    RATIO_FLOOR_BYTES,
    LineTooLong,
    archive_members,
    bounded_lines,
    decode_text,
    is_archive,
    read_file,
    read_line,
    read_stream,
    replacing,
    unwrap,
)

GIB = 1024**3

# The child reads a 1 GiB sparse file every way a file comes in, then reports
# how far its peak resident memory rose above what it was before the reads.
CHILD = r"""
import json, resource, sys
from click.testing import CliRunner
import tinymemory as tm
from tinymemory._cli.main import cli
path = sys.argv[1]
runner = CliRunner()
runner.invoke(cli, ["convert", "--help"])  # the CLI loads before the baseline
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
results = {}
for args in (["convert", path], ["store", "--file", path], ["import", path]):
    done = runner.invoke(cli, args)
    results[args[0]] = [done.exit_code, done.stderr]
try:
    tm.convert(path)
    results["api"] = ["converted", ""]
except tm.TinyMemoryError as error:
    results["api"] = [type(error).__name__, error.message]
with open(path, "rb") as stream:
    done = runner.invoke(cli, ["store", "-"], input=stream)
    results["stdin"] = [done.exit_code, done.stderr]
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"results": results, "growth_mb": (peak - before) / 1024}))
"""


@pytest.fixture(scope="module")
def huge_file_read(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    home = tmp_path_factory.mktemp("home")
    path = home / "huge.txt"
    with path.open("wb") as handle:
        handle.truncate(GIB)  # sparse: a gigabyte of NUL bytes that takes no disk
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "TINYMEMORY_ENGINE": "reference",
        "PATH": os.environ.get("PATH", ""),
    }
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env=env,
    )
    return json.loads(done.stdout.splitlines()[-1])  # type: ignore[no-any-return]


def test_a_gigabyte_file_is_refused_by_its_size_holding_none_of_it(
    huge_file_read: dict[str, object],
) -> None:
    results = huge_file_read["results"]
    assert isinstance(results, dict)
    limit = f"is 1,073,741,824 bytes, over the {MAX_FILE_BYTES:,}-byte limit"
    for command in ("convert", "store"):
        status, stderr = results[command]
        assert status == 1, stderr
        assert stderr.startswith("tinymemory: invalid request: `"), stderr
        assert limit in stderr
    assert results["api"][0] == "InvalidRequest"
    assert limit in results["api"][1]
    status, stderr = results["import"]
    assert status == 1
    assert "line 1 is over the" in stderr
    status, stderr = results["stdin"]
    assert status == 1
    assert "stdin holds more than the" in stderr


def test_reading_a_gigabyte_file_grows_memory_by_little(huge_file_read: dict[str, object]) -> None:
    growth = huge_file_read["growth_mb"]
    assert isinstance(growth, float)
    assert growth < 100


def test_a_file_at_the_bound_is_read_and_one_byte_more_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"x" * 100)
    assert read_file(path, 100) == b"x" * 100
    with pytest.raises(tm.InvalidRequest, match=r"is 100 bytes, over the 99-byte limit"):
        read_file(path, 99)


def test_what_is_not_a_regular_file_is_refused_before_any_read(tmp_path: Path) -> None:
    with pytest.raises(tm.InvalidRequest, match=r"is not a regular file"):
        read_file(tmp_path)
    with pytest.raises(tm.InvalidRequest, match=r"is not a regular file"):
        read_file("/dev/zero")
    with pytest.raises(tm.InvalidRequest, match=r"cannot be read: No such file or directory"):
        read_file(tmp_path / "missing.txt")


@given(data=st.binary(max_size=300), bound=st.integers(min_value=0, max_value=300))
def test_a_stream_is_read_whole_exactly_when_it_is_within_the_bound(
    data: bytes, bound: int
) -> None:
    stream = io.BytesIO(data)
    if len(data) <= bound:
        assert read_stream(stream, bound) == data
    else:
        with pytest.raises(tm.InvalidRequest, match=f"holds more than the {bound:,}-byte limit"):
            read_stream(stream, bound)
        assert stream.tell() <= bound + 1


@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"") + b"\n")),
    last=st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
    bound=st.integers(min_value=1, max_value=45),
)
def test_lines_are_yielded_as_they_are_until_one_is_over_the_bound(
    lines: list[bytes], last: bytes, bound: int
) -> None:
    every = [*lines, last] if last else lines
    stream = io.BytesIO(b"".join(every))
    over = next((n for n, line in enumerate(every, start=1) if len(line) > bound), None)
    if over is None:
        assert list(bounded_lines(stream, bound)) == every
        return
    read: list[bytes] = []
    with pytest.raises(tm.InvalidRequest, match=f"line {over} is over the {bound:,}-byte"):
        read.extend(bounded_lines(stream, bound))
    assert read == every[: over - 1]


def test_a_replacement_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    target.chmod(0o640)

    def stopped_half_way() -> None:
        with replacing(target) as handle:
            handle.write("half")
            raise RuntimeError("stopped")

    with pytest.raises(RuntimeError):
        stopped_half_way()
    assert target.read_text() == "old\n"
    assert [path.name for path in tmp_path.iterdir()] == ["out.jsonl"]
    with replacing(target) as handle:
        handle.write("new\n")
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640
    fresh = tmp_path / "fresh.txt"
    with replacing(fresh) as handle:
        handle.write("private")
    assert fresh.stat().st_mode & 0o777 == 0o600


def test_a_replacement_that_cannot_be_made_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "missing" / "out.txt"
    with (
        pytest.raises(tm.InvalidRequest, match=r"cannot be written: No such file or directory"),
        replacing(missing),
    ):
        pass


@given(
    lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"") + b"\n")),
    bound=st.integers(min_value=1, max_value=45),
)
def test_a_line_over_the_bound_is_skipped_whole_and_the_next_is_read(
    lines: list[bytes], bound: int
) -> None:
    stream = io.BytesIO(b"".join(lines))
    for line in lines:
        if len(line) <= bound:
            assert read_line(stream, bound) == line
        else:
            with pytest.raises(LineTooLong):
                read_line(stream, bound)
    assert read_line(stream, bound) == b""


# --- what a file holds: wrappers, encodings, archives ---------------------------------------

TEXT = b"# Changes\n\nThe parser reads every wrapper.\n" * 20


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return bytes(zstandard.compress(data))


@pytest.mark.parametrize(
    ("compress", "name", "inner", "wrapper"),
    [
        (gzip.compress, "NEWS.gz", "NEWS", "gzip"),
        (bz2.compress, "NEWS.md.bz2", "NEWS.md", "bzip2"),
        (lzma.compress, "notes.txt.xz", "notes.txt", "xz"),
        (_zstd, "notes.txt.zst", "notes.txt", "zstd"),
        (lambda data: gzip.compress(gzip.compress(data)), "x.md.gz.gz", "x.md", "gzip"),
        (gzip.compress, "bundle.tgz", "bundle.tar", "gzip"),
    ],
)
def test_a_wrapper_is_opened_to_what_it_holds(
    compress: Callable[[bytes], bytes], name: str, inner: str, wrapper: str
) -> None:
    held = unwrap(compress(TEXT), name, max_bytes=1 << 20)
    assert (held.data, held.name, held.wrappers[0]) == (TEXT, inner, wrapper)


def test_convert_reads_a_compressed_file_as_what_it_holds() -> None:
    text = b"The parser reads every wrapper.\n" * 20
    document = tm.convert(gzip.compress(text), name="changes.txt.gz")
    assert (document.title, document.body.text) == ("changes.txt", text.decode())


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress, _zstd])
def test_a_decompression_bomb_is_refused_by_its_ratio_before_it_is_opened_whole(
    compress: Callable[[bytes], bytes],
) -> None:
    bomb = compress(b"\0" * (RATIO_FLOOR_BYTES * 8))
    assert len(bomb) * MAX_RATIO < RATIO_FLOOR_BYTES * 8  # the case is a bomb by the rule
    with pytest.raises(tm.InvalidRequest, match=r"`b\.gz` is a decompression bomb"):
        unwrap(bomb, "b.gz", max_bytes=RATIO_FLOOR_BYTES * 100)


def test_a_wrapper_holding_more_than_the_bound_is_refused_at_the_bound() -> None:
    data = os.urandom(200_000)  # incompressible: no bomb, just too much
    with pytest.raises(tm.InvalidRequest, match="more than the 100,000-byte limit"):
        unwrap(gzip.compress(data), "r.gz", max_bytes=100_000)
    assert unwrap(gzip.compress(data), "r.gz", max_bytes=200_000).data == data  # the exact bound


def test_broken_compressed_data_is_an_invalid_request() -> None:
    with pytest.raises(tm.InvalidRequest, match=r"`t\.gz` is broken gzip data"):
        unwrap(gzip.compress(TEXT)[:30], "t.gz", max_bytes=1 << 20)


def _zip(entries: dict[str, bytes]) -> bytes:
    held = io.BytesIO()
    with zipfile.ZipFile(held, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return held.getvalue()


def test_a_zip_is_read_member_by_member_within_the_limits() -> None:
    data = _zip(
        {
            "a.md": TEXT,
            "../up.txt": b"x",
            "big.txt": os.urandom(5000),
            "zeros.bin": b"\0" * (RATIO_FLOOR_BYTES * 2),
        }
    )
    assert is_archive(data, "docs.zip")
    members = {m.name: m.data if m.data is not None else m.skipped for m in archive_members(
        data, max_bytes=4000
    )}  # fmt: skip
    assert members["a.md"] == TEXT
    assert "outside the archive" in str(members["../up.txt"])
    assert "over the 4,000-byte limit" in str(members["big.txt"])
    assert "over the 4,000-byte limit" in str(members["zeros.bin"])
    bombed = {m.name: m.skipped for m in archive_members(data, max_bytes=1 << 30)}
    assert "decompression bomb" in str(bombed["zeros.bin"])


def test_a_document_package_is_no_archive() -> None:
    assert not is_archive(_zip({"[Content_Types].xml": b"<x/>", "word/document.xml": b"<w/>"}))
    assert not is_archive(_zip({"mimetype": b"application/epub+zip"}))


def test_a_tar_is_read_member_by_member_and_links_are_not_followed() -> None:
    held = io.BytesIO()
    with tarfile.open(fileobj=held, mode="w") as archive:
        info = tarfile.TarInfo("docs/a.txt")
        info.size = len(TEXT)
        archive.addfile(info, io.BytesIO(TEXT))
        link = tarfile.TarInfo("docs/link")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    data = held.getvalue()
    assert is_archive(data, "docs.tar")
    members = list(archive_members(data, max_bytes=1 << 20))
    assert [(m.name, m.data) for m in members if m.data is not None] == [("docs/a.txt", TEXT)]
    assert [m.name for m in members if m.skipped] == ["docs/link"]


def test_text_in_a_legacy_encoding_is_decoded_and_named() -> None:
    text = "Fran\u00e7ois na\u00efve r\u00e9sum\u00e9 \u00fcber die Stra\u00dfe.\n" * 8
    decoded = decode_text(text.encode("latin-1"))
    assert decoded is not None
    assert (decoded.text, decoded.encoding) == (text, "cp1252")
    assert decode_text("Unicode text\n".encode("utf-16")) == tm.files.DecodedText(
        "Unicode text\n", "utf-16"
    )
    assert decode_text(b"\x89PNG\r\n\x1a\n") is None  # control bytes: no text in any encoding
    assert decode_text(b"ab\x00cd") is None


def test_members_past_the_cap_are_one_skip_saying_how_many(monkeypatch: pytest.MonkeyPatch) -> None:
    from tinymemory import _wrappers

    monkeypatch.setattr(_wrappers, "MAX_MEMBERS", 2)
    members = list(archive_members(_zip({f"{n}.txt": b"x" for n in range(5)}), max_bytes=10))
    assert [m.name for m in members] == ["0.txt", "1.txt", "(3 more)"]
    assert members[-1].skipped == "past the 2 members read of one archive"
