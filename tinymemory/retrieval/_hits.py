"""Items ready to store, and hits built from the pieces a ranking chose."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import attrs

from tinymemory._document_pieces import Piece, cut_pieces
from tinymemory._item_json import json_and_id
from tinymemory._items import Document, Learning, StoreItem, StoreReceipt
from tinymemory._operations import Hit

#: Documents longer than this many bytes are ranked by pieces of about this size.
PIECE_TARGET = 2_000


@attrs.frozen
class Prepared:
    """An item ready to write: its id, its canonical JSON and the pieces it is ranked by."""

    id: str
    item: StoreItem
    body: str
    pieces: tuple[Piece, ...]

    @classmethod
    def of(cls, item: StoreItem) -> Prepared:
        """Everything a write needs from ``item``, computed before any I/O.

        A document is cut into pieces of about :data:`PIECE_TARGET` bytes;
        any other item is one piece (none when its text is empty).
        """
        # One writing of the JSON form gives both the stored row and the id.
        body, item_id = json_and_id(item)
        text = item.render_text()
        if isinstance(item, Document):
            pieces = tuple(cut_pieces(text, PIECE_TARGET))
        else:
            pieces = (Piece(text=text, start=0),) if text else ()
        return cls(id=item_id, item=item, body=body, pieces=pieces)


def first_copies(prepared: Sequence[Prepared]) -> list[Prepared]:
    """Each item once, at its first place in the batch (a later copy is a replay)."""
    firsts: dict[str, Prepared] = {}
    for entry in prepared:
        firsts.setdefault(entry.id, entry)
    return list(firsts.values())


def receipts(prepared: Iterable[Prepared], written: set[str]) -> list[StoreReceipt]:
    """A receipt per item of a batch: new for the first copy of an id ``written``, else replayed."""
    fresh = set(written)
    found = []
    for entry in prepared:
        found.append(StoreReceipt(entry.id, replayed=entry.id not in fresh))
        fresh.discard(entry.id)
    return found


def piece_hit(item_id: str, item: StoreItem, piece: Piece, score: float) -> Hit:
    """The hit of ``item`` ranked by ``piece``: the piece's text, the item's meta with the
    piece's tags (pages, section) added, the score, and a learning's confidence."""
    tags = piece.tags()
    meta = attrs.evolve(item.meta, tags=item.meta.tags + tags) if tags else item.meta
    return Hit(
        id=item_id,
        kind=item.item_kind,
        text=piece.text,
        meta=meta,
        score=score,
        confidence=item.confidence if isinstance(item, Learning) else None,
    )
