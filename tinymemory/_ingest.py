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
from tinymemory._items import MAX_STORE_MANY, Document, StoreItem, validate_item
from tinymemory._meta import MemoryMeta, SourceKind, SourceRef
from tinymemory._plugin_manager import default_fetcher, document_converters, source_readers
from tinymemory._settings import EngineCredential
from tinymemory.files import read_file

#: Magic numbers of formats worth naming when nothing converts them.
_MAGIC = (
    (b"%PDF-", "pdf"),
    (b"\x89PNG\r\n\x1a\n", "png"),
    (b"\xff\xd8\xff", "jpeg"),
    (b"GIF8", "gif"),
    (b"PK\x03\x04", "zip (docx, xlsx, pptx, ...)"),
    (b"\x1f\x8b", "gzip"),
    (b"{\\rtf", "rtf"),
)


def sniff_format(data: bytes, name: str | None = None, mime: str | None = None) -> str:
    """A short name for what ``data`` looks like: a known magic number, text, or the mime."""
    label = _magic(data)
    if label is not None:
        return label
    if _utf8_text(data) is not None:
        return "utf-8 text"
    return mime or (mimetypes.guess_type(name)[0] if name else None) or "binary data"


def _magic(data: bytes) -> str | None:
    return next((label for magic, label in _MAGIC if data.startswith(magic)), None)


def _utf8_text(data: bytes) -> str | None:
    if _magic(data) is not None:  # a zip of plain ASCII names decodes, but is no text
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text else text  # a NUL byte means binary, even when it decodes


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
    its format and the converters installed.

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
    # Converters get the mime as declared: one guessed from the name would
    # outrank the name itself in a converter's sniffing (``CMakeLists.txt``
    # guesses text/plain, yet is code). The guess serves the fallback alone.
    declared = mime
    mime = mime or (mimetypes.guess_type(name)[0] if name else None)
    chain = [*converters, *document_converters()]
    for converter in chain:
        if converter.sniff(data, name, declared):
            converted = converter.convert(data, name, declared)
            if not isinstance(converted, Document):
                raise Unsupported(f"converter `{converter.name}` did not return a Document")
            return attrs.evolve(
                converted,
                title=converted.title or name,
                meta=_over(converted.meta, placed),
            )
    text = _utf8_text(data)
    if text is None:
        installed = ", ".join(converter.name for converter in chain) or "none"
        raise Unsupported(
            f"{shown} is {sniff_format(data, name, mime)}, which no document converter reads "
            f"(installed: {installed})"
        )
    return Document(title=name, body=text, mime=mime, meta=placed)


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
    installed ones. Every item is validated; a :class:`SourceSkip` (a part of
    the source the reader left out, and why) is passed on for ``sync`` to report.
    """
    readers = source_readers()
    reader: SourceReader | None = readers.get(reader_name)
    if reader is None:
        installed = ", ".join(sorted(readers)) or "none"
        raise Unsupported(f"no reader named `{reader_name}` (installed: {installed})")
    context = ReaderContext(
        options=dict(options or {}),
        credential=credential or EngineCredential.none(),
        fetcher=fetcher or default_fetcher() or _no_fetcher,
    )
    return (
        item if isinstance(item, SourceSkip) else validate_item(item)
        for item in reader.read(context)
    )


@attrs.frozen(kw_only=True)
class Skipped:
    """An item ``sync`` left out, by its position in the input, and why."""

    index: int
    reason: str


@attrs.frozen(kw_only=True)
class SyncReport:
    """What :func:`sync` did: items stored new, replayed (already held), skipped, and batches."""

    stored: int = 0
    replayed: int = 0
    skipped: tuple[Skipped, ...] = ()
    batches: int = 0


#: Called after each batch with the report so far.
Progress = Callable[[SyncReport], None]


def sync(
    engine: MemoryEngine,
    items: Iterable[object],
    *,
    batch: int = MAX_STORE_MANY,
    progress: Progress | None = None,
) -> SyncReport:
    """Store ``items`` into ``engine`` through ``store_many``, ``batch`` at a time.

    An item that is not valid is skipped with its reason (and the rest are
    stored), as is each :class:`SourceSkip` a reader yielded (its reason
    names what it left out); the engine's own errors end the sync. ``progress`` is called
    with the report after every batch. Scrubbing is the engine's: pass one
    from :func:`~tinymemory.build_engine`, which scrubs.
    """
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_STORE_MANY:
        raise InvalidRequest(f"`batch` must be from 1 to {MAX_STORE_MANY}")
    report = SyncReport()
    numbered = enumerate(items)
    while chunk := list(itertools.islice(numbered, batch)):
        valid: list[StoreItem] = []
        skipped: list[Skipped] = []
        for index, item in chunk:
            if isinstance(item, SourceSkip):
                skipped.append(Skipped(index=index, reason=f"{item.what}: {item.reason}"))
                continue
            try:
                valid.append(validate_item(item))
            except TinyMemoryError as error:
                skipped.append(Skipped(index=index, reason=error.message))
        receipts = engine.store_many(valid) if valid else []
        replayed = sum(receipt.replayed for receipt in receipts)
        report = SyncReport(
            stored=report.stored + len(receipts) - replayed,
            replayed=report.replayed + replayed,
            skipped=(*report.skipped, *skipped),
            batches=report.batches + bool(valid),
        )
        if progress is not None:
            progress(report)
    return report
