"""Scrubbers on every store: ``build_engine`` wraps the engine in a ScrubbingEngine."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import attrs
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory._cli.main import cli
from tinymemory._errors import ConfigError, EngineError
from tinymemory._hookspecs import Scrubber, hookimpl
from tinymemory._ingest import sync
from tinymemory._items import Conversation, Document, DocumentBody, Learning, Role, StoreItem, Turn
from tinymemory._meta import MemoryMeta
from tinymemory._operations import ListRequest
from tinymemory._plugin_manager import plugin_manager, scrubbers
from tinymemory._registry import MemoryConfig, build_engine
from tinymemory._scrubbing import ScrubbingEngine, item_texts, map_texts
from tinymemory._wire import to_json
from tinymemory.conformance import strategies as tms
from tinymemory.reference import ReferenceEngine

SECRET = "secret-word"
REDACTED = "[REDACTED]"

Register = Callable[..., None]


def replace_text(item: StoreItem, old: str, new: str) -> StoreItem:
    if isinstance(item, Learning):
        return attrs.evolve(item, text=item.text.replace(old, new))
    if isinstance(item, Document):
        return attrs.evolve(item, body=item.body.content.replace(old, new))
    return attrs.evolve(
        item,
        turns=[attrs.evolve(turn, text=turn.text.replace(old, new)) for turn in item.turns],
    )


class Replacer:
    """A scrubber replacing one word with another, counting what it saw."""

    def __init__(self, name: str, old: str, new: str) -> None:
        self.name = name
        self.old = old
        self.new = new
        self.seen: list[StoreItem] = []

    def scrub(self, item: StoreItem) -> StoreItem:
        self.seen.append(item)
        return replace_text(item, self.old, self.new)


class ScrubberPlugin:
    def __init__(self, *offered: object) -> None:
        self.offered = list(offered)

    @hookimpl
    def tinymemory_scrubbers(self) -> list[object]:
        return self.offered


@pytest.fixture
def plugins(builtin_plugins: None) -> Register:
    """Registers scrubbers beside the built-ins (installed entry points are left out)."""

    def register(*offered: object) -> None:
        plugin_manager().register(ScrubberPlugin(*offered))

    return register


def stored_texts(engine: ReferenceEngine | ScrubbingEngine) -> list[str]:
    return [hit.text for hit in engine.list(ListRequest(limit=100)).items]


LEARNING = Learning(text=f"the password is {SECRET}", meta=MemoryMeta(folder="notes"))
DOCUMENT = Document(title="Ops", body=f"rotate {SECRET} monthly\nand log it")
CONVERSATION = Conversation(
    turns=[
        Turn(role=Role.USER, text=f"my {SECRET} is here"),
        Turn(role=Role.ASSISTANT, text="noted"),
    ]
)


def test_the_scrubber_is_listed(plugins: Register) -> None:
    redactor = Replacer("redactor", SECRET, REDACTED)
    plugins(redactor)
    assert isinstance(redactor, Scrubber)
    assert scrubbers() == [redactor]


@pytest.mark.parametrize(
    "item", [LEARNING, DOCUMENT, CONVERSATION], ids=["learning", "doc", "conv"]
)
def test_store_passes_the_item_through_the_scrubber(plugins: Register, item: StoreItem) -> None:
    redactor = Replacer("redactor", SECRET, REDACTED)
    plugins(redactor)
    engine = MemoryConfig(engine="reference").build()
    assert isinstance(engine, ScrubbingEngine)
    assert isinstance(engine.inner, ReferenceEngine)
    assert engine.descriptor.id == "reference"

    receipt = engine.store(item)

    scrubbed = replace_text(item, SECRET, REDACTED)
    assert scrubbed != item
    assert redactor.seen == [item]
    assert receipt.id == scrubbed.fingerprint()
    assert receipt.id != item.fingerprint()
    assert not receipt.replayed
    (text,) = stored_texts(engine)
    assert SECRET not in text
    assert REDACTED in text
    assert text == scrubbed.render_text()
    # The wrapped engine holds only the scrubbed item.
    assert stored_texts(engine.inner) == [text]
    assert engine.store(item).replayed


def test_store_many_passes_every_item_through_the_scrubber(plugins: Register) -> None:
    redactor = Replacer("redactor", SECRET, REDACTED)
    plugins(redactor)
    engine = MemoryConfig(engine="reference").build()
    clean = Learning(text="nothing to hide")
    items = [LEARNING, DOCUMENT, CONVERSATION, clean]

    receipts = engine.store_many(items)

    scrubbed = [replace_text(item, SECRET, REDACTED) for item in items]
    assert redactor.seen == items
    assert [receipt.id for receipt in receipts] == [item.fingerprint() for item in scrubbed]
    assert receipts[3].id == clean.fingerprint()
    texts = stored_texts(engine)
    assert texts == [item.render_text() for item in scrubbed]
    assert all(SECRET not in text for text in texts)
    assert sum(REDACTED in text for text in texts) == 3


def test_items_that_scrub_to_one_item_are_one_item(plugins: Register) -> None:
    plugins(Replacer("redactor", SECRET, REDACTED))
    engine = MemoryConfig(engine="reference").build()
    receipts = engine.store_many([Learning(text=SECRET), Learning(text=REDACTED)])
    assert receipts[0].id == receipts[1].id
    assert [receipt.replayed for receipt in receipts] == [False, True]
    assert stored_texts(engine) == [REDACTED]


def test_without_scrubbers_build_returns_the_bare_engine(plugins: Register) -> None:
    assert scrubbers() == []
    engine = MemoryConfig(engine="reference").build()
    assert type(engine) is ReferenceEngine
    engine.store(LEARNING)
    assert stored_texts(engine) == [LEARNING.text]


def test_build_engine_scrubs_unless_told_not_to(plugins: Register) -> None:
    plugins(Replacer("redactor", SECRET, REDACTED))
    engine = build_engine("reference")
    assert isinstance(engine, ScrubbingEngine)
    engine.store(LEARNING)
    assert stored_texts(engine) == [f"the password is {REDACTED}"]
    bare = build_engine("reference", scrub=False)
    assert type(bare) is ReferenceEngine
    bare.store(LEARNING)
    assert stored_texts(bare) == [LEARNING.text]


class Broken:
    name = "broken"

    def scrub(self, item: StoreItem) -> object:
        return item.render_text() if "bad" in item.render_text() else item


def test_a_scrubber_returning_a_non_item_is_an_engine_error(plugins: Register) -> None:
    plugins(Broken())
    engine = MemoryConfig(engine="reference").build()
    with pytest.raises(EngineError, match="scrubber `broken` did not return an item"):
        engine.store(Learning(text="a bad thing"))
    assert stored_texts(engine) == []


def test_a_bad_scrub_in_a_batch_stores_nothing(plugins: Register) -> None:
    plugins(Broken())
    engine = MemoryConfig(engine="reference").build()
    with pytest.raises(EngineError, match="broken"):
        engine.store_many([Learning(text="fine"), Learning(text="a bad thing")])
    assert stored_texts(engine) == []
    engine.store_many([Learning(text="fine")])
    assert stored_texts(engine) == ["fine"]


def test_scrubbers_of_separate_plugins_run_in_name_order(plugins: Register) -> None:
    first = Replacer("first", SECRET, REDACTED)
    second = Replacer("second", REDACTED, "[GONE]")
    plugins(second)
    plugins(first)
    assert [scrubber.name for scrubber in scrubbers()] == ["first", "second"]
    engine = MemoryConfig(engine="reference").build()
    engine.store(Learning(text=f"a {SECRET}"))
    # Had "second" run first, it would have found nothing to replace.
    assert stored_texts(engine) == ["a [GONE]"]
    assert second.seen == [Learning(text=f"a {REDACTED}")]


def test_a_declared_priority_runs_first_whatever_the_name(plugins: Register) -> None:
    late = Replacer("a-late", REDACTED, "[GONE]")
    early = Replacer("z-early", SECRET, REDACTED)
    early.priority = -10  # type: ignore[attr-defined]
    plugins(late, early)
    engine = MemoryConfig(engine="reference").build()
    assert isinstance(engine, ScrubbingEngine)
    assert [scrubber.name for scrubber in engine.scrubbers] == ["z-early", "a-late"]
    engine.store(Learning(text=f"a {SECRET}"))
    assert stored_texts(engine) == ["a [GONE]"]
    assert repr(engine) == "<ScrubbingEngine 'reference' scrubbed by z-early, a-late>"


def test_ties_of_priority_run_by_name_not_list_order(plugins: Register) -> None:
    plugins(Replacer("second", REDACTED, "[GONE]"), Replacer("first", SECRET, REDACTED))
    assert [scrubber.name for scrubber in scrubbers()] == ["first", "second"]


def test_a_priority_that_is_no_integer_is_a_config_error(plugins: Register) -> None:
    odd = Replacer("odd", SECRET, REDACTED)
    odd.priority = "high"  # type: ignore[attr-defined]
    plugins(odd)
    with pytest.raises(ConfigError, match="`odd`: priority must be an integer"):
        scrubbers()


def test_two_scrubbers_with_one_name_are_refused_at_the_first_store(plugins: Register) -> None:
    plugins(Replacer("twin", SECRET, REDACTED))
    plugins(Replacer("twin", REDACTED, "[GONE]"))
    engine = MemoryConfig(engine="reference").build()
    for store in (lambda: engine.store(LEARNING), lambda: engine.store_many([LEARNING])):
        with pytest.raises(ConfigError, match="scrubber `twin` is registered by two plugins"):
            store()
    assert stored_texts(engine) == []


def test_a_plugin_offering_a_non_scrubber_is_refused_at_the_first_store(
    plugins: Register,
) -> None:
    plugins("not a scrubber")
    engine = MemoryConfig(engine="reference").build()
    with pytest.raises(ConfigError, match="where a Scrubber belongs"):
        engine.store(LEARNING)
    assert stored_texts(engine) == []


def test_reads_pass_through_to_the_inner_engine(plugins: Register) -> None:
    plugins(Replacer("redactor", SECRET, REDACTED))
    engine = MemoryConfig(engine="reference").build()
    assert isinstance(engine, ScrubbingEngine)
    engine.inner.store(Learning(text="stored directly"))
    assert stored_texts(engine) == ["stored directly"]
    assert engine.health().serving


# --- every text field, every store path ---------------------------------------------------


def test_map_texts_changes_every_text_field_of_every_kind() -> None:
    def loud(text: str) -> str:
        return text.upper()

    url = tm.MemoryMeta(url="https://example.com/a", workspace="ws", tags=["t"])
    document = Document(title="plan", body="ship it", mime="text/plain", meta=url)
    assert map_texts(document, loud) == Document(
        title="PLAN",
        body="SHIP IT",
        mime="text/plain",
        meta=attrs.evolve(url, url="HTTPS://EXAMPLE.COM/A"),
    )
    linked = Document(body=DocumentBody(uri="https://example.com/doc"))
    assert map_texts(linked, loud).body == DocumentBody(uri="HTTPS://EXAMPLE.COM/DOC")
    assert map_texts(Document(body="x"), loud) == Document(body="X")
    conversation = Conversation(
        turns=[Turn(role=Role.USER, text="hi"), Turn(role=Role.ASSISTANT, text="hello")]
    )
    assert map_texts(conversation, loud) == Conversation(
        turns=[Turn(role=Role.USER, text="HI"), Turn(role=Role.ASSISTANT, text="HELLO")]
    )
    learning = Learning(text="tabs", evidence="said so", meta=url)
    assert map_texts(learning, loud) == Learning(
        text="TABS", evidence="SAID SO", meta=attrs.evolve(url, url="HTTPS://EXAMPLE.COM/A")
    )
    assert map_texts(Learning(text="tabs"), loud) == Learning(text="TABS")


@given(st.one_of(tms.store_items(), st.builds(Document, body=tms.document_bodies())))
def test_item_texts_are_the_texts_map_texts_changes_in_its_order(item: StoreItem) -> None:
    seen: list[str] = []

    def collect(text: str) -> str:
        seen.append(text)
        return text

    map_texts(item, collect)
    assert item_texts(item) == seen


PLAIN = "hunter2"
SPELLED = "h*nter2"
LEAKY_META = tm.MemoryMeta(url=f"https://example.com/?key={PLAIN}")
#: An item of every kind with the secret in every text field it has (an engine
#: refuses a document whose body is an unresolved uri, so none is stored here).
LEAKY_ITEMS: list[StoreItem] = [
    Document(title=f"title {PLAIN}", body=f"body {SPELLED}", meta=LEAKY_META),
    Conversation(
        turns=[Turn(role=Role.USER, text=f"my {PLAIN}"), Turn(role=Role.TOOL, text=SPELLED)],
        meta=LEAKY_META,
    ),
    Learning(text=f"text {PLAIN}", evidence=f"evidence {SPELLED}", meta=LEAKY_META),
]
#: How many text fields of each item hold the secret.
LEAKY_FIELDS = [3, 3, 3]


def store_directly(items: list[StoreItem]) -> None:
    engine = tm.build_engine()  # no id: the configured engine
    for item in items:
        engine.store(item)


def store_many_by_id(items: list[StoreItem]) -> None:
    tm.build_engine("shared").store_many(items)


def store_through_the_config(items: list[StoreItem]) -> None:
    with tm.MemoryConfig.load().build() as engine:
        engine.store_many(items)


def store_by_sync(items: list[StoreItem]) -> None:
    assert sync(tm.build_engine(), items).stored == len(items)


def store_by_cli_import(items: list[StoreItem]) -> None:
    lines = "".join(to_json(item) + "\n" for item in items)
    result = CliRunner().invoke(cli, ["import", "-"], input=lines)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    "store",
    [
        store_directly,
        store_many_by_id,
        store_through_the_config,
        store_by_sync,
        store_by_cli_import,
    ],
)
def test_every_text_field_of_every_kind_is_scrubbed(
    ingesting: ModuleType, store: Callable[[list[StoreItem]], None]
) -> None:
    store(LEAKY_ITEMS)
    held = [exported.item for exported in ingesting.STORED.export(ListRequest(limit=50)).items]
    assert len(held) == len(LEAKY_ITEMS)
    for item in held:
        written = to_json(item)
        assert PLAIN not in written
        assert SPELLED not in written
    by_kind = {to_json(map_texts(item, scrubbed)): item for item in LEAKY_ITEMS}
    for item in held:
        original = by_kind[to_json(item)]
        assert to_json(item).count("[MASKED]") == LEAKY_FIELDS[LEAKY_ITEMS.index(original)]


def scrubbed(text: str) -> str:
    return text.replace(SPELLED, PLAIN).replace(PLAIN, "[MASKED]")


def test_the_memory_tools_store_only_scrubbed_text(ingesting: ModuleType) -> None:
    tools = tm.MemoryTools(tm.build_engine())
    tools.call("memory_store", {"learning": {"text": f"a {PLAIN}", "evidence": f"e {SPELLED}"}})
    tools.call("memory_store", {"document": {"title": f"t {SPELLED}", "text": f"b {PLAIN}"}})
    tools.call(
        "memory_store",
        {"conversation": {"turns": [{"role": "user", "text": f"c {PLAIN}"}]}},
    )
    held = [exported.item for exported in ingesting.STORED.export(ListRequest()).items]
    assert sorted(to_json(item).count("[MASKED]") for item in held) == [1, 2, 2]
    assert all(PLAIN not in to_json(item) and SPELLED not in to_json(item) for item in held)


@pytest.mark.parametrize(
    ("arguments", "kind", "fields"),
    [
        ([f"a {SPELLED}"], Learning, 1),
        (["--document", "--title", f"t {PLAIN}", f"b {SPELLED}"], Document, 2),
    ],
)
def test_cli_store_stores_only_scrubbed_text(
    ingesting: ModuleType, arguments: list[str], kind: type, fields: int
) -> None:
    result = CliRunner().invoke(cli, ["store", *arguments])
    assert result.exit_code == 0, result.output
    (item,) = [exported.item for exported in ingesting.STORED.export(ListRequest()).items]
    assert isinstance(item, kind)
    assert PLAIN not in to_json(item)
    assert SPELLED not in to_json(item)
    assert to_json(item).count("[MASKED]") == fields
