"""The plugin as users meet it: found through its entry point, built from settings,
the default engine of MemoryConfig, and choosing embedders by name."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory._hookspecs import hookimpl
from tinymemory._plugin_manager import plugin_manager, reset_plugins
from tinymemory_sqlite import PATH_VARIABLE, SqliteEngine, default_path


@pytest.fixture(autouse=True)
def _fresh_plugins() -> Iterator[None]:
    reset_plugins()
    yield
    reset_plugins()


def test_the_engine_is_installed_and_the_default() -> None:
    assert "sqlite" in [descriptor.id for descriptor in tm.list_engines()]
    assert tm.MemoryConfig().engine == "sqlite"
    with tm.MemoryConfig().build() as engine:
        assert isinstance(engine, SqliteEngine)
        assert Path(engine.path) == default_path()
        engine.store(tm.Learning(text="kept in the data folder"))
    assert default_path().exists()


def test_the_path_comes_from_the_option_then_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(PATH_VARIABLE, str(tmp_path / "from-env.db"))
    with tm.build_engine("sqlite") as engine:
        assert isinstance(engine, SqliteEngine)
        assert engine.path == str(tmp_path / "from-env.db")
    config = tm.MemoryConfig.from_toml(f'[engines.sqlite]\npath = "{tmp_path / "chosen.db"}"\n')
    with config.build() as engine:
        assert isinstance(engine, SqliteEngine)
        assert engine.path == str(tmp_path / "chosen.db")
    assert default_path() == Path(str(tmp_path / "data")) / "tinymemory" / "memory.db"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"paht": "x.db"}, "engine `sqlite` has no option `paht`"),
        ({"path": ""}, "`path` must be a file path or `:memory:`"),
        ({"path": ":memory:", "embedder": "word2vec"}, "no embedder named `word2vec`"),
        ({"path": ":memory:", "synchronous": "off"}, "`synchronous` must be `normal` or `full`"),
    ],
)
def test_bad_settings_are_config_errors(options: dict[str, object], message: str) -> None:
    with pytest.raises(tm.ConfigError, match=message):
        tm.build_engine("sqlite", tm.EngineSettings(options=options))


class _Letters:
    """A tiny embedder: how often each of the first 16 letters appears."""

    name = "letters"
    dimensions = 16

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[float(text.lower().count(chr(97 + n))) for n in range(16)] for text in texts]


def test_an_installed_embedder_is_chosen_by_name(tmp_path: Path) -> None:
    class Plugin:
        @hookimpl
        def tinymemory_embedders(self) -> list[object]:
            return [_Letters()]

    plugin_manager().register(Plugin(), name="letters")
    settings = tm.EngineSettings(options={"path": str(tmp_path / "m.db"), "embedder": "letters"})
    with tm.build_engine("sqlite", settings) as engine:
        assert isinstance(engine, SqliteEngine)
        assert engine.embedder.name == "letters"
        stored = engine.store(tm.Learning(text="abba cab")).id
        engine.store(tm.Learning(text="ppp ooo"))
        hits = engine.fetch(tm.FetchRequest(query="baba", mode="vector")).hits
        assert [hit.id for hit in hits] == [stored]
    with pytest.raises(tm.ConfigError, match='open it with embedder = "letters"'):
        SqliteEngine(tmp_path / "m.db")


def test_the_hashing_embedder_is_offered_to_every_engine() -> None:
    from tinymemory._plugin_manager import embedders

    assert embedders()["hashing"].dimensions == 256
