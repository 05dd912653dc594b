"""Paged reads: where a page starts, how much to read, and the cursor of the next page.

A listing runs in ``seq`` order (a store's key that only grows): its cursor
holds the ``seq`` of the last item handed out, so items stored meanwhile come
at the end and forgotten ones shift nothing. A ranked read holds how many
hits were handed out and its *bound*: the highest ``seq`` among the items
the read admitted on its first page. Later items stay out of the following
pages (they cannot push hits from one page to the next), and the bound is an
admitted item's own, so no write outside the read moves it. Sealed by the
memory's :class:`~tinymemory.retrieval.CursorCodec`, neither says anything a
caller could not see.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import attrs

from tinymemory._cursors import CursorCodec, read_key
from tinymemory._meta import MetaFilter
from tinymemory._operations import FetchRequest, ListRequest

#: The most rows one read asks for: a limit may be any usize, but SQL integers stop at
#: 2^63 - 1; no table holds this many rows, so the answer is the same.
MOST_ROWS = 2**62

T = TypeVar("T")


def most_rows(limit: int) -> int:
    """``limit`` capped at :data:`MOST_ROWS`."""
    return min(limit, MOST_ROWS)


#: Most reads filter nothing: their filter's JSON (its wire form, which names a read in its
#: cursor) is known without loading the converter, and so without cattrs.
_NO_FILTER = MetaFilter()
_NO_FILTER_JSON = "{}"


def filter_json(filter: MetaFilter) -> str:
    """The JSON of a read's filter, as :func:`tinymemory.plugin.to_json` writes it."""
    if filter == _NO_FILTER:
        return _NO_FILTER_JSON
    from tinymemory._wire import to_json

    return to_json(filter)


@attrs.frozen
class ListPaging:
    """One page of a listing: it starts after ``after`` (a ``seq``; 0 for the first page)."""

    key: str
    after: int
    limit: int

    @classmethod
    def of(cls, request: ListRequest, codec: CursorCodec) -> ListPaging:
        """The page ``request`` asks for; ``InvalidRequest`` for a cursor not issued for it."""
        key = read_key("list", filter_json(request.filter))
        positions = codec.decode(key, request.cursor, 1)
        return cls(key, positions[0] if positions else 0, most_rows(request.limit))

    def page(
        self, rows: Sequence[T], seq: Callable[[T], int], codec: CursorCodec
    ) -> tuple[Sequence[T], str | None]:
        """The page of ``rows`` (read in ``seq`` order, ``limit + 1`` at most) and its cursor."""
        if len(rows) <= self.limit:
            return rows, None
        return rows[: self.limit], codec.encode(self.key, seq(rows[self.limit - 1]))


@attrs.frozen
class RankedPaging:
    """One page of a ranked read: hits ``offset`` to ``depth`` of the ranking.

    ``bound`` is the cursor's, None on the first page (the engine then takes
    the highest ``seq`` the read admits). Rank ``depth + 1`` items, so the
    last says whether a next page exists.
    """

    key: str
    bound: int | None
    offset: int
    depth: int

    @classmethod
    def of(cls, request: FetchRequest, codec: CursorCodec) -> RankedPaging:
        """The page ``request`` asks for; ``InvalidRequest`` for a cursor not issued for it."""
        key = read_key("fetch", request.mode.value, request.query, filter_json(request.filter))
        positions = codec.decode(key, request.cursor, 2)
        bound, offset = positions if positions else (None, 0)
        return cls(key, bound, offset, most_rows(offset + request.limit))

    def next_cursor(self, codec: CursorCodec, bound: int, ranked: int) -> str | None:
        """The next page's cursor, when the ranking of ``depth + 1`` held ``ranked`` > depth."""
        return codec.encode(self.key, bound, self.depth) if ranked > self.depth else None
