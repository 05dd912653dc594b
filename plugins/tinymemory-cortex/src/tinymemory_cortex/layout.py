"""Where items live in CortexDB: one scope per item kind per namespace node.

The legacy layout (the default) keeps everything under ``app:tinymemory``:
``app:tinymemory/team:ops/agent:pager/app:learnings``. Given a scope root
(such as ``org:42``), layout v3 lays memory out below it instead, with a
leaf per kind and the grouping nodes ``app:brain`` (a document at a
``source:`` node) and ``app:flows`` (before a ``service:`` segment). A
listed path is read back by parsing it and accepting it only when it
renders back the same, so somebody else's scope is never taken for ours.
"""

from __future__ import annotations

import re

import attrs

from tinymemory import ConfigError, InvalidRequest, ItemKind, Namespace

LEGACY_ROOT = "app:tinymemory"
_LEAVES = {
    ItemKind.DOCUMENT: "app:documents",
    ItemKind.CONVERSATION: "app:conversations",
    ItemKind.LEARNING: "app:learnings",
}
_KIND_OF_LEAF = {leaf: kind for kind, leaf in _LEAVES.items()}
BRAIN = "app:brain"
FLOWS = "app:flows"
#: The types a v3 root may be made of.
_ROOT_TYPES = ("org", "dept", "team", "app", "user", "agent", "service", "ws", "project", "source")
_ROOT_SEGMENT = re.compile(r"([a-z]+):([A-Za-z0-9_-]+)", re.ASCII)
#: Kinds in the order scopes are read.
KIND_ORDER = (ItemKind.DOCUMENT, ItemKind.CONVERSATION, ItemKind.LEARNING)


@attrs.frozen(order=True)
class Scope:
    """One kind scope: its CortexDB path, the item kind and the namespace node it holds."""

    kind_rank: int
    namespace: Namespace
    path: str = attrs.field(order=False)
    kind: ItemKind = attrs.field(order=False)

    @property
    def depth(self) -> int:
        """How many segments the path has (erasures go deepest first)."""
        return self.path.count("/") + 1


def _check_root(root: str) -> str:
    root = root.strip().strip("/")
    segments = root.split("/") if root else []
    if not segments:
        raise ConfigError("`scope_root` must not be blank")
    for segment in segments:
        match = _ROOT_SEGMENT.fullmatch(segment)
        if match is None or match.group(1) not in _ROOT_TYPES:
            raise ConfigError(
                f"`scope_root` segment `{segment}` must be type:id with a type among "
                f"{', '.join(_ROOT_TYPES)} and an id of A-Z, a-z, 0-9, `_` or `-`"
            )
        if segment == LEGACY_ROOT:
            raise ConfigError("`scope_root` must not hold app:tinymemory (the legacy layout root)")
    return root


class Layout:
    """The scope paths of one engine: legacy (``root is None``) or v3 below ``root``."""

    def __init__(self, root: str | None = None) -> None:
        self.root = None if root is None else _check_root(root)
        self.base = LEGACY_ROOT if self.root is None else self.root

    @property
    def v3(self) -> bool:
        return self.root is not None

    def check_node(self, namespace: Namespace) -> None:
        """Refuse a node repeating the v3 root's own segments (``InvalidRequest``)."""
        if self.root is None:
            return
        written = str(namespace)
        if written == self.root or written.startswith(self.root + "/"):
            raise InvalidRequest(f"namespace `{written}` repeats the scope root `{self.root}`")

    def scope(self, kind: ItemKind, namespace: Namespace) -> Scope:
        """The scope holding items of ``kind`` at ``namespace``."""
        segments = [str(segment) for segment in namespace.segments]
        rank = KIND_ORDER.index(kind)
        if self.root is None:
            return Scope(rank, namespace, "/".join([LEGACY_ROOT, *segments, _LEAVES[kind]]), kind)
        segments = _insert_before(segments, "service:", FLOWS)
        if kind is ItemKind.DOCUMENT and any(part.startswith("source:") for part in segments):
            segments = _insert_before(segments, "source:", BRAIN)
        else:
            segments.append(_LEAVES[kind])
        return Scope(rank, namespace, "/".join([self.root, *segments]), kind)

    def discovery_prefixes(self, namespace: Namespace) -> list[str]:
        """The scope-listing prefixes that find every scope at or below ``namespace``."""
        segments = [str(segment) for segment in namespace.segments]
        if self.root is None:
            return ["/".join([LEGACY_ROOT, *segments])]
        with_flows = _insert_before(segments, "service:", FLOWS)
        prefixes = ["/".join([self.root, *with_flows])]
        if any(part.startswith("source:") for part in with_flows):
            prefixes.append("/".join([self.root, *_insert_before(with_flows, "source:", BRAIN)]))
        return prefixes

    def parse(self, path: str) -> Scope | None:
        """The kind scope a listed path is, or None when it is not one of this layout's."""
        parts = path.split("/")
        base = self.base.split("/")
        if self.root is None:
            if LEGACY_ROOT not in parts:
                return None
            parts = parts[parts.index(LEGACY_ROOT) + 1 :]
        else:
            if parts[: len(base)] != base:
                return None
            parts = parts[len(base) :]
        if not parts:
            return None
        kind = _KIND_OF_LEAF.get(parts[-1])
        if kind is not None:
            node = parts[:-1]
        elif self.root is not None and BRAIN in parts:
            kind, node = ItemKind.DOCUMENT, parts
        else:
            return None
        if self.root is not None:
            node = [part for part in node if part not in (BRAIN, FLOWS)]
        try:
            namespace = Namespace.parse("/".join(node))
        except InvalidRequest:
            return None
        scope = self.scope(kind, namespace)
        if self.root is None:
            # The hosted backend may put a tenant prefix before the legacy root.
            return scope if path == scope.path or path.endswith("/" + scope.path) else None
        return scope if scope.path == path else None


def _insert_before(segments: list[str], prefix: str, grouping: str) -> list[str]:
    for index, part in enumerate(segments):
        if part.startswith(prefix):
            return [*segments[:index], grouping, *segments[index:]]
    return list(segments)


def below(prefix: str, path: str) -> bool:
    """Whether ``path`` is ``prefix`` or below it on whole segments."""
    return path == prefix or path.startswith(prefix + "/") or f"/{prefix}/" in f"/{path}/"
