"""Connections to one database file: one per thread, set up the same way, and write transactions.

A file database gets a connection per thread (and per process, so a forked
child never shares its parent's). ``:memory:`` has one connection, which a
lock serialises, since every connection to ``:memory:`` would be a database
of its own. Every write runs in ``BEGIN IMMEDIATE``, so a second writer
waits on the busy timeout instead of failing on upgrade from a read.

A file this process cannot write (it, or its folder: a read-only folder, a
read-only file system) is opened for reading only (:func:`read_only_uri`),
creating nothing beside it; a write on it is ``Unsupported``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tinymemory import ConfigError, EngineError, TinyMemoryError, Unavailable, Unsupported

from .location import IN_MEMORY
from .schema import fts5_tokens, migrate, recognise

#: How long a connection waits for another writer, in seconds.
BUSY_TIMEOUT = 5.0
#: How long a checkpoint waits for readers on an older snapshot, in seconds.
CHECKPOINT_WAIT = 0.2
#: The WAL is cut back to this size after a checkpoint.
JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024
SYNCHRONOUS = ("normal", "full")


def read_only_uri(path: str) -> str:
    """The URI that opens the database at ``path`` for reading, writing nothing beside it.

    ``mode=ro``; and ``immutable=1`` as well when this process cannot write the
    file's folder and no WAL with content is beside it: SQLite would otherwise
    need to create the ``-shm`` file there to read a WAL-mode database, and
    with no WAL and no one able to write there, nothing can change under it.
    """
    file = Path(path).resolve()
    wal = Path(f"{file}-wal")
    held = wal.is_file() and wal.stat().st_size > 0
    immutable = "" if held or os.access(file.parent, os.W_OK) else "&immutable=1"
    return f"{file.as_uri()}?mode=ro{immutable}"


def _writable(path: str) -> bool:
    """Whether this process may write the existing file at ``path`` and create files beside it."""
    file = Path(path)
    return os.access(file, os.W_OK) and os.access(file.resolve().parent, os.W_OK)


class Connections:
    """Hands out this thread's connection to ``path``, made and set up on first use."""

    def __init__(self, path: str, *, synchronous: str = "normal") -> None:
        if synchronous not in SYNCHRONOUS:
            raise ConfigError("the sqlite engine's `synchronous` must be `normal` or `full`")
        self.path = path
        self.in_memory = path == IN_MEMORY
        self._synchronous = synchronous.upper()
        self._local = threading.local()
        self._lock = threading.RLock()
        self._open: list[sqlite3.Connection] = []
        self._closed = False
        #: Whether the file can only be read here (see the module).
        self.read_only = not self.in_memory and Path(path).is_file() and not _writable(path)
        if not self.in_memory and not self.read_only:
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as error:
                raise ConfigError(f"cannot make the folder of `{path}`: {error}") from None
        try:
            self._recognise()
            migrate(self._connect())
        except sqlite3.Error as error:
            self.close()
            raise _open_error(path, error) from None
        except BaseException:
            self.close()
            raise

    def _recognise(self) -> None:
        """Refuse a database that is not ours, through a read-only connection, before any write."""
        file = Path(self.path)
        if self.in_memory or not file.is_file() or file.stat().st_size == 0:
            return
        connection = sqlite3.connect(read_only_uri(self.path), uri=True, timeout=BUSY_TIMEOUT)
        try:
            recognise(connection, self.path)
        finally:
            connection.close()

    def _connect(self) -> sqlite3.Connection:
        try:
            # check_same_thread is off only so close() may close every thread's
            # connection; each connection is otherwise used by its own thread.
            connection = sqlite3.connect(
                read_only_uri(self.path) if self.read_only else self.path,
                uri=self.read_only,
                timeout=BUSY_TIMEOUT,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as error:
            raise _open_error(self.path, error) from None
        try:
            if not self.in_memory and not self.read_only:
                _use_wal(connection)
            connection.execute(f"PRAGMA synchronous = {self._synchronous}")
            connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute("PRAGMA secure_delete = ON")
            connection.execute(f"PRAGMA journal_size_limit = {JOURNAL_SIZE_LIMIT}")
            connection.create_function("fts5_tokens", 1, fts5_tokens, deterministic=True)
        except sqlite3.Error as error:
            connection.close()
            raise _open_error(self.path, error) from None
        with self._lock:
            if self._closed:
                connection.close()
                raise Unavailable("the sqlite engine is closed")
            self._open.append(connection)
            self._local.connection = connection
            self._local.pid = os.getpid()
        return connection

    def connection(self) -> sqlite3.Connection:
        """This thread's connection."""
        if self._closed:
            raise Unavailable("the sqlite engine is closed")
        if self.in_memory and self._open:
            return self._open[0]
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None or self._local.pid != os.getpid():
            connection = self._connect()
        return connection

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """A connection for reads; reads of one statement see one snapshot."""
        with self._lock if self.in_memory else _no_lock(), _translated():
            yield self.connection()

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """A connection inside a read transaction, so several statements see one snapshot."""
        with self.reading() as connection:
            connection.execute("BEGIN")
            try:
                yield connection
            finally:
                connection.execute("COMMIT")

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """A connection inside ``BEGIN IMMEDIATE``, committed on success, rolled back on error."""
        if self.read_only:
            raise Unsupported(
                f"the sqlite database `{self.path}` can only be read here: this process cannot "
                "write it or its folder"
            )
        with self._lock if self.in_memory else _no_lock(), _translated():
            connection = self.connection()
            connection.execute("BEGIN IMMEDIATE")
            try:
                yield connection
                connection.execute("COMMIT")
            except BaseException:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")
                raise

    def checkpoint(self) -> bool:
        """Copy the WAL into the file and truncate it; whether that completed.

        It waits at most :data:`CHECKPOINT_WAIT` for readers on an older
        snapshot, not the whole busy timeout: an incomplete checkpoint is
        retried later rather than holding up the caller. A read-only file is
        never checkpointed here.
        """
        if self.read_only:
            return False
        with self.reading() as connection:
            connection.execute(f"PRAGMA busy_timeout = {int(CHECKPOINT_WAIT * 1000)}")
            try:
                busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
            finally:
                connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
        return not busy

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def close(self) -> None:
        """Close every connection; later calls raise ``Unavailable``."""
        with self._lock:
            self._closed = True
            for connection in self._open:
                connection.close()
            self._open.clear()


def _is_busy(error: sqlite3.Error) -> bool:
    return "locked" in str(error) or "busy" in str(error)


def _open_error(path: str, error: sqlite3.Error) -> TinyMemoryError:
    """A failed open: ``Unavailable`` (try again) when the file is busy, else ``ConfigError``."""
    if _is_busy(error):
        return Unavailable(f"the sqlite database `{path}` is busy, try again: {error}")
    return ConfigError(f"cannot open the sqlite database `{path}`: {error}")


def _use_wal(connection: sqlite3.Connection) -> None:
    """Put the file in WAL mode, waiting out another process doing the same.

    Two processes switching a new file at once each hold a shared lock and want
    the exclusive one; SQLite refuses one of them at once, busy handler or not.
    By the time it asks again the other has switched, and there is nothing to do.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            connection.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


@contextmanager
def _no_lock() -> Iterator[None]:
    yield


@contextmanager
def _translated() -> Iterator[None]:
    """SQLite's errors as the contract's: a busy or locked database is ``Unavailable``."""
    try:
        yield
    except TinyMemoryError:
        raise
    except sqlite3.OperationalError as error:
        if _is_busy(error):
            raise Unavailable(f"the sqlite database is busy: {error}") from None
        raise EngineError(f"sqlite: {error}") from None
    except sqlite3.Error as error:
        raise EngineError(f"sqlite: {error}") from None
