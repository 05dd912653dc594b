"""Items as rows: what PostgreSQL refuses before any I/O, and the statements that write a batch.

An item is one ``items`` row holding its canonical JSON whole, with the
fields filters read copied into columns; its text is cut into ``pieces`` (a
long document into several), each with its ``tsvector`` and its length in
words, and its vector in ``vectors``. A batch is written by one statement per table, inside
the transaction that holds the schema's write lock.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from tinymemory import InvalidRequest, Namespace, StoreItem
from tinymemory.retrieval import ITEM_COLUMNS, Prepared, item_columns, last_service

from .dialect import POSTGRES

if TYPE_CHECKING:
    import numpy as np

#: A word, as a piece's length counts them.
_WORD = re.compile(r"\w+")
#: PostgreSQL's types of the ``items`` columns after ``seq`` and ``node``, for the arrays a
#: batch is sent as.
_ITEM_TYPES = ("text",) * 15 + ("timestamptz", "text")


def checked(item: StoreItem) -> Prepared:
    """The kit's :class:`Prepared` of ``item``, checked for what PostgreSQL cannot keep.

    PostgreSQL's text holds no NUL character: one in a field a filter reads
    is ``InvalidRequest``. (The JSON form escapes it, and a piece's indexed
    copy has it replaced, so the item's own text may hold one; a namespace's
    segments refuse it when they are made.)
    """
    prepared = Prepared.of(item)
    columns = item_columns(prepared.id, item, prepared.body, POSTGRES)
    for name, value in zip(ITEM_COLUMNS, columns, strict=True):
        if isinstance(value, str) and "\x00" in value:
            raise InvalidRequest(f"PostgreSQL cannot keep a NUL character in `{name}`")
    for tag in item.meta.tags:
        if "\x00" in tag:
            raise InvalidRequest("PostgreSQL cannot keep a NUL character in a tag")
    return prepared


def existing(connection: psycopg.Connection[Any], ids: Sequence[str]) -> set[str]:
    """Those of ``ids`` stored already."""
    rows = connection.execute("SELECT id FROM items WHERE id = ANY(%s)", (list(ids),))
    return {row[0] for row in rows}


def write(
    connection: psycopg.Connection[Any],
    entries: list[Prepared],
    vectors: dict[str, np.ndarray[Any, Any]],
) -> None:
    """Write new items, their nodes, tags and pieces: one statement per table.

    The caller holds the schema's write lock, so the ``seq`` handed out here
    (counted on from the sequence) are in commit order.
    """
    # Both asked before either answer is read: one round trip when pipelined.
    asked_nodes = _nodes(connection, [entry.item.meta.namespace for entry in entries])
    asked_runs = _runs(connection, len(entries), sum(len(entry.pieces) for entry in entries))
    nodes, (seqs, ids) = asked_nodes(), asked_runs()
    columns: list[list[Any]] = [seqs, [nodes[str(e.item.meta.namespace)] for e in entries]]
    rows = (item_columns(entry.id, entry.item, entry.body, POSTGRES) for entry in entries)
    columns += [list(values) for values in zip(*rows, strict=True)]
    types = ("bigint", "bigint", *_ITEM_TYPES)
    arrays = ", ".join(f"%b::{kind}[]" for kind in types)
    statements: list[tuple[str, Sequence[Any]]] = [
        (f"INSERT INTO items(seq, node, {', '.join(ITEM_COLUMNS)}) SELECT * FROM unnest({arrays})",
         columns),
    ]  # fmt: skip
    tag_items, tags = [], []
    piece_rows: list[list[object]] = [[] for _ in range(10)]
    vector_rows: list[bytes] = []
    sizes: dict[tuple[int, str], list[int]] = {}
    for seq, node, entry in zip(seqs, columns[1], entries, strict=True):
        for tag in dict.fromkeys(entry.item.meta.tags):
            tag_items.append(seq)
            tags.append(tag)
        kind = entry.item.item_kind.value
        size = sizes.setdefault((node, kind), [0, 0])
        for piece, vector in zip(entry.pieces, vectors[entry.id], strict=True):
            first_page, last_page = piece.pages or (None, None)
            tokens = token_count(piece.text)
            size[0] += 1
            size[1] += tokens
            row = (seq, node, kind, piece.start, len(piece.text), first_page, last_page,
                   piece.section, piece.text.replace("\x00", "\ufffd"), tokens)  # fmt: skip
            for values, value in zip(piece_rows, row, strict=True):
                values.append(value)
            vector_rows.append(vector.tobytes())
    if tags:
        statements.append(
            ("INSERT INTO item_tags(item, tag) SELECT * FROM unnest(%b::bigint[], %b::text[])",
             (tag_items, tags))
        )  # fmt: skip
    if vector_rows:
        statements.append((
            "INSERT INTO pieces(id, item, node, kind, start, length, first_page, last_page, "
            "section, words, tokens) OVERRIDING SYSTEM VALUE "
            "SELECT u.id, u.item, u.node, u.kind, u.start, u.length, u.first_page, u.last_page, "
            "u.section, to_tsvector('simple', u.text), u.tokens "
            "FROM unnest(%b::bigint[], %b::bigint[], %b::bigint[], %b::text[], %b::int[], "
            "%b::int[], %b::int[], %b::int[], %b::text[], %b::text[], %b::int[]) "
            "AS u(id, item, node, kind, start, length, first_page, last_page, section, text, "
            "tokens)",
            [ids, *piece_rows],
        ))  # fmt: skip
        statements.append(
            ("INSERT INTO vectors(piece, vector) SELECT * FROM unnest(%b::bigint[], %b::bytea[])",
             (ids, vector_rows))
        )  # fmt: skip
    counted = [(*key, pieces, tokens) for key, (pieces, tokens) in sizes.items() if pieces]
    if counted:
        statements.append((
            "INSERT INTO node_sizes(node, kind, pieces, tokens) "
            "SELECT * FROM unnest(%b::bigint[], %b::text[], %b::bigint[], %b::bigint[]) "
            "ON CONFLICT (node, kind) DO UPDATE SET pieces = node_sizes.pieces + excluded.pieces, "
            "tokens = node_sizes.tokens + excluded.tokens",
            [list(values) for values in zip(*counted, strict=True)],
        ))  # fmt: skip
    # Sent at once: none waits for the answer to the one before.
    with connection.pipeline():
        for statement, params in statements:
            connection.execute(statement, params)


def _runs(
    connection: psycopg.Connection[Any], items: int, pieces: int
) -> Callable[[], tuple[list[int], list[int]]]:
    """The batch's ``seq`` and piece ids: runs taken at once from their sequences (asked now,
    read when the returned function is called).

    Under the write lock no one else takes from them, so they follow commit order.
    """
    cursor = connection.execute(
        "SELECT setval('item_seq', nextval('item_seq') + %s), CASE WHEN %s > 0 THEN "
        "setval(pg_get_serial_sequence('pieces', 'id'), "
        "nextval(pg_get_serial_sequence('pieces', 'id')) + %s) END",
        (items - 1, pieces, pieces - 1),
    )

    def answer() -> tuple[list[int], list[int]]:
        row = cursor.fetchone()
        assert row is not None
        last_piece = row[1] or 0
        return list(range(row[0] - items + 1, row[0] + 1)), list(
            range(last_piece - pieces + 1, last_piece + 1)
        )

    return answer


def token_count(text: str) -> int:
    """A piece's length in words, BM25's document length: its runs of letters and digits."""
    return len(_WORD.findall(text))


def _nodes(
    connection: psycopg.Connection[Any], namespaces: list[Namespace]
) -> Callable[[], dict[str, int]]:
    """Each namespace's node id, its row added when it is new (asked now, read when the
    returned function is called)."""
    unique = {str(namespace): namespace for namespace in namespaces}
    paths = list(unique)
    cursor = connection.execute(
        "WITH added AS (INSERT INTO nodes(path, depth, last_service) "
        "SELECT * FROM unnest(%s::text[], %s::int[], %s::int[]) ON CONFLICT (path) DO NOTHING "
        "RETURNING path, id) "
        # The statement's snapshot does not see the rows it adds: each path comes once.
        "SELECT path, id FROM added UNION ALL SELECT path, id FROM nodes WHERE path = ANY(%s)",
        (paths, [n.depth for n in unique.values()], [last_service(n) for n in unique.values()],
         paths),
    )  # fmt: skip
    return lambda: dict(cursor.fetchall())
