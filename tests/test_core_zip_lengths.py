"""``zip(..., strict=True)`` in the core helpers every engine calls: one length.

This backs the mutation run's survivors of the class "``strict`` loosened" in the
cursor codec's ``_xor`` and an item's stored JSON (``_item_json``), which the
mutation run mutates beside the sqlite engine (docs/conformance.md, "Judged by
mutation testing"): ``strict=True`` changes nothing but raising when the sides'
lengths differ, so a mutant that drops it, or sets it false, is equivalent when
they never differ. Here ``zip`` in those modules is replaced by one that reads
every side, records their lengths and zips them without ``strict``; the
conformance suite's fixed checks then pass on the reference engine (which seals
its cursors and names its items through both helpers), every module's zips ran,
and none saw sides of two lengths. The sqlite engine's own rows are watched by
``plugins/tinymemory-sqlite/tests/test_zip_lengths.py``.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator
from types import ModuleType
from typing import Any

import pytest

from tinymemory import ReferenceEngine, _cursors, _item_json
from tinymemory.conformance import CHECKS, run

#: The modules whose zips are watched.
MODULES: tuple[ModuleType, ...] = (_cursors, _item_json)


class _Recorder:
    """A ``zip`` that records each call's side lengths and never raises for them."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, ...]] = []

    def __call__(self, *sides: Iterable[Any], strict: bool = False) -> Iterator[tuple[Any, ...]]:
        read = [list(side) for side in sides]
        self.calls.append(tuple(len(side) for side in read))
        return builtins.zip(*read, strict=False)

    def uneven(self) -> list[tuple[int, ...]]:
        return [lengths for lengths in self.calls if len(set(lengths)) > 1]


def test_the_recorder_sees_uneven_sides() -> None:
    """The decoy: sides of two lengths are recorded, and zipped to the shorter."""
    recorder = _Recorder()
    assert list(recorder([1, 2, 3], "ab", strict=True)) == [(1, "a"), (2, "b")]
    assert recorder.uneven() == [(3, 2)]


def test_zip_sides_have_one_length(monkeypatch: pytest.MonkeyPatch) -> None:
    recorders = {module.__name__: _Recorder() for module in MODULES}
    for module in MODULES:
        monkeypatch.setattr(module, "zip", recorders[module.__name__], raising=False)
    report = run(ReferenceEngine, checks=[check.name for check in CHECKS if check.fixed])
    failed = [result for result in report.results if result.outcome.name == "FAILED"]
    assert not failed, failed
    assert {name: len(r.calls) > 10 for name, r in recorders.items()} == dict.fromkeys(
        recorders, True
    )
    assert {name: r.uneven() for name, r in recorders.items()} == {name: [] for name in recorders}
