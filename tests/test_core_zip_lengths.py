"""``zip(..., strict=True)`` in the core helpers every engine calls: one length.

This backs the mutation run's survivors of the class "``strict`` loosened" in the
cursor codec's ``_xor`` and an item's stored JSON (``_item_json``), which the
mutation run mutates beside the sqlite engine (docs/conformance.md, "Judged by
mutation testing"): ``strict=True`` changes nothing but raising when the sides'
lengths differ, so a mutant that drops it, or sets it false, is equivalent when they
never differ. Here ``zip`` in those modules records its sides' lengths
(:func:`tinymemory.testing.zip_lengths`); the conformance suite's fixed checks then
pass on the reference engine (which seals its cursors and names its items through
both helpers), every module's zips ran, and none saw sides of two lengths. The
sqlite engine's own rows are watched by
``plugins/tinymemory-sqlite/tests/test_zip_lengths.py``.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from tinymemory import ReferenceEngine, _cursors, _item_json
from tinymemory.conformance import CHECKS, run
from tinymemory.testing import zip_lengths


def test_the_recorder_sees_uneven_sides_and_puts_zip_back() -> None:
    """The decoy: sides of two lengths are recorded and zipped to the shorter, not raised;
    after the block the module's own ``zip`` (strict) is back."""
    module = ModuleType("decoy")
    exec("def pair(a, b):\n    return list(zip(a, b, strict=True))\n", module.__dict__)
    with zip_lengths(module) as lengths:
        assert module.pair([1, 2, 3], "ab") == [(1, "a"), (2, "b")]
    assert lengths.uneven() == {"decoy": [(3, 2)]}
    assert "zip" not in module.__dict__
    with pytest.raises(ValueError, match="shorter"):
        module.pair([1, 2, 3], "ab")


def test_zip_sides_have_one_length() -> None:
    with zip_lengths(_cursors, _item_json) as lengths:
        report = run(ReferenceEngine, checks=[check.name for check in CHECKS if check.fixed])
    failed = [result for result in report.results if result.outcome.name == "FAILED"]
    assert not failed, failed
    assert {name: len(calls) > 10 for name, calls in lengths.calls.items()} == {
        _cursors.__name__: True,
        _item_json.__name__: True,
    }
    assert lengths.uneven() == {_cursors.__name__: [], _item_json.__name__: []}
