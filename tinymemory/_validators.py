"""attrs field validators and converters shared by the contract's classes.

Each refuses a wrong type with :class:`~tinymemory._errors.InvalidRequest`
naming the field, so bad input never reaches an engine.
"""

from __future__ import annotations

import enum
import itertools
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

import attrs

from tinymemory._errors import InvalidRequest
from tinymemory._limits import U32_MAX, USIZE_MAX

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


def utf8_size(text: str, field: str) -> int:
    """The UTF-8 bytes of ``text``; ``InvalidRequest`` naming ``field`` for a lone surrogate."""
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidRequest(
            f"`{field}` holds a lone surrogate, which is not unicode text"
        ) from None


#: How many characters of a refused value an error message shows.
_SHOWN = 160


def shown(value: object) -> str:
    """``value`` as an error message shows it: cut to 160 characters, so a huge input is never
    echoed back."""
    text = str(value)
    return text if len(text) <= _SHOWN else f"{text[:_SHOWN]}… ({len(text):,} characters)"


def check_capped(name: str, text: str, cap: int, rule: str) -> None:
    """Refuse ``text`` over ``cap`` UTF-8 bytes (or a lone surrogate), naming the rule.

    A text of more characters than ``cap`` is refused without being encoded.
    """
    if len(text) > cap or utf8_size(text, name) > cap:
        raise InvalidRequest(f"`{name}` must be at most {cap} bytes of utf-8 ({rule})")


def capped_text(cap: int, rule: str) -> Callable[[Any, Any, Any], None]:
    """Validator: a string of unicode text of at most ``cap`` UTF-8 bytes."""

    def check(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        required_str(instance, attribute, value)
        check_capped(attribute.name, str(value), cap, rule)

    return check


def optional_capped_text(cap: int, rule: str) -> Callable[[Any, Any, Any], None]:
    """Validator: ``None`` or :func:`capped_text`."""
    check = capped_text(cap, rule)

    def optional(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
        if value is not None:
            check(instance, attribute, value)

    return optional


def capped_entries(values: Iterable[T], name: str, cap: int, rule: str) -> tuple[T, ...]:
    """The first entries of ``values`` as a tuple; ``InvalidRequest`` when it holds over ``cap``.

    Never more than one entry past the cap is read (``values`` may be a generator).
    """
    if isinstance(values, (str, bytes)):
        raise InvalidRequest("expected a list of strings, not a single string")
    items = tuple(itertools.islice(values, cap + 1))
    if len(items) > cap:
        raise InvalidRequest(f"`{name}` holds at most {cap} entries ({rule})")
    return items


def capped_strings(
    values: Iterable[str], name: str, cap: int, rule: str, *, entry_bytes: int, entry_rule: str
) -> tuple[str, ...]:
    """At most ``cap`` strings of unicode text, each at most ``entry_bytes``, as a tuple."""
    items = str_tuple(capped_entries(values, name, cap, rule))
    for index, item in enumerate(items):
        check_capped(f"{name}[{index}]", item, entry_bytes, entry_rule)
    return items


#: Characters that show nothing although unicode does not call them white space.
_INVISIBLE = frozenset("\u115f\u1160\u2800\u3164\uffa0")


#: The ASCII characters that show nothing: white space and the control characters.
_ASCII_BLANK = "".join(
    char for char in map(chr, range(128)) if char.isspace() or unicodedata.category(char) == "Cc"
)


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing: only white space, or zero-width and other invisible marks."""
    if text.isascii():
        return not text.strip(_ASCII_BLANK)
    return all(
        char.isspace() or char in _INVISIBLE or unicodedata.category(char) in ("Cf", "Cc")
        for char in text
    )


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
    """Validator: a whole number from 0 to 2^64 - 1 (a ``usize`` in the original)."""
    _whole(attribute.name, value, USIZE_MAX)


def u32(instance: object, attribute: attrs.Attribute[Any], value: object) -> None:
    """Validator: a whole number from 0 to 2^32 - 1 (a ``u32`` in the original)."""
    _whole(attribute.name, value, U32_MAX)


def _whole(name: str, value: object, maximum: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidRequest(f"`{name}` must be a whole number of zero or more")
    if value > maximum:
        raise InvalidRequest(f"`{name}` must be at most {maximum}")


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
        raise InvalidRequest(
            f"`{shown(value)}` is not {article} {label} (expected one of {choices})"
        )


def to_enum_tuple(
    cls: type[E], values: Iterable[E | str], *, cap: tuple[str, int, str] | None = None
) -> tuple[E, ...]:
    """Members or wire values as a tuple of members.

    ``cap`` is the field's name, the most entries it holds and the rule saying so.
    """
    if isinstance(values, (str, cls)):
        raise InvalidRequest(f"expected a list of {_enum_label(cls)}s")
    if cap is not None:
        values = capped_entries(values, *cap)
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
