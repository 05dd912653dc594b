"""A LangGraph namespace tuple as a TinyMemory namespace node, and back.

Each label becomes one ``ws:`` segment below the store's base node, in
order: ``("users", "ada", "memories")`` under ``team:acme`` is the node
``team:acme/ws:users/ws:ada/ws:memories``. A segment id holds only ``A-Z``,
``a-z``, ``0-9``, ``_`` and ``-``, so a label is written with ``_`` as an
escape: every other character becomes ``_`` and the two lowercase hex digits
of each of its UTF-8 bytes (``_`` itself is ``_5f``, ``a_%`` is ``a_5f_25``,
``é`` is ``_c3_a9``). The escape is one-to-one, so the node reads back as the
very labels it came from.

Refused with LangGraph's ``InvalidNamespaceError``, before any engine work: a
label that is not a string, is empty or holds a ``.`` (LangGraph's own
rules), a label whose escaped form is over 128 characters, and a tuple that
would nest the node deeper than ``tinymemory.MAX_DEPTH`` (8) counting the
base node's segments.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langgraph.store.base import InvalidNamespaceError

import tinymemory as tm

#: The segment kind every label becomes.
LABEL_KIND = tm.SegmentKind.WORKSPACE
#: The longest segment id a namespace holds.
MAX_ID = 128
_PLAIN = re.compile(r"[A-Za-z0-9-]")
_ESCAPED = re.compile(r"((?:_[0-9a-f]{2})+)|([A-Za-z0-9-]+)")


def encode_label(label: object) -> str:
    """The segment id of one label; ``InvalidNamespaceError`` when the label can't be one."""
    if not isinstance(label, str) or not label:
        raise InvalidNamespaceError(f"a namespace label must be a non-empty string, not {label!r}")
    if "." in label:
        raise InvalidNamespaceError(f"a namespace label must not hold `.`: {label!r}")
    try:
        written = "".join(
            char if _PLAIN.fullmatch(char) else "".join(f"_{byte:02x}" for byte in char.encode())
            for char in label
        )
    except UnicodeEncodeError as error:
        raise InvalidNamespaceError(f"a namespace label must be unicode text: {label!r}") from error
    if len(written) > MAX_ID:
        raise InvalidNamespaceError(
            f"namespace label {label!r} is {len(written)} characters once escaped; "
            f"a TinyMemory segment holds at most {MAX_ID}"
        )
    return written


def decode_label(written: str) -> str | None:
    """The label a segment id was written from, or None when no label writes it."""
    parts = []
    position = 0
    for found in _ESCAPED.finditer(written):
        if found.start() != position:
            return None
        escaped, plain = found.groups()
        if escaped is None:
            parts.append(plain)
        else:
            try:
                parts.append(bytes.fromhex(escaped.replace("_", "")).decode())
            except UnicodeDecodeError:
                return None
        position = found.end()
    label = "".join(parts)
    if position != len(written) or not label or _encoded_or_none(label) != written:
        return None
    return label


def _encoded_or_none(label: str) -> str | None:
    """:func:`encode_label`, None instead of an error."""
    try:
        return encode_label(label)
    except InvalidNamespaceError:
        return None


def node_of(base: tm.Namespace, labels: Sequence[object]) -> tm.Namespace:
    """The node a namespace tuple names below ``base``."""
    if not isinstance(labels, tuple):
        raise InvalidNamespaceError(f"a namespace is a tuple of strings, not {labels!r}")
    if base.depth + len(labels) > tm.MAX_DEPTH:
        raise InvalidNamespaceError(
            f"namespace {labels!r} has {len(labels)} labels; below `{base}` a TinyMemory "
            f"node holds at most {tm.MAX_DEPTH - base.depth}"
        )
    segments = [tm.Segment(LABEL_KIND, encode_label(label)) for label in labels]
    return tm.Namespace((*base.segments, *segments))


def labels_of(base: tm.Namespace, node: tm.Namespace) -> tuple[str, ...] | None:
    """The namespace tuple of a node below ``base``; None for a node no tuple names."""
    if not node.is_within(base):
        return None
    labels = []
    for segment in node.segments[base.depth :]:
        label = decode_label(segment.id) if segment.kind is LABEL_KIND else None
        if label is None:
            return None
        labels.append(label)
    return tuple(labels)
