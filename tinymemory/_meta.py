"""Typed metadata carried by every item, and the filter that matches it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import attrs

from tinymemory._errors import InvalidRequest
from tinymemory._limits import MAX_FILTER_TAGS, MAX_FILTER_VALUE_BYTES, MAX_KINDS, MAX_SOURCES
from tinymemory._namespace import Namespace, Reach, as_namespace
from tinymemory._timestamps import optional_utc
from tinymemory._validators import (
    WireEnum,
    capped_strings,
    instance_of,
    optional_bool,
    optional_capped_text,
    optional_str,
    required_str,
    str_tuple,
    to_enum_tuple,
    u32,
)


class ItemKind(WireEnum):
    """The three kinds of stored item."""

    DOCUMENT = "document"
    CONVERSATION = "conversation"
    LEARNING = "learning"


class SourceKind(WireEnum):
    """Where an item came from."""

    FOLDER = "folder"
    FILE = "file"
    LINK = "link"
    GITHUB = "github"
    RSS = "rss"
    CONVERSATION = "conversation"
    AGENT = "agent"
    IMPORT = "import"


def item_kinds(values: Iterable[ItemKind | str]) -> tuple[ItemKind, ...]:
    """Item kinds or their wire values as a tuple of kinds, at most 64 (attrs converter)."""
    return to_enum_tuple(ItemKind, values, cap=("kinds", MAX_KINDS, "cap-kinds"))


def _source_kinds(values: Iterable[SourceKind | str]) -> tuple[SourceKind, ...]:
    return to_enum_tuple(SourceKind, values, cap=("sources", MAX_SOURCES, "cap-sources"))


@attrs.frozen
class SourceRef:
    """The source of an item: its kind and, optionally, the source's own id."""

    kind: SourceKind = attrs.field(default=SourceKind.AGENT, converter=SourceKind)
    id: str | None = attrs.field(default=None, validator=optional_str)


@attrs.frozen
class TurnRange:
    """Which turns of a thread an item covers: zero-based, both ends included."""

    first: int = attrs.field(validator=u32)
    last: int = attrs.field(validator=u32)


@attrs.frozen
class ToolCallRef:
    """A tool call: the tool's name and, optionally, the call's id."""

    name: str = attrs.field(validator=required_str)
    id: str | None = attrs.field(default=None, validator=optional_str)


def _opt_str() -> str | None:
    return attrs.field(default=None, validator=optional_str)  # type: ignore[no-any-return]


def _filter_str() -> str | None:
    # A filter's strings reach an engine's query as they are, so they must be unicode text.
    return attrs.field(  # type: ignore[no-any-return]
        default=None,
        validator=optional_capped_text(MAX_FILTER_VALUE_BYTES, "cap-filter-value-length"),
    )


def _tags_any(values: Iterable[str]) -> tuple[str, ...]:
    return capped_strings(
        values,
        "tags_any",
        MAX_FILTER_TAGS,
        "cap-tags-any",
        entry_bytes=MAX_FILTER_VALUE_BYTES,
        entry_rule="cap-filter-value-length",
    )


@attrs.frozen(kw_only=True)
class MemoryMeta:
    """Typed metadata of an item.

    Fields are in the original's wire order, which item fingerprints depend
    on. ``namespace`` places the item in the memory tree (the root when
    unset); ``derive=False`` asks an engine to index the item without deriving
    anything from it. ``observed_at`` (when it was seen) is not part of the
    item's identity.
    """

    namespace: Namespace = attrs.field(default=Namespace.ROOT, converter=as_namespace)
    workspace: str | None = _opt_str()
    folder: str | None = _opt_str()
    file_path: str | None = _opt_str()
    language: str | None = _opt_str()
    repo: str | None = _opt_str()
    commit: str | None = _opt_str()
    url: str | None = _opt_str()
    thread_id: str | None = _opt_str()
    turns: TurnRange | None = attrs.field(
        default=None, validator=instance_of(TurnRange, optional=True)
    )
    agent_id: str | None = _opt_str()
    tool_call: ToolCallRef | None = attrs.field(
        default=None, validator=instance_of(ToolCallRef, optional=True)
    )
    source: SourceRef = attrs.field(
        factory=SourceRef, validator=instance_of(SourceRef, optional=False)
    )
    tags: tuple[str, ...] = attrs.field(default=(), converter=str_tuple)
    observed_at: datetime | None = attrs.field(default=None, converter=optional_utc)
    derive: bool | None = attrs.field(default=None, validator=optional_bool)


def _path_matches(wanted: str, value: str | None) -> bool:
    """Equal, or a path prefix ending on a ``/`` boundary; a trailing ``/`` is ignored."""
    if value is None:
        return False
    prefix = wanted.rstrip("/") or wanted
    if value in (prefix, wanted):
        return True
    return value.startswith(prefix if prefix.endswith("/") else prefix + "/")


@attrs.frozen(kw_only=True)
class MetaFilter:
    """Which items a read admits. Every field set must match; an empty filter matches all.

    String fields match exactly, except ``folder`` and ``file_path``, which
    also match as a path prefix on a ``/`` boundary. ``tool_call`` matches the
    tool's name. The window is ``observed_after <= observed_at <
    observed_before``. ``reach`` confines the read to namespace nodes; without
    one, every node but a ``service:`` sandbox is read.
    """

    reach: Reach | None = attrs.field(default=None, validator=instance_of(Reach, optional=True))
    kinds: tuple[ItemKind, ...] = attrs.field(default=(), converter=item_kinds)
    sources: tuple[SourceKind, ...] = attrs.field(default=(), converter=_source_kinds)
    workspace: str | None = _filter_str()
    folder: str | None = _filter_str()
    file_path: str | None = _filter_str()
    language: str | None = _filter_str()
    repo: str | None = _filter_str()
    commit: str | None = _filter_str()
    url: str | None = _filter_str()
    thread_id: str | None = _filter_str()
    turns: TurnRange | None = attrs.field(
        default=None, validator=instance_of(TurnRange, optional=True)
    )
    agent_id: str | None = _filter_str()
    tool_call: str | None = _filter_str()
    source_id: str | None = _filter_str()
    tags_any: tuple[str, ...] = attrs.field(default=(), converter=_tags_any)
    observed_after: datetime | None = attrs.field(default=None, converter=optional_utc)
    observed_before: datetime | None = attrs.field(default=None, converter=optional_utc)

    def is_empty(self) -> bool:
        """Whether no field is set. A filter holding only a reach is not empty."""
        return self == _EMPTY_FILTER

    def matches(self, kind: ItemKind, meta: MemoryMeta) -> bool:
        """Whether an item of ``kind`` with ``meta`` passes every set field."""
        if not Reach.admitted_by(self.reach, meta.namespace):
            return False
        if self.kinds and kind not in self.kinds:
            return False
        if self.sources and meta.source.kind not in self.sources:
            return False
        exact = (
            (self.workspace, meta.workspace),
            (self.language, meta.language),
            (self.repo, meta.repo),
            (self.commit, meta.commit),
            (self.url, meta.url),
            (self.thread_id, meta.thread_id),
            (self.turns, meta.turns),
            (self.agent_id, meta.agent_id),
            (self.tool_call, meta.tool_call.name if meta.tool_call else None),
            (self.source_id, meta.source.id),
        )
        if any(wanted is not None and wanted != value for wanted, value in exact):
            return False
        if self.folder is not None and not _path_matches(self.folder, meta.folder):
            return False
        if self.file_path is not None and not _path_matches(self.file_path, meta.file_path):
            return False
        if self.tags_any and not set(self.tags_any).intersection(meta.tags):
            return False
        return self._in_window(meta.observed_at)

    def _in_window(self, observed_at: datetime | None) -> bool:
        if self.observed_after is None and self.observed_before is None:
            return True
        if observed_at is None:
            return False
        if self.observed_after is not None and observed_at < self.observed_after:
            return False
        return self.observed_before is None or observed_at < self.observed_before


_EMPTY_FILTER = MetaFilter()


def as_filter(value: MetaFilter | None) -> MetaFilter:
    """``value``, or the empty filter for ``None``; anything else is refused (a field converter)."""
    if value is None:
        return _EMPTY_FILTER
    if not isinstance(value, MetaFilter):
        raise InvalidRequest("`filter` must be a MetaFilter")
    return value
