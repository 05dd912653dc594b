"""The retrieval kit's read labels (``"list"``, ``"fetch"``) spelt otherwise, or dropped: no
call tells.

This backs the mutation run's survivors of the class "the read's name in the cursor
binding" in ``tinymemory.retrieval._paging`` (docs/conformance.md, "Judged by mutation
testing"): a cursor binds a digest of its read's parts, so another spelling of one label,
or none, gives cursors each accepted by its own read at the same positions and refused by
every other read, exactly as with the labels the kit writes (a fetch's parts still hold
its mode, which is never ``list``; a listing's cursor holds one position, a fetch's two).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import attrs
import pytest

from tinymemory import FetchMode, FetchRequest, ListRequest, MetaFilter
from tinymemory._cursors import CursorCodec, new_secret, read_key
from tinymemory.retrieval import _paging
from tinymemory.retrieval._paging import ListPaging, RankedPaging

FILTERS = (MetaFilter(), MetaFilter(tags_any=("a",)), MetaFilter(workspace="w"))
FETCHES = ((FetchMode.KEYWORD, "alpha"), (FetchMode.VECTOR, "alpha"), (FetchMode.KEYWORD, "b"))
Request = ListRequest | FetchRequest


def _requests() -> list[Request]:
    lists: list[Request] = [ListRequest(filter=filter, limit=3) for filter in FILTERS]
    fetches: list[Request] = [
        FetchRequest(query=query, mode=mode, filter=filter, limit=3)
        for mode, query in FETCHES
        for filter in FILTERS
    ]
    return [*lists, *fetches]


def _cursor(request: Request, codec: CursorCodec) -> str | None:
    if isinstance(request, ListRequest):
        return ListPaging.of(request, codec).page(list(range(1, 9)), lambda n: n, codec)[1]
    paging = RankedPaging.of(request, codec)
    return paging.next_cursor(codec, 9, paging.depth + 1)


def _opened(request: Request, cursor: str, codec: CursorCodec) -> object:
    try:
        if isinstance(request, ListRequest):
            return ListPaging.of(attrs.evolve(request, cursor=cursor), codec).after
        paging = RankedPaging.of(attrs.evolve(request, cursor=cursor), codec)
        return (paging.bound, paging.offset)
    except Exception as error:  # the refusal's type is what is compared
        return type(error)


def _acceptance(codec: CursorCodec) -> list[object]:
    seen: list[object] = []
    for issuer, reader in itertools.product(_requests(), _requests()):
        cursor = _cursor(issuer, codec)
        assert cursor is not None
        seen.append((_opened(reader, cursor, codec), len(cursor)))
    return seen


def _relabelled(label: str, spelt: str | None) -> Callable[..., str]:
    def key(*parts: str) -> str:
        if parts[0] == label:
            parts = parts[1:] if spelt is None else (spelt, *parts[1:])
        return read_key(*parts)

    return key


@pytest.mark.parametrize(
    ("label", "spelt"),
    [
        (label, spelt)
        for label in ("list", "fetch")
        for spelt in (f"XX{label}XX", label.upper(), None)
    ],
)
def test_label_spelling_is_not_observable(
    label: str, spelt: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    codec = CursorCodec(new_secret(), engine="kit")
    wanted = _acceptance(codec)
    monkeypatch.setattr(_paging, "read_key", _relabelled(label, spelt))
    assert _acceptance(codec) == wanted


def test_acceptance_tells_reads_that_share_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The decoy: a relabelling that also drops a fetch's mode lets a vector fetch's cursor
    open a keyword fetch of the same query and filter; the matrix is not the same."""
    codec = CursorCodec(new_secret(), engine="kit")
    wanted = _acceptance(codec)

    def key(*parts: str) -> str:
        if parts[0] == "fetch":
            return read_key("x", *parts[2:])
        return read_key("x", *parts[1:]) if parts[0] == "list" else read_key(*parts)

    monkeypatch.setattr(_paging, "read_key", key)
    assert _acceptance(codec) != wanted
