"""attrs field validators and converters shared by the contract's classes.

Each refuses a wrong type with :class:`~tinymemory._errors.InvalidRequest`
naming the field, so bad input never reaches an engine.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import attrs

from tinymemory._errors import InvalidRequest

E = TypeVar("E", bound="WireEnum")
T = TypeVar("T")


def optional_str(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Validator: ``None`` or a string."""
    if value is not None and not isinstance(value, str):
        raise InvalidRequest(f"`{attribute.name}` must be a string")


def required_str(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Validator: a string."""
    if not isinstance(value, str):
        raise InvalidRequest(f"`{attribute.name}` must be a string")


def optional_bool(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Validator: ``None`` or a bool."""
    if value is not None and not isinstance(value, bool):
        raise InvalidRequest(f"`{attribute.name}` must be true or false")


def instance_of(cls: type, *, optional: bool) -> Callable[[Any, Any, Any], None]:
    """Validator: an instance of ``cls`` (or ``None`` when ``optional``)."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if not (isinstance(value, cls) or (optional and value is None)):
            raise InvalidRequest(f"`{attribute.name}` must be a {cls.__name__}")

    return check


def count(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Validator: a whole number of zero or more (a ``usize`` in the original)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidRequest(f"`{attribute.name}` must be a whole number of zero or more")


def str_tuple(value: Iterable[str]) -> tuple[str, ...]:
    """Converter: any iterable of strings (not a lone string) to a tuple."""
    if isinstance(value, (str, bytes)):
        raise InvalidRequest("expected a list of strings, not a single string")
    items = tuple(value)
    for item in items:
        if not isinstance(item, str):
            raise InvalidRequest(f"expected a list of strings, found {type(item).__name__}")
    return items


class WireEnum(enum.Enum):
    """An enum of the contract: members are made from their wire value (``LearningKind("fact")``).

    A value that names no member is ``InvalidRequest`` listing the choices.
    """

    @classmethod
    def _missing_(cls, value: object) -> WireEnum:
        choices = ", ".join(str(member.value) for member in cls)
        label = _enum_label(cls)
        article = "an" if label[:1] in "aeiou" else "a"
        raise InvalidRequest(f"`{value}` is not {article} {label} (expected one of {choices})")


def to_enum_tuple(cls: type[E], values: Iterable[E | str]) -> tuple[E, ...]:
    """Members or wire values as a tuple of members."""
    if isinstance(values, (str, cls)):
        raise InvalidRequest(f"expected a list of {_enum_label(cls)}s")
    return tuple(cls(value) for value in values)


def to_tuple_of(cls: type[T], field: str, values: Iterable[T]) -> tuple[T, ...]:
    """Values as a tuple, each an instance of ``cls``."""
    items = tuple(values)
    if not all(isinstance(item, cls) for item in items):
        raise InvalidRequest(f"`{field}` must hold {cls.__name__} values")
    return items


def _enum_label(cls: type[enum.Enum]) -> str:
    words: list[str] = []
    for char in cls.__name__:
        if char.isupper() and words:
            words.append(" ")
        words.append(char.lower())
    return "".join(words)
