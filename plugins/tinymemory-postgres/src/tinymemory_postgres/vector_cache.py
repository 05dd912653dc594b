"""Every piece's vector held in the client, kept in step with the server by a change counter.

Without an index in the server, an exact vector read would send every
admitted piece's vector over the connection on every query. Instead each
engine keeps a copy of all of them (float32, unit length) and, inside each
read's snapshot, checks it against the server:

- pieces are only added with increasing ids (every write holds the schema's
  write lock), so pieces newer than the copy are read by ``id`` and appended;
- any other change to ``vectors`` (a delete, an update, a truncate)
  increments ``vector_changes.generation`` through a trigger in the server,
  whoever makes it (another process, another host, another release), and a
  copy of another generation is read again whole.

A read then scores every piece of its snapshot (ids up to the snapshot's
newest) in the client and asks the server which of the best candidates it
admits, widening the candidates until enough are admitted; past a quarter of
the pieces it asks for all the admitted ids at once. The ranking is exact.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import attrs

from tinymemory.retrieval import Ranked, Scope

if TYPE_CHECKING:
    import numpy as np

    from .connections import Connection

#: Candidates first scored per item asked for (they are pieces; several may be one item's).
_FIRST_CANDIDATES = 8
#: More than float32's error in a score of unit vectors.
_ROUNDING = 1e-4
#: Past this share of the pieces, the admitted ids are read at once rather than checked.
_WHOLE_SHARE = 0.25


@attrs.frozen
class _Held:
    """One consistent copy: pieces up to ``through`` as of change ``generation``."""

    generation: int
    through: int
    ids: np.ndarray[Any, Any]
    items: np.ndarray[Any, Any]
    matrix: np.ndarray[Any, Any]


class VectorCache:
    """Every piece's id, item and vector, for exact vector rankings in the client.

    Safe to share between threads: a read works on the copy it took under the lock.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: _Held | None = None

    def ranking(
        self,
        connection: Connection,
        vector: np.ndarray[Any, Any] | None,
        scope: Scope,
        depth: int,
    ) -> list[Ranked]:
        """The best ``depth`` items ``scope`` admits by cosine, in ``connection``'s snapshot."""
        import numpy as np

        assert vector is not None, "a keyword read ranks no vectors"

        row = connection.execute(
            "SELECT generation, coalesce((SELECT max(piece) FROM vectors), 0) FROM vector_changes"
        ).fetchone()
        assert row is not None
        held = self._current(connection, int(row[0]), int(row[1]))
        visible = int(np.searchsorted(held.ids, int(row[1]), side="right"))
        if visible == 0 or depth < 1:
            return []
        scores = held.matrix[:visible] @ vector
        wanted = depth * _FIRST_CANDIDATES
        while wanted < visible * _WHOLE_SHARE:
            # Every piece scoring at least the wanted-th best, ties included: an item left
            # out scores below each candidate, so the admitted best found are the best.
            # (Less float32's rounding, which the exact scores of _best do not have.)
            threshold = -np.partition(-scores, wanted - 1)[wanted - 1] - _ROUNDING
            best = np.flatnonzero(scores >= threshold)
            admitted = _admitted(connection, scope, held.ids[best])
            ranked = _best(held, vector, best[np.isin(held.ids[best], admitted)], depth)
            if len(ranked) == depth:
                return ranked
            wanted *= 8
        admitted = _admitted(connection, scope, None)
        return _best(held, vector, np.flatnonzero(np.isin(held.ids[:visible], admitted)), depth)

    def _current(self, connection: Connection, generation: int, newest: int) -> _Held:
        """A copy holding every piece up to ``newest`` of ``generation``, read as needed."""
        with self._lock:
            held = self._held
            if held is not None and held.generation == generation and held.through >= newest:
                return held
            if held is not None and held.generation > generation:
                # This snapshot is older than the copy: read its pieces without keeping them.
                return _read(connection, generation, None, newest)
            fresh = _read(
                connection, generation, held if held and held.generation == generation else None,
                newest,
            )  # fmt: skip
            self._held = fresh
            return fresh


def _read(connection: Connection, generation: int, base: _Held | None, newest: int) -> _Held:
    """``base`` with the pieces after it up to ``newest`` appended (all of them without one)."""
    import numpy as np

    after = base.through if base else 0
    with connection.cursor(binary=True) as cursor:
        cursor.execute(
            "SELECT v.piece, p.item, v.vector FROM vectors v JOIN pieces p ON p.id = v.piece "
            "WHERE v.piece > %s AND v.piece <= %s ORDER BY v.piece",
            (after, newest),
        )
        rows = cursor.fetchall()
    ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
    items = np.fromiter((row[1] for row in rows), dtype=np.int64, count=len(rows))
    matrix = np.frombuffer(b"".join(row[2] for row in rows), dtype=np.float32)
    if base is not None and base.matrix.shape[0]:
        matrix = matrix.reshape(len(rows), base.matrix.shape[1])
        ids = np.concatenate((base.ids, ids))
        items = np.concatenate((base.items, items))
        matrix = np.concatenate((base.matrix, matrix))
    else:
        matrix = matrix.reshape(len(rows), -1) if rows else np.zeros((0, 0), dtype=np.float32)
    return _Held(generation, newest, ids, items, matrix)


def _admitted(connection: Connection, scope: Scope, pieces: Any) -> Any:
    """Those of ``pieces`` (piece ids; every piece when None) that ``scope`` admits."""
    import numpy as np

    admitted = scope.admitted
    if pieces is None:
        statement = f"SELECT p.id FROM pieces p JOIN items i ON i.seq = p.item WHERE {admitted.sql}"
        params: tuple[Any, ...] = admitted.params
    else:
        statement = (
            "SELECT p.id FROM pieces p JOIN items i ON i.seq = p.item "
            f"WHERE p.id = ANY(%s) AND {admitted.sql}"
        )
        params = ([int(piece) for piece in pieces], *admitted.params)
    rows = connection.execute(statement, params).fetchall()
    return np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))


def _best(held: _Held, vector: Any, rows: Any, depth: int) -> list[Ranked]:
    """The best ``depth`` items among pieces ``rows``, each by its best piece.

    Their scores are computed again in float64: the same for a piece whatever else
    the copy holds (a product over more rows may round the last bit otherwise).
    """
    import numpy as np

    exact = held.matrix[rows].astype(np.float64) @ vector.astype(np.float64)
    # Best first; ties by piece id, so the order never depends on the copy's layout.
    order = np.lexsort((held.ids[rows], -exact))
    ranked: dict[int, Ranked] = {}
    for index in order:
        row = rows[index]
        item = int(held.items[row])
        if item not in ranked:
            ranked[item] = Ranked(item, int(held.ids[row]), float(np.float32(exact[index])))
            if len(ranked) == depth:
                break
    return list(ranked.values())
