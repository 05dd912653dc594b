"""The database layout, versioned with ``PRAGMA user_version`` and migrated forward on open.

Each item is one ``items`` row holding its JSON form whole, with the fields filters read
copied into columns. Its text is cut into ``pieces`` (one for all but long documents),
each with a row in the FTS5 index ``pieces_fts``. The pieces' vectors are kept a write
at a time in ``vector_blocks`` (version 2), as a byte per dimension and a range per
vector (version 4; see :mod:`tinymemory_sqlite.vectors` for why). The engine writes
and deletes index rows itself, in the same transaction: FTS5
flushes its pending terms at every savepoint, and a trigger's statement is one, which
made each indexed row cost a segment write (about 7x slower). ``nodes`` holds each
namespace once, with what reach tests need: its depth and where its deepest ``service:``
segment is.

A file of ours carries :data:`APPLICATION_ID` in its header; :func:`recognise`
refuses any other database before anything is written to it.

Keyword scores are BM25 over the pieces a read admits, so each piece keeps
its length in tokens (``tokens``, as FTS5 counted it; version 3) and
``node_sizes`` keeps how many pieces and tokens each node holds, by kind.
"""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Callable

from tinymemory import ConfigError

_VERSION_1 = """
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE nodes (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    depth INTEGER NOT NULL,
    last_service INTEGER NOT NULL
);

CREATE TABLE items (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    node INTEGER NOT NULL REFERENCES nodes(id),
    source_kind TEXT NOT NULL,
    source_id TEXT,
    workspace TEXT,
    folder TEXT,
    file_path TEXT,
    language TEXT,
    repo TEXT,
    commit_ref TEXT,
    url TEXT,
    thread_id TEXT,
    turns TEXT,
    agent_id TEXT,
    tool_call TEXT,
    observed_at TEXT,
    body TEXT NOT NULL
);
CREATE INDEX items_node ON items(node, kind);
CREATE INDEX items_workspace ON items(workspace) WHERE workspace IS NOT NULL;

CREATE TABLE item_tags (
    tag TEXT NOT NULL,
    item INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
    PRIMARY KEY (tag, item)
) WITHOUT ROWID;
CREATE INDEX item_tags_item ON item_tags(item);

CREATE TABLE pieces (
    id INTEGER PRIMARY KEY,
    item INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    first_page INTEGER,
    last_page INTEGER,
    section TEXT,
    text TEXT NOT NULL,
    vector BLOB NOT NULL
);
CREATE INDEX pieces_item ON pieces(item);

CREATE VIRTUAL TABLE pieces_fts USING fts5(
    text,
    content = 'pieces',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO settings(key, value) VALUES ('generation', '0');
"""

#: ``PRAGMA application_id`` of a tinymemory-sqlite file: ``TMem`` read as a 32-bit integer.
APPLICATION_ID = int.from_bytes(b"TMem", "big")
#: Tables the layout has had from version 1: a file holding them with no application id
#: was written by tinymemory-sqlite before the id existed, and is ours.
OUR_TABLES = frozenset({"settings", "nodes", "items", "item_tags", "pieces", "pieces_fts"})

_VECTOR_BLOCKS = """
CREATE TABLE vector_blocks (
    first_item INTEGER PRIMARY KEY,
    pieces BLOB NOT NULL,
    items BLOB NOT NULL,
    vectors BLOB NOT NULL
);
"""

#: The most pieces one block takes when version 1's vectors are moved into blocks.
MIGRATED_BLOCK = 1024


def _vectors_into_blocks(connection: sqlite3.Connection) -> None:
    """Version 2: move each piece's vector out of its row into blocks of whole items."""
    for statement in _statements(_VECTOR_BLOCKS):
        connection.execute(statement)
    rows = connection.execute("SELECT id, item, vector FROM pieces ORDER BY id")
    block: list[tuple[int, int, bytes]] = []
    for row in [*rows, None]:
        if block and (row is None or (len(block) >= MIGRATED_BLOCK and row[1] != block[-1][1])):
            connection.execute(
                "INSERT INTO vector_blocks(first_item, pieces, items, vectors) VALUES (?, ?, ?, ?)",
                (
                    block[0][1],
                    array("q", [piece for piece, _, _ in block]).tobytes(),
                    array("q", [item for _, item, _ in block]).tobytes(),
                    b"".join(vector for _, _, vector in block),
                ),
            )
            block = []
        if row is not None:
            block.append(row)
    connection.execute("ALTER TABLE pieces DROP COLUMN vector")


def write_block(
    connection: sqlite3.Connection, pieces: list[int], items: list[int], vectors: bytes
) -> None:
    """One block: the pieces' ids, their items' ``seq`` (int64s), and their float32
    ``vectors`` kept as codes and ranges (:func:`tinymemory_sqlite.vectors.encode`)."""
    import numpy as np  # loaded by the embedding that made ``vectors`` already

    from .vectors import encode

    codes, ranges = encode(np.frombuffer(vectors, np.float32).reshape(len(pieces), -1))
    connection.execute(
        "INSERT INTO vector_blocks(first_item, pieces, items, vectors, ranges) "
        "VALUES (?, ?, ?, ?, ?)",
        (
            items[0],
            array("q", pieces).tobytes(),
            array("q", items).tobytes(),
            codes.tobytes(),
            ranges.tobytes(),
        ),
    )


def _vectors_as_codes(connection: sqlite3.Connection) -> None:
    """Version 4: each block's float32 vectors rewritten as codes and ranges."""
    import numpy as np  # a migration's one-off cost; a file with vectors was written with it

    from .vectors import encode

    connection.execute("ALTER TABLE vector_blocks ADD COLUMN ranges BLOB NOT NULL DEFAULT x''")
    blocks = connection.execute("SELECT first_item, vectors, length(items) / 8 FROM vector_blocks")
    for first_item, vectors, count in blocks.fetchall():
        codes, ranges = encode(np.frombuffer(vectors, np.float32).reshape(count, -1))
        connection.execute(
            "UPDATE vector_blocks SET vectors = ?, ranges = ? WHERE first_item = ?",
            (codes.tobytes(), ranges.tobytes(), first_item),
        )


# Pieces' lengths and the sizes of nodes, for BM25 over what a read admits. A
# piece's length is read back from FTS5's own record of it (``fts5_tokens``).
_VERSION_3 = """
ALTER TABLE pieces ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;

UPDATE pieces
SET tokens = fts5_tokens((SELECT sz FROM pieces_fts_docsize d WHERE d.id = pieces.id));

CREATE TABLE node_sizes (
    node INTEGER NOT NULL,
    kind TEXT NOT NULL,
    pieces INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (node, kind)
) WITHOUT ROWID;

INSERT INTO node_sizes(node, kind, pieces, tokens)
SELECT i.node, i.kind, count(*), sum(p.tokens) FROM items i JOIN pieces p ON p.item = i.seq
GROUP BY i.node, i.kind;
"""

# A piece whose text is its item's whole ``text`` (every piece of all but long documents)
# keeps '' in its row, not the text a second time: ``piece_texts`` reads it from the
# item's JSON, and the keyword index reads its content through that view.
_VERSION_5 = """
CREATE VIEW piece_texts AS
SELECT p.id, p.item, p.ord, p.first_page, p.last_page, p.section, p.tokens,
    iif(p.text = '', coalesce(json_extract(i.body, '$.text'), ''), p.text) AS text
FROM pieces p JOIN items i ON i.seq = p.item;

DROP TABLE pieces_fts;

CREATE VIRTUAL TABLE pieces_fts USING fts5(
    text,
    content = 'piece_texts',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO pieces_fts(pieces_fts) VALUES ('rebuild');

UPDATE pieces SET text = ''
WHERE text = (SELECT json_extract(body, '$.text') FROM items WHERE seq = pieces.item);
"""

#: The layout of :data:`VERSION` whole: a new file is made with it in one step, rather than
#: by every migration in turn (6.3 ms of CPU to open and close a new file, now 4.1).
#: The tests hold it equal to what the migrations make of a version 1 file.
_LATEST = """
CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE nodes (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    depth INTEGER NOT NULL,
    last_service INTEGER NOT NULL
);

CREATE TABLE items (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    node INTEGER NOT NULL REFERENCES nodes(id),
    source_kind TEXT NOT NULL,
    source_id TEXT,
    workspace TEXT,
    folder TEXT,
    file_path TEXT,
    language TEXT,
    repo TEXT,
    commit_ref TEXT,
    url TEXT,
    thread_id TEXT,
    turns TEXT,
    agent_id TEXT,
    tool_call TEXT,
    observed_at TEXT,
    body TEXT NOT NULL
);
CREATE INDEX items_node ON items(node, kind);
CREATE INDEX items_workspace ON items(workspace) WHERE workspace IS NOT NULL;

CREATE TABLE item_tags (
    tag TEXT NOT NULL,
    item INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
    PRIMARY KEY (tag, item)
) WITHOUT ROWID;
CREATE INDEX item_tags_item ON item_tags(item);

CREATE TABLE pieces (
    id INTEGER PRIMARY KEY,
    item INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
    ord INTEGER NOT NULL,
    first_page INTEGER,
    last_page INTEGER,
    section TEXT,
    text TEXT NOT NULL,
    tokens INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX pieces_item ON pieces(item);

CREATE VIEW piece_texts AS
SELECT p.id, p.item, p.ord, p.first_page, p.last_page, p.section, p.tokens,
    iif(p.text = '', coalesce(json_extract(i.body, '$.text'), ''), p.text) AS text
FROM pieces p JOIN items i ON i.seq = p.item;

CREATE VIRTUAL TABLE pieces_fts USING fts5(
    text,
    content = 'piece_texts',
    content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TABLE vector_blocks (
    first_item INTEGER PRIMARY KEY,
    pieces BLOB NOT NULL,
    items BLOB NOT NULL,
    vectors BLOB NOT NULL,
    ranges BLOB NOT NULL DEFAULT x''
);

CREATE TABLE node_sizes (
    node INTEGER NOT NULL,
    kind TEXT NOT NULL,
    pieces INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    PRIMARY KEY (node, kind)
) WITHOUT ROWID;

INSERT INTO settings(key, value) VALUES ('generation', '0');
"""

#: Every migration, in order; ``MIGRATIONS[n]`` takes version ``n`` to ``n + 1``: a
#: script, or a function run inside the migration's transaction.
MIGRATIONS: tuple[str | Callable[[sqlite3.Connection], None], ...] = (
    _VERSION_1,
    _vectors_into_blocks,
    _VERSION_3,
    _vectors_as_codes,
    _VERSION_5,
)
#: The version this code reads and writes.
VERSION = len(MIGRATIONS)


def recognise(connection: sqlite3.Connection, path: str) -> None:
    """``ConfigError`` naming what the file holds unless it is ours or empty; it only reads.

    Ours: our application id, or no application id with our tables (a file
    written before the id existed). Empty: no tables and no ids at all.
    """
    application_id = _pragma(connection, "application_id")
    version = _version(connection)
    tables = {
        str(name)
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    }
    if application_id == APPLICATION_ID:
        return
    if application_id == 0 and ((not tables and version == 0) or tables >= OUR_TABLES):
        return
    shown = sorted(tables)
    listed = ", ".join(shown[:8]) + (f" and {len(shown) - 8} more" if len(shown) > 8 else "")
    raise ConfigError(
        f"`{path}` is not a tinymemory-sqlite database (application_id {application_id}, "
        f"user_version {version}, tables: {listed or 'none'}); it was left as it is: "
        "choose another path"
    )


def migrate(connection: sqlite3.Connection) -> None:
    """Bring the database up to :data:`VERSION`, marked as ours; ``ConfigError`` when newer.

    A new file (version 0) is made in the latest layout at once; an older one goes
    through each migration after its version.

    Runs in one ``BEGIN IMMEDIATE`` transaction and reads the version again
    inside it, so two processes opening a new file migrate it once. The
    connection has :func:`fts5_tokens` as an SQL function.
    """
    if _version(connection) == VERSION and _pragma(connection, "application_id") == APPLICATION_ID:
        return
    connection.execute("BEGIN IMMEDIATE")
    try:
        current = _version(connection)
        if current > VERSION:
            raise ConfigError(
                f"the database is at schema version {current}, newer than this "
                f"tinymemory-sqlite reads ({VERSION}); upgrade tinymemory-sqlite"
            )
        for migration in MIGRATIONS[current:] if current else (_LATEST,):
            if callable(migration):
                migration(connection)
                continue
            for statement in _statements(migration):
                connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {VERSION}")
        connection.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise


def fts5_tokens(size: bytes | None) -> int:
    """A piece's length in tokens from its FTS5 ``docsize`` record (0 when it has none).

    The record is one varint per column (one column here): big-endian groups
    of seven bits, the high bit set on every byte but the last, the ninth byte
    whole.
    """
    value = 0
    for index, byte in enumerate(size or b""):
        if index == 8:
            return value << 8 | byte
        value = value << 7 | byte & 0x7F
        if byte < 0x80:
            break
    return value


def _version(connection: sqlite3.Connection) -> int:
    return _pragma(connection, "user_version")


def _pragma(connection: sqlite3.Connection, name: str) -> int:
    return int(connection.execute(f"PRAGMA {name}").fetchone()[0])


def _statements(script: str) -> list[str]:
    """Split a script into statements (``executescript`` would commit the transaction)."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return [statement for statement in statements if statement]
