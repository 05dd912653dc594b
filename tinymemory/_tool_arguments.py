"""Reading a model's tool arguments, strictly.

Every refusal is :class:`~tinymemory._errors.InvalidRequest` with a lowercase
message naming the tool and the argument's path
(``memory_list: `filter.limit` is not an argument of this tool``):

- a ``namespace`` or ``reach`` key anywhere in the arguments (inside arrays
  too, written ``[]`` in the path, and under keys the tool does not know) is
  refused first: the host fixes whose memory a tool touches, and a model
  that tries to choose is told so rather than quietly ignored;
- then any key the tool's schema does not list;
- then a value of the wrong type or out of range.

An explicit ``null`` reads as absent, since many models send ``null`` for an
optional argument they mean to leave out.
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, TypeVar

from tinymemory._errors import InvalidRequest
from tinymemory._f32 import to_f32
from tinymemory._meta import ItemKind, MetaFilter, SourceKind
from tinymemory._operations import MAX_GET_IDS
from tinymemory._tool_schemas import FILTER_FIELDS
from tinymemory._validators import WireEnum

E = TypeVar("E", bound=WireEnum)

#: Keys a model may never pass, at any depth.
HOST_FIXED = ("namespace", "reach")

_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?"
    r"(?:([Zz])|([+-])(\d{2}):(\d{2}))",
    re.ASCII,
)


def decode(tool: str, arguments: object) -> object:
    """The arguments as plain data: JSON text is parsed, anything else is taken as it is.

    Text that is not JSON (``NaN`` and ``Infinity`` included, which JSON has
    not) is refused.
    """
    if not isinstance(arguments, (str, bytes, bytearray)):
        return arguments
    try:
        return json.loads(arguments, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise InvalidRequest(f"{tool}: arguments are not valid json") from None


def _no_constant(name: str) -> object:
    raise ValueError(f"`{name}` is not a json number")


def refuse_host_fixed(tool: str, value: object) -> None:
    """Refuse a ``namespace`` or ``reach`` key anywhere in ``value``, naming its path.

    The walk is breadth first, so the shallowest such key is the one named
    (the first in sorted order, as the original's key-sorted maps read), and
    it goes under keys no tool knows. A string that is not Unicode text
    (a lone surrogate) is refused on the way, since no engine could store it.
    """
    queue: deque[tuple[str, object]] = deque([("", value)])
    seen: set[int] = set()
    while queue:
        path, node = queue.popleft()
        if isinstance(node, str):
            _check_text(tool, path, node)
            continue
        if id(node) in seen or not isinstance(node, (Mapping, list, tuple)):
            continue
        seen.add(id(node))
        if isinstance(node, Mapping):
            for key in sorted(node, key=str):
                name = str(key)
                if name in HOST_FIXED:
                    raise InvalidRequest(
                        f"{tool}: `{path}{name}` is fixed by the host and cannot be passed "
                        "to a memory tool"
                    )
                _check_text(tool, path + name, name)
            queue.extend((f"{path}{key}.", node[key]) for key in sorted(node, key=str))
        elif all(isinstance(child, str) for child in node):
            # A list of strings (tags, ids) is checked in one pass, not a node at a time.
            _check_text(tool, f"{path.removesuffix('.')}[].", "".join(node))
        else:
            queue.extend((f"{path.removesuffix('.')}[].", child) for child in node)


def _check_text(tool: str, path: str, text: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        shown = path.removesuffix(".") or "arguments"
        raise InvalidRequest(
            f"{tool}: `{shown}` holds a lone surrogate, which is not unicode text"
        ) from None


class Arguments:
    """One JSON object of a tool's arguments, read against the keys it accepts.

    ``path`` is how errors name the object's fields: ``""`` at the top,
    ``"filter."`` inside the filter, ``"conversation.turns[]."`` inside a turn.
    """

    def __init__(self, tool: str, path: str, values: Mapping[Any, Any]) -> None:
        self.tool = tool
        self.path = path
        self.values = values

    @classmethod
    def parse(cls, tool: str, value: object, allowed: Iterable[str]) -> Arguments:
        """The top-level arguments of ``tool``; ``None`` reads as no arguments."""
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            raise InvalidRequest(f"{tool}: arguments must be a json object")
        arguments = cls(tool, "", value)
        arguments.check_keys(allowed)
        return arguments

    def check_keys(self, allowed: Iterable[str]) -> None:
        """Refuse a host-fixed key, then any key outside ``allowed``."""
        accepted = set(allowed)
        # The original reads arguments into a key-sorted map, so the first bad
        # key in sorted order is the one named.
        keys = sorted(self.values, key=str)
        for key in keys:
            if str(key) in HOST_FIXED:
                raise self.error(
                    str(key), "is fixed by the host and cannot be passed to a memory tool"
                )
        for key in keys:
            if not isinstance(key, str) or key not in accepted:
                raise self.error(str(key), "is not an argument of this tool")

    def error(self, key: str, problem: str) -> InvalidRequest:
        """``InvalidRequest`` reading ``<tool>: `<path><key>` <problem>``."""
        return InvalidRequest(f"{self.tool}: `{self.path}{key}` {problem}")

    def get(self, key: str) -> Any:
        """The value at ``key``; ``None`` when absent or ``null``."""
        return self.values.get(key)

    def has(self, key: str) -> bool:
        """Whether ``key`` is present and not ``null``."""
        return self.get(key) is not None

    def object(self, key: str, allowed: Iterable[str]) -> Arguments | None:
        """The nested object at ``key`` (its fields named ``key.field``), or ``None``."""
        value = self.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise self.error(key, "must be an object")
        nested = Arguments(self.tool, f"{self.path}{key}.", value)
        nested.check_keys(allowed)
        return nested

    def required_object(self, key: str, allowed: Iterable[str]) -> Arguments:
        """The nested object at ``key``, which must be there."""
        nested = self.object(key, allowed)
        if nested is None:
            raise self.error(key, "is required")
        return nested

    def elements(self, key: str, allowed: Iterable[str]) -> Iterator[Arguments]:
        """The objects of the array at ``key`` (fields named ``key[].field``), none when absent.

        Each element is checked as it is reached, so an error in an earlier
        element is reported before a later element that is not an object.
        """
        value = self.get(key)
        if value is None:
            return
        if not isinstance(value, (list, tuple)):
            raise self.error(key, "must be an array")
        allowed = tuple(allowed)
        for element in value:
            if not isinstance(element, Mapping):
                raise self.error(key, "must hold only objects")
            nested = Arguments(self.tool, f"{self.path}{key}[].", element)
            nested.check_keys(allowed)
            yield nested

    def string(self, key: str) -> str | None:
        """An optional string."""
        value = self.get(key)
        if value is not None and not isinstance(value, str):
            raise self.error(key, "must be a string")
        return value

    def required_string(self, key: str) -> str:
        """A string that is present and not blank."""
        value = self.string(key)
        if value is None or not value.strip():
            raise self.error(key, "is required and must not be blank")
        return value

    def count(self, key: str, default: int, maximum: int) -> int:
        """A whole number from 1 to ``maximum``; ``default`` when absent.

        A JSON integer only: ``"5"``, ``5.0`` and ``true`` are refused.
        """
        value = self.get(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= maximum:
            raise self.error(key, f"must be an integer from 1 to {maximum}")
        return value

    def unit(self, key: str, default: float) -> float:
        """A number from 0 to 1, narrowed to single precision; ``default`` when absent."""
        value = self.get(key)
        if value is None:
            return default
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or math.isnan(value)
            or not 0.0 <= value <= 1.0
        ):
            raise self.error(key, "must be a number from 0 to 1")
        return to_f32(value)

    def strings(self, key: str) -> tuple[str, ...]:
        """An optional array of strings; empty when absent."""
        value = self.get(key)
        if value is None:
            return ()
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            raise self.error(key, "must be an array of strings")
        return tuple(value)

    def choice(self, key: str, choices: Sequence[E], default: E | None = None) -> E:
        """One of ``choices`` by its wire value; ``default`` when absent (required without one)."""
        if default is not None and not self.has(key):
            return default
        name = self.required_string(key) if default is None else self.string(key)
        for choice in choices:
            if choice.value == name:
                return choice
        listed = ", ".join(str(choice.value) for choice in choices)
        raise self.error(key, f"must be one of {listed}")

    def item_ids(self, key: str) -> tuple[str, ...]:
        """From 1 to 200 ids, none blank, repeats dropped (first kept)."""
        given = self.get(key)
        # Counted before any id is looked at, so a million ids cost no more than 201.
        if isinstance(given, (list, tuple)) and not 1 <= len(given) <= MAX_GET_IDS:
            raise self.error(key, f"must list from 1 to {MAX_GET_IDS} ids")
        ids = self.strings(key)
        if not ids:
            raise self.error(key, f"must list from 1 to {MAX_GET_IDS} ids")
        if any(not item_id.strip() for item_id in ids):
            raise self.error(key, "must not hold a blank id")
        return tuple(dict.fromkeys(ids))

    def timestamp(self, key: str) -> datetime | None:
        """An optional RFC 3339 timestamp with its offset, in UTC."""
        text = self.string(key)
        if text is None:
            return None
        value = _parse_rfc3339(text)
        if value is None:
            raise self.error(key, "must be an rfc 3339 timestamp")
        return value

    def filter(self, key: str = "filter") -> MetaFilter:
        """The model's filter at ``key``, or an empty one; its ``reach`` is never read.

        The caller confines it to the host's reach afterwards.
        """
        nested = self.object(key, FILTER_FIELDS)
        if nested is None:
            return MetaFilter()
        return MetaFilter(
            kinds=nested._enum_list("kinds", ItemKind, "an item kind"),
            sources=nested._enum_list("sources", SourceKind, "a source kind"),
            tags_any=nested.strings("tags_any"),
            workspace=nested.string("workspace"),
            folder=nested.string("folder"),
            file_path=nested.string("file_path"),
            repo=nested.string("repo"),
            url=nested.string("url"),
            thread_id=nested.string("thread_id"),
            agent_id=nested.string("agent_id"),
            observed_after=nested.timestamp("observed_after"),
            observed_before=nested.timestamp("observed_before"),
        )

    def _enum_list(self, key: str, cls: type[E], what: str) -> tuple[E, ...]:
        members = {str(member.value): member for member in cls}
        chosen = []
        for name in self.strings(key):
            if name not in members:
                raise self.error(key, f"`{name}` is not {what}")
            chosen.append(members[name])
        return tuple(chosen)


def _parse_rfc3339(text: str) -> datetime | None:
    """RFC 3339 as chrono reads it (date, ``T``, time, optional fraction, ``Z`` or offset)."""
    match = _RFC3339.fullmatch(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(part) for part in match.group(1, 2, 3, 4, 5, 6))
    fraction, zulu, sign, offset_hours, offset_minutes = match.group(7, 8, 9, 10, 11)
    micros = int((fraction or "0")[:6].ljust(6, "0"))
    try:
        if zulu:
            zone = UTC
        else:
            offset = timedelta(hours=int(offset_hours), minutes=int(offset_minutes))
            zone = timezone(-offset if sign == "-" else offset)
        return datetime(year, month, day, hour, minute, second, micros, tzinfo=zone).astimezone(UTC)
    except (ValueError, OverflowError):
        return None
