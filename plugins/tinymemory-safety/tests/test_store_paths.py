"""With the plugin installed, every road into memory stores only scrubbed items.

Each test drives one path (store, store_many, the configuration, the memory
tools, sync, ``tinymemory store``, ``tinymemory import``) over the engine
``shared``, then reads what the engine really holds. Legacy import stores
through ``sync``/``store_many`` of a built engine, so the sync test covers it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from shared_engine import SharedEnginePlugin

import tinymemory as tm
from tinymemory.plugin import to_json
from tinymemory.testing import Cli
from tinymemory_safety import SafetyScrubber

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
CARD = "4111 1111 1111 1111"
SECRETS = (TOKEN, CARD, "hunter2pass")
#: Metadata that looks like a secret but is an id filters match on: it must stay.
META = tm.MemoryMeta(
    url="https://user:hunter2pass@example.com/page",
    workspace="ws",
    repo="acme/app",
    commit="9fceb02d0ae598e95dc970b74767f19372d61af8",
    thread_id="4111111111111111",
    tags=("ghp_tag",),
)
#: An item of each kind with a secret in every text field it has.
ITEMS: list[tm.StoreItem] = [
    tm.Document(title=f"deploy {TOKEN}", body=f"pay with {CARD}\nthen stop", meta=META),
    tm.Conversation(
        turns=[
            tm.Turn(role=tm.Role.USER, text=f"my token is {TOKEN}"),
            tm.Turn(role=tm.Role.ASSISTANT, text=f"noted card {CARD}"),
        ],
        meta=META,
    ),
    tm.Learning(text=f"uses {TOKEN}", evidence=f"said {CARD}", meta=META),
]
#: How many redactions each item's fields hold (the url's password included).
REDACTIONS = [3, 3, 3]


def assert_only_scrubbed(shared: SharedEnginePlugin, count: int) -> None:
    held = shared.held()
    assert len(held) == count
    for item in held:
        written = to_json(item)
        assert not any(secret in written for secret in SECRETS), written
        assert written.count("[REDACTED") >= 2
        # Only the texts change: every other field of meta is as it was.
        assert item.meta.url == "https://user:[REDACTED]@example.com/page"
        assert item.meta.thread_id == META.thread_id
        assert item.meta.commit == META.commit
        assert item.meta.tags == META.tags


def store_one_by_one(items: list[tm.StoreItem], cli: Cli) -> None:
    engine = tm.build_engine()
    for item in items:
        engine.store(item)


def store_many(items: list[tm.StoreItem], cli: Cli) -> None:
    tm.build_engine("shared").store_many(items)


def store_through_the_configuration(items: list[tm.StoreItem], cli: Cli) -> None:
    with tm.MemoryConfig.load().build() as engine:
        engine.store_many(items)


def store_by_sync(items: list[tm.StoreItem], cli: Cli) -> None:
    assert tm.sync(tm.build_engine(), items).stored == len(items)


def store_by_cli_import(items: list[tm.StoreItem], cli: Cli) -> None:
    lines = "".join(to_json(item) + "\n" for item in items)
    result = cli.invoke("import", "-", input=lines)
    assert result.exit_code == 0, result.stderr


@pytest.mark.parametrize(
    "store",
    [
        store_one_by_one,
        store_many,
        store_through_the_configuration,
        store_by_sync,
        store_by_cli_import,
    ],
)
def test_every_store_path_stores_only_scrubbed_items(
    installed: SharedEnginePlugin, cli: Cli, store: Callable[[list[tm.StoreItem], Cli], None]
) -> None:
    store(ITEMS, cli)
    assert_only_scrubbed(installed, len(ITEMS))
    expected = [SafetyScrubber().scrub(item) for item in ITEMS]
    assert sorted(map(to_json, installed.held())) == sorted(map(to_json, expected))


def test_the_built_engine_carries_the_safety_scrubber(installed: SharedEnginePlugin) -> None:
    engine = tm.build_engine()
    assert isinstance(engine, tm.ScrubbingEngine)
    (scrubber,) = engine.scrubbers
    assert isinstance(scrubber, SafetyScrubber)
    engine.store_many(ITEMS)
    assert scrubber.totals.total == sum(REDACTIONS)
    assert scrubber.totals.by_class == {"credit_card": 3, "github": 3, "url_password": 3}


def test_the_memory_tools_store_only_scrubbed_items(installed: SharedEnginePlugin) -> None:
    tools = tm.MemoryTools(tm.build_engine())
    tools.call("memory_store", {"learning": {"text": f"a {TOKEN}", "evidence": f"e {CARD}"}})
    tools.call("memory_store", {"document": {"title": f"t {TOKEN}", "text": f"b {CARD}"}})
    tools.call(
        "memory_store", {"conversation": {"turns": [{"role": "user", "text": f"c {TOKEN}"}]}}
    )
    held = installed.held()
    assert len(held) == 3
    for item in held:
        assert not any(secret in to_json(item) for secret in SECRETS)
    assert sorted(to_json(item).count("[REDACTED") for item in held) == [1, 2, 2]


@pytest.mark.parametrize(
    ("arguments", "kind", "tokens"),
    [
        ([f"remember {TOKEN}"], tm.Learning, 1),
        (["--document", "--title", f"t {TOKEN}", f"pay {CARD}"], tm.Document, 2),
    ],
)
def test_cli_store_stores_only_scrubbed_items(
    installed: SharedEnginePlugin, cli: Cli, arguments: list[str], kind: type, tokens: int
) -> None:
    result = cli.invoke("store", *arguments)
    assert result.exit_code == 0, result.stderr
    (item,) = installed.held()
    assert isinstance(item, kind)
    assert not any(secret in to_json(item) for secret in SECRETS)
    assert to_json(item).count("[REDACTED") == tokens


def test_storing_the_same_unscrubbed_item_twice_is_a_replay(
    installed: SharedEnginePlugin,
) -> None:
    engine = tm.build_engine()
    first = engine.store(ITEMS[0])
    second = engine.store(ITEMS[0])
    assert not first.replayed
    assert second.replayed
    assert first.id == second.id == SafetyScrubber().scrub(ITEMS[0]).fingerprint()
    assert len(installed.held()) == 1


def test_scrub_false_hands_out_the_bare_engine(installed: SharedEnginePlugin) -> None:
    bare = tm.build_engine("shared", scrub=False)
    assert not isinstance(bare, tm.ScrubbingEngine)
    bare.store(ITEMS[2])
    (item,) = installed.held()
    assert TOKEN in to_json(item)


def test_the_environment_chooses_the_installed_policy(
    installed: SharedEnginePlugin, monkeypatch: pytest.MonkeyPatch
) -> None:
    bare = "4000056655665556"  # Luhn-valid, a real Visa IIN at 16 digits
    odd = "1000000000000008"  # Luhn-valid, no network, no card word near it
    learning = tm.Learning(text=f"ids {bare} and {odd}, write ops@example.com")
    monkeypatch.setenv("TINYMEMORY_SAFETY_BARE_CARD", "corroborated")
    monkeypatch.setenv("TINYMEMORY_SAFETY_EMAILS", "keep")
    tm.build_engine().store(learning)
    (item,) = installed.held()
    assert isinstance(item, tm.Learning)
    assert item.text == f"ids [REDACTED_PII_CREDIT_CARD] and {odd}, write ops@example.com"


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("TINYMEMORY_SAFETY_BARE_CARD", "sometimes", "TINYMEMORY_SAFETY_BARE_CARD"),
        ("TINYMEMORY_SAFETY_EMAILS", "maybe", "TINYMEMORY_SAFETY_EMAILS must be"),
    ],
)
def test_a_bad_policy_in_the_environment_is_a_config_error_before_any_store(
    installed: SharedEnginePlugin,
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    message: str,
) -> None:
    monkeypatch.setenv(variable, value)
    # The scrubbers (and so the policy) load with the engine's first store, not with the build.
    engine = tm.build_engine()
    with pytest.raises(tm.ConfigError, match=message):
        engine.store(tm.Learning(text="hello"))
    result = cli.invoke("store", "hello")
    assert result.exit_code != 0
    assert installed.held() == []


def test_the_configuration_file_chooses_the_installed_policy(
    installed: SharedEnginePlugin, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "safety.toml"
    config.write_text(
        'engine = "shared"\n\n[plugins.safety]\nredact_emails = false\ndefault_region = "GB"\n'
        "[[plugins.safety.patterns]]\nname = \"employee_id\"\npattern = 'EMP-\\d{6}'\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(config))
    tm.build_engine().store(tm.Learning(text="EMP-123456 at ops@example.com, 020 7946 0958"))
    (item,) = installed.held()
    assert isinstance(item, tm.Learning)
    assert item.text == "[REDACTED] at ops@example.com, [REDACTED_PII_PHONE]"
    # The environment overrides the file.
    monkeypatch.setenv("TINYMEMORY_SAFETY_EMAILS", "redact")
    tm.build_engine().store(tm.Learning(text="write ops@example.com"))
    assert any(
        isinstance(held, tm.Learning) and held.text == "write [REDACTED_PII_EMAIL]"
        for held in installed.held()
    )


def test_a_bad_key_in_the_plugins_table_is_a_config_error_naming_it_before_any_store(
    installed: SharedEnginePlugin, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "safety.toml"
    config.write_text('engine = "shared"\n[plugins.safety]\nredact_email = false\n', "utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(config))
    engine = tm.build_engine()  # the scrubbers load with the first store
    with pytest.raises(tm.ConfigError, match="unknown key `redact_email`"):
        engine.store(tm.Learning(text="hello"))
    result = cli.invoke("store", "hello")
    assert result.exit_code != 0
    assert installed.held() == []
