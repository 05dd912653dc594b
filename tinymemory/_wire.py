"""JSON forms of every contract type, through one cattrs converter.

The forms are the original's, field for field: snake_case names, a StoreItem
tagged by ``"type"``, ``DocumentBody`` and ``ForgetTarget`` externally tagged
(``{"text": ...}``, ``{"ids": [...]}``), ``EngineHealth`` adjacently tagged
(``{"state": "down", "reason": ...}``), namespaces as their written paths, the
root namespace and unset options left out. :func:`to_json` writes compact
JSON the way serde_json does (key order kept, non-ASCII raw, f32 numbers in
their shortest form) with the writer of :mod:`tinymemory._item_json`, which
item fingerprints hash.
"""

from __future__ import annotations

import functools
import json
import types
import typing
from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.cols import homogenous_tuple_structure_factory
from cattrs.v import format_exception

from tinymemory._canonical import dumps
from tinymemory._engine import EngineDescriptor
from tinymemory._errors import InvalidRequest, TinyMemoryError
from tinymemory._item_json import item_json
from tinymemory._items import Conversation, Document, DocumentBody, Learning, StoreItem
from tinymemory._meta import MetaFilter
from tinymemory._namespace import Namespace, Reach
from tinymemory._operations import EraseReport, ExportPage, ForgetTarget, RecallAnswer
from tinymemory._timestamps import format_timestamp, parse_timestamp

__all__ = ["converter", "dumps", "from_data", "from_json", "to_data", "to_json"]

T = TypeVar("T")

#: The one converter that owns every JSON form.
converter = cattrs.Converter(detailed_validation=True)

# Defaults that mean "unset" on the wire, so a field holding one is left out.
_UNSET_DEFAULTS: tuple[object, ...] = (None, (), Namespace.ROOT)
# Fields the original always writes although their default reads as unset. Only
# `MemoryMeta.namespace` leaves the root out; a reach writes its root `at` as "root".
# Lists serde writes even when empty (only tags, tool calls and filter lists are
# skipped when empty).
_ALWAYS_WRITTEN = {
    (RecallAnswer, "citations"),
    (Reach, "at"),
    (ExportPage, "incomplete"),
    (EraseReport, "receipts"),
    (EngineDescriptor, "fetch_modes"),
}
_ITEM_TAGS: dict[type, str] = {
    Document: "document",
    Conversation: "conversation",
    Learning: "learning",
}


def _strict(kind: type, label: str) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _: Any) -> Any:
        if isinstance(value, bool) and kind is not bool:
            raise InvalidRequest(f"expected {label}, found a boolean")
        if kind is float and isinstance(value, int):
            return float(value)
        if not isinstance(value, kind):
            raise InvalidRequest(f"expected {label}, found {type(value).__name__}")
        return value

    return structure


converter.register_structure_hook(str, _strict(str, "a string"))
converter.register_structure_hook(int, _strict(int, "an integer"))
converter.register_structure_hook(float, _strict(float, "a number"))
converter.register_structure_hook(bool, _strict(bool, "true or false"))
converter.register_unstructure_hook(Namespace, str)
converter.register_structure_hook(Namespace, lambda value, _: Namespace.parse(value))
converter.register_unstructure_hook(datetime, format_timestamp)
converter.register_structure_hook(datetime, lambda value, _: parse_timestamp(value))
converter.register_unstructure_hook_func(
    lambda cls: cls is tuple or getattr(cls, "__origin__", None) is tuple,
    lambda value: [converter.unstructure(item) for item in value],
)


def _attrs_unstructure(cls: type) -> Callable[[Any], dict[str, Any]]:
    # Written by hand rather than with cattrs.gen: the original's key order must
    # hold even for fields left out when unset, which cattrs.gen moves last.
    plan = [
        (
            field.name,
            (cls, field.name) not in _ALWAYS_WRITTEN
            and not isinstance(field.default, attrs.Factory)  # type: ignore[arg-type]
            and any(field.default == unset for unset in _UNSET_DEFAULTS),
            field.default,
        )
        for field in attrs.fields(cls)
    ]

    def unstructure(value: Any) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, omit_unset, default in plan:
            field_value = getattr(value, name)
            if not (omit_unset and field_value == default):
                data[name] = converter.unstructure(field_value)
        return data

    return unstructure


converter.register_unstructure_hook_factory(attrs.has, _attrs_unstructure)


def _attrs_structure(cls: type) -> Callable[[Any, Any], Any]:
    # cattrs alone reads a struct from anything supporting `in` (a string, a
    # list), so `"filter": []` would pass as an empty filter; serde refuses it.
    structure: Callable[[Any, Any], Any] = converter.gen_structure_attrs_fromdict(cls)

    def hook(value: Any, _: Any) -> Any:
        if not isinstance(value, dict):
            raise InvalidRequest(f"expected an object, found {type(value).__name__}")
        return structure(value, cls)

    return hook


def _is_list_type(cls: Any) -> bool:
    args: tuple[Any, ...] = getattr(cls, "__args__", ())
    return getattr(cls, "__origin__", None) is tuple and len(args) == 2 and args[1] is ...


def _list_structure(cls: Any) -> Callable[[Any, Any], Any]:
    # cattrs alone reads a sequence from any iterable: `"tags": "ab"` would
    # become ("a", "b"); serde refuses anything but an array.
    structure = homogenous_tuple_structure_factory(cls, converter)

    def hook(value: Any, target: Any) -> Any:
        if not isinstance(value, list):
            raise InvalidRequest(f"expected a list, found {type(value).__name__}")
        return structure(value, target)

    return hook


converter.register_structure_hook_factory(attrs.has, _attrs_structure)
converter.register_structure_hook_factory(_is_list_type, _list_structure)


def _unstructure_item(cls: type) -> Callable[[Any], dict[str, Any]]:
    fields = _attrs_unstructure(cls)
    tag = _ITEM_TAGS[cls]
    return lambda item: {"type": tag, **fields(item)}


for _item_class in _ITEM_TAGS:
    converter.register_unstructure_hook(_item_class, _unstructure_item(_item_class))


def _structure_item(value: Any, _: Any) -> StoreItem:
    if not isinstance(value, dict):
        raise InvalidRequest("a stored item is a json object")
    fields = dict(value)
    tag = fields.pop("type", None)
    if tag is None:
        raise InvalidRequest("a stored item needs a `type`: document, conversation or learning")
    for cls, name in _ITEM_TAGS.items():
        if tag == name:
            return converter.structure(fields, cls)
    raise InvalidRequest(
        f"`{tag}` is not an item type (expected document, conversation or learning)"
    )


converter.register_structure_hook_func(lambda cls: cls == StoreItem, _structure_item)


def _one_of(value: Any, names: tuple[str, ...], what: str) -> tuple[str, Any]:
    if not isinstance(value, dict) or len(value) != 1 or next(iter(value)) not in names:
        raise InvalidRequest(f"{what} is written as an object with one key: {' or '.join(names)}")
    return next(iter(value.items()))


def _unstructure_body(body: DocumentBody) -> dict[str, str]:
    return {"text": body.text} if body.text is not None else {"uri": str(body.uri)}


def _structure_body(value: Any, _: Any) -> DocumentBody:
    key, content = _one_of(value, ("text", "uri"), "a document body")
    return DocumentBody(**{key: converter.structure(content, str)})


def _unstructure_target(target: ForgetTarget) -> dict[str, Any]:
    if target.ids is not None:
        return {"ids": list(target.ids)}
    return {"filter": converter.unstructure(target.filter)}


def _structure_target(value: Any, _: Any) -> ForgetTarget:
    key, content = _one_of(value, ("ids", "filter"), "a forget target")
    if key == "ids":
        return ForgetTarget.by_ids(converter.structure(content, tuple[str, ...]))
    return ForgetTarget.by_filter(converter.structure(content, MetaFilter))


def _no_json_form(value: object) -> None:
    raise TypeError(f"a {type(value).__name__} has no json form: it is never written anywhere")


# A class holding a secret (EngineCredential) says so, rather than this module
# importing the settings layer to name it.
converter.register_unstructure_hook_func(
    lambda cls: getattr(cls, "__no_json_form__", False), _no_json_form
)
converter.register_unstructure_hook(DocumentBody, _unstructure_body)
converter.register_structure_hook(DocumentBody, _structure_body)
converter.register_unstructure_hook(ForgetTarget, _unstructure_target)
converter.register_structure_hook(ForgetTarget, _structure_target)


def to_data(value: object) -> Any:
    """The JSON-ready form (dicts, lists, strings, numbers) of any contract value."""
    return converter.unstructure(value)


def from_data(data: Any, cls: type[T]) -> T:
    """Read a contract value of type ``cls`` from its JSON-ready form.

    Anything malformed is ``InvalidRequest`` naming what was wrong and where
    (``$.filter.kinds[0]``).
    """
    name = "StoreItem" if cls == StoreItem else getattr(cls, "__name__", "value")
    try:
        return converter.structure(data, cls)
    except TinyMemoryError:
        raise
    except cattrs.BaseValidationError as error:
        problems = cattrs.transform_error(error, format_exception=_describe)
        raise InvalidRequest(f"cannot read {name}: {'; '.join(problems)}") from None
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise InvalidRequest(f"cannot read {name}: {error}") from None


def _describe(error: BaseException, cls: type | None) -> str:
    if isinstance(error, TinyMemoryError):
        return error.message
    return format_exception(error, cls)


def to_json(value: object) -> str:
    """Compact JSON of a contract value, written as serde_json writes it.

    A stored item takes the hand-written path of :mod:`tinymemory._canonical`,
    byte for byte what the converter writes, several times faster.
    """
    if type(value) in _ITEM_TAGS:
        return item_json(value)  # type: ignore[arg-type]
    return dumps(to_data(value))


def from_json(text: str | bytes, cls: type[T]) -> T:
    """Read a contract value of type ``cls`` from JSON text (read by :func:`strict_json`)."""
    return from_data(strict_json(text), cls)


def strict_json(text: str | bytes) -> Any:
    """JSON text as plain data; ``InvalidRequest`` for what JSON (and serde_json) would refuse.

    Beyond Python's own reading: ``NaN`` and ``Infinity`` are no JSON numbers,
    and a key given twice in one object is refused rather than the last
    silently kept.
    """
    try:
        return json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=_unique_keys)
    except ValueError as error:
        raise InvalidRequest(f"not valid json: {error}") from None
    except RecursionError:
        raise InvalidRequest("not valid json: nested too deeply") from None


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise InvalidRequest(f"duplicate key `{key}`")
        found[key] = value
    return found


def _refuse_constant(name: str) -> float:
    # Python's json reads NaN and Infinity; JSON (and serde_json) has no such numbers.
    raise InvalidRequest(f"not valid json: `{name}` is not a json number")


def unknown_key(data: Any, cls: Any) -> str | None:
    """The first key in ``data`` that ``cls``'s JSON form lacks (``meta.tgas``), or ``None``.

    For readers that must be strict, such as ``tinymemory import``: the
    converter itself ignores keys it does not know. Values of the wrong shape
    are left for :func:`from_data` to report.
    """
    return _unknown_key(data, cls, "")


@functools.cache
def _type_hints(cls: type) -> dict[str, Any]:
    """``cls``'s resolved field types, worked out once (``import`` asks per item and key)."""
    return typing.get_type_hints(cls)


def _unknown_key(data: Any, cls: Any, path: str) -> str | None:
    allowed: set[str] = set()
    if cls == StoreItem:
        tag = data.get("type") if isinstance(data, dict) else None
        matching = [kind for kind, name in _ITEM_TAGS.items() if name == tag]
        if not matching:
            return None
        cls, allowed = matching[0], {"type"}
    arguments = [arg for arg in typing.get_args(cls) if arg is not type(None)]
    if isinstance(cls, types.UnionType) or typing.get_origin(cls) is typing.Union:
        return _unknown_key(data, arguments[0], path) if len(arguments) == 1 else None
    if typing.get_origin(cls) is tuple and isinstance(data, list) and arguments:
        for index, value in enumerate(data):
            found = _unknown_key(value, arguments[0], f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if not (isinstance(cls, type) and attrs.has(cls) and isinstance(data, dict)):
        return None
    fields = _type_hints(cls)
    for key, value in data.items():
        where = f"{path}.{key}" if path else str(key)
        if key in allowed:
            continue
        if key not in fields:
            return where
        found = _unknown_key(value, fields[key], where)
        if found is not None:
            return found
    return None
