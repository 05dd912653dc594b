"""Checks generated per field type: every filter field walks its type's equivalence classes.

:data:`FIELDS` is the table of the filter fields with their type; each
:class:`FieldType` says which stored values the contract tells apart from a
filter value (the classes: case, Unicode NFC/NFD, white space, a prefix or
an extension, a child path, each bound of a range and around it, inside,
across, overlapping) and which of them a filter value admits, as the
contract words it. :func:`field_check` turns each row into one fixed check
(``field_<name>``): it stores one item per class (each a decoy some wrong
engine would admit), then reads under the field's value and under each
class's own value, in ``list``, every declared fetch mode, ``explore`` and a
forget, and compares with what the type admits. Adding a field to the
contract is adding a row here; no check code changes.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from enum import Enum
from functools import partial
from typing import Any

import attrs

from tinymemory._items import Conversation, Document, Learning, Role, StoreItem, Turn
from tinymemory._meta import (
    ItemKind,
    MemoryMeta,
    MetaFilter,
    SourceKind,
    SourceRef,
    ToolCallRef,
    TurnRange,
)
from tinymemory._operations import ExploreRequest, Facet, FetchMode, FetchRequest, ForgetTarget
from tinymemory._wire import to_json

from .harness import Harness, Subject

#: A class's stored value, or what a filter asks: a string, a range, a time, a kind.
Value = object


@attrs.frozen
class FieldType:
    """A type of filter field: its classes of stored values, and which a filter admits.

    ``classes(base)`` names each class and its value (``None``: the field unset);
    ``admits(stored, wanted)`` is the contract's matching rule for this type.
    ``filters(base)`` are the filter values walked beyond ``base`` itself.
    """

    name: str
    classes: Callable[[Value], dict[str, Value]]
    admits: Callable[[Value, Value], bool]
    filters: Callable[[Value], dict[str, Value]]


def _string_classes(base: Value) -> dict[str, Value]:
    text = str(base)
    return {
        "the value": text,
        "upper case": text.upper(),
        "lower case": text.lower(),
        "decomposed (NFD)": unicodedata.normalize("NFD", text),
        "a trailing space": text + " ",
        "a leading space": " " + text,
        "a tab at the end": text + "\t",
        "its inner space doubled": text.replace(" ", "  ", 1),
        "a prefix of it": text[:-1],
        "it extended": text + "u",
        "a suffix of it": text[1:],
        "it inside a longer value": "x" + text + "x",
        "a LIKE wildcard for a letter": text[:-2] + "_" + text[-1],
        "a LIKE wildcard for its end": text[:-2] + "%",
        "no value": None,
    }


def _exact(stored: Value, wanted: Value) -> bool:
    return stored is not None and stored == wanted


def _variant_filters(base: Value) -> dict[str, Value]:
    return {name: value for name, value in _string_classes(base).items() if value is not None}


def _path_classes(base: Value) -> dict[str, Value]:
    text = str(base)
    return {
        **_string_classes(text),
        "a child path": f"{text}/child",
        "a grandchild path": f"{text}/a/b",
        "a sibling sharing its text": f"{text}child",
        "its parent": text.rsplit("/", 1)[0],
    }


def _path_admits(stored: Value, wanted: Value) -> bool:
    if stored is None or not isinstance(wanted, str) or not isinstance(stored, str):
        return False
    prefix = wanted.rstrip("/")
    return stored == prefix or stored.startswith(prefix + "/")


def _path_filters(base: Value) -> dict[str, Value]:
    text = str(base)
    return {**_variant_filters(text), "the value with a trailing /": text + "/"}


def _tags_admit(stored: Value, wanted: Value) -> bool:
    return (
        isinstance(stored, tuple) and isinstance(wanted, tuple) and bool(set(stored) & set(wanted))
    )


def _tag_classes(base: Value) -> dict[str, Value]:
    assert isinstance(base, tuple)
    (tag,) = base
    singles: dict[str, Value] = {
        name: (value,) for name, value in _string_classes(tag).items() if value is not None
    }
    return {**singles, "the value after another tag": ("another", tag), "no tags": ()}


def _tag_filters(base: Value) -> dict[str, Value]:
    assert isinstance(base, tuple)
    (tag,) = base
    return {
        **{name: (value,) for name, value in _variant_filters(tag).items()},
        "the value among others": ("unknown", tag),
    }


def _range_classes(base: Value) -> dict[str, Value]:
    assert isinstance(base, TurnRange)
    first, last = base.first, base.last
    return {
        "the range": base,
        "its first turn one earlier": TurnRange(first - 1, last),
        "its first turn one later": TurnRange(first + 1, last),
        "its last turn one earlier": TurnRange(first, last - 1),
        "its last turn one later": TurnRange(first, last + 1),
        "a range inside it": TurnRange(first + 2, last - 2),
        "a range across it": TurnRange(first - 5, last + 5),
        "a range overlapping its start": TurnRange(first - 5, first + 2),
        "a range overlapping its end": TurnRange(last - 2, last + 5),
        "the range at its start only": TurnRange(first, first),
        "the range at its end only": TurnRange(last, last),
        "a range before it": TurnRange(0, first - 1),
        "no range": None,
    }


def _range_filters(base: Value) -> dict[str, Value]:
    return {name: value for name, value in _range_classes(base).items() if value is not None}


_MICRO = timedelta(microseconds=1)


def _time_classes(base: Value) -> dict[str, Value]:
    assert isinstance(base, tuple)
    after, before = base
    return {
        "a microsecond before the start": after - _MICRO,
        "at the start": after,
        "a microsecond after the start": after + _MICRO,
        "inside": after + (before - after) / 2,
        "a microsecond before the end": before - _MICRO,
        "at the end": before,
        "a microsecond after the end": before + _MICRO,
        "the whole second before the start": after.replace(microsecond=0),
        "never observed": None,
    }


def _window_admits(stored: Value, wanted: Value) -> bool:
    assert isinstance(wanted, tuple)
    after, before = wanted
    if not isinstance(stored, datetime):
        return False
    return (after is None or stored >= after) and (before is None or stored < before)


def _window_filters(base: Value) -> dict[str, Value]:
    assert isinstance(base, tuple)
    after, before = base
    return {
        "the window": base,
        "its start alone": (after, None),
        "its end alone": (None, before),
        "a microsecond wide": (after, after + _MICRO),
        "empty": (after, after),
        "whole seconds around it": (after.replace(microsecond=0), before.replace(microsecond=0)),
    }


def _member_classes(base: Value) -> dict[str, Value]:
    assert isinstance(base, tuple)
    return {f"`{_wire(value)}`": value for value in base}


def _member_admits(stored: Value, wanted: Value) -> bool:
    return isinstance(wanted, tuple) and stored in wanted


def _member_filters(base: Value) -> dict[str, Value]:
    assert isinstance(base, tuple)
    return {
        **{f"only `{_wire(value)}`": (value,) for value in base},
        "the first two": base[:2],
        "all but the first": base[1:],
    }


#: A string compared exactly: case, NFC/NFD, white space, prefix and extension all differ.
EXACT_STRING = FieldType("string compared exactly", _string_classes, _exact, _variant_filters)
#: A path: compared exactly, and also matching as a prefix on a `/` boundary.
PATH = FieldType(
    "path (exact, or a prefix on a / boundary)", _path_classes, _path_admits, _path_filters
)
#: A list of strings, each compared exactly; at least one shared admits.
TAG_LIST = FieldType("list of strings, one shared", _tag_classes, _tags_admit, _tag_filters)
#: A range compared whole: neither containment nor overlap.
WHOLE_RANGE = FieldType("range compared whole", _range_classes, _exact, _range_filters)
#: A window: ``after <= observed_at < before``.
WINDOW = FieldType(
    "time window, start inclusive, end exclusive", _time_classes, _window_admits, _window_filters
)
#: Membership in a set of enum values.
MEMBERSHIP = FieldType("membership", _member_classes, _member_admits, _member_filters)


@attrs.frozen
class Field:
    """A filter field: its type, its walked value, and how an item and a filter carry it.

    ``store(meta, value)`` puts a class's value on an item's metadata (and may
    pick the item's kind through ``kind``); ``ask(filter, value)`` puts a
    filter value on a filter. ``base(h)`` is the value walked, made from the
    run's nonce so that no other memory holds it.
    """

    name: str
    type: FieldType
    base: Callable[[Harness], Value]
    store: Callable[[MemoryMeta, Value], MemoryMeta]
    ask: Callable[[MetaFilter, Value], MetaFilter]
    kind: Callable[[Value], ItemKind] = lambda value: ItemKind.LEARNING
    #: The explore facet that counts this field, if any.
    facet: Facet | None = None


def _on_meta(name: str) -> Callable[[MemoryMeta, Value], MemoryMeta]:
    def put(meta: MemoryMeta, value: Value) -> MemoryMeta:
        changes: dict[str, Any] = {name: value}
        return attrs.evolve(meta, **changes)

    return put


def _on_filter(name: str) -> Callable[[MetaFilter, Value], MetaFilter]:
    def ask(filter: MetaFilter, value: Value) -> MetaFilter:
        changes: dict[str, Any] = {name: value}
        return attrs.evolve(filter, **changes)

    return ask


def _text(h: Harness) -> str:
    return f"Café Menu {h.nonce}"


def _window_base(h: Harness) -> Value:
    del h
    start = datetime(2024, 3, 1, 12, 0, 0, 250_000, tzinfo=UTC)
    return (start, start + timedelta(hours=1, microseconds=500_000))


def _ask_window(filter: MetaFilter, value: Value) -> MetaFilter:
    assert isinstance(value, tuple)
    return attrs.evolve(filter, observed_after=value[0], observed_before=value[1])


def _string_field(name: str, facet: Facet | None = None, filter_name: str | None = None) -> Field:
    return Field(
        name, EXACT_STRING, _text, _on_meta(name), _on_filter(filter_name or name), facet=facet
    )


def _wire(value: Value) -> str:
    """An enum value's wire string (``SourceKind.FILE`` -> ``file``)."""
    return str(value.value) if isinstance(value, Enum) else str(value)


def _members(value: Value) -> tuple[str, ...]:
    assert isinstance(value, tuple)
    return tuple(_wire(member) for member in value)


def _workspace_base(h: Harness) -> Value:
    return f"{h.workspace}/Café Menu"


#: Every filter field with its type. A new field of the contract is one more row.
FIELDS: tuple[Field, ...] = (
    Field(
        "workspace",
        EXACT_STRING,
        _workspace_base,
        _on_meta("workspace"),
        _on_filter("workspace"),
        facet=Facet.WORKSPACE,
    ),
    _string_field("language", Facet.LANGUAGE),
    _string_field("repo", Facet.REPO),
    _string_field("commit"),
    _string_field("url", Facet.URL),
    _string_field("thread_id", Facet.THREAD),
    _string_field("agent_id", Facet.AGENT),
    Field(
        "tool_call",
        EXACT_STRING,
        _text,
        lambda meta, value: attrs.evolve(
            meta, tool_call=None if value is None else ToolCallRef(name=str(value), id="call-1")
        ),
        _on_filter("tool_call"),
        facet=Facet.TOOL_CALL,
    ),
    Field(
        "source_id",
        EXACT_STRING,
        _text,
        lambda meta, value: attrs.evolve(
            meta, source=SourceRef(kind=SourceKind.FILE, id=None if value is None else str(value))
        ),
        _on_filter("source_id"),
        facet=Facet.SOURCE_ID,
    ),
    Field(
        "folder",
        PATH,
        lambda h: f"notes/{_text(h)}",
        _on_meta("folder"),
        _on_filter("folder"),
        facet=Facet.FOLDER,
    ),
    Field(
        "file_path",
        PATH,
        lambda h: f"src/{_text(h)}",
        _on_meta("file_path"),
        _on_filter("file_path"),
        facet=Facet.FILE_PATH,
    ),
    Field(
        "tags_any",
        TAG_LIST,
        lambda h: (_text(h),),
        _on_meta("tags"),
        _on_filter("tags_any"),
        facet=Facet.TAG,
    ),
    Field(
        "turns",
        WHOLE_RANGE,
        lambda h: TurnRange(10, 20),
        _on_meta("turns"),
        _on_filter("turns"),
        kind=lambda value: ItemKind.CONVERSATION,
    ),
    Field("observed_at", WINDOW, _window_base, _on_meta("observed_at"), _ask_window),
    Field(
        "sources",
        MEMBERSHIP,
        lambda h: tuple(SourceKind),
        lambda meta, value: attrs.evolve(meta, source=SourceRef(kind=SourceKind(_wire(value)))),
        lambda filter, value: attrs.evolve(filter, sources=_members(value)),
        facet=Facet.SOURCE,
    ),
    Field(
        "kinds",
        MEMBERSHIP,
        lambda h: tuple(ItemKind),
        lambda meta, value: meta,
        lambda filter, value: attrs.evolve(filter, kinds=_members(value)),
        kind=lambda value: ItemKind(_wire(value)),
        facet=Facet.KIND,
    ),
)


def _item(h: Harness, field: Field, cls: str, value: Value) -> StoreItem:
    meta = field.store(h.meta(), value)
    if field.name == "workspace" and value is not None:
        h.also_clean(str(value))
    text = f"{h.marker} {field.name} probe"
    kind = field.kind(value) if value is not None else field.kind(field.base(h))
    if kind is ItemKind.CONVERSATION:
        return Conversation(turns=[Turn(role=Role.USER, text=text)], meta=meta)
    if kind is ItemKind.DOCUMENT:
        return Document(title=cls, body=text, meta=meta)
    return Learning(text=f"{text} ({cls})", meta=meta)


def _filter(h: Harness, field: Field, value: Value) -> MetaFilter:
    start = MetaFilter() if field.name == "workspace" else h.run_filter()
    return field.ask(start, value)


def check_field(field: Field, subject: Subject) -> None:
    """Walk one filter field through its type's classes in every read."""
    check = f"field_{field.name}"
    with subject.session(check) as h:
        base = field.base(h)
        classes = field.type.classes(base)
        stored: dict[str, Value] = {}
        for cls, value in classes.items():
            item = _item(h, field, cls, value)
            receipt = h.store(item, f"{field.name} {cls}")
            stored[receipt.id] = value
        walked = {"the field's value": base, **field.type.filters(base)}
        modes = h.engine.descriptor.fetch_modes
        for index, (label, wanted) in enumerate(walked.items()):
            filter = _filter(h, field, wanted)
            expected = sorted(i for i, v in stored.items() if field.type.admits(v, wanted))
            call = f"list {to_json(filter)} ({field.name}: {label})"
            got = sorted(hit.id for hit in h.listed(filter))
            h.expect(got == expected, call, h.names(expected), h.names(got))
            every_read = index == 0
            for mode in modes if every_read else modes[:1]:
                request = FetchRequest(query=h.marker, mode=mode, filter=filter, limit=50)
                hits = h.fetched(request)
                served = {hit.id for hit in hits}
                stray = sorted(served - set(expected))
                h.expect(
                    not stray,
                    f"fetch {to_json(request)}",
                    f"only {h.names(expected)}",
                    f"also {h.names(stray)}",
                )
                if mode is FetchMode.KEYWORD:
                    missing = sorted(set(expected) - served)
                    h.expect(
                        not missing,
                        f"fetch {to_json(request)}",
                        h.names(expected),
                        f"without {h.names(missing)}",
                    )
            if field.facet is not None:
                explore = ExploreRequest(facet=field.facet, filter=filter, limit=500)
                page = h.explore(explore)
                h.expect(
                    page.total == len(expected),
                    f"explore {to_json(explore)}",
                    f"total {len(expected)}",
                    page.total,
                )
        filter = _filter(h, field, base)
        expected = sorted(i for i, v in stored.items() if field.type.admits(v, base))
        forgotten = h.forget(ForgetTarget.by_filter(filter))
        h.expect(
            forgotten == len(expected),
            f"forget {to_json(filter)}",
            f"{len(expected)} forgotten: {h.names(expected)}",
            forgotten,
        )
        for item_id in expected:
            again = h.get([item_id])
            h.expect(not again, f"get after forget {to_json(filter)}", "nothing", h.hits(again))
        rest = sorted(set(stored) - set(expected))
        if rest:
            got = sorted(hit.id for hit in h.get(rest))
            h.expect(
                got == rest, f"get after forget {to_json(filter)}", h.names(rest), h.names(got)
            )


def field_check(field: Field) -> Callable[[Subject], None]:
    """The fixed check of one field, with a docstring naming the field and its type."""
    run = partial(check_field, field)

    def check(subject: Subject) -> None:
        run(subject)

    check.__doc__ = (
        f"The `{field.name}` filter ({field.type.name}) admits exactly the classes its type "
        "admits, in list, every fetch mode, explore and forget."
    )
    check.__name__ = f"check_field_{field.name}"
    return check


def field_check_names(fields: Sequence[Field] = FIELDS) -> tuple[str, ...]:
    """The names of the generated checks, one per field."""
    return tuple(f"field_{field.name}" for field in fields)
