"""Builds v1 workspaces on disk for the tests, and reads back what an engine holds.

``LegacyBuilder`` writes the current schema, the early one and chunk stores;
``mixed_workspace`` fills every section; ``stored_items``/``snapshot`` read an
engine whole; ``FailingEngine`` fails one ``store_many`` call.

The DDL follows the reference's tables (docs/legacy-import.md); rows are
written as v1 wrote them, and a test may write anything else through
``memory.execute`` (a BLOB key, text in a REAL column).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import tinymemory as tm
from tinymemory.plugin import EngineWrapper, to_json

CURRENT_MEMORY_DDL = """
CREATE TABLE memory_docs (
    document_id TEXT PRIMARY KEY, namespace TEXT NOT NULL, key TEXT NOT NULL,
    title TEXT NOT NULL, content TEXT NOT NULL, source_type TEXT NOT NULL DEFAULT 'chat',
    priority TEXT NOT NULL DEFAULT 'medium', tags_json TEXT NOT NULL DEFAULT '[]',
    metadata_json TEXT NOT NULL DEFAULT '{}', category TEXT NOT NULL DEFAULT 'core',
    session_id TEXT, created_at REAL NOT NULL DEFAULT 0, updated_at REAL NOT NULL,
    markdown_rel_path TEXT NOT NULL DEFAULT '', taint TEXT NOT NULL DEFAULT 'internal',
    logical_namespace TEXT, UNIQUE(namespace, key));
CREATE TABLE episodic_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, timestamp REAL NOT NULL,
    role TEXT NOT NULL, content TEXT NOT NULL, lesson TEXT, tool_calls_json TEXT,
    cost_microdollars INTEGER DEFAULT 0);
CREATE TABLE user_profile (
    facet_id TEXT PRIMARY KEY, facet_type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 0.5, evidence_count INTEGER, source_segment_ids TEXT,
    first_seen_at REAL NOT NULL DEFAULT 0, last_seen_at REAL NOT NULL,
    state TEXT DEFAULT 'active', stability REAL, user_state TEXT DEFAULT 'auto',
    evidence_refs_json TEXT, class TEXT, cue_families_json TEXT, UNIQUE(facet_type, key));
CREATE TABLE kv_global (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE vector_chunks (id TEXT PRIMARY KEY, text TEXT);
"""

EARLY_MEMORY_DDL = """
CREATE TABLE memory_docs (
    document_id TEXT PRIMARY KEY, namespace TEXT NOT NULL, key TEXT NOT NULL,
    title TEXT NOT NULL, content TEXT NOT NULL, source_type TEXT NOT NULL DEFAULT 'chat',
    priority TEXT NOT NULL DEFAULT 'medium', tags_json TEXT NOT NULL DEFAULT '[]',
    metadata_json TEXT NOT NULL DEFAULT '{}', category TEXT NOT NULL DEFAULT 'core',
    session_id TEXT, created_at REAL NOT NULL DEFAULT 0, updated_at REAL NOT NULL,
    markdown_rel_path TEXT NOT NULL DEFAULT '', UNIQUE(namespace, key));
CREATE TABLE episodic_log (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, timestamp REAL NOT NULL,
    role TEXT NOT NULL, content TEXT NOT NULL, lesson TEXT);
CREATE TABLE user_profile (
    facet_id TEXT PRIMARY KEY, facet_type TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 0.5, evidence_count INTEGER, source_segment_ids TEXT,
    first_seen_at REAL NOT NULL DEFAULT 0, last_seen_at REAL NOT NULL, UNIQUE(facet_type, key));
"""

CHUNKS_DDL = """
CREATE TABLE mem_tree_chunks (
    id TEXT PRIMARY KEY, source_kind TEXT NOT NULL, source_id TEXT NOT NULL, path_scope TEXT,
    source_ref TEXT, owner TEXT, timestamp_ms INTEGER NOT NULL, time_range_start_ms INTEGER,
    time_range_end_ms INTEGER, created_at_ms INTEGER, tags_json TEXT NOT NULL DEFAULT '[]',
    content TEXT NOT NULL, token_count INTEGER, seq_in_source INTEGER NOT NULL,
    content_path TEXT);
CREATE TABLE mem_tree_summaries (id TEXT PRIMARY KEY);
"""


class LegacyBuilder:
    """A v1 workspace under ``root``; write rows with the methods, then ``close()``."""

    def __init__(
        self, root: Path, *, era: str = "current", memory: bool = True, chunks: bool = False
    ) -> None:
        self.root = root
        self.era = era
        self.memory: sqlite3.Connection | None = None
        self.chunks: sqlite3.Connection | None = None
        self._key = 0
        if memory:
            (root / "memory").mkdir(parents=True, exist_ok=True)
            self.memory = sqlite3.connect(root / "memory" / "memory.db")
            self.memory.execute("PRAGMA journal_mode=WAL")
            self.memory.execute("PRAGMA synchronous=OFF")  # test data: no fsync needed
            ddl = CURRENT_MEMORY_DDL if era == "current" else EARLY_MEMORY_DDL
            self.memory.executescript(ddl)
        if chunks:
            (root / "memory_tree" / "content").mkdir(parents=True, exist_ok=True)
            self.chunks = sqlite3.connect(root / "memory_tree" / "chunks.db")
            self.chunks.execute("PRAGMA synchronous=OFF")
            self.chunks.executescript(CHUNKS_DDL + "PRAGMA user_version = 2;")

    def doc(
        self,
        document_id: str,
        namespace: str,
        content: Any,
        *,
        title: Any = "",
        tags: Any = "[]",
        metadata: Any = "{}",
        updated_at: Any = 1700000000.5,
        taint: str | None = "internal",
        logical: str | None = None,
    ) -> None:
        """One ``memory_docs`` row (``tags``/``metadata`` as JSON text, or a value to encode)."""
        assert self.memory is not None
        self._key += 1
        if not isinstance(tags, str):
            tags = json.dumps(tags, separators=(",", ":"), ensure_ascii=False)
        if not isinstance(metadata, str):
            metadata = json.dumps(metadata, separators=(",", ":"), ensure_ascii=False)
        row: dict[str, Any] = {
            "document_id": document_id,
            "namespace": namespace,
            "key": f"k{self._key}",
            "title": title,
            "content": content,
            "tags_json": tags,
            "metadata_json": metadata,
            "updated_at": updated_at,
        }
        if self.era == "current":
            row.update(taint=taint, logical_namespace=logical)
        self._insert(self.memory, "memory_docs", row)

    def turn(
        self,
        session_id: str,
        timestamp: Any,
        role: str,
        content: Any,
        *,
        tool_calls: str | None = None,
        lesson: str | None = None,
    ) -> None:
        """One ``episodic_log`` row."""
        assert self.memory is not None
        row: dict[str, Any] = {
            "session_id": session_id,
            "timestamp": timestamp,
            "role": role,
            "content": content,
            "lesson": lesson,
        }
        if self.era == "current":
            row.update(tool_calls_json=tool_calls, cost_microdollars=1237)
        self._insert(self.memory, "episodic_log", row)

    def facet(
        self,
        facet_id: str,
        facet_type: str,
        key: str,
        value: Any,
        *,
        confidence: Any = 0.5,
        last_seen_at: Any = 1700000000.0,
        state: str | None = "active",
        user_state: str | None = "auto",
        facet_class: str | None = None,
        evidence: str | None = None,
    ) -> None:
        """One ``user_profile`` row."""
        assert self.memory is not None
        row: dict[str, Any] = {
            "facet_id": facet_id,
            "facet_type": facet_type,
            "key": key,
            "value": value,
            "confidence": confidence,
            "last_seen_at": last_seen_at,
        }
        if self.era == "current":
            row.update(
                state=state,
                user_state=user_state,
                evidence_refs_json=evidence,
                **{"class": facet_class},
            )
        self._insert(self.memory, "user_profile", row)

    def chunk(
        self,
        chunk_id: str,
        source_kind: str,
        source_id: str,
        seq: int,
        content: str,
        *,
        timestamp_ms: int = 1700000000000,
        tags: str = "[]",
        content_path: str | None = None,
        body: bytes | str | None = None,
    ) -> None:
        """One ``mem_tree_chunks`` row; ``body`` is written to ``content_path`` when given."""
        assert self.chunks is not None
        if content_path is not None and body is not None:
            path = self.root / "memory_tree" / "content" / content_path
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body.encode() if isinstance(body, str) else body)
        row = {
            "id": chunk_id,
            "source_kind": source_kind,
            "source_id": source_id,
            "timestamp_ms": timestamp_ms,
            "tags_json": tags,
            "content": content,
            "seq_in_source": seq,
            "content_path": content_path,
        }
        self._insert(self.chunks, "mem_tree_chunks", row)

    @staticmethod
    def _insert(connection: sqlite3.Connection, table: str, row: dict[str, Any]) -> None:
        columns = ", ".join(f'"{name}"' for name in row)
        marks = ", ".join("?" for _ in row)
        connection.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(row.values()))

    def commit(self) -> None:
        """Commit what was written (a writer that stays open leaves it in the ``-wal``)."""
        for connection in (self.memory, self.chunks):
            if connection is not None:
                connection.commit()

    def close(self) -> None:
        """Commit and close, as v1 did on a clean shutdown."""
        self.commit()
        for connection in (self.memory, self.chunks):
            if connection is not None:
                connection.close()


def mixed_workspace(root: Path, *, scale: int = 1) -> Path:
    """A workspace with every section, ``scale`` times over (about 13 items per unit)."""
    builder = LegacyBuilder(root, chunks=True)
    for unit in range(scale):
        u = f"{unit:05d}"
        builder.doc(
            f"d{u}a",
            "document_notes",
            f"notes {u}",
            title=f" Plan {u} ",
            logical="document:notes",
            tags=["work"],
        )
        builder.doc(
            f"d{u}b",
            "team/alpha",
            f"alpha {u} — ünïcödé 漢字",
            metadata={"url": f"https://example.org/{u}", "mime": "text/markdown"},
        )
        builder.doc(f"d{u}c", "event_chat", '{"kind":"message"}')  # skipped everywhere
        builder.doc(f"d{u}d", "global", f"lives in Lisbon {u}", taint="external_sync")
        builder.doc(
            f"d{u}e",
            "learning_veto",
            json.dumps(
                {
                    "class": "veto",
                    "key": f"emoji_{u}",
                    "value": "never",
                    "initial_confidence": 0.7,
                    "evidence": {"type": "episodic", "episodic_id": 43},
                    "observed_at": 1699654400.125,
                }
            ),
        )
        builder.doc(f"d{u}f", "learning_style", f"plain remark {u}")
        builder.doc(f"d{u}g", "document_blank", " \u00a0\u3000 ")  # blank: skipped
        builder.turn(f"chat-{u}-a", 101.0, "user", f"hi {u}")
        builder.turn(
            f"chat-{u}-a",
            103.0,
            "assistant",
            f"hello {u}",
            tool_calls='[{"id":"call_1","name":"web_search"}]',
        )
        builder.turn(f"chat-{u}-b", 105.0, "user", f"one turn {u} おはよう")
        builder.facet(
            f"f{u}a", "preference", f"tone{u}", f"terse {u}", confidence=0.9, facet_class="style"
        )
        builder.facet(f"f{u}b", "skill", f"rust{u}", f"expert {u}", state="dropped")  # not live
        builder.chunk(f"c{u}a", "email", f"gmail:{u}", 0, f"mail body {u}", tags='["inbox"]')
        builder.chunk(f"c{u}b", "email", f"gmail:{u}", 1, f"mail reply {u}")
        builder.chunk(f"c{u}c", "chat", f"slack:{u}", 0, f"slack line {u}")
    builder.close()
    return root


def stored_items(engine: tm.MemoryEngine) -> dict[str, tm.StoreItem]:
    """Every item ``engine`` holds, by id (exported page by page)."""
    found: dict[str, tm.StoreItem] = {}
    cursor = None
    while True:
        page = engine.export(tm.ListRequest(limit=100, cursor=cursor))
        for exported in page.items:
            assert exported.id not in found
            found[exported.id] = exported.item
        if page.next_cursor is None:
            return found
        cursor = page.next_cursor


class FailingEngine(EngineWrapper):
    """Fails ``store_many`` call number ``fail_on`` after storing its first ``partly`` items."""

    def __init__(self, inner: tm.MemoryEngine, fail_on: int, partly: int = 0) -> None:
        super().__init__(inner)
        self.fail_on = fail_on
        self.partly = partly
        self.calls: list[int] = []

    def handle_store_many(self, items: list[tm.StoreItem]) -> list[tm.StoreReceipt]:
        self.calls.append(len(items))
        if len(self.calls) == self.fail_on:
            if self.partly:
                self.inner.store_many(items[: self.partly])
            raise tm.EngineError("the disk is full")
        return self.inner.store_many(items)


def snapshot(engine: tm.MemoryEngine) -> dict[str, str]:
    """Every item ``engine`` holds as its JSON form, by id: equal snapshots hold the same items."""
    return {key: to_json(item) for key, item in stored_items(engine).items()}
