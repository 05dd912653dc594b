"""Gaps in the reference engine's ``seq``: no call tells them.

This backs the mutation run's reference survivor "``seq`` counted on by more
than one" (docs/conformance.md, "Judged by mutation testing"): the reference
engine orders its listings and seals its listing cursors by each item's
sequence number, and only their order is read, never their values or
their spacing. An engine counting on by two passes every fixed check, and lists
and exports the same pages as the plain engine; the decoy, an engine that counts
on by nothing (every item the same number), does not.
"""

from __future__ import annotations

from tinymemory import (
    ForgetTarget,
    Learning,
    ListRequest,
    MemoryMeta,
    ReferenceEngine,
    StoreItem,
    StoreReceipt,
)
from tinymemory.conformance import CHECKS, run


class _Counted(ReferenceEngine):
    """The reference engine counting its ``seq`` on by ``step`` (1 is the engine's own)."""

    step = 1

    def handle_store(self, item: StoreItem) -> StoreReceipt:
        with self._lock:
            if item.fingerprint() not in self._open_items():
                self._last_seq += self.step - 1
            return super().handle_store(item)


class _ByTwo(_Counted):
    step = 2


class _ByNothing(_Counted):
    step = 0


def _pages(engine: ReferenceEngine) -> list[list[str]]:
    """Every page of list and export at limits 1 to 4, after stores, a replay and a forget."""
    items = [Learning(text=f"note {n}", meta=MemoryMeta(tags=(f"t{n % 3}",))) for n in range(9)]
    engine.store_many(items)
    engine.store(items[4])
    engine.forget(ForgetTarget.by_ids([items[2].fingerprint()]))
    pages: list[list[str]] = []
    for limit in range(1, 5):
        for read in (engine.list, engine.export):
            cursor = None
            while True:
                page = read(ListRequest(limit=limit, cursor=cursor))
                pages.append([entry.id for entry in page.items])
                cursor = page.next_cursor
                if cursor is None:
                    break
    return pages


def test_gaps_in_seq_pass_every_fixed_check() -> None:
    report = run(_ByTwo, checks=[check.name for check in CHECKS if check.fixed])
    assert report.passed, str(report)


def test_gaps_in_seq_give_the_same_pages() -> None:
    assert _pages(_ByTwo()) == _pages(ReferenceEngine())


def test_no_count_gives_other_pages() -> None:
    """The decoy: a ``seq`` that does not count on loses items between pages."""
    assert _pages(_ByNothing()) != _pages(ReferenceEngine())
