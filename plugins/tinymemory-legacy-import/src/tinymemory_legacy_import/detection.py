"""Recognising a v1 workspace: two database paths under a directory, probed for their schema.

There is no marker file and no version field. ``memory/memory.db`` (the first
v1 engine) must hold ``memory_docs``, ``episodic_log`` and ``user_profile``
with their required columns; ``memory_tree/chunks.db`` (the later engine) is
used when it holds ``mem_tree_chunks``. Optional columns are probed and used
only when present, which is how the early schema and the current one both
read. Either database is enough; neither is :class:`NotLegacy`.

Both are opened read-only through SQLite (``mode=ro``), never ``immutable``:
an unflushed ``-wal`` left by a writer that did not checkpoint is still read
(SQLite creates the ``-shm`` beside it when the folder is writable).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import attrs

from tinymemory import NotFound

from .errors import LegacyReadError, NotLegacy

MEMORY_DB = Path("memory", "memory.db")
CHUNKS_DB = Path("memory_tree", "chunks.db")
CONTENT_DIR = Path("memory_tree", "content")

#: The tables of memory.db the importer reads, each with its required columns, in probe order.
REQUIRED_COLUMNS = {
    "memory_docs": (
        "document_id",
        "namespace",
        "title",
        "content",
        "tags_json",
        "metadata_json",
        "updated_at",
    ),
    "episodic_log": ("id", "session_id", "timestamp", "role", "content"),
    "user_profile": ("facet_id", "facet_type", "key", "value", "confidence", "last_seen_at"),
}
#: Columns read only when a store has them (the early schema lacks them all).
OPTIONAL_COLUMNS = {
    "memory_docs": ("logical_namespace", "taint"),
    "episodic_log": ("tool_calls_json",),
    "user_profile": ("state", "user_state", "class", "evidence_refs_json"),
}
CHUNK_COLUMNS = (
    "id",
    "source_kind",
    "source_id",
    "timestamp_ms",
    "tags_json",
    "content",
    "seq_in_source",
)
CHUNK_OPTIONAL_COLUMNS = ("content_path",)


@attrs.frozen(kw_only=True)
class Store:
    """An opened legacy database and, per table read, the optional columns it has."""

    connection: sqlite3.Connection
    optional: dict[str, frozenset[str]]

    def has(self, table: str, column: str) -> bool:
        """Whether ``table`` has the optional ``column``."""
        return column in self.optional.get(table, frozenset())


@attrs.frozen(kw_only=True)
class Layout:
    """What a workspace holds: its canonical path and the stores found in it."""

    root: Path
    memory: Store | None
    chunks: Store | None

    def close(self) -> None:
        """Close both databases."""
        for store in (self.memory, self.chunks):
            if store is not None:
                store.connection.close()


def detect(path: str | Path) -> Layout:
    """Open the workspace at ``path``; ``NotFound``, ``NotLegacy`` or ``LegacyReadError`` if not."""
    given = Path(path).expanduser()
    if not given.exists():
        raise NotFound(f"`{given}` does not exist")
    try:
        root = given.resolve(strict=True)
    except OSError as error:
        raise LegacyReadError(f"`{given}` cannot be resolved: {error.strerror}") from None
    if not root.is_dir():
        raise NotLegacy(f"`{root}` is not a v1 workspace: not a directory")
    memory = _memory_store(root)
    try:
        chunks = _chunk_store(root)
    except BaseException:
        if memory is not None:
            memory.connection.close()
        raise
    if memory is None and chunks is None:
        raise NotLegacy(
            f"`{root}` is not a v1 workspace: neither {MEMORY_DB.as_posix()} "
            f"nor a usable {CHUNKS_DB.as_posix()} is present"
        )
    return Layout(root=root, memory=memory, chunks=chunks)


def _open(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    connection.row_factory = _as_dict
    return connection


def _as_dict(cursor: sqlite3.Cursor, row: tuple[object, ...]) -> dict[str, object]:
    return {column[0]: value for column, value in zip(cursor.description, row, strict=True)}


def _columns(connection: sqlite3.Connection, table: str) -> frozenset[str]:
    rows = connection.execute("SELECT name FROM pragma_table_info(?)", (table,)).fetchall()
    return frozenset(str(row["name"]) for row in rows)


def _memory_store(root: Path) -> Store | None:
    path = root / MEMORY_DB
    if not path.exists() and not path.is_symlink():
        return None
    shown = MEMORY_DB.as_posix()
    if not path.is_file():
        raise NotLegacy(f"`{root}` is not a v1 workspace: {shown} is not a file")
    try:
        connection = _open(path)
    except sqlite3.Error as error:
        raise LegacyReadError(f"{shown} cannot be opened: {error}") from None
    try:
        optional = _probe_memory(connection, root, shown)
    except sqlite3.DatabaseError as error:
        connection.close()
        if error.sqlite_errorname == "SQLITE_NOTADB":
            raise NotLegacy(f"`{root}` is not a v1 workspace: {shown} is not a database") from None
        raise LegacyReadError(f"{shown} cannot be read: {error}") from None
    except BaseException:
        connection.close()
        raise
    return Store(connection=connection, optional=optional)


def _probe_memory(
    connection: sqlite3.Connection, root: Path, shown: str
) -> dict[str, frozenset[str]]:
    optional = {}
    for table, required in REQUIRED_COLUMNS.items():
        present = _columns(connection, table)
        if not present:
            raise NotLegacy(f"`{root}` is not a v1 workspace: table {table} is missing in {shown}")
        for column in required:
            if column not in present:
                raise NotLegacy(
                    f"`{root}` is not a v1 workspace: column {table}.{column} is missing in {shown}"
                )
        optional[table] = frozenset(OPTIONAL_COLUMNS[table]) & present
    return optional


def _chunk_store(root: Path) -> Store | None:
    """The chunk store, or ``None`` when it is absent or not one (not a file, not SQLite, no table).

    A chunk store that exists but cannot be read for another reason (its
    permissions, an I/O error) is a ``LegacyReadError``, as in the newest
    importer: skipping it silently would lose its items.
    """
    path = root / CHUNKS_DB
    if not path.is_file():
        return None
    shown = CHUNKS_DB.as_posix()
    try:
        connection = _open(path)
    except sqlite3.Error as error:
        raise LegacyReadError(f"{shown} cannot be opened: {error}") from None
    try:
        present = _columns(connection, "mem_tree_chunks")
    except sqlite3.DatabaseError as error:
        connection.close()
        if error.sqlite_errorname == "SQLITE_NOTADB":
            return None
        raise LegacyReadError(f"{shown} cannot be read: {error}") from None
    if not all(column in present for column in CHUNK_COLUMNS):
        connection.close()
        return None
    optional = {"mem_tree_chunks": frozenset(CHUNK_OPTIONAL_COLUMNS) & present}
    return Store(connection=connection, optional=optional)
