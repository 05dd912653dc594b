"""LangGraph's ``filter`` of a search, applied exactly to a value.

A filter maps a top-level key of the value to a condition. A plain value
must equal the item's (a dict compares key by key, so nested keys are
written as nested dicts; a list compares element by element); a dict whose
keys start with ``$`` holds operators, all of which must hold: ``$eq``,
``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``. The order operators compare
numbers with numbers and strings with strings (JSON's orders); any other
pair never matches, and a missing key never matches an operator but ``$ne``.
An unknown operator is ``ValueError`` before any engine work.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Any

_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}
OPERATORS = frozenset({"$eq", "$ne", *_ORDER})
_MISSING = object()


def check_filter(filter: Mapping[str, Any] | None) -> None:
    """Refuse a filter that is not a mapping or names an unknown operator (``ValueError``)."""
    if filter is None:
        return
    if not isinstance(filter, Mapping):
        raise ValueError(f"a search filter is a mapping, not {type(filter).__name__}")
    for condition in filter.values():
        _check_condition(condition)


def _check_condition(condition: Any) -> None:
    if isinstance(condition, Mapping):
        if _is_operators(condition):
            unknown = sorted(set(condition) - OPERATORS)
            if unknown:
                raise ValueError(
                    f"unsupported filter operator {unknown[0]} "
                    "(known: $eq, $ne, $gt, $gte, $lt, $lte)"
                )
        else:
            for inner in condition.values():
                _check_condition(inner)


def _is_operators(condition: Mapping[str, Any]) -> bool:
    return any(isinstance(key, str) and key.startswith("$") for key in condition)


def matches(value: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    """Whether ``value`` meets every condition of ``filter`` (no filter: always)."""
    return not filter or all(
        _meets(value.get(key, _MISSING), condition) for key, condition in filter.items()
    )


def _meets(found: Any, condition: Any) -> bool:
    if isinstance(condition, Mapping):
        if _is_operators(condition):
            return all(_holds(found, name, wanted) for name, wanted in condition.items())
        return isinstance(found, Mapping) and all(
            _meets(found.get(key, _MISSING), inner) for key, inner in condition.items()
        )
    if isinstance(condition, (list, tuple)):
        return (
            isinstance(found, (list, tuple))
            and len(found) == len(condition)
            and all(_meets(item, inner) for item, inner in zip(found, condition, strict=True))
        )
    return found is not _MISSING and _same(found, condition)


def _holds(found: Any, name: str, wanted: Any) -> bool:
    if name == "$eq":
        return found is not _MISSING and _same(found, wanted)
    if name == "$ne":
        return found is _MISSING or not _same(found, wanted)
    comparable = (_is_number(found) and _is_number(wanted)) or (
        isinstance(found, str) and isinstance(wanted, str)
    )
    return comparable and _ORDER[name](found, wanted)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _same(found: Any, wanted: Any) -> bool:
    """JSON equality: ``True`` is not ``1``, ``1`` is ``1.0``."""
    if isinstance(found, bool) or isinstance(wanted, bool):
        return type(found) is type(wanted) and found == wanted
    return bool(found == wanted)
