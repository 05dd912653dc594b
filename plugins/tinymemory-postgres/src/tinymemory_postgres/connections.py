"""The connection pool and the transactions every operation runs in, retried when transient.

Each operation is one transaction: a write holds the schema's write lock
(so ``seq`` follow commit order and no two writers race on a replay); a
ranked read is one ``REPEATABLE READ`` snapshot. A transient failure (a
dropped connection, a restarting server, a serialization failure, a
deadlock, an exhausted pool) rolls the transaction back whole and runs it
again, for about :data:`RETRY_SECONDS`; then it is :class:`~tinymemory.Unavailable`.
So a batch is stored whole or not at all. A commit whose answer was lost
runs again too: the write finds its items stored and answers with replays.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import psycopg
import psycopg_pool
from psycopg import sql

from tinymemory import (
    ConfigError,
    EngineCredential,
    EngineError,
    InvalidRequest,
    Unauthorized,
    Unavailable,
)

from . import schema
from .settings import ServerSettings

T = TypeVar("T")

# The pool logs each failed reconnection; the engine says what failed as an error instead.
logging.getLogger("psycopg.pool").addHandler(logging.NullHandler())
Connection = psycopg.Connection[Any]

#: How long a transient failure is retried before it is ``Unavailable``.
RETRY_SECONDS = 15.0
_FIRST_PAUSE = 0.05
#: The longest one attempt waits for a connection from the pool.
_LONGEST_WAIT = 2.0
#: SQLSTATE classes of failures a retry may mend: connection (08), resources (53),
#: operator intervention such as a shutdown (57), transaction rollback (40).
_TRANSIENT_CLASSES = ("08", "40", "53", "57")
#: What libpq says when the server refuses the login (its errors carry no SQLSTATE).
#: A ranked read's isolation: one snapshot for all its statements.
_SNAPSHOT = psycopg.IsolationLevel.REPEATABLE_READ
_REFUSED_LOGIN = ("password authentication failed", "no password supplied", "authentication failed")


class Server:
    """A pool of connections to one schema of one database; safe to share between threads."""

    def __init__(self, settings: ServerSettings, credential: EngineCredential) -> None:
        self.settings = settings
        self._credential = credential
        self._conninfo = settings.conninfo(EngineCredential.none())
        self._closed = False
        self._lock = threading.Lock()
        # One connection first, so a failure says why (a pool would only time out).
        try:
            with psycopg.connect(self._conninfo, **self._password()) as connection:
                self._configure(connection)
                schema.ensure(connection, settings.schema)
        except psycopg.OperationalError as error:
            message = self._message("cannot open the memory", error)
            if any(sign in str(error) for sign in _REFUSED_LOGIN):
                raise Unauthorized(message) from None
            raise Unavailable(message) from None
        except psycopg.Error as error:
            raise ConfigError(self._message("cannot open the memory", error)) from None
        self._pool = self._new_pool()

    def _new_pool(self) -> psycopg_pool.ConnectionPool[Connection]:
        pool: psycopg_pool.ConnectionPool[Connection] = psycopg_pool.ConnectionPool(
            self._conninfo,
            # A connection is not checked when handed out (a round trip each time): one
            # the server dropped fails its statement, which is transient and runs again.
            kwargs=lambda: {**self._password(), "autocommit": True},
            min_size=1,
            max_size=self.settings.pool_size,
            configure=self._configure,
            num_workers=1,
            open=False,
        )
        pool.open(wait=False)
        return pool

    def _renew(self, broken: psycopg_pool.ConnectionPool[Connection]) -> None:
        """A new pool in place of ``broken`` (once, whichever thread asks first).

        After its server went away, a pool waits longer and longer between
        attempts to reconnect (up to a minute): a new pool tries at once.
        """
        with self._lock:
            if self._closed or self._pool is not broken:
                return
            self._pool = self._new_pool()
        broken.close(timeout=1.0)

    def _password(self) -> dict[str, Any]:
        password = self._credential.bearer()
        return {"password": password} if password else {}

    def _configure(self, connection: Connection) -> None:
        """Every connection reads and writes the memory's schema (and nothing else)."""
        connection.execute(
            sql.SQL("SELECT set_config('search_path', {}, false)").format(
                sql.Literal(f'"{self.settings.schema}"')
            )
        )
        connection.commit()

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._pool.close()

    def run(
        self,
        work: Callable[[Connection], T],
        *,
        write: bool = False,
        snapshot: bool = False,
        retry: bool = True,
    ) -> T:
        """``work`` in one transaction: writing under the lock, or reading one snapshot
        (else each statement of ``work`` commits alone: one statement reads one snapshot).

        Transient failures run it again (unless ``retry`` is false); ``work`` must not
        have effects outside the transaction (it may run more than once).
        """
        deadline = time.monotonic() + (RETRY_SECONDS if retry else 0.0)
        pause = _FIRST_PAUSE
        while True:
            pool = self._pool
            if self._closed:
                raise Unavailable("the postgres engine is closed")
            try:
                waiting = min(_LONGEST_WAIT, max(0.1, deadline - time.monotonic()))
                with pool.connection(timeout=waiting) as connection:
                    if not (write or snapshot):
                        return work(connection)
                    # BEGIN says the isolation itself: no statement of its own to set it.
                    connection.isolation_level = _SNAPSHOT if snapshot else None
                    connection.read_only = snapshot
                    if snapshot:
                        with connection.transaction():
                            return work(connection)
                    # A write is pipelined: BEGIN and the lock go with its first statements,
                    # its last ones with COMMIT, and statements sent before a result is read
                    # share one round trip.
                    with connection.pipeline(), connection.transaction():
                        connection.execute(schema.write_lock(self.settings.schema))
                        return work(connection)
            except psycopg_pool.PoolClosed as error:
                if self._closed:
                    raise Unavailable("the postgres engine is closed") from None
                failure: psycopg.Error = error  # renewed by another thread meanwhile
            except psycopg.Error as error:
                if not _transient(error):
                    raise self._refusal(error) from None
                failure = error
                if _lost_server(error):
                    self._renew(pool)
            if time.monotonic() + pause > deadline:
                raise Unavailable(self._message("the server did not answer", failure)) from None
            time.sleep(pause)
            pause = min(pause * 2, 1.0)

    def _refusal(self, error: psycopg.Error) -> Exception:
        if isinstance(error, psycopg.DataError | psycopg.errors.ProgramLimitExceeded):
            return InvalidRequest(self._message("the server refused the data", error))
        return EngineError(self._message("the server failed", error))

    def _message(self, what: str, error: BaseException) -> str:
        """``what`` happened at the server, and why; never the password."""
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return self._credential.redact(f"postgres {self.settings.where}: {what}: {reason}")


def _lost_server(error: psycopg.Error) -> bool:
    """Whether ``error`` says the server went away (not just a busy moment)."""
    if isinstance(error, psycopg_pool.PoolTimeout):
        return True
    return error.sqlstate is None or error.sqlstate[:2] in ("08", "57")


def _transient(error: psycopg.Error) -> bool:
    if isinstance(error, psycopg_pool.PoolTimeout):
        return True
    state = error.sqlstate
    if state is None:
        # No SQLSTATE: the connection failed or broke on the client's side.
        return isinstance(error, psycopg.OperationalError | psycopg.InterfaceError)
    return state[:2] in _TRANSIENT_CLASSES
