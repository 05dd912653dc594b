"""Scrubbers on every store: ``MemoryConfig.build()`` wraps the engine in a ScrubbingEngine."""

from __future__ import annotations

from collections.abc import Callable

import attrs
import pytest

from tinymemory.errors import ConfigError, EngineError
from tinymemory.hookspecs import Scrubber, hookimpl
from tinymemory.items import Conversation, Document, Learning, Role, StoreItem, Turn
from tinymemory.meta import MemoryMeta
from tinymemory.operations import ListRequest
from tinymemory.plugins import plugin_manager, scrubbers
from tinymemory.reference import ReferenceEngine
from tinymemory.registry import MemoryConfig, build_engine
from tinymemory.scrubbing import ScrubbingEngine

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


def test_two_scrubbers_with_one_name_are_refused(plugins: Register) -> None:
    plugins(Replacer("twin", SECRET, REDACTED))
    plugins(Replacer("twin", REDACTED, "[GONE]"))
    with pytest.raises(ConfigError, match="scrubber `twin` is registered by two plugins"):
        MemoryConfig(engine="reference").build()


def test_a_plugin_offering_a_non_scrubber_is_refused(plugins: Register) -> None:
    plugins("not a scrubber")
    with pytest.raises(ConfigError, match="where a Scrubber belongs"):
        MemoryConfig(engine="reference").build()


def test_reads_pass_through_to_the_inner_engine(plugins: Register) -> None:
    plugins(Replacer("redactor", SECRET, REDACTED))
    engine = MemoryConfig(engine="reference").build()
    assert isinstance(engine, ScrubbingEngine)
    engine.inner.store(Learning(text="stored directly"))
    assert stored_texts(engine) == ["stored directly"]
    assert engine.health().serving
