"""The tables of one memory, in a schema of its own, created and migrated by the engine.

``schema_version`` holds the version the tables are at. The engine creates a
missing schema, migrates an older one step by step (each step in the
transaction that records it) and refuses a newer one, which a later release
of this plugin wrote. Migration holds the schema's write lock, so two
engines opening one new schema at once create it once.

Tables: ``nodes`` (one row per namespace written), ``items`` (the item's
canonical JSON whole, the fields filters read copied into columns, the
unique fingerprint ``id`` and ``seq``, handed out in commit order),
``item_tags``, ``pieces`` (the text items are ranked by: a long document
has several) with its ``tsvector`` under a GIN index, its length in words
and its item's node and kind, ``vectors`` (each piece's, float32), and
``node_sizes``: how many pieces and tokens each node holds of each kind, so
a keyword read admitting whole nodes counts its statistics without a scan;
``vector_changes``: a counter a trigger increments on every statement
deleting, updating or truncating vectors. Only the engine writes them, so
they hold no foreign keys (from version 3): a delete removes an item's rows
from every table in one statement.
"""

from __future__ import annotations

import psycopg
from psycopg import sql

from tinymemory import ConfigError

#: The version this release writes.
VERSION = 3

_VERSION_1 = """
CREATE TABLE {s}.settings (key text PRIMARY KEY, value text NOT NULL);
CREATE TABLE {s}.nodes (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    path text NOT NULL UNIQUE,
    depth integer NOT NULL,
    last_service integer NOT NULL
);
CREATE SEQUENCE {s}.item_seq;
CREATE TABLE {s}.items (
    seq bigint PRIMARY KEY,
    node bigint NOT NULL REFERENCES {s}.nodes(id),
    id text NOT NULL UNIQUE,
    kind text NOT NULL,
    source_kind text NOT NULL,
    source_id text,
    workspace text,
    folder text,
    file_path text,
    language text,
    repo text,
    commit_ref text,
    url text,
    thread_id text,
    turns text,
    agent_id text,
    tool_call text,
    observed_at timestamptz,
    body text NOT NULL
);
CREATE INDEX ON {s}.items (node, kind);
CREATE INDEX ON {s}.items (workspace);
CREATE TABLE {s}.item_tags (
    item bigint NOT NULL REFERENCES {s}.items(seq) ON DELETE CASCADE,
    tag text NOT NULL,
    PRIMARY KEY (item, tag)
);
CREATE INDEX ON {s}.item_tags (tag);
CREATE TABLE {s}.pieces (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    item bigint NOT NULL REFERENCES {s}.items(seq) ON DELETE CASCADE,
    start integer NOT NULL,
    length integer NOT NULL,
    first_page integer,
    last_page integer,
    section text,
    text text NOT NULL,
    words tsvector NOT NULL,
    tokens integer NOT NULL,
    vector bytea NOT NULL
);
CREATE INDEX ON {s}.pieces (item);
CREATE TABLE {s}.node_sizes (
    node bigint NOT NULL REFERENCES {s}.nodes(id) ON DELETE CASCADE,
    kind text NOT NULL,
    pieces bigint NOT NULL,
    tokens bigint NOT NULL,
    PRIMARY KEY (node, kind)
);
CREATE INDEX ON {s}.pieces USING gin (words);
"""

# Vectors move to a table of their own, so a keyword read's scan of the pieces it matches
# reads narrow rows (their text, kept whole in the item's JSON, goes too). A statement
# that deletes, updates or truncates vectors counts one change, whoever runs it: engines
# holding vectors in the client read them again (see vector_cache). The dropped columns'
# bytes stay in old rows until `VACUUM FULL pieces` rewrites them.
_VERSION_2 = """
CREATE TABLE {s}.vectors (
    piece bigint PRIMARY KEY REFERENCES {s}.pieces(id) ON DELETE CASCADE,
    vector bytea NOT NULL
);
INSERT INTO {s}.vectors SELECT id, vector FROM {s}.pieces;
ALTER TABLE {s}.pieces DROP COLUMN vector, DROP COLUMN text;
CREATE TABLE {s}.vector_changes (generation bigint NOT NULL);
INSERT INTO {s}.vector_changes VALUES (0);
CREATE FUNCTION {s}.count_vector_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE {s}.vector_changes SET generation = generation + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER count_vector_change AFTER UPDATE OR DELETE OR TRUNCATE ON {s}.vectors
    FOR EACH STATEMENT EXECUTE FUNCTION {s}.count_vector_change();
"""

# Each piece carries its item's node and kind, so a keyword read whose reach and kinds alone
# decide what it admits checks its matches on the pieces themselves (no lookup of each match's
# item). The foreign keys of an item's rows go: each was a check per row written (a fifth of
# a store's time in the server), and only the engine writes these tables, in one transaction
# per item (a delete removes an item's tags, pieces and vectors in the statement removing it).
_VERSION_3 = """
ALTER TABLE {s}.pieces ADD COLUMN node bigint, ADD COLUMN kind text;
UPDATE {s}.pieces p SET node = i.node, kind = i.kind FROM {s}.items i WHERE i.seq = p.item;
ALTER TABLE {s}.pieces ALTER COLUMN node SET NOT NULL, ALTER COLUMN kind SET NOT NULL;
ALTER TABLE {s}.items DROP CONSTRAINT items_node_fkey;
ALTER TABLE {s}.item_tags DROP CONSTRAINT item_tags_item_fkey;
ALTER TABLE {s}.pieces DROP CONSTRAINT pieces_item_fkey;
ALTER TABLE {s}.vectors DROP CONSTRAINT vectors_piece_fkey;
"""

#: Each version's statements, from the one before it (version 1 from nothing).
MIGRATIONS = {1: _VERSION_1, 2: _VERSION_2, 3: _VERSION_3}


def write_lock(schema: str) -> sql.Composed:
    """The statement taking the schema's write lock until the transaction ends.

    Every write takes it, so items get their ``seq`` in commit order: a
    listing cursor (after a ``seq``) and a ranked cursor's bound never miss
    an item committed later with a lower one.
    """
    return sql.SQL("SELECT pg_advisory_xact_lock(hashtext({}))").format(
        sql.Literal("tinymemory." + schema)
    )


def ensure(connection: psycopg.Connection[tuple[object, ...]], schema: str) -> None:
    """Create or migrate ``schema`` to :data:`VERSION`; ``ConfigError`` for a newer one."""
    name = sql.Identifier(schema)
    with connection.transaction():
        connection.execute(write_lock(schema))
        # Created only when missing: a user who may not create schemas can still open one.
        found = connection.execute(
            "SELECT to_regnamespace(%s) IS NOT NULL, to_regclass(%s) IS NOT NULL",
            (f'"{schema}"', f'"{schema}".schema_version'),
        ).fetchone()
        if not (found and found[0]):
            connection.execute(sql.SQL("CREATE SCHEMA {}").format(name))
        if not (found and found[1]):
            connection.execute(
                sql.SQL("CREATE TABLE {}.schema_version (version integer NOT NULL)").format(name)
            )
        row = connection.execute(
            sql.SQL("SELECT max(version) FROM {}.schema_version").format(name)
        ).fetchone()
        current = row[0] if row and row[0] is not None else 0
        if not isinstance(current, int) or current > VERSION:
            raise ConfigError(
                f"the postgres schema `{schema}` is at version {current}, newer than this "
                f"release of tinymemory-postgres writes ({VERSION}); upgrade the plugin"
            )
        for version in range(current + 1, VERSION + 1):
            connection.execute(sql.SQL(MIGRATIONS[version]).format(s=name))
            connection.execute(sql.SQL("DELETE FROM {}.schema_version").format(name))
            connection.execute(
                sql.SQL("INSERT INTO {}.schema_version(version) VALUES (%s)").format(name),
                (version,),
            )
