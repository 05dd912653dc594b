"""The plugin hooks (pluggy project ``tinymemory``) and what plugins hand back.

A plugin is a module or object with functions marked ``@hookimpl``, found
through the entry-point group ``tinymemory``::

    [options.entry_points]
    tinymemory =
        myengine = myengine.plugin

Each collection hook returns a list, so one plugin can add several things.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import attrs
import pluggy

from tinymemory._engine import EngineDescriptor, MemoryEngine
from tinymemory._items import Document, StoreItem
from tinymemory._operations import Hit, RecallAnswer, RecallRequest
from tinymemory._settings import EngineCredential, EngineSettings

if TYPE_CHECKING:
    import click

#: The pluggy project name and entry-point group.
PROJECT = "tinymemory"

hookspec = pluggy.HookspecMarker(PROJECT)
#: Mark a plugin's hook functions with this.
hookimpl = pluggy.HookimplMarker(PROJECT)


@attrs.frozen(kw_only=True)
class EngineFactory:
    """An engine a plugin offers: its descriptor and how to build it.

    ``build(settings, credential)`` is called by the registry after it has
    checked the endpoint and credential the descriptor asks for.
    ``test_settings(folder)``, when given, returns settings for a throwaway
    engine that keeps everything in ``folder`` (an empty folder the caller
    removes afterwards): the conformance suite uses them when it is given no
    settings, so it never writes to a user's memory. ``storage(settings)``,
    when given, names the files the engine keeps its memory in for these
    settings, worked out without creating anything (none for a memory kept
    in the process): while none of them exists the memory holds nothing, and
    the command line's reads answer from a throwaway engine
    (``test_settings``) instead of creating them.
    """

    descriptor: EngineDescriptor
    build: Callable[[EngineSettings, EngineCredential], MemoryEngine]
    test_settings: Callable[[Path], EngineSettings] | None = None
    storage: Callable[[EngineSettings], Sequence[Path]] | None = None


@runtime_checkable
class DocumentConverter(Protocol):
    """Turns raw bytes of some format into a Document (markdown text).

    Converters are asked in a declared order: by an optional ``priority``
    attribute (an int, lower first, default 0), ties by ``name``; the first
    whose ``sniff`` claims the data converts it.
    """

    name: str

    def sniff(self, data: bytes, name: str | None, mime: str | None) -> bool:
        """Whether this converter claims the data (``mime`` as the caller declared it, or None)."""
        ...

    def convert(self, data: bytes, name: str | None, mime: str | None) -> Document:
        """The document; ``InvalidRequest`` for data it cannot read."""
        ...


@attrs.frozen(kw_only=True)
class HttpResponse:
    """What a :class:`Fetcher` got back: the final url, the status, headers and body."""

    url: str
    status: int
    headers: Mapping[str, str] = attrs.field(factory=dict)
    body: bytes = b""


@runtime_checkable
class Fetcher(Protocol):
    """A blocking HTTP GET a reader is handed, so the host decides what may be fetched.

    A guard against requests to private addresses lives here, not in each
    reader; a test passes a fetcher that answers from a table.
    """

    def __call__(self, url: str, *, headers: Mapping[str, str] | None = None) -> HttpResponse:
        """The response to ``GET url``; ``Unavailable`` when it cannot be reached."""
        ...


@attrs.frozen(kw_only=True)
class ReaderContext:
    """What a reader is given: its ``options``, a ``credential`` and the ``fetcher`` to use."""

    options: Mapping[str, Any] = attrs.field(factory=dict)
    credential: EngineCredential = attrs.field(factory=EngineCredential.none)
    fetcher: Fetcher


@attrs.frozen(kw_only=True)
class SourceSkip:
    """What a reader yields, in place of an item, for a part of its source it left out.

    ``what`` names the part (a file's path, an entry's link) and ``reason``
    says why (too large, a format no converter reads, ...). :func:`~tinymemory.sync`
    lists it among the report's skipped, so nothing is dropped unseen.
    """

    what: str
    reason: str


#: The kinds of value a reader's option takes on the command line.
OPTION_KINDS = ("text", "integer", "flag")


@attrs.frozen(kw_only=True)
class ReaderOption:
    """An option a reader takes, as ``tinymemory ingest`` offers it: ``--name VALUE``.

    ``name`` is its key in :attr:`ReaderContext.options` (the flag writes
    ``_`` as ``-``); ``kind`` is ``text``, ``integer`` or ``flag`` (true or
    false, ``--name/--no-name``); ``help`` is one line. A ``secret`` option's
    value is never shown (no default in ``--help``, never echoed); ``variable``
    names an environment variable its value is read from when not given.
    """

    name: str = attrs.field(validator=attrs.validators.matches_re(r"[a-z][a-z0-9_]*"))
    help: str
    kind: str = attrs.field(default="text", validator=attrs.validators.in_(OPTION_KINDS))
    secret: bool = False
    variable: str | None = None


@runtime_checkable
class SourceReader(Protocol):
    """Reads items from one kind of source (a folder, a feed, ...), chosen by its ``name``.

    What ``tinymemory ingest`` needs to offer a reader is the reader's own to
    declare, with attributes it may leave out:

    - ``source_option``: the option the command's ``PATH_OR_URL`` fills
      (default ``path``);
    - ``options``: a sequence of :class:`ReaderOption`, each a ``--name`` of
      the command;
    - ``claims(source) -> bool``: whether the reader reads ``source`` when no
      ``--reader`` is named (a folder, a GitHub url); readers are asked by an
      optional ``priority`` (an int, lower first, default 0), ties by name;
    - ``credential_variable``: the environment variable its credential (a
      token, handed over as :attr:`ReaderContext.credential`) is read from;
    - ``count(context) -> int | None``: how many entries ``read`` will yield,
      from a cheap look that reads no content (a folder's walk), so a command
      shows a total before it starts (:func:`tinymemory.count_entries`).
    """

    name: str

    def read(self, context: ReaderContext) -> Iterator[StoreItem | SourceSkip]:
        """Yield the source's items, ready to store, and a :class:`SourceSkip` per part left out."""
        ...


@runtime_checkable
class Scrubber(Protocol):
    """Removes secrets or personal data from an item before it is stored.

    Scrubbers run in a declared order: by an optional ``priority`` attribute
    (an int, lower first, default 0), ties by ``name``. One may also have
    ``scrub_many(items) -> list[StoreItem]``, the batch of a ``store_many``
    at once, each item as ``scrub`` would give it; an item returned unchanged
    is best returned as the same object (it is then not checked again).
    """

    name: str

    def scrub(self, item: StoreItem) -> StoreItem:
        """The item with what must not be stored removed; never fails."""
        ...


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of a fixed size, for engines with vector search.

    An embedder may also have ``identity``, a string naming what makes its
    vectors (say ``model2vec:<model>:256``): a memory records it with the
    vectors and refuses an embedder of another identity. Without one it is
    identified by ``name:dimensions`` (:func:`~tinymemory.plugin.embedder_identity`).
    Reading ``dimensions`` or ``identity`` should not load a model when it can
    be helped; ``embed`` loads it on first use.
    """

    name: str

    @property
    def dimensions(self) -> int:
        """The size of every vector (an attribute or a property)."""
        ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector of ``dimensions`` floats per text, in order."""
        ...


@runtime_checkable
class Answerer(Protocol):
    """Writes a recall answer from the passages an engine found (for engines without their own).

    ``hits`` are the relevant items, best first (at most ``request.limit``);
    the answer's citations must be drawn from them. An answerer that calls a
    model falls back rather than fail when the model gives nothing usable,
    and says so in the answer's ``model``.
    """

    name: str

    def answer(self, request: RecallRequest, hits: Sequence[Hit]) -> RecallAnswer:
        """The answer to ``request.question`` from ``hits``, citing only them."""
        ...


@attrs.frozen(kw_only=True)
class ReindexReport:
    """What a reindex did: the ``embedder``'s identity now recorded, the ``items`` it
    re-embedded in this run, those an ``earlier`` interrupted run had done, and the ``total``."""

    embedder: str
    items: int
    earlier: int
    total: int


@runtime_checkable
class Reindexer(Protocol):
    """An engine that can re-embed its whole memory with another embedder (``tinymemory reindex``).

    ``reindex`` embeds every item's pieces with ``embedder`` in batches of
    about ``batch_size`` pieces, each committed as it goes, calling
    ``progress(done, total)`` (items) after each; then it records ``embedder``
    as the memory's and uses it from then on. Interrupted (an exception, even
    one raised by ``progress``, or the process killed), nothing is lost and a
    later call with the same embedder continues where it stopped. Reads keep
    working meanwhile, on the vectors of the embedder still recorded.
    """

    def reindex(
        self,
        embedder: Embedder,
        *,
        batch_size: int = 256,
        progress: Callable[[int, int], None] | None = None,
    ) -> ReindexReport:
        """Re-embed the memory with ``embedder``; what it did."""
        ...


class HookSpecs:
    """The hooks a plugin may implement."""

    @hookspec
    def tinymemory_engines(self) -> list[EngineFactory]:  # type: ignore[empty-body]
        """Engines this plugin offers; ``list_engines``/``build_engine`` see them."""

    @hookspec
    def tinymemory_document_converters(self) -> list[DocumentConverter]:  # type: ignore[empty-body]
        """Converters from raw files to documents."""

    @hookspec
    def tinymemory_source_readers(self) -> list[SourceReader]:  # type: ignore[empty-body]
        """Readers that turn a source into items, each with a name of its own."""

    @hookspec
    def tinymemory_http_fetcher(self) -> Fetcher | None:
        """The fetcher ``read`` hands readers when its caller passes none, or ``None``.

        At most one installed plugin may offer one (two is ``ConfigError``
        naming both): it decides what every reader may fetch, so it is never
        chosen silently. A caller's ``read(..., fetcher=...)`` still wins.
        """

    @hookspec
    def tinymemory_scrubbers(self) -> list[Scrubber]:  # type: ignore[empty-body]
        """Scrubbers run, in declared order, on every item a ``build_engine`` engine stores."""

    @hookspec
    def tinymemory_embedders(self) -> list[Embedder]:  # type: ignore[empty-body]
        """Named text embedders engines with vector search may choose by name."""

    @hookspec
    def tinymemory_default_embedder(self) -> str | None:
        """The name of the embedder an engine uses when its settings name none, or ``None``.

        At most one installed plugin may name one (two is ``ConfigError``
        naming both); with none, the default is the core's ``hashing``. The
        embedder itself comes from ``tinymemory_embedders``, of any plugin.
        """

    @hookspec
    def tinymemory_answerers(self) -> list[Answerer]:  # type: ignore[empty-body]
        """Named answer writers the engines that do not answer natively may choose by name."""

    @hookspec
    def tinymemory_register_commands(self, cli: click.Group) -> None:
        """Add commands to the ``tinymemory`` command line (``cli.add_command``)."""
