"""How big an item may be, and the integer widths every count and limit fits in.

The caps keep one call's memory bounded: a stored item's text (every string
it carries, as UTF-8) is at most ``max_item_bytes``, its tags at most
``max_tags`` and a conversation's turns at most ``max_turns``. They are
generous but finite, and a host changes them for its process with
:func:`set_item_limits`. Counts and limits are the spec's ``usize`` (64
bits); a turn range's ends are its ``u32``.
"""

from __future__ import annotations

import attrs

from tinymemory._errors import ConfigError

#: The largest ``usize``: every limit, count and offset of the contract.
USIZE_MAX = 2**64 - 1
#: The largest ``u32``: a turn range's ends.
U32_MAX = 2**32 - 1


def _positive(instance: object, attribute: attrs.Attribute[int], value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= USIZE_MAX:
        raise ConfigError(f"`{attribute.name}` must be a whole number of at least 1")


@attrs.frozen(kw_only=True)
class ItemLimits:
    """The caps validation puts on one stored item.

    ``max_item_bytes`` (10 MiB, the spec's cap on one source file) bounds the
    UTF-8 bytes of every string an item holds, text and metadata together;
    ``max_tags`` (1,000) its tags; ``max_turns`` (10,000) a conversation's turns.
    """

    max_item_bytes: int = attrs.field(default=10 * 1024 * 1024, validator=_positive)
    max_tags: int = attrs.field(default=1_000, validator=_positive)
    max_turns: int = attrs.field(default=10_000, validator=_positive)


_current = [ItemLimits()]


def item_limits() -> ItemLimits:
    """The caps in force in this process."""
    return _current[0]


def set_item_limits(limits: ItemLimits) -> ItemLimits:
    """Put ``limits`` in force for this process; returns the ones they replace."""
    if not isinstance(limits, ItemLimits):
        raise ConfigError("set_item_limits takes an ItemLimits")
    previous, _current[0] = _current[0], limits
    return previous
