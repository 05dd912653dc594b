"""Items as rows: the statements that write what the kit prepared (:class:`Prepared`).

An item is one ``items`` row holding its JSON form whole, with the fields
filters read copied into columns; its text is cut into ``pieces`` (a long
document into several), each with a row in the keyword index and a vector
in the write's block of vectors.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs

from tinymemory import Namespace
from tinymemory.retrieval import Prepared, item_columns, last_service

from .dialect import SQLITE
from .schema import PIECE, SHARED_TEXT_PIECE, write_block

if TYPE_CHECKING:
    import numpy as np


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
    first_piece = piece_id + 1
    nodes: dict[str, int] = {}
    items, tags, pieces = [], [], []
    #: Each new piece's node and kind, for ``node_sizes``.
    groups: list[tuple[int, str]] = []
    import numpy as np  # loaded by the embedding that made ``vectors`` already

    added = Added(pieces=[], items=[], vectors=np.concatenate([vectors[e.id] for e in entries]))
    for entry in entries:
        seq += 1
        node = _node(connection, entry.item.meta.namespace, nodes)
        row = (seq, node, *item_columns(entry.id, entry.item, entry.body, SQLITE))
        items.append(row)
        tags += [(tag, seq) for tag in entry.item.meta.tags]
        groups += [(node, row[3])] * len(entry.pieces)
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
    pieces_of = Counter(row[1] for row in pieces)
    connection.executemany(
        SHARED_TEXT_PIECE, [(*row, lengths[row[0]]) for row in pieces if pieces_of[row[1]] == 1]
    )
    connection.executemany(
        PIECE, [(*row, lengths[row[0]]) for row in pieces if pieces_of[row[1]] > 1]
    )
    write_block(connection, added.pieces, added.items, added.vectors.tobytes())
    # The write's pieces and tokens by node and kind, counted here rather than by a join
    # over the rows just written (which cost as much as writing the items).
    sizes: dict[tuple[int, str], list[int]] = {}
    for group, row in zip(groups, pieces, strict=True):
        counted = sizes.setdefault(group, [0, 0])
        counted[0] += 1
        counted[1] += lengths[row[0]]
    connection.executemany(
        "INSERT INTO node_sizes(node, kind, pieces, tokens) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (node, kind) DO UPDATE "
        "SET pieces = pieces + excluded.pieces, tokens = tokens + excluded.tokens",
        [(node, kind, count, tokens) for (node, kind), (count, tokens) in sizes.items()],
    )
    return added


def _node(connection: sqlite3.Connection, namespace: Namespace, nodes: dict[str, int]) -> int:
    """The node's id, its row added when it is new."""
    path = str(namespace)
    if path not in nodes:
        connection.execute(
            "INSERT OR IGNORE INTO nodes(path, depth, last_service) VALUES (?, ?, ?)",
            (path, namespace.depth, last_service(namespace)),
        )
        row = connection.execute("SELECT id FROM nodes WHERE path = ?", (path,)).fetchone()
        nodes[path] = int(row[0])
    return nodes[path]


def last_seq(connection: sqlite3.Connection) -> int:
    """The highest ``seq`` ever handed out (forgotten items' included: none is reused)."""
    row = connection.execute("SELECT seq FROM sqlite_sequence WHERE name = 'items'").fetchone()
    return int(row[0]) if row else 0
