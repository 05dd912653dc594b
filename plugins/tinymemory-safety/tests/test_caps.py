"""Scrubbing never breaks a store: an item at its cap that holds secrets still stores.

Tokens are longer than much of what they replace (``[REDACTED_PII_CREDIT_CARD]``
for 19 characters, ``[REDACTED]`` for a 4-digit PIN), so an item exactly at
``max_item_bytes`` would grow past it. The scrubber then scrubs it again with
replacements no longer than what they replace. The cap here is small so the
items are too; the rule is the same at the default 10 MiB.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_engine import SharedEnginePlugin

import tinymemory as tm
from tinymemory_safety import SafetyScrubber

CAP = 2048
#: Secrets whose tokens are longer than they are, with one whose token is shorter.
SECRETS = [
    "4111 1111 1111 1111",
    "my PIN is 4821",
    "ana@example.org",
    "+44 20 7946 0958",
    "BSN 111222333",
    "from 81.2.69.160",
    "SSN 078-05-1120",
    "key AKIAABCDEFGHIJKLMNOP",
    "DOB: 14/03/1987",
    "ip 2a00:1450:4001:82a::8a2e",
    "pw: wachtwoord is Fiets2025",
    # Fullwidth digits: three UTF-8 bytes each, so the token fits where it replaces them.
    "café " + "".join(chr(0xFF10 + int(c)) if c.isdigit() else c for c in "4111 1111 1111 1111"),
]
LEAKS = ["4111", "4821", "ana@", "7946", "111222333", "81.2.69", "078-05", "AKIA", "1987", "8a2e"]


@pytest.fixture(autouse=True)
def small_cap() -> Iterator[None]:
    previous = tm.set_item_limits(tm.ItemLimits(max_item_bytes=CAP))
    yield
    tm.set_item_limits(previous)


def at_size(build: Callable[[str], tm.StoreItem], size: int) -> tm.StoreItem:
    """The item ``build(filler)`` makes, with the filler sized so the item is ``size`` bytes."""
    bare = tm.item_size(build(""))
    item = build("x" * (size - bare))
    assert tm.item_size(item) == size
    return item


def kinds(secrets: str) -> list[Callable[[str], tm.StoreItem]]:
    meta = tm.MemoryMeta(url="https://ops:hunter2pass@ci.example.com/run", thread_id="t-1")
    return [
        lambda filler: tm.Learning(text=f"{secrets} {filler}", evidence=secrets, meta=meta),
        lambda filler: tm.Document(
            title=f"card {SECRETS[0]}", body=f"{filler}\n{secrets}", meta=meta
        ),
        lambda filler: tm.Conversation(
            turns=[
                tm.Turn(role=tm.Role.USER, text=secrets),
                tm.Turn(role=tm.Role.ASSISTANT, text=f"noted {filler}"),
            ],
            meta=meta,
        ),
    ]


@pytest.mark.parametrize("kind", range(3), ids=["learning", "document", "conversation"])
def test_an_item_exactly_at_the_cap_holding_secrets_stores_scrubbed(
    installed: SharedEnginePlugin, kind: int
) -> None:
    item = at_size(kinds(", ".join(SECRETS))[kind], CAP)
    engine = tm.build_engine()
    engine.store(item)  # refused as InvalidRequest if scrubbing grew it past the cap
    (held,) = installed.held()
    written = tm.plugin.to_json(held)
    assert not [leak for leak in LEAKS if leak in written]
    assert "hunter2pass" not in written
    assert tm.item_size(held) <= CAP


@pytest.mark.parametrize("kind", range(3), ids=["learning", "document", "conversation"])
def test_with_room_to_spare_the_tokens_are_the_typed_ones(kind: int) -> None:
    item = at_size(kinds(", ".join(SECRETS))[kind], CAP // 2)
    written = tm.plugin.to_json(SafetyScrubber().scrub_item(item).item)
    assert "[REDACTED_PII_CREDIT_CARD]" in written
    assert "[REDACTED_PII_EMAIL]" in written


def test_one_byte_under_the_cap_and_at_it_alike() -> None:
    scrubber = SafetyScrubber()
    for size in (CAP - 1, CAP):
        item = at_size(kinds(", ".join(SECRETS))[0], size)
        result = scrubber.scrub_item(item)
        assert tm.item_size(result.item) <= CAP
        assert result.redactions.total >= len(LEAKS)
        # The compact result is itself final: a second scrub changes nothing.
        assert scrubber.scrub_item(result.item).item == result.item


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(SECRETS), min_size=1, max_size=12),
    st.integers(0, 64),
    st.integers(0, 2),
)
def test_no_item_within_the_cap_is_pushed_past_it(
    secrets: list[str], slack: int, kind: int
) -> None:
    text = ", ".join(secrets)
    item = at_size(kinds(text)[kind], CAP - slack)
    result = SafetyScrubber().scrub_item(item)
    assert tm.item_size(result.item) <= CAP
    written = tm.plugin.to_json(result.item)
    assert not [leak for leak in LEAKS if leak in written and leak in text]
