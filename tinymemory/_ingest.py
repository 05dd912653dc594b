"""Getting outside content into memory: ``convert``, ``read`` and ``sync``.

Bytes become a Document through the converter chain (:func:`convert`); a
source becomes items through its reader (:func:`read`); items go into an
engine in batches with a report (:func:`sync`). The command line is thin
over these three, so a script can do whatever a command does.
"""

from __future__ import annotations

import itertools
import mimetypes
import os
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from tinymemory._engine import MemoryEngine
from tinymemory._errors import InvalidRequest, TinyMemoryError, Unsupported
from tinymemory._hookspecs import (
    DocumentConverter,
    Fetcher,
    HttpResponse,
    ReaderContext,
    SourceReader,
    SourceSkip,
)
from tinymemory._items import MAX_STORE_MANY, Document, StoreItem, StoreReceipt, validate_item
from tinymemory._meta import MemoryMeta, SourceKind, SourceRef
from tinymemory._operations import GetRequest
from tinymemory._plugin_manager import default_fetcher, document_converters, source_readers
from tinymemory._settings import EngineCredential
from tinymemory.files import MAX_FILE_BYTES, DecodedText, decode_text, read_file, unwrap

#: Magic numbers of formats worth naming when nothing converts them.
_MAGIC = (
    (b"%PDF-", "pdf"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF8", "gif"),
    (b"PK\x03\x04", "zip (docx, xlsx, pptx, ...)"),
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"{\\rtf", "rtf"),
)


def sniff_format(data: bytes, name: str | None = None, mime: str | None = None) -> str:
    """A short name for what ``data`` looks like: a known magic number, text, or the mime."""
    label = _magic(data)
    if label is not None:
        return label
    decoded = _text(data)
    if decoded is not None:
        return f"{decoded.encoding} text"
    return mime or (mimetypes.guess_type(name)[0] if name else None) or "binary data"


def _magic(data: bytes) -> str | None:
    return next((label for magic, label in _MAGIC if data.startswith(magic)), None)


def _text(data: bytes) -> DecodedText | None:
    if _magic(data) is not None:  # a zip of plain ASCII names decodes, but is no text
        return None
    return decode_text(data)


def with_charset(mime: str, encoding: str) -> str:
    """``mime`` naming the ``encoding`` its text was read in, unless that is UTF-8."""
    return mime if encoding == "utf-8" else f"{mime}; charset={encoding}"


def convert(
    data_or_path: bytes | str | os.PathLike[str],
    *,
    name: str | None = None,
    mime: str | None = None,
    meta: MemoryMeta | None = None,
    converters: Sequence[DocumentConverter] = (),
) -> Document:
    """Turn raw bytes, or the file at a path, into a Document.

    ``converters`` (a host's own) are asked first, then the installed ones in
    their declared order; the first whose ``sniff`` claims the data converts
    it. Converters are handed ``mime`` as the caller declared it (None when
    not given), so they sniff the file name themselves. Data none claims is
    kept as it is when it is UTF-8 text, else it is ``Unsupported`` naming
    its format and the converters installed. A converter that fails with an
    error of its own (not a :class:`TinyMemoryError`) is ``Unsupported``
    naming the converter, the file and the error.

    A path is read only when its size is within :data:`~tinymemory.files.MAX_FILE_BYTES`
    (32 MiB); a larger file is ``InvalidRequest`` before any of it is read.
    A path sets ``name`` (its file name), ``meta.file_path`` and a ``file``
    source. Kept as text, a document's ``mime`` defaults to the one the name
    suggests. The fields set in ``meta`` (and the title the name gives) win
    over what a converter worked out; the rest of the converter's metadata (a
    language, say) is kept.
    """
    if not isinstance(data_or_path, (bytes, str, os.PathLike)):
        raise InvalidRequest(f"convert takes bytes or a path, not {type(data_or_path).__name__}")
    if isinstance(data_or_path, bytes):
        data = data_or_path
        placed = meta or MemoryMeta()
        shown = f"`{name}`" if name else "the data"
    else:
        path = Path(data_or_path)
        shown = f"`{path}`"
        data = read_file(path)
        name = name or path.name
        placed = attrs.evolve(
            meta or MemoryMeta(),
            file_path=str(path.resolve()),
            source=SourceRef(kind=SourceKind.FILE),
        )
    # A compressed file is read as what it holds, by the name it has inside.
    unwrapped = unwrap(data, name, max_bytes=MAX_FILE_BYTES)
    data, name = unwrapped.data, unwrapped.name
    # Converters get the mime as declared: one guessed from the name would
    # outrank the name itself in a converter's sniffing (``CMakeLists.txt``
    # guesses text/plain, yet is code). The guess serves the fallback alone.
    declared = mime
    mime = mime or (mimetypes.guess_type(name)[0] if name else None)
    chain = [*converters, *document_converters()]
    for converter in chain:
        if converter.sniff(data, name, declared):
            try:
                converted = converter.convert(data, name, declared)
            except TinyMemoryError:
                raise
            except Exception as error:  # a converter's own bug or its library's, on this file
                raise Unsupported(
                    f"converter `{converter.name}` failed on {shown}: "
                    f"{type(error).__name__}: {error}"
                ) from error
            if not isinstance(converted, Document):
                raise Unsupported(f"converter `{converter.name}` did not return a Document")
            return attrs.evolve(
                converted,
                title=converted.title or name,
                meta=_over(converted.meta, placed),
            )
    decoded = _text(data)
    if decoded is None:
        installed = ", ".join(converter.name for converter in chain) or "none"
        raise Unsupported(
            f"{shown} is {sniff_format(data, name, mime)}, which no document converter reads "
            f"(installed: {installed})"
        )
    if decoded.encoding != "utf-8":
        mime = with_charset(mime or "text/plain", decoded.encoding)
    return Document(title=name, body=decoded.text, mime=mime, meta=placed)


def _over(found: MemoryMeta, placed: MemoryMeta) -> MemoryMeta:
    """``found`` with every field ``placed`` sets (differs from the default) taken from it."""
    unset = MemoryMeta()
    chosen = {
        field.name: getattr(placed, field.name)
        for field in attrs.fields(MemoryMeta)
        if getattr(placed, field.name) != getattr(unset, field.name)
    }
    return attrs.evolve(found, **chosen)


def _no_fetcher(url: str, *, headers: Mapping[str, str] | None = None) -> HttpResponse:
    host = urllib.parse.urlsplit(url).hostname or url
    raise Unsupported(
        f"this reader fetches over http (`{host}`), and no fetcher was given: "
        "pass fetcher=, or install a plugin offering one (tinymemory-sources, whose fetcher "
        "refuses private addresses)"
    )


def read(
    reader_name: str,
    *,
    options: Mapping[str, Any] | None = None,
    credential: EngineCredential | None = None,
    fetcher: Fetcher | None = None,
) -> Iterator[StoreItem | SourceSkip]:
    """The items of a source, read by the installed reader named ``reader_name``.

    The reader gets a :class:`ReaderContext`: ``options`` (where to read and
    how, as the reader documents), ``credential`` (a token, never printed),
    and ``fetcher`` for any HTTP it does: the one passed here, else the one an
    installed plugin offers through ``tinymemory_http_fetcher`` (the sources
    plugin's guard, which refuses private addresses). With neither, fetching
    is ``Unsupported``: the core has no such guard, so it fetches nothing on a
    reader's behalf. An unknown reader is ``Unsupported`` listing the
    installed ones. Every item is validated, and one the contract refuses (an
    empty file's document, say) becomes a :class:`SourceSkip` naming it, so one
    bad file never ends the read; a skip (a part of the source the reader left
    out, and why) is passed on for ``sync`` to report.
    """
    reader = _reader(reader_name)
    context = ReaderContext(
        options=dict(options or {}),
        credential=credential or EngineCredential.none(),
        fetcher=fetcher or default_fetcher() or _no_fetcher,
    )
    return (_checked(item) for item in reader.read(context))


def count_entries(
    reader_name: str,
    *,
    options: Mapping[str, Any] | None = None,
    credential: EngineCredential | None = None,
) -> int | None:
    """How many entries :func:`read` of the same source will yield, known before any is read.

    Asked of the reader's optional ``count(context)``: a cheap look (a
    folder's walk, reading no file), so a command can show a total before the
    work starts. ``None`` when the reader has no such look; an archive read
    member by member is one entry here. An unknown reader is ``Unsupported``
    as for :func:`read`; bad options are the reader's ``InvalidRequest``.
    """
    reader = _reader(reader_name)
    count = getattr(reader, "count", None)
    if count is None:
        return None
    context = ReaderContext(
        options=dict(options or {}),
        credential=credential or EngineCredential.none(),
        fetcher=_no_fetcher,  # a count is of what is at hand: it fetches nothing
    )
    found = count(context)
    return found if isinstance(found, int) and not isinstance(found, bool) else None


def _reader(reader_name: str) -> SourceReader:
    readers = source_readers()
    reader: SourceReader | None = readers.get(reader_name)
    if reader is None:
        installed = ", ".join(sorted(readers)) or "none"
        raise Unsupported(f"no reader named `{reader_name}` (installed: {installed})")
    return reader


def _checked(item: object) -> StoreItem | SourceSkip:
    """``item`` validated, or a :class:`SourceSkip` naming it and why the contract refused it."""
    if isinstance(item, SourceSkip):
        return item
    try:
        return validate_item(item)
    except TinyMemoryError as error:
        return SourceSkip(what=item_name(item) or type(item).__name__, reason=error.message)


def item_name(item: object) -> str | None:
    """What a person knows an item by: its file, its link, its title or its source's id."""
    meta = getattr(item, "meta", None)
    named = (
        getattr(meta, "file_path", None),
        getattr(meta, "url", None),
        getattr(item, "title", None),
        getattr(getattr(meta, "source", None), "id", None),
    )
    return next((name for name in named if isinstance(name, str) and name), None)


@attrs.frozen(kw_only=True)
class Skipped:
    """An item ``sync`` left out, by its position in the input, and why.

    ``what`` names it (a file, a link, a title) when anything does; ``reason``
    starts with that name too, so it reads alone.
    """

    index: int
    reason: str
    what: str | None = None


@attrs.frozen(kw_only=True)
class SyncReport:
    """What :func:`sync` did: items stored new, replayed (already held), skipped, and batches."""

    stored: int = 0
    replayed: int = 0
    skipped: tuple[Skipped, ...] = ()
    batches: int = 0

    def _repr_markdown_(self) -> str:
        from tinymemory._display import sync_markdown

        return sync_markdown(self)

    def _repr_html_(self) -> str:
        from tinymemory._display import sync_html

        return sync_html(self)


@attrs.frozen(kw_only=True)
class SyncedItem:
    """One input of :func:`sync` and what became of it: ``stored``, ``replayed`` or ``skipped``.

    ``what`` names it (a file, a link, a title; ``None`` when nothing does),
    ``id`` is the id it is stored under (``None`` when skipped) and ``reason``
    why it was skipped.
    """

    index: int
    status: str
    what: str | None = None
    id: str | None = None
    reason: str | None = None


#: Called after each batch with the report so far.
Progress = Callable[[SyncReport], None]
#: Called once per input, in input order, as soon as its batch is done.
OnItem = Callable[[SyncedItem], None]


def sync(
    engine: MemoryEngine,
    items: Iterable[object],
    *,
    batch: int = MAX_STORE_MANY,
    progress: Progress | None = None,
    on_item: OnItem | None = None,
    max_wait: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> SyncReport:
    """Store ``items`` into ``engine`` through ``store_many``, ``batch`` at a time.

    An item the engine holds already (by its fingerprint, one ``get`` per
    batch) is a replay without being stored again, so syncing an unchanged
    source again costs a fraction of the first sync.

    An item that is not valid is skipped with its reason (and the rest are
    stored), as is each :class:`SourceSkip` a reader yielded (its reason
    names what it left out); the engine's own errors end the sync, and every
    batch stored before stays stored. ``progress`` is called with the report
    after every batch, and ``on_item`` with each input's outcome
    (:class:`SyncedItem`), so a caller interrupted mid-way knows how far it
    got. With ``max_wait`` (seconds, by ``clock``), a batch is stored as
    soon as its first item has waited that long for the rest, so a slow
    source (a folder whose files take a while each to convert) still reports
    as it goes. Scrubbing is the engine's: pass one from
    :func:`~tinymemory.build_engine`, which scrubs.
    """
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_STORE_MANY:
        raise InvalidRequest(f"`batch` must be from 1 to {MAX_STORE_MANY}")
    if max_wait is not None and (isinstance(max_wait, bool) or not max_wait >= 0):
        raise InvalidRequest("`max_wait` must be a number of seconds, 0 or more")
    report = SyncReport()
    numbered = enumerate(items)
    while chunk := _next_batch(numbered, batch, max_wait, clock):
        valid: list[tuple[int, StoreItem]] = []
        skipped: list[SyncedItem] = []
        for index, item in chunk:
            what: str | None
            if isinstance(item, SourceSkip):
                what, reason = item.what, item.reason
            else:
                try:
                    valid.append((index, validate_item(item)))
                    continue
                except TinyMemoryError as error:
                    what, reason = item_name(item), error.message
            skipped.append(SyncedItem(index=index, status="skipped", what=what, reason=reason))
        receipts = _stored(engine, [item for _, item in valid]) if valid else []
        replayed = sum(receipt.replayed for receipt in receipts)
        report = SyncReport(
            stored=report.stored + len(receipts) - replayed,
            replayed=report.replayed + replayed,
            skipped=(*report.skipped, *map(_skipped, skipped)),
            batches=report.batches + bool(valid),
        )
        if on_item is not None:
            stored = [
                SyncedItem(
                    index=index,
                    status="replayed" if receipt.replayed else "stored",
                    what=item_name(item),
                    id=receipt.id,
                )
                for (index, item), receipt in zip(valid, receipts, strict=True)
            ]
            for outcome in sorted([*stored, *skipped], key=lambda outcome: outcome.index):
                on_item(outcome)
        if progress is not None:
            progress(report)
    return report


def _stored(engine: MemoryEngine, items: list[StoreItem]) -> list[StoreReceipt]:
    """``store_many`` of the items not held already; a held one is a replay, never stored again.

    An item whose fingerprint the engine holds (one ``get`` per batch) is
    that very item (the id is the hash of all it holds), so it is a replay
    without the engine's scrubbing and storing: a re-sync of an unchanged
    source costs a fraction of the first. An engine with ids of its own, or
    a scrubber that changes the item, finds none: ``store_many`` decides.
    """
    prints = [_fingerprint(item) for item in items]
    asked = tuple(dict.fromkeys(found for found in prints if found is not None))
    held = {hit.id for hit in engine.get(GetRequest(ids=asked))} if asked else set()
    fresh = [item for item, found in zip(items, prints, strict=True) if found not in held]
    receipts = iter(engine.store_many(fresh) if fresh else [])
    return [
        StoreReceipt(id=str(found), replayed=True) if found in held else next(receipts)
        for found in prints
    ]


def _fingerprint(item: StoreItem) -> str | None:
    try:
        return item.fingerprint()
    except TinyMemoryError:  # text no engine stores: store_many says so
        return None


def _next_batch(
    numbered: Iterator[tuple[int, object]],
    batch: int,
    max_wait: float | None,
    clock: Callable[[], float],
) -> list[tuple[int, object]]:
    """Up to ``batch`` items; fewer once the first has waited ``max_wait`` for the rest."""
    if max_wait is None:
        return list(itertools.islice(numbered, batch))
    chunk: list[tuple[int, object]] = []
    started = clock()
    for entry in numbered:
        chunk.append(entry)
        if len(chunk) == batch or clock() - started >= max_wait:
            break
    return chunk


def _skipped(outcome: SyncedItem) -> Skipped:
    """The report's record of a skip: its reason prefixed by what it names, to read alone."""
    reason = str(outcome.reason)
    shown = f"{outcome.what}: {reason}" if outcome.what else reason
    return Skipped(index=outcome.index, reason=shown, what=outcome.what)
