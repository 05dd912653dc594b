"""Namespaces: where in the memory tree an item lives, and which nodes a read reaches.

A :class:`Namespace` is a path of typed segments from the root, written
``team:acme/agent:writer`` (the root is written ``root``). A :class:`Reach`
names the nodes a read may see: a node, its ancestors when ``inherit``, and
everything below it when ``descendants``, never entering a ``service:``
sandbox below the node.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import ClassVar

import attrs

from tinymemory._errors import InvalidRequest
from tinymemory._validators import WireEnum, shown

#: How deep a namespace may nest (the root is depth 0).
MAX_DEPTH = 8
#: The longest segment id.
MAX_SEGMENT_ID = 128

_TOO_DEEP = f"a namespace nests at most {MAX_DEPTH} deep"

_ID = re.compile(r"[A-Za-z0-9_-]{1,128}", re.ASCII)
_ID_CHAR = re.compile(r"[A-Za-z0-9_-]", re.ASCII)


class SegmentKind(WireEnum):
    """The kind of a namespace node. The set may grow: always keep a fallback branch."""

    AGENT = "agent"
    TEAM = "team"
    USER = "user"
    WORKSPACE = "workspace"
    PROJECT = "project"
    SOURCE = "source"
    SERVICE = "service"

    @property
    def prefix(self) -> str:
        """The text before ``:`` in a written path (``ws`` for a workspace)."""
        return "ws" if self is SegmentKind.WORKSPACE else self.value

    @classmethod
    def from_prefix(cls, prefix: str) -> SegmentKind:
        """The kind written ``prefix`` in a path; ``InvalidRequest`` when none is."""
        for kind in cls:
            if kind.prefix == prefix:
                return kind
        kinds = ", ".join(kind.prefix for kind in cls)
        raise InvalidRequest(f"`{shown(prefix)}` is not a namespace segment kind (kinds: {kinds})")


def _fnv1a_32(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def _check_id(instance: object, attribute: attrs.Attribute[str], value: str) -> None:
    if not isinstance(value, str) or _ID.fullmatch(value) is None:
        raise InvalidRequest(
            f"namespace id `{shown(value)}` must be 1 to 128 characters of A-Z, a-z, 0-9, "
            "`_` or `-`"
        )


@attrs.frozen(order=True)
class Segment:
    """One node on a namespace path: a kind and an id of ``[A-Za-z0-9_-]{1,128}``."""

    kind: SegmentKind = attrs.field(order=lambda kind: kind.value)
    id: str = attrs.field(validator=_check_id)

    @classmethod
    def sanitized(cls, kind: SegmentKind, raw: str) -> Segment:
        """Map any host id onto the id charset without collisions; never fails.

        A valid id is kept. Otherwise every character outside the charset
        becomes ``-``, the text is cut to 119 characters and ``-`` plus the
        8-hex-digit FNV-1a hash of ``raw`` is appended; ``""`` becomes ``_``.
        The hash is a disambiguator, not a security boundary.
        """
        if _ID.fullmatch(raw):
            return cls(kind, raw)
        if raw == "":
            return cls(kind, "_")
        cleaned = "".join(char if _ID_CHAR.fullmatch(char) else "-" for char in raw)
        digest = _fnv1a_32(raw.encode("utf-8", "surrogatepass"))
        return cls(kind, f"{cleaned[:119]}-{digest:08x}")

    def __str__(self) -> str:
        return f"{self.kind.prefix}:{self.id}"


def _segments(value: Iterable[Segment]) -> tuple[Segment, ...]:
    segments = tuple(value)
    if len(segments) > MAX_DEPTH:
        raise InvalidRequest(_TOO_DEEP)
    for segment in segments:
        if not isinstance(segment, Segment):
            raise InvalidRequest(f"a namespace holds segments, not {type(segment).__name__}")
    return segments


@attrs.frozen(order=True, repr=False)
class Namespace:
    """A node of the memory tree: the segments from the root down to it."""

    segments: tuple[Segment, ...] = attrs.field(default=(), converter=_segments)

    #: The root, which holds what every agent shares.
    ROOT: ClassVar[Namespace]

    @classmethod
    def parse(cls, text: str) -> Namespace:
        """Read a written path (``team:acme/agent:w``; ``""`` or ``root`` is the root).

        Raises ``InvalidRequest`` naming what is wrong.
        """
        if not isinstance(text, str):
            raise InvalidRequest(f"a namespace is written as a string, not {type(text).__name__}")
        text = text.strip()
        if text in ("", "root"):
            return cls.ROOT
        if text.count("/") >= MAX_DEPTH:  # refused before a huge path is split
            raise InvalidRequest(_TOO_DEEP)
        segments = []
        for part in text.split("/"):
            prefix, colon, ident = part.partition(":")
            if not colon:
                raise InvalidRequest(f"namespace segment `{shown(part)}` must be written kind:id")
            segments.append(Segment(SegmentKind.from_prefix(prefix), ident))
        return cls(segments)

    @classmethod
    def agent(cls, raw: str) -> Namespace:
        """One agent under the root, its id sanitized."""
        return cls((Segment.sanitized(SegmentKind.AGENT, raw),))

    @property
    def depth(self) -> int:
        """How many segments below the root (0 for the root)."""
        return len(self.segments)

    @property
    def is_root(self) -> bool:
        """Whether this is the root."""
        return not self.segments

    def child(self, segment: Segment) -> Namespace:
        """The node one level below; ``InvalidRequest`` past the depth limit."""
        return Namespace((*self.segments, segment))

    def parent(self) -> Namespace | None:
        """The node one level up, or ``None`` for the root."""
        return None if self.is_root else Namespace(self.segments[:-1])

    def ancestors_and_self(self) -> tuple[Namespace, ...]:
        """Every node from the root down to this one, root first."""
        return tuple(Namespace(self.segments[:depth]) for depth in range(self.depth + 1))

    def is_within(self, other: Namespace) -> bool:
        """Whether this node is ``other`` or below it (a segment-wise prefix test)."""
        return self.segments[: other.depth] == other.segments

    def __str__(self) -> str:
        return "/".join(map(str, self.segments)) or "root"

    def __repr__(self) -> str:
        return f"Namespace({str(self)!r})"


Namespace.ROOT = Namespace()


def as_namespace(value: Namespace | str) -> Namespace:
    """Accept a :class:`Namespace` or its written form (attrs converter)."""
    return value if isinstance(value, Namespace) else Namespace.parse(value)


def _in_sandbox_below(at: Namespace, ns: Namespace) -> bool:
    return any(segment.kind is SegmentKind.SERVICE for segment in ns.segments[at.depth :])


@attrs.frozen
class Reach:
    """The nodes a read may see.

    ``at`` itself; its ancestors when ``inherit`` (so an agent reads what its
    team and the root share); everything below it when ``descendants``, except
    a ``service:`` sandbox below ``at``. A sibling is never admitted.
    """

    at: Namespace = attrs.field(default=Namespace.ROOT, converter=as_namespace)
    inherit: bool = True
    descendants: bool = False

    @classmethod
    def of(cls, at: Namespace | str) -> Reach:
        """An agent's ordinary reach: the node and its ancestors."""
        return cls(as_namespace(at), inherit=True, descendants=False)

    @classmethod
    def exact(cls, at: Namespace | str) -> Reach:
        """The node alone."""
        return cls(as_namespace(at), inherit=False, descendants=False)

    @classmethod
    def subtree(cls, at: Namespace | str) -> Reach:
        """The node and everything below it, sandboxes below it excepted."""
        return cls(as_namespace(at), inherit=False, descendants=True)

    def admits(self, ns: Namespace) -> bool:
        """Whether a read with this reach sees items at ``ns``."""
        if ns == self.at:
            return True
        if self.inherit and ns.depth < self.at.depth and self.at.is_within(ns):
            return True
        return (
            self.descendants
            and ns.depth > self.at.depth
            and ns.is_within(self.at)
            and not _in_sandbox_below(self.at, ns)
        )

    @staticmethod
    def admitted_by(reach: Reach | None, ns: Namespace) -> bool:
        """``reach.admits(ns)``, where no reach reads as ``subtree(root)``."""
        return (reach or _UNSCOPED).admits(ns)

    def nodes(self) -> tuple[Namespace, ...]:
        """The nodes read exactly, root first: ``at`` and, with ``inherit``, its ancestors."""
        return self.at.ancestors_and_self() if self.inherit else (self.at,)

    def within(self, outer: Reach) -> bool:
        """Whether every node this reach admits, ``outer`` admits too.

        A host accepts a caller's reach only when it is within the one it allows.
        """
        if not outer.admits(self.at):
            return False
        if self.inherit and not all(outer.admits(node) for node in self.at.ancestors_and_self()):
            return False
        if self.descendants and self.at.depth < MAX_DEPTH:
            return outer.descendants and self.at.is_within(outer.at)
        return True

    def __str__(self) -> str:
        if self.inherit and not self.descendants:
            return f"of({self.at})"
        if not self.inherit and not self.descendants:
            return f"exact({self.at})"
        if not self.inherit:
            return f"subtree({self.at})"
        return f"of+subtree({self.at})"


_UNSCOPED = Reach.subtree(Namespace.ROOT)
