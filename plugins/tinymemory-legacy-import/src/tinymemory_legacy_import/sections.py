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
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, TypeVar

from tinymemory import StoreItem

from .checkpoint import ChunkCursor
from .detection import CONTENT_DIR, Store
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

K = TypeVar("K")
Row = dict[str, Any]


def _query(store: Store, table: str, sql: str, parameters: Sequence[object]) -> list[Row]:
    """Run a read; any SQLite failure is a ``LegacyReadError`` (without the text it choked on)."""
    try:
        return store.connection.execute(sql, parameters).fetchall()
    except sqlite3.Error as error:
        detail = str(error)
        if "decode" in detail.lower():  # the message would quote the row's own text
            detail = "a text value is not utf-8"
        raise LegacyReadError(f"reading {table} failed: {detail}") from None


def _paged(
    fetch: Callable[[K | None], list[Row]], key_of: Callable[[Row], K], after: K | None
) -> Iterator[Row]:
    """Every row ``fetch`` pages out, each page starting after the last key of the one before."""
    while rows := fetch(after):
        yield from rows
        after = key_of(rows[-1])


def _doc_rows(
    store: Store, after: str | None, page: int, families: tuple[Family, ...]
) -> Iterator[tuple[str, DocRow, Family, str | None]]:
    """The ``memory_docs`` rows of ``families`` by ``document_id``, decoded strictly.

    Each row's namespace is read first; only a row of the section is decoded
    whole, so a section passes over the other's rows cheaply.
    """
    optional = [c for c in ("logical_namespace", "taint") if store.has("memory_docs", c)]
    columns = ", ".join(
        [
            "document_id",
            "namespace",
            "title",
            "content",
            "tags_json",
            "metadata_json",
            "updated_at",
            *optional,
        ]
    )

    def fetch(key: str | None) -> list[Row]:
        where = "" if key is None else "WHERE document_id > ?"
        sql = f"SELECT {columns} FROM memory_docs {where} ORDER BY document_id LIMIT ?"
        return _query(store, "memory_docs", sql, ([] if key is None else [key]) + [page])

    for row in _paged(fetch, lambda row: row["document_id"], after):
        key = row["document_id"]
        if not isinstance(key, str):
            raise LegacyReadError(
                f"memory_docs: a document_id holds {type(key).__name__}, not text"
            )
        read = RowReader("memory_docs", row, key)
        namespace = logical_namespace(
            read.text("namespace"), read.optional_text("logical_namespace")
        )
        family, namespace_class = classify(namespace)
        if family not in families:
            continue
        taint = read.optional_text("taint") if "taint" in optional else None
        decoded = DocRow(
            document_id=key,
            namespace=namespace,
            title=read.text("title"),
            content=read.text("content"),
            tags_json=read.text("tags_json"),
            metadata_json=read.text("metadata_json"),
            updated_at=read.real("updated_at"),
            # A NULL taint in a store with the column is not `internal`, so external.
            external="taint" in optional and is_external(taint or ""),
        )
        yield key, decoded, family, namespace_class


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
    tool_calls = store.has("episodic_log", "tool_calls_json")
    columns = "id, session_id, timestamp, role, content" + (
        ", tool_calls_json" if tool_calls else ""
    )

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
            turns = [_turn(RowReader("episodic_log", row, session_id), tool_calls) for row in group]
            item = thread(origin, session_id, turns)
            if item is not None:
                yield session_id, item
        after = last


def _turn(read: RowReader, tool_calls: bool) -> TurnRow:
    read.integer("id")
    return TurnRow(
        timestamp=read.real("timestamp"),
        role=read.text("role"),
        content=read.text("content"),
        tool_calls_json=read.optional_text("tool_calls_json") if tool_calls else None,
    )


def chunks(
    store: Store, root: Path, origin: Origin, after: ChunkCursor | None, page: int
) -> Iterator[tuple[ChunkCursor, StoreItem]]:
    """Section 2: ``mem_tree_chunks`` by ``(source_kind, source_id)``, chunks by ``(seq, id)``."""
    with_path = store.has("mem_tree_chunks", "content_path")
    columns = "id, source_kind, source_id, timestamp_ms, tags_json, content, seq_in_source" + (
        ", content_path" if with_path else ""
    )
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
            decoded = [
                _chunk(RowReader(table, row, f"{kind}:{source_id}"), root, with_path)
                for row in group
            ]
            item = chunk_source(origin, kind, source_id, decoded)
            if item is not None:
                yield cursor, item
        after = ChunkCursor(str(last["source_kind"]), str(last["source_id"]))


def _chunk(read: RowReader, root: Path, with_path: bool) -> ChunkRow:
    read.text("id")
    read.integer("seq_in_source")
    milliseconds = read.integer("timestamp_ms")
    preview = read.text("content")
    relative = read.optional_text("content_path") if with_path else None
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
    optional = [c for c in ("class", "evidence_refs_json") if store.has(table, c)]
    columns = ", ".join(
        ["facet_id", "facet_type", "key", "value", "confidence", "last_seen_at"]
        + [f'"{column}"' for column in optional]
    )
    live = [
        condition
        for column, condition in (
            ("state", "state IS NOT 'dropped'"),
            ("user_state", "user_state IS NOT 'forgotten'"),
        )
        if store.has(table, column)
    ]

    def fetch(key: str | None) -> list[Row]:
        conditions = live + ([] if key is None else ["facet_id > ?"])
        where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
        sql = f"SELECT {columns} FROM {table} {where} ORDER BY facet_id LIMIT ?"
        return _query(store, table, sql, ([] if key is None else [key]) + [page])

    for row in _paged(fetch, lambda row: row["facet_id"], after):
        key = row["facet_id"]
        if not isinstance(key, str):
            raise LegacyReadError(f"{table}: a facet_id holds {type(key).__name__}, not text")
        read = RowReader(table, row, key)
        item = facet(
            origin,
            FacetRow(
                facet_id=key,
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
            yield key, item
