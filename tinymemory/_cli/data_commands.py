"""The ``tinymemory`` data commands, on the engine the configuration names.

``store``, ``fetch``, ``recall``, ``list``, ``get``, ``explore``, ``forget``,
``export``, ``import``, ``ingest`` and ``erase``. Each prints readable text, or with
``--json`` the contract's JSON forms. A :class:`~tinymemory._errors.TinyMemoryError`
ends a command with ``tinymemory: <kind>: <message>`` on stderr and status 1;
a bad option or argument is a usage error (status 2).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, BinaryIO, TypeVar

import attrs
import click

from tinymemory._cli.item_ids import resolve_ids
from tinymemory._cli.options import (
    at_option,
    cursor_option,
    filter_options,
    items_text,
    json_option,
    kinds_option,
    limit_option,
    quiet_option,
    table,
    tags_option,
    workspace_option,
)
from tinymemory._cli.progress import Progress
from tinymemory._cli.reader_surface import (
    ReaderSurfaceCommand,
    choose_reader,
    chosen_options,
    reader_credential,
    source_option,
)
from tinymemory._display import hit_source, short_ids
from tinymemory._engine import LISTING_PAGE, EngineWrapper, MemoryEngine
from tinymemory._errors import EngineError, InvalidRequest, TinyMemoryError, Unsupported
from tinymemory._f32 import display_f32
from tinymemory._hookspecs import SourceSkip
from tinymemory._ingest import (
    SyncedItem,
    SyncReport,
    convert,
    count_entries,
    item_name,
    read,
    sync,
)
from tinymemory._items import (
    Document,
    Learning,
    LearningKind,
    StoreItem,
    StoreReceipt,
)
from tinymemory._limits import item_limits
from tinymemory._meta import MemoryMeta, MetaFilter
from tinymemory._namespace import Namespace, Reach
from tinymemory._operations import (
    MAX_BUCKETS,
    MAX_GET_IDS,
    Citation,
    EraseRequest,
    ExploreRequest,
    ExportPage,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    Hit,
    ListRequest,
    RecallRequest,
)
from tinymemory._plugin_manager import engine_factories, source_readers
from tinymemory._registry import MemoryConfig, build_engine
from tinymemory._settings import EngineCredential, EngineSettings
from tinymemory._tool_schemas import DEFAULT_CONFIDENCE, DEFAULT_LEARNING_KIND, default_mode
from tinymemory._wire import dumps, to_data, to_json
from tinymemory.files import bounded_lines, read_stream, replacing
from tinymemory.jsonl import export_line, max_line_bytes, read_items
from tinymemory.passages import passage

T = TypeVar("T")
Command = Callable[..., None]

#: How many items ``export`` asks the engine for at a time.
EXPORT_PAGE = LISTING_PAGE
#: How much of an item's first line a table shows.
TEXT_WIDTH = 72


def _open_engine(
    options: Mapping[str, Any] | None = None, *, scrub: bool = True, engine_id: str | None = None
) -> MemoryEngine:
    """The configured engine (with ``options`` over its own): the one place a command
    builds one. ``engine_id`` (``--engine``) names another configured engine."""
    config = _configuration(engine_id)
    settings = _with_options(config.settings_for(config.engine), options)
    return build_engine(config.engine, settings, EngineCredential.from_env(), scrub=scrub)


def open_writer(engine_id: str | None = None) -> MemoryEngine:
    """The configured engine (``engine_id`` over the configured id) for a command that writes:
    what it stores passes the installed scrubbers."""
    return _open_engine(engine_id=engine_id)


def _configuration(engine_id: str | None) -> MemoryConfig:
    config = MemoryConfig.load()
    return config if engine_id is None else attrs.evolve(config, engine=engine_id)


def _with_options(settings: EngineSettings, options: Mapping[str, Any] | None) -> EngineSettings:
    return attrs.evolve(settings, options={**settings.options, **options}) if options else settings


def open_reader(
    options: Mapping[str, Any] | None = None, *, engine_id: str | None = None
) -> MemoryEngine:
    """The configured engine for a command that only reads: it creates no file.

    It is not scrubbed (nothing passes through it into memory), so a read
    imports no scrubber plugin.

    While none of the files the engine's factory names (``storage``) exists,
    the memory holds nothing, and the read is answered by a throwaway engine
    of the same kind in a temporary folder, removed when it closes.
    ``options`` (a command's own, such as recall's ``answerer``) go over the
    engine's configured ones; ``engine_id`` (``--engine``) names another
    configured engine.
    """
    config = _configuration(engine_id)
    factory = engine_factories(config.engine).get(config.engine)
    if factory is None or factory.storage is None or factory.test_settings is None:
        return _open_engine(options, scrub=False, engine_id=engine_id)
    files = factory.storage(config.settings_for(config.engine))
    if not files or any(Path(file).exists() for file in files):
        return _open_engine(options, scrub=False, engine_id=engine_id)
    folder = tempfile.TemporaryDirectory(prefix="tinymemory-empty-")
    try:
        settings = _with_options(factory.test_settings(Path(folder.name)), options)
        engine = build_engine(config.engine, settings, scrub=False)
    except BaseException:
        folder.cleanup()
        raise
    return _Throwaway(engine, folder)


class _Throwaway(EngineWrapper):
    """An engine in a temporary folder, removed with it on close."""

    def __init__(self, inner: MemoryEngine, folder: tempfile.TemporaryDirectory[str]) -> None:
        super().__init__(inner)
        self._folder = folder

    def close(self) -> None:
        """Close the engine, then remove its folder."""
        try:
            super().close()
        finally:
            self._folder.cleanup()


class EngineFailure(click.ClickException):
    """A :class:`TinyMemoryError` met by a data command, shown as the ``main`` of the CLI shows one.

    Raised inside the command, so the group ends cleanly however it is run
    (the console script, ``main`` or a ``CliRunner``).
    """

    def __init__(self, error: TinyMemoryError) -> None:
        super().__init__(str(error))

    def show(self, file: IO[Any] | None = None) -> None:
        """Print ``tinymemory: <kind>: <message>`` on stderr."""
        click.echo(f"tinymemory: {self.format_message()}", file=file, err=True)


def _data_command(
    name: str, cls: type[click.Command] = click.Command
) -> Callable[[Command], click.Command]:
    """``click.command(name)``, with TinyMemoryError mapped to a clean exit."""

    def decorate(func: Command) -> click.Command:
        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> None:
            try:
                func(*args, **kwargs)
            except TinyMemoryError as error:
                raise EngineFailure(error) from None

        return click.command(name, cls=cls)(run)

    return decorate


# --- output helpers ---------------------------------------------------------------


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return _clip(lines[0] if lines else "")


def _clip(line: str) -> str:
    return line if len(line) <= TEXT_WIDTH else line[: TEXT_WIDTH - 3] + "..."


def _passage(text: str, query: str) -> str:
    """What a ranked hit shows: its :func:`~tinymemory.passages.passage`, clipped."""
    return _clip(passage(text, query))


def _source(citation: Citation, short_id: str) -> str:
    """Where a cited item came from, for a person: its file (relative to the working
    folder when inside it), its link, else its id's first digits."""
    path = citation.meta.file_path
    if path is not None:
        return _shown_path(path)
    return citation.meta.url or short_id


def _shown_path(path: str) -> str:
    """``path`` relative to the working folder when inside it, else as given."""
    with contextlib.suppress(ValueError):  # another drive, or not below the folder
        return str(Path(path).relative_to(Path.cwd()))
    return path


def _echo_json(data: Any) -> None:
    # wire.dumps writes scores and confidences in their shortest f32 form.
    click.echo(dumps(data))


def _echo_next(cursor: str | None) -> None:
    if cursor is not None:
        click.echo(f"next cursor: {cursor}")


def _stderr_is_terminal() -> bool:
    return sys.stderr.isatty()


def _batched(items: Iterable[T], size: int) -> Iterator[list[T]]:
    iterator = iter(items)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def _now() -> datetime:
    return datetime.now(UTC)


# --- store ----------------------------------------------------------------------


@_data_command("store")
@click.argument("text", required=False)
@click.option(
    "--kind",
    "--learning-kind",  # the old name, still read
    "learning_kind",
    type=click.Choice([kind.value for kind in LearningKind]),
    help=f"What the learning records (default {DEFAULT_LEARNING_KIND.value}).",
)
@click.option(
    "--confidence",
    type=click.FloatRange(0.0, 1.0),
    help=f"How sure the learning is, 0 to 1 (default {display_f32(DEFAULT_CONFIDENCE)}).",
)
@click.option("--document", "as_document", is_flag=True, help="Store TEXT as a Document.")
@click.option("--title", help="The document's title (--file: default the file's name).")
@click.option(
    "--file",
    "file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Store this file as a Document (UTF-8 text, or a format a converter plugin reads).",
)
@at_option("The node to store the item at (team:acme/agent:writer); default the root.")
@workspace_option("The item's workspace.")
@tags_option("A tag for the item (repeatable).")
@json_option("Print the receipt as JSON.")
def store(
    text: str | None,
    learning_kind: str | None,
    confidence: float | None,
    as_document: bool,
    title: str | None,
    file: Path | None,
    at: Namespace | None,
    workspace: str | None,
    tags: tuple[str, ...],
    as_json: bool,
) -> None:
    """Store TEXT as a learning, or as a document (--document, --file); - reads stdin."""
    if (text is None) == (file is None):
        raise click.UsageError("pass TEXT (- for stdin) or --file, one of them")
    document = as_document or file is not None
    if document and (learning_kind is not None or confidence is not None):
        raise click.UsageError("--kind and --confidence are for learnings, not documents")
    if title is not None and not document:
        raise click.UsageError("--title is for documents: add --document")
    meta = MemoryMeta(
        namespace=at or Namespace.ROOT, workspace=workspace, tags=tags, observed_at=_now()
    )
    item: StoreItem
    if file is not None:
        converted = convert(file, meta=meta)
        item = attrs.evolve(converted, title=title) if title else converted
    else:
        # Trailing newlines from stdin are dropped, as the shell's $(...) drops them.
        body = _stdin_text().rstrip("\r\n") if text == "-" else str(text)
        if document:
            item = Document(title=title, body=body, meta=meta)
        else:
            item = Learning(
                text=body,
                kind=learning_kind or DEFAULT_LEARNING_KIND,
                confidence=DEFAULT_CONFIDENCE if confidence is None else confidence,
                meta=meta,
            )
    with _open_engine() as engine:
        receipt = engine.store(item)
    if as_json:
        click.echo(to_json(receipt))
    else:
        click.echo(_receipt_line(receipt))


def _stdin_text() -> str:
    """What stdin holds, as UTF-8 text, read no further than an item may hold (and a line end)."""
    data = read_stream(sys.stdin.buffer, item_limits().max_item_bytes + 2, shown="stdin")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidRequest("stdin is not UTF-8 text") from None


def _receipt_line(receipt: StoreReceipt) -> str:
    if receipt.replayed:
        return f"replayed {receipt.id} (already stored)"
    return f"stored {receipt.id}"


# --- convert ---------------------------------------------------------------------


@_data_command("convert")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the markdown (with --json, the JSON) to this file instead of stdout.",
)
@json_option("Print the Document as JSON (title, body, mime, meta) instead of its markdown.")
def convert_command(file: Path, output: Path | None, as_json: bool) -> None:
    """Convert FILE to markdown with the installed converters, as `store --file` does.

    The document's own title (not its file name), when it has one, heads the
    markdown as `# title`, as memory shows the document. Nothing is stored.
    With -o, the file is written aside and renamed into place once complete.
    """
    document = convert(file)
    # A title of the document's own (not its file name) heads the markdown, as memory shows it.
    titled = document.title is not None and document.title != file.name
    text = to_json(document) if as_json else document.body.content
    if titled and not as_json:
        text = document.render_text()
    if output is None:
        click.echo(text)
        return
    with replacing(output) as handle:
        handle.write(text + "\n")
    click.echo(f"wrote {output}: {len(text):,} characters of {document.mime}")


# --- reads -----------------------------------------------------------------------


#: What a read says, on stderr, when the memory holds nothing at all.
EMPTY_MEMORY_HINT = (
    "tinymemory: the memory is empty: `tinymemory ingest PATH` reads a folder (or a file, "
    "a link, a feed) into it, `tinymemory store TEXT` stores one learning"
)
#: The widest a table's SOURCE cell gets.
SOURCE_WIDTH = 40


def hint_when_empty(engine: MemoryEngine) -> None:
    """Point at ``ingest`` and ``store`` when the engine holds no item at all."""
    if not engine.list(ListRequest(limit=1)).items:
        click.echo(EMPTY_MEMORY_HINT, err=True)


def _hit_source(hit: Hit) -> str:
    """Where a hit comes from, for a table: its file (relative to the working folder when
    inside it), its link, its title, else ``-``; a long one keeps its end."""
    source = hit_source(hit)
    shown = "-" if source is None else _shown_path(source) if hit.meta.file_path else source
    return shown if len(shown) <= SOURCE_WIDTH else "..." + shown[-(SOURCE_WIDTH - 3) :]


def _hit_table(hits: Sequence[Hit], text: Callable[[Hit], str], score: bool = False) -> str:
    """Hits as a table: short id, kind, where it comes from and its text; the score when
    ranked, and the namespace when any hit is not at the root."""
    ids = short_ids(hit.id for hit in hits)
    placed = any(not hit.meta.namespace.is_root for hit in hits)
    headers = [*(["SCORE"] if score else []), "ID", "KIND", *(["NAMESPACE"] if placed else [])]
    rows = [
        (
            *([f"{hit.score:.3f}"] if score else []),
            ids[hit.id],
            hit.kind.value,
            *([str(hit.meta.namespace)] if placed else []),
            _hit_source(hit),
            text(hit),
        )
        for hit in hits
    ]
    return table((*headers, "SOURCE", "TEXT"), rows)


@_data_command("fetch")
@click.argument("query")
@click.option(
    "--mode",
    type=click.Choice([mode.value for mode in FetchMode]),
    help="How to rank (default hybrid when the engine offers it, else its first mode).",
)
@limit_option(10)
@cursor_option()
@filter_options
@json_option("Print the page of hits as JSON.")
def fetch(
    query: str,
    mode: str | None,
    limit: int,
    cursor: str | None,
    filter: MetaFilter,
    as_json: bool,
) -> None:
    """Rank stored items against QUERY by keyword, vector or hybrid search.

    Each hit shows its id's first digits (any unique prefix of 4 or more
    works wherever an id is taken), its kind, where it comes from (file, link
    or title) and its line that holds the most words of QUERY. SCORE orders
    the hits of one fetch, higher first; its scale is the engine's and the
    mode's own, so compare scores within one fetch only. With the sqlite
    engine, keyword is a BM25 relevance (above 0, no fixed top), vector a
    cosine similarity (at most 1), hybrid the sum of the two (a hit one ranking
    leaves out of its best 50 counts that ranking's 50th score there).
    """
    with open_reader() as engine:
        chosen = FetchMode(mode) if mode else default_mode(engine.descriptor.fetch_modes)
        if chosen is None:
            raise Unsupported(f"engine `{engine.descriptor.id}` serves no fetch mode")
        request = FetchRequest(query=query, mode=chosen, filter=filter, limit=limit, cursor=cursor)
        page = engine.fetch(request)
        if not page.hits and not as_json:
            hint_when_empty(engine)
    if as_json:
        click.echo(to_json(page))
        return
    if not page.hits:
        click.echo("no hits")
    else:
        click.echo(_hit_table(page.hits, lambda hit: _passage(hit.text, query), score=True))
    _echo_next(page.next_cursor)


@_data_command("recall")
@click.argument("question")
@limit_option(10)
@filter_options
@click.option(
    "--answerer",
    metavar="NAME",
    help="The answerer that writes the answer (an installed one, such as `extractive` or "
    "`openai`), over the engine's `answerer` option; the model line names who wrote it.",
)
@json_option("Print the answer and its citations as JSON.")
def recall(
    question: str, limit: int, filter: MetaFilter, answerer: str | None, as_json: bool
) -> None:
    """Answer QUESTION from memory, then list the items the answer cites.

    Each citation line names the item's file or link (else its id), its kind
    and the passage quoted from it. With --answerer, a last line names the
    model that wrote the answer (an answerer that fell back says so there).
    """
    with open_reader(None if answerer is None else {"answerer": answerer}) as engine:
        answer = engine.recall(RecallRequest(question=question, filter=filter, limit=limit))
        if not answer.citations and not as_json:
            hint_when_empty(engine)
    if as_json:
        click.echo(to_json(answer))
        return
    click.echo(answer.answer)
    if answer.citations:
        click.echo()
    ids = short_ids(citation.id for citation in answer.citations)
    for number, citation in enumerate(answer.citations, start=1):
        snippet = _first_line(citation.snippet)
        source = _source(citation, ids[citation.id])
        click.echo(f"[{number}] {source}  {citation.kind.value}  {snippet}")
    if answerer is not None:
        click.echo(f"\nmodel: {answer.model or 'unnamed'}")


@_data_command("list")
@limit_option(50)
@cursor_option()
@filter_options
@json_option("Print the page of items as JSON.")
def list_command(limit: int, cursor: str | None, filter: MetaFilter, as_json: bool) -> None:
    """List stored items, without ranking, a page at a time."""
    with open_reader() as engine:
        page = engine.list(ListRequest(filter=filter, limit=limit, cursor=cursor))
        if not page.items and not as_json:
            hint_when_empty(engine)
    if as_json:
        click.echo(to_json(page))
        return
    if not page.items:
        click.echo("no items")
    else:
        click.echo(_hit_table(page.items, lambda hit: _passage(hit.text, "")))
    _echo_next(page.next_cursor)


@_data_command("get")
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
@json_option("Print the items (and the ids not found) as JSON.")
@click.pass_context
def get(ctx: click.Context, ids: tuple[str, ...], as_json: bool) -> None:
    """Print items whole by id (or any unique prefix of 4 or more digits): text and metadata.

    Exits 1 when an id is not found.
    """
    hits: list[Hit] = []
    with open_reader() as engine:
        ids = tuple(resolve_ids(engine, ids))
        for batch in _batched(ids, MAX_GET_IDS):
            hits.extend(engine.get(GetRequest(ids=batch)))
    found = {hit.id for hit in hits}
    missing = [item_id for item_id in dict.fromkeys(ids) if item_id not in found]
    if as_json:
        _echo_json({"items": [to_data(hit) for hit in hits], "missing": missing})
    else:
        click.echo("\n---\n".join(_whole(hit) for hit in hits), nl=bool(hits))
        if missing:
            click.echo(f"tinymemory: not found: {', '.join(missing)}", err=True)
    if missing:
        ctx.exit(1)


def _whole(hit: Hit) -> str:
    """An item as ``get`` prints it: ``key: value`` lines, a blank line, then its text."""
    fields: dict[str, Any] = {"id": hit.id, "kind": hit.kind.value}
    if hit.confidence is not None:
        fields["confidence"] = display_f32(hit.confidence)
    fields["namespace"] = str(hit.meta.namespace)  # the wire form leaves the root out
    fields.update(to_data(hit.meta))
    lines = []
    for key, value in fields.items():
        if isinstance(value, list):
            shown = ", ".join(map(str, value))
        elif isinstance(value, dict):
            shown = dumps(value)
        else:
            shown = str(value)
        lines.append(f"{key}: {shown}")
    return "\n".join([*lines, "", hit.text])


@_data_command("explore")
@click.argument("facet", metavar="FACET", type=click.Choice([facet.value for facet in Facet]))
@limit_option(50, MAX_BUCKETS)
@filter_options
@json_option("Print the buckets and counts as JSON.")
def explore(facet: str, limit: int, filter: MetaFilter, as_json: bool) -> None:
    """Count stored items per value of FACET, largest first.

    FACET: kind, source, source_id, workspace, folder, file_path, language,
    repo, url, thread, agent, tool_call, tag or namespace.
    """
    with open_reader() as engine:
        page = engine.explore(ExploreRequest(facet=facet, filter=filter, limit=limit))
    if as_json:
        click.echo(to_json(page))
        return
    if page.buckets:
        rows = [(bucket.value, str(bucket.count)) for bucket in page.buckets]
        click.echo(table((facet.upper(), "COUNT"), rows))
        click.echo()
    click.echo(f"total {page.total}, missing {page.missing}")
    if page.more_buckets:
        click.echo(f"{page.more_buckets} more values (raise --limit)")
    if page.truncated:
        click.echo("the scan stopped early: counts are a lower bound")


# --- writes ----------------------------------------------------------------------


@_data_command("forget")
@click.argument("ids", nargs=-1, metavar="[ID...]")
@filter_options
@json_option("Print the report as JSON.")
def forget(ids: tuple[str, ...], filter: MetaFilter, as_json: bool) -> None:
    """Forget items by id (or any unique prefix of 4 or more digits), or every item the
    filter options admit.

    With ids, --at/--reach confine the forget to the items that reach sees.
    Never everything: no ids and no filter option is refused.
    """
    if ids and not attrs.evolve(filter, reach=None).is_empty():
        raise click.UsageError("pass ids or --workspace/--tag/--kind, not both")
    if not ids and filter.is_empty():
        raise click.UsageError(
            "forget needs ids or a filter option (--at, --reach, --workspace, --tag, --kind)"
        )
    with open_reader() as engine:
        ids = tuple(resolve_ids(engine, ids))
        if not ids:
            report = engine.forget(ForgetTarget.by_filter(filter))
        elif filter.reach is not None:
            report = engine.forget_within(ids, filter.reach)
        else:
            report = engine.forget(ForgetTarget.by_ids(ids))
    if as_json:
        click.echo(to_json(report))
    else:
        click.echo(f"forgot {items_text(report.forgotten)}")


@_data_command("export")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the items to this file instead of stdout.",
)
@filter_options
@json_option("With -o, print the summary as JSON.")
@quiet_option()
def export(output: Path | None, filter: MetaFilter, as_json: bool, quiet: bool) -> None:
    """Write items whole as JSON lines ({"id": ..., "item": {...}}), for `import`.

    With -o, the file is written aside and renamed into place once complete,
    and the engine's own storage is refused.
    """
    incomplete: list[str] = []
    count = 0
    with open_reader() as engine:
        if output is not None:
            _refuse_own_storage(output, engine)
        pages = _export_pages(engine, filter)
        first = next(pages)  # an engine that refuses export does so before any file is made
        # On stderr, so stdout holds the items alone.
        shown = Progress(
            "exporting", _counted(engine, filter), quiet=quiet,
            terminal=_stderr_is_terminal(), unit="items",
        )  # fmt: skip
        shown.start()
        with contextlib.ExitStack() as stack:
            sink = sys.stdout if output is None else stack.enter_context(replacing(output))
            for page in itertools.chain([first], pages):
                incomplete.extend(page.incomplete)
                for item in page.items:
                    sink.write(export_line(item) + "\n")
                count += len(page.items)
                shown.advance(count=len(page.items))
                shown.batch_done()
            sink.flush()
        shown.finish()
    if incomplete:
        click.echo(
            f"tinymemory: {items_text(len(incomplete))} {'is' if len(incomplete) == 1 else 'are'} "
            f"held only in part: {', '.join(incomplete)}",
            err=True,
        )
    if output is None:
        return  # stdout holds the items and nothing else
    if as_json:
        _echo_json({"exported": count, "file": str(output), "incomplete": incomplete})
    else:
        click.echo(f"exported {items_text(count)} to {output}")


def _refuse_own_storage(output: Path, engine: MemoryEngine) -> None:
    """``InvalidRequest`` when ``output`` is (via symlinks) a file the engine keeps memory in."""
    target = output.resolve()
    for owned in engine.storage_paths():
        if target == Path(owned).resolve() or _same_file(target, Path(owned)):
            raise InvalidRequest(
                f"`{output}` is the engine's own storage (`{owned}`); "
                "exporting over it would destroy the memory: choose another file"
            )


def _same_file(one: Path, other: Path) -> bool:
    try:
        return one.samefile(other)  # a hard link, or another path to the same file
    except OSError:
        return False


def _counted(engine: MemoryEngine, filter: MetaFilter) -> int | None:
    """How many items ``filter`` admits, by the engine's own count; ``None`` when unknown."""
    try:
        page = engine.explore(ExploreRequest(facet=Facet.KIND, filter=filter))
    except TinyMemoryError:  # an engine that cannot count still exports and erases
        return None
    return None if page.truncated else page.total


def _export_pages(engine: MemoryEngine, filter: MetaFilter) -> Iterator[ExportPage]:
    cursor: str | None = None
    while True:
        page = engine.export(ListRequest(filter=filter, limit=EXPORT_PAGE, cursor=cursor))
        yield page
        if page.next_cursor is None:
            return
        if page.next_cursor == cursor:
            raise EngineError(f"export cursor `{cursor}` came back unchanged")
        cursor = page.next_cursor


@_data_command("import")
@click.argument("source", metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True))
@at_option("Store every item at this node instead of its own (its id changes with it).")
@json_option("Print the counts as JSON.")
@quiet_option()
def import_command(source: str, at: Namespace | None, as_json: bool, quiet: bool) -> None:
    """Store the items of a JSON-lines FILE (from `export`, or one item per line); - is stdin.

    Every line is checked before anything is stored: a bad line stores nothing,
    and every bad line is named.
    """
    with _opened(source) as stream:
        named = "stdin" if source == "-" else f"`{source}`"
        items, notes = read_items(bounded_lines(stream, max_line_bytes(), shown=named), at)
    for note in notes:
        click.echo(f"tinymemory: {note}", err=True)
    report = SyncReport()
    if items:
        shown = Progress(
            "importing", len(items), quiet=quiet, terminal=_stderr_is_terminal(), unit="items"
        )
        shown.start()

        def batch_done(so_far: SyncReport) -> None:
            shown.advance(count=so_far.stored + so_far.replayed - shown.done)
            shown.batch_done()

        with _open_engine() as engine:
            report = sync(engine, items, progress=batch_done)
        shown.finish()
    stored, replayed = report.stored, report.replayed
    if as_json:
        _echo_json({"stored": stored, "replayed": replayed})
    else:
        total = items_text(stored + replayed)
        click.echo(f"imported {total}: {stored} stored, {replayed} replayed")


def _opened(source: str) -> contextlib.AbstractContextManager[BinaryIO]:
    """The file to import (``-`` is stdin), opened in the command so it is always closed.

    A file that cannot be opened is a usage error naming why.
    """
    if source == "-":
        return contextlib.nullcontext(sys.stdin.buffer)
    try:
        return open(source, "rb")
    except OSError as error:
        raise click.BadParameter(f"{source}: {error.strerror}", param_hint="FILE") from None


@_data_command("ingest", cls=ReaderSurfaceCommand)
@click.argument("source", metavar="PATH_OR_URL")
@at_option("Store every item at this node (team:acme/agent:writer); default the root.")
@workspace_option("The items' workspace.")
@json_option("Print the report as JSON.")
@quiet_option()
@click.pass_context
def ingest(
    ctx: click.Context,
    /,
    source: str,
    reader: str | None,
    at: Namespace | None,
    workspace: str | None,
    as_json: bool,
    quiet: bool,
    **reader_values: Any,
) -> None:
    """Read a source (a folder, a file, a link, ...) into memory through an installed reader.

    The readers come from plugins, and each declares its options (listed
    below) and which sources it reads unasked: without --reader, the first
    reader claiming PATH_OR_URL reads it. Thin over `read` and `sync`: an item
    already held is a replay, so running it again stores nothing new. Every
    entry of the source is listed with what became of it as it happens (the
    total first, when the reader can count; on a terminal a status line on
    stderr names the entry at hand); a skipped one never ends the run. Exits
    1 when nothing was stored or replayed (every entry skipped).
    """
    readers = source_readers()
    if not readers:
        raise Unsupported(
            "no reader is installed: ingest reads through reader plugins "
            "(this repository's tinymemory-sources offers folders, files, links, feeds "
            "and GitHub)"
        )
    kind = choose_reader(readers, source, reader)
    chosen = readers[kind]
    options = {**chosen_options(ctx, readers, chosen, reader_values), source_option(chosen): source}
    credential = reader_credential(chosen)
    total = count_entries(kind, options=options, credential=credential)
    found = read(kind, options=options, credential=credential)
    items = (_rehomed(item, at, workspace) for item in found) if at or workspace else found
    shown = Progress(
        f"ingesting {kind}", total, quiet=quiet, terminal=_stderr_is_terminal(), unit="entries"
    )
    outcomes: list[SyncedItem] = []

    def heard(outcome: SyncedItem) -> None:
        outcomes.append(outcome)
        if not as_json:
            shown.line(_outcome_line(outcome))

    def seen() -> Iterator[StoreItem | SourceSkip]:
        for item in items:
            shown.advance(item.what if isinstance(item, SourceSkip) else item_name(item))
            yield item

    stopped: str | None = None
    status = 0
    shown.start()
    with _open_engine() as engine:
        try:
            sync(engine, seen(), on_item=heard, max_wait=LINE_WAIT_SECONDS)
        except KeyboardInterrupt:
            stopped, status = "interrupted", INTERRUPTED
        except TinyMemoryError as error:
            stopped, status = str(error), 1
        except Exception as error:  # a reader's or engine's own failure: what was stored stays
            stopped, status = f"{type(error).__name__}: {error}", 1
        finally:
            shown.finish()
    _ingest_report(source, outcomes, stopped, as_json)
    if not status and not any(outcome.status != "skipped" for outcome in outcomes):
        why = "every entry was skipped" if outcomes else "the source holds no entry"
        click.echo(f"tinymemory: nothing was stored: {why}", err=True)
        status = 1
    if status:
        ctx.exit(status)


#: The longest a read entry waits for its batch before its line is shown.
LINE_WAIT_SECONDS = 1.0


def _outcome_line(outcome: SyncedItem) -> str:
    where = _shown_path(outcome.what) if outcome.what else f"item {outcome.index + 1}"
    reason = f": {outcome.reason}" if outcome.reason else ""
    return f"{outcome.status:<9} {where}{reason}"


#: The exit status of a run stopped by Ctrl-C, as a shell reports a SIGINT.
INTERRUPTED = 130


def _ingest_report(
    source: str, outcomes: Sequence[SyncedItem], stopped: str | None, as_json: bool
) -> None:
    """The totals (each input's line was shown as it happened); how far a stopped run got."""
    counts = collections.Counter(outcome.status for outcome in outcomes)
    if as_json:
        _echo_json(
            {
                "stored": counts["stored"],
                "replayed": counts["replayed"],
                "skipped": [
                    {"index": o.index, "what": o.what, "reason": o.reason}
                    for o in outcomes
                    if o.status == "skipped"
                ],
                "items": [to_data(outcome) for outcome in outcomes],
                "complete": stopped is None,
                "stopped": stopped,
            }
        )
        return
    total = counts["stored"] + counts["replayed"]
    click.echo(
        f"ingested {items_text(total)} from {source}: {counts['stored']} stored, "
        f"{counts['replayed']} replayed, {counts['skipped']} skipped"
    )
    if stopped is not None:
        click.echo(
            f"tinymemory: ingest stopped after {len(outcomes)} of the source's entries "
            f"({stopped}); what is listed above is kept, the rest was not read",
            err=True,
        )


def _rehomed(
    item: StoreItem | SourceSkip, at: Namespace | None, workspace: str | None
) -> StoreItem | SourceSkip:
    """``item`` placed at ``at`` and in ``workspace``, each when given."""
    if isinstance(item, SourceSkip):
        return item
    meta = item.meta if at is None else attrs.evolve(item.meta, namespace=at)
    return item.with_meta(meta if workspace is None else attrs.evolve(meta, workspace=workspace))


@_data_command("erase")
@at_option("The node to erase at (root for the root).", required=True)
@click.option("--subtree", is_flag=True, help="Also erase everything below --at.")
@kinds_option("Erase only items of this kind (repeatable; default every kind).")
@click.option(
    "--whole-tree",
    is_flag=True,
    help="Allow erasing every item at every node (--at root --subtree, every kind).",
)
@click.option(
    "-y",
    "--yes",
    is_flag=True,
    help="Do not ask first (for scripts; the whole tree still needs --whole-tree).",
)
@json_option("Print the report as JSON.")
def erase(
    at: Namespace,
    subtree: bool,
    kinds: tuple[str, ...],
    whole_tree: bool,
    yes: bool,
    as_json: bool,
) -> None:
    """Delete items for good: every item (of --kind) at a node, and with --subtree below it."""
    reach = Reach.subtree(at) if subtree else Reach.exact(at)
    request = EraseRequest(reach=reach, kinds=kinds, whole_tree=whole_tree)
    if is_whole_tree(request) and not whole_tree:
        raise click.UsageError("erasing every item at every node needs --whole-tree")
    if not yes:
        click.confirm(erase_question(request), abort=True, err=True)
    with open_reader() as engine:
        counted = None if as_json else count_items(engine, reach, kinds)
        report = engine.erase(request)
        health = engine.health()
    if health.reason is not None:
        # Say what the engine still holds, and how it is finished (the sqlite
        # engine: erased text on disk while another connection reads).
        click.echo(f"tinymemory: the erase is done, and the engine says: {health.reason}", err=True)
    if as_json:
        click.echo(to_json(report))
        return
    click.echo(_erased_line(report.erased_scopes, counted, at, subtree))
    for receipt in report.receipts:
        click.echo(f"receipt: {receipt}")


def erase_question(request: EraseRequest) -> str:
    """What ``erase`` asks before it erases: the node, the kinds, and whether below it."""
    if is_whole_tree(request):
        return "Erase the whole memory tree, every item at every node, for good?"
    kinds = [kind.value for kind in request.kinds]
    what = " and ".join(kinds) + " items" if kinds else "every item"
    below = " and everything below it" if request.reach.descendants else ""
    return f"Erase {what} at {request.reach.at}{below}, for good?"


def count_items(engine: MemoryEngine, reach: Reach, kinds: Sequence[str]) -> int | None:
    """How many items ``reach`` sees, counted just before an erase; ``None`` when unknown.

    A subtree reach does not see the ``service:`` sandboxes below its node,
    which an erase removes too, so the count covers what reads see.
    """
    return _counted(engine, MetaFilter(reach=reach, kinds=tuple(kinds)))


def _erased_line(scopes: int, counted: int | None, at: Namespace, subtree: bool) -> str:
    where = f"at {at} and below it" if subtree else f"at {at}"
    if counted is None:
        scopes_text = f"{scopes} scope{'' if scopes == 1 else 's'}"
        return f"erased every item {where}: {scopes_text} (a kind at a node)"
    line = f"erased {items_text(counted)} {where}"
    return line + " (service: sandboxes not counted)" if subtree else line


def is_whole_tree(request: EraseRequest) -> bool:
    """Whether ``request`` erases every item at every node (it needs ``whole_tree``)."""
    # The contract's own interlock says what "the whole tree" is: the request
    # is one exactly when it would be refused without `whole_tree`.
    try:
        attrs.evolve(request, whole_tree=False).validate()
    except InvalidRequest:
        return True
    return False
