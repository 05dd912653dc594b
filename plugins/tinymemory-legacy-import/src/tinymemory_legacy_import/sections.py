"""The five sections, each a walk over its rows by ascending key, a page at a time.

Each reader takes the key to start strictly after (``None`` for the start)
and yields ``(key, item)`` for every item it makes. The scan advances over
every key read, skipped or not (a page of skipped rows never stalls it,
trap T4); the checkpoint, which the caller keeps, advances only on a yield.
Keys compare in SQLite's ``BINARY`` order (trap T3): SQLite orders and
compares them, Python never sorts them.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from tinymemory import StoreItem

from .checkpoint import ChunkCursor
from .detection import (
    CHUNK_COLUMNS,
    CHUNK_OPTIONAL_COLUMNS,
    CONTENT_DIR,
    OPTIONAL_COLUMNS,
    REQUIRED_COLUMNS,
    Store,
)
from .errors import LegacyReadError
from .mapping import (
    ChunkRow,
    DocRow,
    FacetRow,
    Family,
    Origin,
    TurnRow,
    chunk_source,
    classify,
    document,
    facet,
    is_external,
    learning,
    logical_namespace,
    thread,
)
from .values import RowReader, from_milliseconds, lenient_json, string_list

Row = dict[str, Any]
_REQUIRED = {**REQUIRED_COLUMNS, "mem_tree_chunks": CHUNK_COLUMNS}
_OPTIONAL = {**OPTIONAL_COLUMNS, "mem_tree_chunks": CHUNK_OPTIONAL_COLUMNS}


def _query(store: Store, table: str, sql: str, parameters: Sequence[object]) -> list[Row]:
    """Run a read; any SQLite failure is a ``LegacyReadError`` (without the text it choked on)."""
    try:
        return store.connection.execute(sql, parameters).fetchall()
    except sqlite3.Error as error:
        detail = str(error)
        if "decode" in detail.lower():  # the message would quote the row's own text
            detail = "a text value is not utf-8"
        raise LegacyReadError(f"reading {table} failed: {detail}") from None


def _columns(store: Store, table: str) -> str:
    """The select list of ``table``: its required columns, then the optional ones it has."""
    present = [column for column in _OPTIONAL[table] if store.has(table, column)]
    return ", ".join(f'"{column}"' for column in (*_REQUIRED[table], *present))


def _keyed_rows(
    store: Store,
    table: str,
    key_column: str,
    after: str | None,
    page: int,
    live: Sequence[str] = (),
) -> Iterator[RowReader]:
    """Every row of ``table`` passing ``live`` by ascending text ``key_column``, a page at a time.

    A key that is not text is a ``LegacyReadError`` (the page scan could not go on from it).
    """
    columns = _columns(store, table)

    def fetch(key: str | None) -> list[Row]:
        conditions = [*live, *([] if key is None else [f"{key_column} > ?"])]
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        sql = f"SELECT {columns} FROM {table} {where} ORDER BY {key_column} LIMIT ?"
        return _query(store, table, sql, [*([] if key is None else [key]), page])

    while rows := fetch(after):
        for row in rows:
            key = row[key_column]
            if not isinstance(key, str):
                raise LegacyReadError(
                    f"{table}: a {key_column} holds {type(key).__name__}, not text"
                )
            yield RowReader(table, row, key)
        after = rows[-1][key_column]


def _doc_rows(
    store: Store, after: str | None, page: int, families: tuple[Family, ...]
) -> Iterator[tuple[str, DocRow, Family, str | None]]:
    """The ``memory_docs`` rows of ``families`` by ``document_id``, decoded strictly.

    Each row's namespace is read first; only a row of the section is decoded
    whole, so a section passes over the other's rows cheaply.
    """
    with_taint = store.has("memory_docs", "taint")
    for read in _keyed_rows(store, "memory_docs", "document_id", after, page):
        namespace = logical_namespace(
            read.text("namespace"), read.optional_text("logical_namespace")
        )
        family, namespace_class = classify(namespace)
        if family not in families:
            continue
        taint = read.optional_text("taint")
        decoded = DocRow(
            document_id=read.key,
            namespace=namespace,
            title=read.text("title"),
            content=read.text("content"),
            tags_json=read.text("tags_json"),
            metadata_json=read.text("metadata_json"),
            updated_at=read.real("updated_at"),
            # A NULL taint in a store with the column is not `internal`, so external.
            external=with_taint and is_external(taint or ""),
        )
        yield read.key, decoded, family, namespace_class


def documents(
    store: Store, origin: Origin, after: str | None, page: int
) -> Iterator[tuple[str, StoreItem]]:
    """Section 1: rows of document namespaces (not learning, global or event) as Documents."""
    for key, row, _, _ in _doc_rows(store, after, page, (Family.DOCUMENT,)):
        if (item := document(origin, row)) is not None:
            yield key, item


def learnings(
    store: Store, origin: Origin, after: str | None, page: int
) -> Iterator[tuple[str, StoreItem]]:
    """Section 4: ``learning``, ``learning:*`` and ``global`` rows as Learnings (trap T1)."""
    for key, row, family, namespace_class in _doc_rows(
        store, after, page, (Family.LEARNING, Family.GLOBAL)
    ):
        if (item := learning(origin, row, family, namespace_class)) is not None:
            yield key, item


def conversations(
    store: Store, origin: Origin, after: str | None, page: int
) -> Iterator[tuple[str, StoreItem]]:
    """Section 3: ``episodic_log`` grouped by ``session_id``, turns by ``(timestamp, id)``."""
    columns = _columns(store, "episodic_log")

    def fetch_sessions(key: str | None) -> list[Row]:
        where = "" if key is None else "WHERE session_id > ?"
        sql = f"SELECT DISTINCT session_id FROM episodic_log {where} ORDER BY session_id LIMIT ?"
        return _query(store, "episodic_log", sql, ([] if key is None else [key]) + [page])

    while sessions := fetch_sessions(after):
        first, last = sessions[0]["session_id"], sessions[-1]["session_id"]
        rows = _query(
            store,
            "episodic_log",
            f"SELECT {columns} FROM episodic_log WHERE session_id >= ? AND session_id <= ? "
            "ORDER BY session_id, timestamp, id",
            [first, last],
        )
        for session_id, group in itertools.groupby(rows, key=lambda row: row["session_id"]):
            if not isinstance(session_id, str):
                raise LegacyReadError(
                    f"episodic_log: a session_id holds {type(session_id).__name__}, not text"
                )
            turns = [_turn(RowReader("episodic_log", row, session_id)) for row in group]
            item = thread(origin, session_id, turns)
            if item is not None:
                yield session_id, item
        after = last


def _turn(read: RowReader) -> TurnRow:
    read.integer("id")
    return TurnRow(
        timestamp=read.real("timestamp"),
        role=read.text("role"),
        content=read.text("content"),
        tool_calls_json=read.optional_text("tool_calls_json"),
    )


def chunks(
    store: Store, root: Path, origin: Origin, after: ChunkCursor | None, page: int
) -> Iterator[tuple[ChunkCursor, StoreItem]]:
    """Section 2: ``mem_tree_chunks`` by ``(source_kind, source_id)``, chunks by ``(seq, id)``."""
    columns = _columns(store, "mem_tree_chunks")
    table = "mem_tree_chunks"

    def fetch_sources(key: ChunkCursor | None) -> list[Row]:
        where = "" if key is None else "WHERE (source_kind, source_id) > (?, ?)"
        parameters: list[object] = [] if key is None else [key.source_kind, key.source_id]
        sql = (
            f"SELECT DISTINCT source_kind, source_id FROM {table} {where} "
            "ORDER BY source_kind, source_id LIMIT ?"
        )
        return _query(store, table, sql, [*parameters, page])

    while sources := fetch_sources(after):
        first, last = sources[0], sources[-1]
        rows = _query(
            store,
            table,
            f"SELECT {columns} FROM {table} WHERE (source_kind, source_id) >= (?, ?) "
            "AND (source_kind, source_id) <= (?, ?) "
            "ORDER BY source_kind, source_id, seq_in_source, id",
            [first["source_kind"], first["source_id"], last["source_kind"], last["source_id"]],
        )
        for (kind, source_id), group in itertools.groupby(
            rows, key=lambda row: (row["source_kind"], row["source_id"])
        ):
            if not isinstance(kind, str) or not isinstance(source_id, str):
                raise LegacyReadError(f"{table}: a source_kind or source_id is not text")
            cursor = ChunkCursor(kind, source_id)
            decoded = [_chunk(RowReader(table, row, f"{kind}:{source_id}"), root) for row in group]
            item = chunk_source(origin, kind, source_id, decoded)
            if item is not None:
                yield cursor, item
        after = ChunkCursor(str(last["source_kind"]), str(last["source_id"]))


def _chunk(read: RowReader, root: Path) -> ChunkRow:
    read.text("id")
    read.integer("seq_in_source")
    milliseconds = read.integer("timestamp_ms")
    preview = read.text("content")
    relative = read.optional_text("content_path")  # None where the store has no such column
    return ChunkRow(
        text=_chunk_text(root, relative, preview, read.key),
        timestamp=from_milliseconds(milliseconds),
        timestamp_ms=milliseconds,
        tags=tuple(string_list(lenient_json(read.text("tags_json")))),
    )


def _chunk_text(root: Path, relative: str | None, preview: str, source: str) -> str:
    """The chunk's body file, whole (front matter included, T14), or the stored preview.

    The preview stands in when the path is unset, unsafe (not plain relative
    parts) or names no file; a file that exists but cannot be read as UTF-8
    text is a ``LegacyReadError``.
    """
    if relative is None or not _is_plain_relative(relative):
        return preview
    path = root / CONTENT_DIR / relative
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return preview
    except OSError as error:
        raise LegacyReadError(
            f"chunk body `{CONTENT_DIR.as_posix()}/{relative}` of {source} cannot be read: "
            f"{error.strerror}"
        ) from None
    try:
        return data.decode("utf-8")  # bytes, not read_text: line endings stay as written
    except UnicodeDecodeError:
        raise LegacyReadError(
            f"chunk body `{CONTENT_DIR.as_posix()}/{relative}` of {source} is not utf-8 text"
        ) from None


def _is_plain_relative(relative: str) -> bool:
    parts = relative.split("/")
    return (
        bool(relative)
        and not PurePosixPath(relative).is_absolute()
        and "\\" not in relative
        and all(part not in ("", ".", "..") for part in parts)
    )


def profile(
    store: Store, origin: Origin, after: str | None, page: int
) -> Iterator[tuple[str, StoreItem]]:
    """Section 5: live ``user_profile`` facets as preference Learnings.

    ``state = 'dropped'`` and ``user_state = 'forgotten'`` are left out, exactly
    and case-sensitively, only where the columns exist (trap T9).
    """
    table = "user_profile"
    live = [
        condition
        for column, condition in (
            ("state", "state IS NOT 'dropped'"),
            ("user_state", "user_state IS NOT 'forgotten'"),
        )
        if store.has(table, column)
    ]
    for read in _keyed_rows(store, table, "facet_id", after, page, live):
        item = facet(
            origin,
            FacetRow(
                facet_id=read.key,
                facet_type=read.text("facet_type"),
                key=read.text("key"),
                value=read.text("value"),
                confidence=read.optional_real("confidence"),
                last_seen_at=read.real("last_seen_at"),
                facet_class=read.optional_text("class"),
                evidence_refs_json=read.optional_text("evidence_refs_json"),
            ),
        )
        if item is not None:
            yield read.key, item
