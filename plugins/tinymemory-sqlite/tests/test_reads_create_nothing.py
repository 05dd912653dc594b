"""Reads of a memory not yet made create no database file; the first store makes it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize(
    "read", [("recall", "anything"), ("fetch", "anything"), ("list",), ("context",)]
)
def test_a_read_creates_no_database_file(tmp_path: Path, read: tuple[str, ...]) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    for name in ("TINYMEMORY_CONFIG", "TINYMEMORY_ENGINE", "TINYMEMORY_SQLITE_PATH"):
        env.pop(name, None)
    command = Path(sys.executable).parent / "tinymemory"

    def tinymemory(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([command, *args], env=env, capture_output=True, text=True,
                              timeout=60, check=False)  # fmt: skip

    done = tinymemory(*read)
    assert done.returncode == 0, done.stderr
    assert "the memory is empty" in done.stderr
    assert not (tmp_path / "data").exists()
    assert tinymemory("store", "now there is memory").returncode == 0
    assert (tmp_path / "data" / "tinymemory" / "memory.db").is_file()
