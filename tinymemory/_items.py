"""The three kinds of stored item, their text form and their identity.

``StoreItem`` is the union :class:`Document` | :class:`Conversation` |
:class:`Learning`. Every item has ``item_kind``, ``meta``,
:meth:`render_text` (what a hit's ``text`` carries) and :meth:`fingerprint`
(its id, the same one the Rust SDK computes).
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import ClassVar, TypeAlias, cast

import attrs

from tinymemory._errors import InvalidRequest
from tinymemory._f32 import display_f32, to_f32
from tinymemory._limits import item_limits
from tinymemory._meta import ItemKind, MemoryMeta, ToolCallRef
from tinymemory._timestamps import optional_utc
from tinymemory._validators import WireEnum, is_blank, optional_str, required_str, utf8_size

#: The most items one ``store_many`` call takes.
MAX_STORE_MANY = 100


class Role(WireEnum):
    """Who spoke a conversation turn."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class LearningKind(WireEnum):
    """What a learning records."""

    PREFERENCE = "preference"
    FACT = "fact"
    PROCEDURE = "procedure"
    CORRECTION = "correction"
    OTHER = "other"


@attrs.frozen
class DocumentBody:
    """A document's content: its ``text``, or a ``uri`` a source must resolve first.

    Exactly one is set. Wherever a body is expected a plain string is taken as
    the text.
    """

    text: str | None = attrs.field(default=None, validator=optional_str)
    uri: str | None = attrs.field(default=None, validator=optional_str)

    def __attrs_post_init__(self) -> None:
        if (self.text is None) == (self.uri is None):
            raise InvalidRequest("a document body holds exactly one of text or uri")

    @property
    def content(self) -> str:
        """The text, or the uri of an unresolved body."""
        return self.text if self.text is not None else str(self.uri)


def _as_body(value: DocumentBody | str) -> DocumentBody:
    return value if isinstance(value, DocumentBody) else DocumentBody(text=value)


def _meta(value: MemoryMeta | None) -> MemoryMeta:
    if value is None:
        return MemoryMeta()
    if not isinstance(value, MemoryMeta):
        raise InvalidRequest("`meta` must be a MemoryMeta")
    return value


def _tool_calls(value: Iterable[ToolCallRef]) -> tuple[ToolCallRef, ...]:
    calls = tuple(value)
    if not all(isinstance(call, ToolCallRef) for call in calls):
        raise InvalidRequest("`tool_calls` must hold ToolCallRef values")
    return calls


@attrs.frozen
class Turn:
    """One turn of a conversation."""

    role: Role = attrs.field(converter=Role)
    text: str = attrs.field(validator=required_str)
    at: datetime | None = attrs.field(default=None, converter=optional_utc)
    tool_calls: tuple[ToolCallRef, ...] = attrs.field(default=(), converter=_tool_calls)

    def render(self) -> str:
        """``role: text``, then `` [tools: name (id), name]`` when it called tools."""
        line = f"{self.role.value}: {self.text}"
        if self.tool_calls:
            calls = ", ".join(
                f"{call.name} ({call.id})" if call.id is not None else call.name
                for call in self.tool_calls
            )
            line += f" [tools: {calls}]"
        return line


def _turns(value: Iterable[Turn]) -> tuple[Turn, ...]:
    turns = tuple(value)
    if not all(isinstance(turn, Turn) for turn in turns):
        raise InvalidRequest("`turns` must hold Turn values")
    return turns


class _ItemBehaviour:
    """What the three item classes share: identity and replacing metadata."""

    meta: MemoryMeta

    def fingerprint(self) -> str:
        """The item's id: SHA-256 of its canonical JSON (``observed_at`` cleared), 40 hex.

        Only ``observed_at`` is cleared, as the spec says; the newest Rust
        also clears ``tool_call.id``, which the spec does not name.
        """
        # _item_json imports this module, so it is imported here rather than at the top.
        from tinymemory._item_json import json_and_id

        return json_and_id(cast(StoreItem, self))[1]

    def with_meta(self, meta: MemoryMeta) -> StoreItem:
        """A copy of the item carrying ``meta`` instead."""
        return cast(StoreItem, attrs.evolve(self, meta=meta))  # type: ignore[misc]


@attrs.frozen(kw_only=True)
class Document(_ItemBehaviour):
    """A document: an optional title, a body and an optional mime type."""

    title: str | None = attrs.field(default=None, validator=optional_str)
    body: DocumentBody = attrs.field(converter=_as_body)
    mime: str | None = attrs.field(default=None, validator=optional_str)
    meta: MemoryMeta = attrs.field(factory=MemoryMeta, converter=_meta)

    item_kind: ClassVar[ItemKind] = ItemKind.DOCUMENT

    def render_text(self) -> str:
        """``# title``, a blank line and the body; the body alone without a title.

        A body that opens with its title already (a markdown heading, ATX or
        underlined, an HTML heading, or a first line saying just the title,
        in any case and spacing) is the body alone: the title is never shown
        twice.
        """
        title = self.title
        if title is None or not title.strip():
            return self.body.content
        opening = opening_line(self.body.content)
        if opening is not None and _said(opening) == _said(title):
            return self.body.content
        return f"# {title}\n\n{self.body.content}"

    def validate(self) -> None:
        """Refuse a blank or unresolved body with ``InvalidRequest``."""
        if self.body.uri is not None:
            raise InvalidRequest(
                "document body is an unresolved uri; resolve it through a source first"
            )
        if is_blank(str(self.body.text)):
            raise InvalidRequest("document body must not be empty")


_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HTML_HEADING = re.compile(r"^\s*<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.I | re.S)
_TAGS = re.compile(r"<[^>]+>")


def opening_line(body: str) -> str | None:
    """What a body opens with as its heading: an ATX or underlined heading's text, an
    HTML heading's, else its first non-blank line; None for a blank body."""
    html = _HTML_HEADING.match(body)
    if html is not None:
        return _TAGS.sub("", html.group(2))
    lines = body.lstrip("\r\n").splitlines()
    if not lines:
        return None
    atx = _ATX.match(lines[0])
    if atx is not None:
        return atx.group(1) or ""
    return lines[0]


def _said(line: str) -> str:
    """A heading as said: markup emphasis off, spaces folded, case folded."""
    return " ".join(line.strip().strip("*_`").split()).casefold()


@attrs.frozen(kw_only=True)
class Conversation(_ItemBehaviour):
    """A conversation: its turns in order."""

    turns: tuple[Turn, ...] = attrs.field(converter=_turns)
    meta: MemoryMeta = attrs.field(factory=MemoryMeta, converter=_meta)

    item_kind: ClassVar[ItemKind] = ItemKind.CONVERSATION

    def render_text(self) -> str:
        """One ``role: text`` line per turn."""
        return "\n".join(turn.render() for turn in self.turns)

    def validate(self) -> None:
        """Refuse no turns, or a blank turn, with ``InvalidRequest``."""
        if not self.turns:
            raise InvalidRequest("conversation must have at least one turn")
        if any(is_blank(turn.text) for turn in self.turns):
            raise InvalidRequest("conversation turns must not be empty")


def _confidence(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidRequest("`confidence` must be a number")
    return to_f32(value)


@attrs.frozen(kw_only=True)
class Learning(_ItemBehaviour):
    """Something learned: a statement, what kind it is and how sure (0 to 1) it is.

    ``confidence`` is single precision, as in the original: ``0.8`` stays
    ``0.8`` and ``0.123456789`` becomes ``0.12345679``.
    """

    text: str = attrs.field(validator=required_str)
    kind: LearningKind = attrs.field(default=LearningKind.FACT, converter=LearningKind)
    confidence: float = attrs.field(default=0.8, converter=_confidence)
    evidence: str | None = attrs.field(default=None, validator=optional_str)
    meta: MemoryMeta = attrs.field(factory=MemoryMeta, converter=_meta)

    item_kind: ClassVar[ItemKind] = ItemKind.LEARNING

    def render_text(self) -> str:
        """The statement itself."""
        return self.text

    def validate(self) -> None:
        """Refuse blank text or a confidence outside 0..=1 (NaN too)."""
        if is_blank(self.text):
            raise InvalidRequest("learning text must not be empty")
        if math.isnan(self.confidence) or not 0.0 <= self.confidence <= 1.0:
            raise InvalidRequest(
                f"learning confidence {display_f32(self.confidence)} is outside 0.0..=1.0"
            )


StoreItem: TypeAlias = Document | Conversation | Learning
#: The item classes, for ``isinstance`` checks.
STORE_ITEM_TYPES = (Document, Conversation, Learning)


#: The meta fields holding free strings, which count towards an item's size,
#: with the name an error gives each.
_META_STRINGS = tuple(
    (name, f"meta.{name}")
    for name in (
        "workspace",
        "folder",
        "file_path",
        "language",
        "repo",
        "commit",
        "url",
        "thread_id",
        "agent_id",
    )
)
#: Those fields' values in one call.
_meta_strings = operator.attrgetter(*(name for name, _ in _META_STRINGS))


def _strings(item: StoreItem) -> Iterator[tuple[str, str | None]]:
    """Every free string of ``item`` (None where an optional one is unset), with its field."""
    if isinstance(item, Document):
        yield from (("title", item.title), ("body", item.body.content), ("mime", item.mime))
    elif isinstance(item, Conversation):
        for turn in item.turns:
            yield "turns.text", turn.text
            for call in turn.tool_calls:
                yield from (("turns.tool_calls", call.name), ("turns.tool_calls", call.id))
    else:
        yield from (("text", item.text), ("evidence", item.evidence))
    meta = item.meta
    for name, field in _META_STRINGS:
        yield field, getattr(meta, name)
    yield "meta.source.id", meta.source.id
    if meta.tool_call is not None:
        yield from (("meta.tool_call", meta.tool_call.name), ("meta.tool_call", meta.tool_call.id))
    for tag in meta.tags:
        yield "meta.tags", tag


def _string_values(item: StoreItem) -> list[str]:
    """The set strings of :func:`_strings`, without their fields, read in a few calls."""
    meta = item.meta
    values: list[str | None]
    if isinstance(item, Document):
        values = [item.title, item.body.content, item.mime]
    elif isinstance(item, Conversation):
        values = [value for _, value in _strings(item)]
        return list(filter(None, values))
    else:
        values = [item.text, item.evidence]
    values += _meta_strings(meta)
    values.append(meta.source.id)
    if meta.tool_call is not None:
        values += (meta.tool_call.name, meta.tool_call.id)
    values += meta.tags
    return list(filter(None, values))


def item_size(item: StoreItem) -> int:
    """The UTF-8 bytes of every string ``item`` holds: what ``max_item_bytes`` caps.

    A scrubber that changes texts can check with it that its result still fits.
    """
    return sum(utf8_size(text, field) for field, text in _strings(item) if text)


def _check_caps(item: StoreItem) -> None:
    """Refuse an item over the caps in force, or holding a string that is not unicode text."""
    limits = item_limits()
    if len(item.meta.tags) > limits.max_tags:
        raise InvalidRequest(f"an item holds at most {limits.max_tags} tags")
    if isinstance(item, Conversation) and len(item.turns) > limits.max_turns:
        raise InvalidRequest(f"a conversation holds at most {limits.max_turns} turns")
    values = _string_values(item)
    # ASCII only: each character is a byte, and no string can hold a lone surrogate.
    if all(map(str.isascii, values)) and sum(map(len, values)) <= limits.max_item_bytes:
        return
    size = 0
    for field, text in _strings(item):
        if not text:  # unset or empty: nothing to count or check
            continue
        size += utf8_size(text, field)
        if size > limits.max_item_bytes:
            raise InvalidRequest(
                f"an item's text is at most {limits.max_item_bytes} bytes of utf-8"
            )


def validate_item(item: object) -> StoreItem:
    """Check that ``item`` is a valid StoreItem within the caps; ``InvalidRequest`` otherwise."""
    if not isinstance(item, STORE_ITEM_TYPES):
        raise InvalidRequest(
            f"a stored item is a Document, Conversation or Learning, not {type(item).__name__}"
        )
    _check_caps(item)
    item.validate()
    return item


def validate_many(items: Iterable[object]) -> list[StoreItem]:
    """Check a ``store_many`` batch: 1 to ``MAX_STORE_MANY`` valid items.

    Any iterable is taken (a generator too): it is read once, and no further
    than one item past the cap.
    """
    if not isinstance(items, Iterable):
        raise InvalidRequest(
            f"store_many takes a list or other iterable of items, not {type(items).__name__}"
        )
    batch = (
        [] if isinstance(items, (str, bytes)) else list(itertools.islice(items, MAX_STORE_MANY + 1))
    )
    if not 1 <= len(batch) <= MAX_STORE_MANY:
        raise InvalidRequest(f"store_many takes between 1 and {MAX_STORE_MANY} items")
    return [validate_item(item) for item in batch]


@attrs.frozen
class StoreReceipt:
    """What a store answers: the item's id, and whether it was already stored."""

    id: str
    replayed: bool

    def _repr_markdown_(self) -> str:
        from tinymemory._display import receipt_markdown

        return receipt_markdown(self)

    def _repr_html_(self) -> str:
        from tinymemory._display import receipt_html

        return receipt_html(self)
