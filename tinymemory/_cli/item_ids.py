"""Item ids as a person handles them, git-style: shown short, taken by any unique prefix.

An item's id is its fingerprint, 40 hex digits. Tables show the first
few (``tinymemory._display.short_ids``), and every command that takes an id
takes a prefix of :data:`MIN_PREFIX` or more
hex digits, resolved against the ids stored: one match is that item, none is
not found, several is a usage error listing them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import click

from tinymemory._display import WHOLE
from tinymemory._engine import MemoryEngine, listed_items
from tinymemory._operations import Hit

#: The fewest hex digits a prefix may have (as git asks).
MIN_PREFIX = 4
#: How many candidates an ambiguous prefix lists.
SHOWN_CANDIDATES = 10

_HEX = re.compile(r"[0-9a-f]+")


def is_prefix(given: str) -> bool:
    """Whether ``given`` is a partial id: hex digits, fewer than a whole id has."""
    return len(given) < WHOLE and _HEX.fullmatch(given.lower()) is not None


def resolve_ids(engine: MemoryEngine, given: Sequence[str]) -> list[str]:
    """``given`` with every prefix replaced by the one stored id it starts.

    Whole ids and what is no hex are kept as given; a prefix no stored id
    starts is kept too, so the command reports it as not found. A prefix
    shorter than :data:`MIN_PREFIX` or starting several ids is a usage error.
    """
    prefixes = [item.lower() for item in given if is_prefix(item)]
    if not prefixes:
        return list(given)
    short = next((prefix for prefix in prefixes if len(prefix) < MIN_PREFIX), None)
    if short is not None:
        raise click.UsageError(
            f"id `{short}` is too short: give at least {MIN_PREFIX} of its hex digits"
        )
    matches = items_starting(engine, prefixes)
    for prefix, found in matches.items():
        if len(found) > 1:
            raise click.UsageError(_ambiguous(prefix, found))
    return [
        matches[item.lower()][0].id if is_prefix(item) and matches[item.lower()] else item
        for item in given
    ]


def items_starting(engine: MemoryEngine, prefixes: Iterable[str]) -> dict[str, list[Hit]]:
    """The stored items each of ``prefixes`` (lower-case hex) starts, in one listing of all."""
    matches: dict[str, list[Hit]] = {prefix: [] for prefix in prefixes}
    for hit in listed_items(engine):
        for prefix, found in matches.items():
            if hit.id.startswith(prefix):
                found.append(hit)
    return matches


def _ambiguous(prefix: str, found: Sequence[Hit]) -> str:
    lines = [f"id `{prefix}` is ambiguous: {len(found)} items start with it:"]
    for hit in found[:SHOWN_CANDIDATES]:
        first = next((line.strip() for line in hit.text.splitlines() if line.strip()), "")
        lines.append(f"  {hit.id}  {hit.kind.value}  {first[:60]}")
    if len(found) > SHOWN_CANDIDATES:
        lines.append(f"  and {len(found) - SHOWN_CANDIDATES} more")
    lines.append("give more of its digits")
    return "\n".join(lines)
