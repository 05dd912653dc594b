"""Items as rows: what a store computes before any I/O, and the statements that write it.

An item is one ``items`` row holding its JSON form whole, with the fields
filters read copied into columns; its text is cut into ``pieces`` (a long
document into several), each with a row in the keyword index and a vector
in the write's block of vectors.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from tinymemory import Document, Namespace, StoreItem
from tinymemory.plugin import (
    Piece,
    cut_pieces,
    item_from_json,
    json_and_id,
)

from .filters import last_service, node_path, sortable_time, turns_text
from .schema import write_block

if TYPE_CHECKING:
    import numpy as np

#: Documents longer than this many bytes are ranked by pieces of about this size.
PIECE_TARGET = 2_000


@attrs.frozen
class Prepared:
    """An item ready to write: its id, its JSON form and the pieces its text is ranked by."""

    id: str
    item: StoreItem
    body: str
    pieces: tuple[Piece, ...]


def prepare(item: StoreItem) -> Prepared:
    """Everything a write needs from ``item``, computed before any I/O."""
    # One writing of the JSON form gives both the stored row and the id.
    body, item_id = json_and_id(item)
    text = item.render_text()
    if isinstance(item, Document):
        pieces = tuple(cut_pieces(text, PIECE_TARGET))
    else:
        pieces = (Piece(text=text, start=0),)
    return Prepared(id=item_id, item=item, body=body, pieces=pieces)


def first_copies(prepared: Sequence[Prepared]) -> list[Prepared]:
    """Each item once, at its first place in the batch (a later copy is a replay)."""
    firsts: dict[str, Prepared] = {}
    for entry in prepared:
        firsts.setdefault(entry.id, entry)
    return list(firsts.values())


def existing(connection: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` stored already."""
    rows = connection.execute(
        "SELECT id FROM items WHERE id IN (SELECT value FROM json_each(?))", (json.dumps(ids),)
    )
    return {row[0] for row in rows}


@attrs.frozen
class Added:
    """The pieces a write added: their ids, their items' ``seq`` and their vectors."""

    pieces: list[int]
    items: list[int]
    vectors: np.ndarray[Any, Any]


def write(
    connection: sqlite3.Connection,
    entries: list[Prepared],
    vectors: dict[str, np.ndarray[Any, Any]],
) -> Added:
    """Write new items, their tags, pieces, index rows and one block of vectors.

    Inside ``BEGIN IMMEDIATE`` no one else writes, so the ``seq`` and piece
    ids are counted on from the highest ever handed out.
    """
    seq = last_seq(connection)
    piece_id = connection.execute("SELECT coalesce(max(id), 0) FROM pieces").fetchone()[0]
    first_seq, first_piece = seq + 1, piece_id + 1
    nodes: dict[str, int] = {}
    items, tags, pieces = [], [], []
    import numpy as np  # loaded by the embedding that made ``vectors`` already

    added = Added(pieces=[], items=[], vectors=np.concatenate([vectors[e.id] for e in entries]))
    for entry in entries:
        seq += 1
        items.append((seq, _node(connection, entry.item.meta.namespace, nodes), *_columns(entry)))
        tags += [(tag, seq) for tag in entry.item.meta.tags]
        for piece in entry.pieces:
            piece_id += 1
            first, last = piece.pages or (None, None)
            pieces.append((piece_id, seq, piece.start, first, last, piece.section, piece.text))
            added.pieces.append(piece_id)
            added.items.append(seq)
    connection.executemany(
        "INSERT INTO items(seq, node, id, kind, source_kind, source_id, workspace, folder, "
        "file_path, language, repo, commit_ref, url, thread_id, turns, agent_id, tool_call, "
        "observed_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        items,
    )
    connection.executemany("INSERT OR IGNORE INTO item_tags(tag, item) VALUES (?, ?)", tags)
    connection.executemany(
        "INSERT INTO pieces_fts(rowid, text) VALUES (?, ?)", [(row[0], row[6]) for row in pieces]
    )
    # Each piece's length as FTS5 counted it, so BM25 over any subset agrees with FTS5's.
    lengths = dict(
        connection.execute(
            "SELECT id, fts5_tokens(sz) FROM pieces_fts_docsize WHERE id >= ?", (first_piece,)
        )
    )
    connection.executemany(
        "INSERT INTO pieces(id, item, ord, first_page, last_page, section, text, tokens) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(*row, lengths[row[0]]) for row in pieces],
    )
    write_block(connection, added.pieces, added.items, added.vectors.tobytes())
    connection.execute(
        "INSERT INTO node_sizes(node, kind, pieces, tokens) "
        "SELECT i.node, i.kind, count(*), sum(p.tokens) FROM items i "
        "JOIN pieces p ON p.item = i.seq WHERE i.seq >= ? GROUP BY i.node, i.kind "
        "ON CONFLICT (node, kind) DO UPDATE "
        "SET pieces = pieces + excluded.pieces, tokens = tokens + excluded.tokens",
        (first_seq,),
    )
    return added


def _node(connection: sqlite3.Connection, namespace: Namespace, nodes: dict[str, int]) -> int:
    """The node's id, its row added when it is new."""
    path = node_path(namespace)
    if path not in nodes:
        connection.execute(
            "INSERT OR IGNORE INTO nodes(path, depth, last_service) VALUES (?, ?, ?)",
            (path, namespace.depth, last_service(namespace)),
        )
        row = connection.execute("SELECT id FROM nodes WHERE path = ?", (path,)).fetchone()
        nodes[path] = int(row[0])
    return nodes[path]


def _columns(entry: Prepared) -> tuple[object, ...]:
    """The item's row from ``id`` on: what filters read, then its JSON form."""
    item = entry.item
    meta = item.meta
    return (
        entry.id,
        item.item_kind.value,
        meta.source.kind.value,
        meta.source.id,
        meta.workspace,
        meta.folder,
        meta.file_path,
        meta.language,
        meta.repo,
        meta.commit,
        meta.url,
        meta.thread_id,
        turns_text(meta.turns.first, meta.turns.last) if meta.turns else None,
        meta.agent_id,
        meta.tool_call.name if meta.tool_call else None,
        sortable_time(meta.observed_at) if meta.observed_at else None,
        entry.body,
    )


def parse_item(body: str) -> StoreItem:
    """The item of a stored row, read by the items' constructors (not the generic converter)."""
    return item_from_json(body)


def last_seq(connection: sqlite3.Connection) -> int:
    row = connection.execute("SELECT seq FROM sqlite_sequence WHERE name = 'items'").fetchone()
    return int(row[0]) if row else 0
