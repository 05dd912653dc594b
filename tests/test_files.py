"""``tinymemory.files``: reads held to a bound before anything is held, and whole replacements."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.files import (
    MAX_FILE_BYTES,
    LineTooLong,
    bounded_lines,
    read_file,
    read_line,
    read_stream,
    replacing,
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
