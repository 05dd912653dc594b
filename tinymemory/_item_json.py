"""Stored items' canonical JSON, written and read by hand rather than through cattrs.

An engine writes an item's JSON once per store, both to keep it and to hash
it into the item's id, and reads it back for every hit. The generic converter
in :mod:`tinymemory._wire` walks every field through cattrs' dispatch; the
three item types are few and fixed, so this module spells their forms out,
byte for byte the converter's (tests/test_item_json.py holds it to that, and
to the fingerprint vectors): field order kept, unset options left out, the
root namespace left out, non-ASCII raw, f32 numbers in their shortest form.
"""

from __future__ import annotations

import functools
import json
import json.encoder
import operator
from collections.abc import Callable
from typing import Any

from tinymemory._canonical import fingerprint_json
from tinymemory._errors import InvalidRequest
from tinymemory._f32 import format_f32
from tinymemory._items import Conversation, Document, DocumentBody, Learning, StoreItem, Turn
from tinymemory._meta import MemoryMeta, SourceRef, ToolCallRef, TurnRange
from tinymemory._namespace import Namespace
from tinymemory._timestamps import format_timestamp, parse_timestamp

_quoted: Callable[[str], str] = json.encoder.encode_basestring

#: MemoryMeta's optional strings before ``turns``, in wire order.
_LEADING_STRINGS = (
    "workspace",
    "folder",
    "file_path",
    "language",
    "repo",
    "commit",
    "url",
    "thread_id",
)
_leading_strings = operator.attrgetter(*_LEADING_STRINGS)


def item_json(item: StoreItem) -> str:
    """The item's canonical JSON, ``observed_at`` included."""
    head, meta, observed, tail = _parts(item)
    return head + meta + observed + tail


def json_and_id(item: StoreItem) -> tuple[str, str]:
    """The item's canonical JSON and its id (the digest of that JSON without ``observed_at``).

    Both come from one writing of the item. ``InvalidRequest`` when a text
    holds a lone surrogate.
    """
    head, meta, observed, tail = _parts(item)
    full = head + meta + observed + tail
    return full, fingerprint_json(full if not observed else head + meta + tail)


def _parts(item: StoreItem) -> tuple[str, str, str, str]:
    """The JSON cut around ``meta.observed_at``: before it, its member, and after it."""
    if isinstance(item, Learning):
        head = (
            f'{{"type":"learning","text":{_quoted(item.text)},"kind":"{item.kind._value_}",'
            f'"confidence":{format_f32(item.confidence)}'
        )
        if item.evidence is not None:
            head += ',"evidence":' + _quoted(item.evidence)
    elif isinstance(item, Document):
        head = '{"type":"document"'
        if item.title is not None:
            head += ',"title":' + _quoted(item.title)
        head += ',"body":' + _body(item.body)
        if item.mime is not None:
            head += ',"mime":' + _quoted(item.mime)
    else:
        head = '{"type":"conversation","turns":[' + ",".join(map(_turn, item.turns)) + "]"
    meta = item.meta
    observed = ""
    if meta.observed_at is not None:
        observed = ',"observed_at":' + _quoted(format_timestamp(meta.observed_at))
    tail = "}}" if meta.derive is None else f',"derive":{"true" if meta.derive else "false"}}}}}'
    return head + ',"meta":{', _meta(meta), observed, tail


def _body(body: DocumentBody) -> str:
    if body.text is not None:
        return '{"text":' + _quoted(body.text) + "}"
    return '{"uri":' + _quoted(str(body.uri)) + "}"


def _turn(turn: Turn) -> str:
    text = f'{{"role":"{turn.role.value}","text":{_quoted(turn.text)}'
    if turn.at is not None:
        text += ',"at":' + _quoted(format_timestamp(turn.at))
    if turn.tool_calls:
        text += ',"tool_calls":[' + ",".join(map(_tool_call, turn.tool_calls)) + "]"
    return text + "}"


def _tool_call(call: ToolCallRef) -> str:
    if call.id is None:
        return '{"name":' + _quoted(call.name) + "}"
    return '{"name":' + _quoted(call.name) + ',"id":' + _quoted(call.id) + "}"


def _meta(meta: MemoryMeta) -> str:
    """The meta's members from ``namespace`` to ``tags`` (``source`` is always written)."""
    members = []
    if meta.namespace.segments:
        members.append('"namespace":' + _quoted(str(meta.namespace)))
    leading = _leading_strings(meta)
    if leading.count(None) < len(_LEADING_STRINGS):  # most items set none of them
        for name, value in zip(_LEADING_STRINGS, leading, strict=True):
            if value is not None:
                members.append(f'"{name}":' + _quoted(value))
    if meta.turns is not None:
        members.append(f'"turns":{{"first":{meta.turns.first},"last":{meta.turns.last}}}')
    if meta.agent_id is not None:
        members.append('"agent_id":' + _quoted(meta.agent_id))
    if meta.tool_call is not None:
        members.append('"tool_call":' + _tool_call(meta.tool_call))
    source = meta.source
    # ``_value_`` is the member's value, read without the ``value`` property's call.
    if source.id is None:
        members.append(f'"source":{{"kind":"{source.kind._value_}"}}')
    else:
        members.append(f'"source":{{"kind":"{source.kind._value_}","id":{_quoted(source.id)}}}')
    if meta.tags:
        members.append('"tags":[' + ",".join(map(_quoted, meta.tags)) + "]")
    return ",".join(members)


# --- reading ------------------------------------------------------------------


def item_from_json(text: str) -> StoreItem:
    """Read an item an engine stored from its canonical JSON, by the items' own constructors.

    Anything that is not a stored item's form is ``InvalidRequest``.
    """
    try:
        return _item(json.loads(text))
    except InvalidRequest:
        raise
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise InvalidRequest(f"cannot read a stored item: {error!r}") from None


def _item(data: dict[str, Any]) -> StoreItem:
    kind = data["type"]
    meta = _read_meta(data["meta"])
    if kind == "learning":
        return Learning(
            text=data["text"],
            kind=data["kind"],
            confidence=data["confidence"],
            evidence=data.get("evidence"),
            meta=meta,
        )
    if kind == "document":
        return Document(
            title=data.get("title"),
            body=DocumentBody(**data["body"]),
            mime=data.get("mime"),
            meta=meta,
        )
    if kind == "conversation":
        return Conversation(turns=[_read_turn(turn) for turn in data["turns"]], meta=meta)
    raise InvalidRequest(f"`{kind}` is not an item type")


def _read_turn(data: dict[str, Any]) -> Turn:
    at = data.get("at")
    return Turn(
        role=data["role"],
        text=data["text"],
        at=None if at is None else parse_timestamp(at),
        tool_calls=[ToolCallRef(**call) for call in data.get("tool_calls", ())],
    )


#: Namespaces are few and immutable: each written path is parsed once.
_namespace: Callable[[str], Namespace] = functools.lru_cache(maxsize=1024)(Namespace.parse)


def _read_meta(data: dict[str, Any]) -> MemoryMeta:
    fields = {name: data[name] for name in _LEADING_STRINGS if name in data}
    namespace = data.get("namespace")
    turns = data.get("turns")
    tool_call = data.get("tool_call")
    observed_at = data.get("observed_at")
    return MemoryMeta(
        namespace=Namespace.ROOT if namespace is None else _namespace(namespace),
        turns=None if turns is None else TurnRange(**turns),
        agent_id=data.get("agent_id"),
        tool_call=None if tool_call is None else ToolCallRef(**tool_call),
        source=SourceRef(**data["source"]),
        tags=data.get("tags", ()),
        observed_at=None if observed_at is None else parse_timestamp(observed_at),
        derive=data.get("derive"),
        **fields,
    )
