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


# --- caps on a request ------------------------------------------------------
#
# Every request field that is not an item is bounded too, so that a request's
# own size never decides how long a call takes or how much memory it holds.
# The caps are fixed (a host does not change them): a request that fits
# one engine fits every engine. docs/contract.md, "Caps on a request", gives
# each its rule id and the reason for its value.

#: cap-question-length: the UTF-8 bytes of a recall question.
MAX_QUESTION_BYTES = 16 * 1024
#: cap-query-length: the UTF-8 bytes of a fetch query (a question by another name).
MAX_QUERY_BYTES = MAX_QUESTION_BYTES
#: cap-instructions-length: the UTF-8 bytes of a recall's instructions.
MAX_INSTRUCTIONS_BYTES = MAX_QUESTION_BYTES
#: cap-cursor-length: the bytes of a cursor handed back.
MAX_CURSOR_BYTES = 4 * 1024
#: cap-filter-value-length: the UTF-8 bytes of each string a filter matches on.
MAX_FILTER_VALUE_BYTES = 8 * 1024
#: cap-tags-any: the tags of a filter's ``tags_any``.
MAX_FILTER_TAGS = 1_000
#: cap-kinds: the entries of a list of item kinds (repeats allowed; there are 3 kinds).
MAX_KINDS = 64
#: cap-sources: the entries of a filter's ``sources`` (repeats allowed; there are 8).
MAX_SOURCES = 64
#: cap-forget-ids: the ids of one forget by ids.
MAX_FORGET_IDS = 1_000
#: cap-id-length: the UTF-8 bytes of one id named to get or forget.
MAX_ID_BYTES = 256
