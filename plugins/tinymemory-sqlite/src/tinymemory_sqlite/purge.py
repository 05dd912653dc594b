"""The count of forgets and erases deleted but not yet purged from the file's bytes.

It lives in the ``settings`` table (key ``pending_purge``), so every engine
and ``tinymemory sqlite`` on the file see it: a forget adds one in its own
transaction, and a checkpoint that completes takes away what it purged.
"""

from __future__ import annotations

import sqlite3

_KEY = "pending_purge"


def pending_purges(connection: sqlite3.Connection) -> int:
    """The count; 0 when nothing waits."""
    row = connection.execute("SELECT value FROM settings WHERE key = ?", (_KEY,)).fetchone()
    return int(row[0]) if row else 0


def add_pending_purge(connection: sqlite3.Connection, change: int) -> None:
    """Add ``change`` to the count (inside a write transaction); the row goes at 0."""
    connection.execute(
        "INSERT INTO settings(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value",
        (_KEY, change),
    )
    connection.execute(
        "DELETE FROM settings WHERE key = ? AND CAST(value AS INTEGER) <= 0", (_KEY,)
    )
