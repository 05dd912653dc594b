"""Items as rows: the statements that write what the kit prepared (:class:`Prepared`).

An item is one ``items`` row holding its JSON form whole, with the fields
filters read copied into columns; its text is cut into ``pieces`` (a long
document into several), each with a row in the keyword index and a vector
in the write's block of vectors.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from tinymemory import Learning, Namespace, StoreItem
from tinymemory.retrieval import Prepared, item_columns, last_service

from .dialect import SQLITE
from .schema import write_block

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
    """Write new items, their tags, pieces, index rows and one block of vectors: one
    statement (an ``executemany``) per table for the whole batch.

    Inside ``BEGIN IMMEDIATE`` no one else writes, so the ``seq`` and piece
    ids are counted on from the highest ever handed out.
    """
    seq = last_seq(connection)
    piece_id = connection.execute("SELECT coalesce(max(id), 0) FROM pieces").fetchone()[0]
    first_piece = piece_id + 1
    nodes = _Nodes(connection)
    items, tags, pieces = [], [], []
    #: Each new piece's item ``seq``, and its node and kind (for ``node_sizes``).
    piece_items: list[int] = []
    groups: list[tuple[int, str]] = []
    import numpy as np  # loaded by the embedding that made ``vectors`` already

    for entry in entries:
        seq += 1
        item = entry.item
        node = nodes.of(item.meta.namespace)
        row = (seq, node, *item_columns(entry.id, item, entry.body, SQLITE))
        items.append(row)
        if item.meta.tags:
            tags += [(tag, seq) for tag in item.meta.tags]
        shared = _shared_text(item)
        for piece in entry.pieces:
            piece_id += 1
            first, last = piece.pages or (None, None)
            text = "" if piece.text == shared else piece.text
            pieces.append((piece_id, seq, piece.start, first, last, piece.section, text))
            piece_items.append(seq)
        groups += [(node, row[3])] * len(entry.pieces)
    connection.executemany(
        "INSERT INTO items(seq, node, id, kind, source_kind, source_id, workspace, folder, "
        "file_path, language, repo, commit_ref, url, thread_id, turns, agent_id, tool_call, "
        "observed_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        items,
    )
    if tags:
        connection.executemany("INSERT OR IGNORE INTO item_tags(tag, item) VALUES (?, ?)", tags)
    connection.executemany(
        "INSERT INTO pieces_fts(rowid, text) VALUES (?, ?)",
        zip(range(first_piece, piece_id + 1), _piece_texts(entries), strict=True),
    )
    # Each piece's length as FTS5 counted it, so BM25 over any subset agrees with FTS5's.
    lengths = [
        tokens
        for _, tokens in connection.execute(
            "SELECT id, fts5_tokens(sz) FROM pieces_fts_docsize WHERE id >= ? ORDER BY id",
            (first_piece,),
        )
    ]
    connection.executemany(
        "INSERT INTO pieces(id, item, ord, first_page, last_page, section, text, tokens) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(*row, tokens) for row, tokens in zip(pieces, lengths, strict=True)],
    )
    added = Added(
        pieces=list(range(first_piece, piece_id + 1)),
        items=piece_items,
        vectors=np.concatenate([vectors[e.id] for e in entries]),
    )
    write_block(connection, added.pieces, added.items, added.vectors.tobytes())
    # The write's pieces and tokens by node and kind, counted here rather than by a join
    # over the rows just written (which cost as much as writing the items).
    sizes: dict[tuple[int, str], list[int]] = {}
    for group, tokens in zip(groups, lengths, strict=True):
        counted = sizes.setdefault(group, [0, 0])
        counted[0] += 1
        counted[1] += tokens
    connection.executemany(
        "INSERT INTO node_sizes(node, kind, pieces, tokens) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (node, kind) DO UPDATE "
        "SET pieces = pieces + excluded.pieces, tokens = tokens + excluded.tokens",
        [(node, kind, count, tokens) for (node, kind), (count, tokens) in sizes.items()],
    )
    return added


def _piece_texts(entries: list[Prepared]) -> Iterator[str]:
    for entry in entries:
        for piece in entry.pieces:
            yield piece.text


def _shared_text(item: StoreItem) -> str | None:
    """The text the item's JSON holds as its ``text`` member (a learning's statement), which
    a piece of that text leaves to the JSON (stored as '', read back by ``piece_texts``)."""
    return item.text if isinstance(item, Learning) else None


class _Nodes:
    """The ids of the nodes a write's items are filed under, each row added when new."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection
        self._ids: dict[str, int] = {}
        self._last: tuple[Namespace, int] | None = None

    def of(self, namespace: Namespace) -> int:
        """The node's id (a batch's items mostly share one namespace: it is asked once)."""
        if self._last is not None and self._last[0] is namespace:
            return self._last[1]
        path = str(namespace)
        if path not in self._ids:
            self._connection.execute(
                "INSERT OR IGNORE INTO nodes(path, depth, last_service) VALUES (?, ?, ?)",
                (path, namespace.depth, last_service(namespace)),
            )
            row = self._connection.execute(
                "SELECT id FROM nodes WHERE path = ?", (path,)
            ).fetchone()
            self._ids[path] = int(row[0])
        self._last = (namespace, self._ids[path])
        return self._ids[path]


def last_seq(connection: sqlite3.Connection) -> int:
    """The highest ``seq`` ever handed out (forgotten items' included: none is reused)."""
    row = connection.execute("SELECT seq FROM sqlite_sequence WHERE name = 'items'").fetchone()
    return int(row[0]) if row else 0
