"""Ingestion: ``convert``, ``read`` and ``sync``, over the converters and readers of plugins."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType

import attrs
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory._cli.main import cli
from tinymemory._errors import ConfigError, InvalidRequest, Unsupported
from tinymemory._hookspecs import HttpResponse, ReaderContext, SourceSkip, hookimpl
from tinymemory._ingest import SyncReport, convert, read, sniff_format, sync
from tinymemory._plugin_manager import plugin_manager
from tinymemory.reference import ReferenceEngine

pytestmark = pytest.mark.usefixtures("builtin_plugins")

Register = Callable[..., None]


class Claims:
    """A converter claiming data that starts with ``magic``; it records what it was asked."""

    def __init__(self, name: str, magic: bytes, priority: int | None = None) -> None:
        self.name = name
        self.magic = magic
        if priority is not None:
            self.priority = priority
        self.asked: list[tuple[str | None, str | None]] = []

    def sniff(self, data: bytes, name: str | None, mime: str | None) -> bool:
        self.asked.append((name, mime))
        return data.startswith(self.magic)

    def convert(self, data: bytes, name: str | None, mime: str | None) -> tm.Document:
        body = data[len(self.magic) :].decode("utf-8")
        return tm.Document(
            title=f"by {self.name}",
            body=body,
            meta=tm.MemoryMeta(language="en", workspace="converter's"),
        )


class Offers:
    """A plugin offering converters and readers."""

    def __init__(self, converters: list[object] = (), readers: list[object] = ()) -> None:  # type: ignore[assignment]
        self.converters = list(converters)
        self.readers = list(readers)

    @hookimpl
    def tinymemory_document_converters(self) -> list[object]:
        return self.converters

    @hookimpl
    def tinymemory_source_readers(self) -> list[object]:
        return self.readers


@pytest.fixture
def plugins() -> Register:
    def register(**offered: list[object]) -> None:
        plugin_manager().register(Offers(**offered))

    return register


# --- convert ---------------------------------------------------------------------------


def test_utf8_text_is_a_document_of_itself() -> None:
    document = convert(b"# Notes\n\ntabs", name="notes.md")
    assert document == tm.Document(title="notes.md", body="# Notes\n\ntabs", mime="text/markdown")


def test_a_path_names_the_file_and_its_source(tmp_path: Path) -> None:
    file = tmp_path / "plan.txt"
    file.write_text("ship friday", encoding="utf-8")
    document = convert(file, meta=tm.MemoryMeta(workspace="acme"))
    assert (document.title, document.body.text, document.mime) == (
        "plan.txt",
        "ship friday",
        "text/plain",
    )
    assert document.meta.file_path == str(file.resolve())
    assert document.meta.source.kind is tm.SourceKind.FILE
    assert document.meta.workspace == "acme"
    assert convert(str(file)) == attrs.evolve(
        document, meta=attrs.evolve(document.meta, workspace=None)
    )


def test_a_missing_file_is_an_invalid_request(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequest, match="cannot be read"):
        convert(tmp_path / "absent.txt")


@pytest.mark.parametrize("value", [bytearray(b"x"), 3, None])
def test_convert_takes_bytes_or_a_path_only(value: object) -> None:
    with pytest.raises(InvalidRequest, match="convert takes bytes or a path, not "):
        convert(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "name", "sniffed"),
    [
        (b"%PDF-1.7\x00", "report.pdf", "pdf"),
        (b"PK\x03\x04rest", "deck.pptx", "zip (docx, xlsx, pptx, ...)"),
        (b"\x01\x02caf\xe9", "menu.txt", "text/plain"),
        (b"\x01\x02caf\xe9", None, "binary data"),
        (b"a\x00b", "x.weird-ext", "binary data"),
    ],
)
def test_data_no_converter_claims_is_unsupported_naming_its_format(
    plugins: Register, data: bytes, name: str | None, sniffed: str
) -> None:
    plugins(converters=[Claims("zeta", b"ZETA"), Claims("alpha", b"ALPHA")])
    shown = f"`{name}`" if name else "the data"
    with pytest.raises(Unsupported) as caught:
        convert(data, name=name)
    assert caught.value.message == (
        f"{shown} is {sniffed}, which no document converter reads (installed: alpha, zeta)"
    )
    assert sniff_format(data, name) == sniffed


def test_converters_are_asked_by_priority_then_name_the_hosts_first(plugins: Register) -> None:
    late = Claims("a-late", b"X:")
    early = Claims("z-early", b"X:", priority=-1)
    plugins(converters=[late, early])
    assert convert(b"X:hello", name="h.x").body.text == "hello"
    assert convert(b"X:hello").title == "by z-early"
    assert late.asked == []

    host = Claims("host", b"X:", priority=100)
    assert convert(b"X:hello", converters=[host]).title == "by host"
    assert len(early.asked) == 2


def test_converters_get_the_mime_as_declared_never_one_guessed_from_the_name(
    plugins: Register,
) -> None:
    claims = Claims("c", b"C:")
    plugins(converters=[claims])
    convert(b"C:x", name="CMakeLists.txt")
    convert(b"C:x", name="notes.txt", mime="text/markdown")
    assert claims.asked == [("CMakeLists.txt", None), ("notes.txt", "text/markdown")]
    assert convert(b"plain", name="notes.txt").mime == "text/plain"  # the fallback still guesses


def test_the_callers_meta_wins_and_the_converters_rest_is_kept(plugins: Register) -> None:
    plugins(converters=[Claims("c", b"C:")])
    document = convert(b"C:body", name="f.c", meta=tm.MemoryMeta(tags=["t"], namespace="agent:a"))
    assert document.meta.language == "en"
    assert document.meta.workspace == "converter's"
    assert document.meta.tags == ("t",)
    assert str(document.meta.namespace) == "agent:a"
    assert convert(b"C:body", meta=tm.MemoryMeta(workspace="mine")).meta.workspace == "mine"


def test_a_converter_returning_no_document_is_unsupported(plugins: Register) -> None:
    class Wrong(Claims):
        def convert(self, data: bytes, name: str | None, mime: str | None) -> tm.Document:
            return "text"  # type: ignore[return-value]

    plugins(converters=[Wrong("wrong", b"W")])
    with pytest.raises(Unsupported, match="converter `wrong` did not return a Document"):
        convert(b"W")


# --- read ------------------------------------------------------------------------------


class Lines:
    """A reader: one learning per line of ``options["text"]``, or the page at ``options["url"]``."""

    name = "lines"

    def __init__(self) -> None:
        self.contexts: list[ReaderContext] = []

    def read(self, context: ReaderContext) -> Iterator[tm.StoreItem]:
        self.contexts.append(context)
        if "url" in context.options:
            token = context.credential.bearer()
            response = context.fetcher(
                context.options["url"], headers={"authorization": f"Bearer {token}"}
            )
            yield tm.Document(body=response.body.decode(), meta=tm.MemoryMeta(url=response.url))
            return
        for line in context.options["text"].splitlines():
            yield tm.Learning(text=line)


def test_a_reader_is_chosen_by_name_and_given_its_options(plugins: Register) -> None:
    reader = Lines()
    plugins(readers=[reader])
    items = list(read("lines", options={"text": "one\ntwo"}))
    assert items == [tm.Learning(text="one"), tm.Learning(text="two")]
    (context,) = reader.contexts
    assert context.options == {"text": "one\ntwo"}
    assert context.credential.is_none


def test_a_reader_fetches_through_the_fetcher_it_is_handed(plugins: Register) -> None:
    plugins(readers=[Lines()])
    asked: list[tuple[str, Mapping[str, str] | None]] = []

    def fetcher(url: str, *, headers: Mapping[str, str] | None = None) -> HttpResponse:
        asked.append((url, headers))
        return HttpResponse(url=url, status=200, body=b"the page")

    (item,) = read(
        "lines",
        options={"url": "https://example.com/a"},
        credential=tm.EngineCredential.static("tok-123"),
        fetcher=fetcher,
    )
    assert item == tm.Document(body="the page", meta=tm.MemoryMeta(url="https://example.com/a"))
    assert asked == [("https://example.com/a", {"authorization": "Bearer tok-123"})]


def test_without_a_fetcher_fetching_is_unsupported(plugins: Register) -> None:
    plugins(readers=[Lines()])
    with pytest.raises(Unsupported, match=r"fetches over http \(`example.com`\), and no fetcher"):
        list(read("lines", options={"url": "https://example.com/a"}))


class OffersFetcher:
    """A plugin offering the default http fetcher: answers every url with ``body``."""

    def __init__(self, body: bytes) -> None:
        self.body = body

    @hookimpl
    def tinymemory_http_fetcher(self) -> object:
        def fetch(url: str, *, headers: Mapping[str, str] | None = None) -> HttpResponse:
            return HttpResponse(url=url, status=200, body=self.body)

        return fetch


def test_a_plugins_fetcher_is_the_default_and_the_callers_wins(plugins: Register) -> None:
    plugins(readers=[Lines()])
    plugin_manager().register(OffersFetcher(b"from the plugin"))
    (item,) = read("lines", options={"url": "https://example.com/a"})
    assert item.body.text == "from the plugin"

    def own(url: str, *, headers: Mapping[str, str] | None = None) -> HttpResponse:
        return HttpResponse(url=url, status=200, body=b"the caller's")

    (item,) = read("lines", options={"url": "https://example.com/a"}, fetcher=own)
    assert item.body.text == "the caller's"


def test_two_plugins_offering_the_default_fetcher_is_a_config_error(plugins: Register) -> None:
    plugins(readers=[Lines()])
    plugin_manager().register(OffersFetcher(b"one"), name="first")
    plugin_manager().register(OffersFetcher(b"two"), name="second")
    with pytest.raises(ConfigError, match=r"two plugins offer the default http fetcher \(.*first"):
        read("lines", options={"url": "https://example.com/a"})


def test_a_fetcher_that_is_no_fetcher_is_a_config_error(plugins: Register) -> None:
    class Wrong:
        @hookimpl
        def tinymemory_http_fetcher(self) -> object:
            return "not callable"

    plugins(readers=[Lines()])
    plugin_manager().register(Wrong(), name="wrong")
    with pytest.raises(ConfigError, match="plugin `wrong` offered str as the http fetcher"):
        read("lines", options={"url": "https://example.com/a"})


def test_a_readers_skips_pass_through_read_and_sync_reports_them(plugins: Register) -> None:
    class Skipping:
        name = "skipping"

        def read(self, context: ReaderContext) -> Iterator[tm.StoreItem | SourceSkip]:
            yield tm.Learning(text="kept")
            yield SourceSkip(what="big.bin", reason="over the cap")
            yield tm.Learning(text="also kept")

    plugins(readers=[Skipping()])
    found = list(read("skipping"))
    assert found[1] == SourceSkip(what="big.bin", reason="over the cap")
    report = sync(ReferenceEngine(), read("skipping"))
    assert (report.stored, report.replayed) == (2, 0)
    assert [(skip.index, skip.reason) for skip in report.skipped] == [(1, "big.bin: over the cap")]


def test_an_unknown_reader_is_unsupported_listing_the_installed(plugins: Register) -> None:
    plugins(readers=[Lines()])
    with pytest.raises(Unsupported, match=r"no reader named `rss` \(installed: lines\)"):
        read("rss", options={})


@pytest.mark.parametrize(
    ("item", "what", "reason"),
    [
        (tm.Learning(text=" "), "Learning", "learning text must not be empty"),
        (
            tm.Document(body="", meta=tm.MemoryMeta(file_path="/pkg/py.typed")),
            "/pkg/py.typed",
            "document body must not be empty",
        ),
        (
            tm.Document(body=" \n", meta=tm.MemoryMeta(url="https://example.com/a")),
            "https://example.com/a",
            "document body must not be empty",
        ),
        (tm.Document(title="LICENSE", body=""), "LICENSE", "document body must not be empty"),
        ("not an item", "str", "Document, Conversation or Learning, not str"),
    ],
)
def test_an_item_the_contract_refuses_is_a_named_skip_and_the_read_goes_on(
    plugins: Register, item: object, what: str, reason: str
) -> None:
    """One refused item never ends a read: it is a skip naming it, and the items after it come."""

    class Mixed:
        name = "mixed"

        def read(self, context: ReaderContext) -> Iterator[object]:
            yield tm.Learning(text="before")
            yield item
            yield tm.Learning(text="after")

    plugins(readers=[Mixed()])
    before, skip, after = read("mixed")
    assert isinstance(skip, SourceSkip)
    assert skip.what == what
    assert reason in skip.reason
    assert (before.render_text(), after.render_text()) == ("before", "after")  # type: ignore[union-attr]


# --- sync ------------------------------------------------------------------------------


def test_sync_stores_in_batches_and_reports() -> None:
    engine = ReferenceEngine()
    engine.store(tm.Learning(text="item 0"))
    items: list[object] = [tm.Learning(text=f"item {number}") for number in range(5)]
    items.insert(2, tm.Learning(text=" "))
    items.insert(4, "not an item")
    reports: list[SyncReport] = []

    report = sync(engine, iter(items), batch=3, progress=reports.append)

    assert report.stored == 4
    assert report.replayed == 1
    assert [(skip.index, skip.reason) for skip in report.skipped] == [
        (2, "learning text must not be empty"),
        (4, "a stored item is a Document, Conversation or Learning, not str"),
    ]
    assert report.batches == 3
    assert [(seen.stored, seen.replayed, seen.batches) for seen in reports] == [
        (1, 1, 1),
        (3, 1, 2),
        (4, 1, 3),
    ]
    assert len(engine.list(tm.ListRequest()).items) == 5


@settings(max_examples=60, deadline=None)
@given(
    kinds=st.lists(st.sampled_from(["new", "held", "blank", "skip", "junk"]), max_size=40),
    batch=st.integers(min_value=1, max_value=7),
)
def test_sync_tells_every_input_once_in_order_with_what_became_of_it(
    kinds: list[str], batch: int
) -> None:
    """Any mix of new, held, refused and skipped inputs, in any batch size."""
    engine = ReferenceEngine()
    engine.store(tm.Learning(text="held"))
    made: dict[str, Callable[[int], object]] = {
        "new": lambda n: tm.Document(body=f"doc {n}", meta=tm.MemoryMeta(file_path=f"/f/{n}")),
        "held": lambda n: tm.Learning(text="held"),
        "blank": lambda n: tm.Document(title=f"t{n}", body=""),
        "skip": lambda n: SourceSkip(what=f"part {n}", reason="left out"),
        "junk": lambda n: n,
    }
    told: list[tm.SyncedItem] = []
    report = sync(engine, [made[kind](n) for n, kind in enumerate(kinds)], batch=batch,
                  on_item=told.append)  # fmt: skip
    assert [outcome.index for outcome in told] == list(range(len(kinds)))
    expected = {"new": "stored", "held": "replayed"}
    assert [outcome.status for outcome in told] == [expected.get(k, "skipped") for k in kinds]
    for n, (kind, outcome) in enumerate(zip(kinds, told, strict=True)):
        named = {"new": f"/f/{n}", "blank": f"t{n}", "skip": f"part {n}"}.get(kind)
        assert outcome.what == named
        assert (outcome.id is None) == (outcome.reason is not None) == (outcome.status == "skipped")
    assert (report.stored, report.replayed, len(report.skipped)) == (
        kinds.count("new"),
        kinds.count("held"),
        len(kinds) - kinds.count("new") - kinds.count("held"),
    )


def test_a_converter_failing_with_its_own_error_is_unsupported_naming_it(
    plugins: Register,
) -> None:
    class Broken(Claims):
        def convert(self, data: bytes, name: str | None, mime: str | None) -> tm.Document:
            raise KeyError("word/document.xml")

    plugins(converters=[Broken("broken", b"B")])
    with pytest.raises(
        Unsupported, match=r"converter `broken` failed on `x.docx`: KeyError: 'word/document.xml'"
    ):
        convert(b"B", name="x.docx")


@pytest.mark.parametrize("batch", [0, 101, True, 2.0])
def test_sync_refuses_a_batch_size_outside_the_store_many_bound(batch: object) -> None:
    with pytest.raises(InvalidRequest, match="`batch` must be from 1 to 100"):
        sync(ReferenceEngine(), [], batch=batch)  # type: ignore[arg-type]


def test_sync_of_nothing_is_an_empty_report() -> None:
    assert sync(ReferenceEngine(), []) == SyncReport()


# --- an installed plugin ---------------------------------------------------------------


def stored(module: ModuleType) -> list[tm.StoreItem]:
    return [exported.item for exported in module.STORED.export(tm.ListRequest(limit=500)).items]


def test_an_installed_plugins_converter_reader_and_scrubbers_work_in_declared_order(
    ingesting: ModuleType,
) -> None:
    document = convert(b"LOUD:the h*nter2 plan", name="plan.loud")
    assert document.title == "by upper"
    assert document.body.text == "upper read: the h*nter2 plan"

    items = list(read("lines", options={"text": "one h*nter2\ntwo"}))
    assert items == [
        tm.Learning(text="one h*nter2", evidence="said: one h*nter2"),
        tm.Learning(text="two", evidence="said: two"),
    ]

    report = sync(tm.build_engine(), [document, *items])
    assert (report.stored, report.replayed, report.skipped, report.batches) == (3, 0, (), 1)
    assert stored(ingesting) == [
        attrs.evolve(document, body="upper read: the [MASKED] plan"),
        tm.Learning(text="one [MASKED]", evidence="said: one [MASKED]"),
        items[1],
    ]


def test_store_file_converts_and_scrubs_through_the_installed_plugin(
    ingesting: ModuleType, tmp_path: Path
) -> None:
    file = tmp_path / "plan.loud"
    file.write_bytes(b"LOUD:rotate hunter2 and h*nter2")
    result = CliRunner().invoke(cli, ["store", "--file", str(file)])
    assert result.exit_code == 0, result.output
    (document,) = stored(ingesting)
    assert isinstance(document, tm.Document)
    assert (document.title, document.body.text) == (
        "by upper",
        "upper read: rotate [MASKED] and [MASKED]",
    )
    assert document.meta.file_path == str(file.resolve())
    assert result.output == f"stored {document.fingerprint()}\n"


def test_sync_stores_a_batch_once_its_first_item_has_waited_max_wait() -> None:
    """Time is the test's: a clock that moves one second per item read."""
    ticks = iter(range(1000))
    batches: list[int] = []

    class Counting(ReferenceEngine):
        def handle_store_many(self, items: list[tm.StoreItem]) -> list[tm.StoreReceipt]:
            batches.append(len(items))
            return super().handle_store_many(items)

    items = [tm.Learning(text=f"fact {n}") for n in range(7)]
    report = sync(Counting(), items, max_wait=2.0, clock=lambda: float(next(ticks)))
    assert report.stored == 7
    assert batches == [2, 2, 2, 1]  # each batch cut once its first item waited 2 s
    batches.clear()
    sync(Counting(), items, batch=3, max_wait=100.0, clock=lambda: 0.0)
    assert batches == [3, 3, 1]  # a clock that stands still: the batch size decides


@pytest.mark.parametrize("wait", [-1.0, True, float("nan")])
def test_sync_refuses_a_wait_that_is_no_number_of_seconds(wait: object) -> None:
    with pytest.raises(InvalidRequest, match="`max_wait` must be a number of seconds"):
        sync(ReferenceEngine(), [], max_wait=wait)  # type: ignore[arg-type]


def test_count_entries_asks_the_readers_cheap_look(plugins: Register) -> None:
    class Counted:
        name = "counted"

        def count(self, context: ReaderContext) -> int:
            return int(str(context.options["n"]))

        def read(self, context: ReaderContext) -> Iterator[tm.StoreItem]:
            return iter(())

    class Uncounted:
        name = "uncounted"

        def read(self, context: ReaderContext) -> Iterator[tm.StoreItem]:
            return iter(())

    plugins(readers=[Counted(), Uncounted()])
    assert tm.count_entries("counted", options={"n": 4}) == 4
    assert tm.count_entries("uncounted") is None
    with pytest.raises(Unsupported, match="no reader named `absent`"):
        tm.count_entries("absent")


def test_a_held_item_is_a_replay_without_being_stored_again() -> None:
    stored: list[int] = []

    class Counting(ReferenceEngine):
        def handle_store_many(self, items: list[tm.StoreItem]) -> list[tm.StoreReceipt]:
            stored.append(len(items))
            return super().handle_store_many(items)

    engine = Counting()
    items = [tm.Learning(text=f"fact {n}") for n in range(5)]
    first = sync(engine, items[:3])
    assert (first.stored, first.replayed, stored) == (3, 0, [3])
    outcomes: list[tm.SyncedItem] = []
    again = sync(engine, items, on_item=outcomes.append)
    assert (again.stored, again.replayed) == (2, 3)
    assert stored == [3, 2]  # only the two new ones went to store_many
    assert [(o.status, o.id) for o in outcomes] == [
        *(("replayed", item.fingerprint()) for item in items[:3]),
        *(("stored", item.fingerprint()) for item in items[3:]),
    ]
