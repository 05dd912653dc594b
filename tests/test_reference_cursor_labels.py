"""The reference engine's read labels (``"list"``, ``"fetch"``) in another spelling: no call tells.

(Another spelling includes none: list's label dropped leaves list's parts empty,
still unlike every fetch's.)

This backs the mutation run's reference survivors of the class "the read's name in
the cursor binding" (docs/conformance.md, "Judged by mutation testing"): a cursor
binds a digest of its read's parts, so another spelling of one label gives cursors
of the same length, each accepted by its own read at the same position and refused
by every other read, exactly as with the labels the engine writes.
"""

from __future__ import annotations

import itertools

import pytest

from tinymemory import MetaFilter
from tinymemory._cursors import CursorCodec, new_secret
from tinymemory.reference import _Positions

#: The spellings a mutant gives a label: wrapped, in capitals, and (list's) dropped.
SPELLINGS: dict[str, tuple[str | None, ...]] = {
    "list": ("XXlistXX", "LIST", None),
    "fetch": ("XXfetchXX", "FETCH"),
}
FILTERS = (MetaFilter(), MetaFilter(tags_any=("a",)), MetaFilter(workspace="w"))
FETCHES = (("keyword", "alpha"), ("vector", "alpha"), ("keyword", "beta"))


def _reads(list_label: str | None, fetch_label: str | None) -> list[tuple[str, ...]]:
    """Every read of the fixture, as the parts the engine names it by (filter apart); a label
    of ``None`` is dropped from its parts."""
    listing = () if list_label is None else (list_label,)
    fetching = () if fetch_label is None else (fetch_label,)
    return [listing, *((*fetching, mode, query) for mode, query in FETCHES)]


def _acceptance(
    codec: CursorCodec, list_label: str | None, fetch_label: str | None
) -> list[tuple[object, int]]:
    """For each issuing read and each reading read: the position read back, and the length."""
    reads = [(parts, filter) for parts in _reads(list_label, fetch_label) for filter in FILTERS]
    seen: list[tuple[object, int]] = []
    for (issuer, issued_filter), (reader, read_filter) in itertools.product(reads, reads):
        cursor = _Positions(codec, issued_filter, *issuer).next_cursor(True, 7)
        assert cursor is not None
        try:
            position: object = _Positions(codec, read_filter, *reader).start(cursor)
        except Exception as error:  # the refusal's type is what is compared
            position = type(error)
        seen.append((position, len(cursor)))
    return seen


@pytest.mark.parametrize(
    ("list_label", "fetch_label"),
    [(spelt, "fetch") for spelt in SPELLINGS["list"]]
    + [("list", spelt) for spelt in SPELLINGS["fetch"]],
)
def test_label_spelling_is_not_observable(list_label: str | None, fetch_label: str | None) -> None:
    codec = CursorCodec(new_secret(), engine="reference")
    assert _acceptance(codec, list_label, fetch_label) == _acceptance(codec, "list", "fetch")


def test_acceptance_tells_reads_apart() -> None:
    """The decoy: a list label equal to nothing else is accepted only by its own read."""
    codec = CursorCodec(new_secret(), engine="reference")
    accepted = [entry for entry in _acceptance(codec, "list", "fetch") if entry[0] == 7]
    assert len(accepted) == len(FILTERS) * (1 + len(FETCHES))
