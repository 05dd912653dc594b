"""Shared fixtures: a sandbox per test (never the user's own data or configuration), a fresh
database file, and the installed ``tinymemory`` command run as a new user."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

import numpy as np
import pytest

from tinymemory.testing import Cli, CliResult, Sandbox
from tinymemory_sqlite import PATH_VARIABLE, SqliteEngine
from tinymemory_sqlite.vectors import decode

#: Runs the installed ``tinymemory`` command with arguments, in a process of its own.
RunCommand = Callable[..., CliResult]


@pytest.fixture(autouse=True)
def sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """An isolated home, configuration and data folder in the test's folder, so no test can
    reach a real database: the default one is ``tmp_path / "data" / "tinymemory"``."""
    with Sandbox(tmp_path, extra={PATH_VARIABLE: None}).enter() as entered:
        yield entered


@pytest.fixture
def new_user(sandbox: Sandbox) -> dict[str, str]:
    """The environment of a new user, for a child process: the sandbox's."""
    return sandbox.env


@pytest.fixture
def tinymemory_command(sandbox: Sandbox, new_user: dict[str, str]) -> RunCommand:
    """The installed ``tinymemory`` as a new user runs it (``new_user``), in ``tmp_path``."""
    cli = Cli(sandbox)
    return partial(cli.run, env=new_user)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memory.db"


@pytest.fixture
def engine(db_path: Path) -> Iterator[SqliteEngine]:
    with SqliteEngine(db_path) as opened:
        yield opened  # type: ignore[misc]


def _as_version_3(connection: sqlite3.Connection) -> None:
    """Turn a file back into version 3's layout: float32 vectors (decoded), each piece's
    text in its row and the keyword index reading it there."""
    for first_item, vectors, ranges in connection.execute(
        "SELECT first_item, vectors, ranges FROM vector_blocks"
    ).fetchall():
        bounds = np.frombuffer(ranges, np.float32).reshape(-1, 2)
        codes = np.frombuffer(vectors, np.uint8).reshape(len(bounds), -1)
        connection.execute(
            "UPDATE vector_blocks SET vectors = ? WHERE first_item = ?",
            (decode(codes, bounds).tobytes(), first_item),
        )
    connection.execute("ALTER TABLE vector_blocks DROP COLUMN ranges")
    texts = connection.execute("SELECT id, text FROM piece_texts").fetchall()
    connection.executemany("UPDATE pieces SET text = ?2 WHERE id = ?1", texts)
    connection.execute("DROP VIEW piece_texts")
    connection.execute("DROP TABLE pieces_fts")
    connection.execute(
        "CREATE VIRTUAL TABLE pieces_fts USING fts5(text, content = 'pieces', "
        "content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2')"
    )
    connection.execute("INSERT INTO pieces_fts(pieces_fts) VALUES ('rebuild')")


@pytest.fixture
def as_version_3() -> Callable[[sqlite3.Connection], None]:
    """Turns a file back into version 3's layout, for migration tests."""
    return _as_version_3
