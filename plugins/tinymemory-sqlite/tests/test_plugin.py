"""The plugin as users meet it: found through its entry point, built from settings,
the default engine of MemoryConfig, and choosing embedders by name."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.plugin import embedders, hookimpl
from tinymemory.testing import BUILTIN_PLUGINS, only_plugins, registered
from tinymemory_sqlite import PATH_VARIABLE, SqliteEngine, default_path


@pytest.fixture(autouse=True)
def _only_this_plugin() -> Iterator[None]:
    # Only this plugin and the built-ins load: with a scrubber installed beside it (the
    # safety plugin), the engine built would be a scrubbing wrapper round the SqliteEngine.
    with only_plugins("sqlite", *BUILTIN_PLUGINS):
        yield


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

    settings = tm.EngineSettings(options={"path": str(tmp_path / "m.db"), "embedder": "letters"})
    with registered(Plugin(), name="letters"), tm.build_engine("sqlite", settings) as engine:
        assert isinstance(engine, SqliteEngine)
        assert engine.embedder.name == "letters"
        stored = engine.store(tm.Learning(text="abba cab")).id
        engine.store(tm.Learning(text="ppp ooo"))
        hits = engine.fetch(tm.FetchRequest(query="baba", mode="vector")).hits
        assert [hit.id for hit in hits] == [stored]
    with (
        SqliteEngine(tmp_path / "m.db") as other,
        pytest.raises(tm.ConfigError, match='open it with embedder = "letters"'),
    ):
        other.fetch(tm.FetchRequest(query="baba", mode="vector"))


def test_the_cores_hashing_embedder_is_offered_to_every_engine() -> None:
    assert embedders()["hashing"].dimensions == 256


#: Runs the CLI in a fresh interpreter and reports, at exit, which modules it loaded.
LOADED_AT_EXIT = """
import atexit, sys
atexit.register(lambda: print(
    "LOADED", "numpy" in sys.modules, "tinymemory_sqlite.plugin" in sys.modules, file=sys.stderr
))
sys.argv = ["tinymemory", *sys.argv[1:]]
from importlib.metadata import entry_points
(script,) = entry_points(group="console_scripts", name="tinymemory")
script.load()()
"""


@pytest.mark.parametrize("command", [["--help"], ["engines"], ["plugins"]])
def test_listing_commands_load_the_plugin_but_not_numpy(command: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    result = subprocess.run(
        [sys.executable, "-c", LOADED_AT_EXIT, *command],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "sqlite" in result.stdout
    if command == ["--help"]:
        # Its command is listed from the entry points it declares: nothing is imported.
        assert "LOADED False False" in result.stderr
    else:
        # The plugin is loaded (its engine is listed), numpy is not.
        assert "LOADED False True" in result.stderr


#: Opens the file of argv[1], which holds an item, and reads it by keyword and by listing.
KEYWORD_READ = """
import sys
import tinymemory as tm
from tinymemory_sqlite import SqliteEngine
with SqliteEngine(sys.argv[1]) as engine:
    hits = engine.fetch(tm.FetchRequest(query="lantern", mode="keyword")).hits
    listed = engine.list(tm.ListRequest()).items
print(len(hits), len(listed), "numpy" in sys.modules)
"""


def test_a_process_reading_by_keyword_loads_no_numpy(db_path: Path) -> None:
    with SqliteEngine(db_path) as engine:
        engine.store(tm.Learning(text="a quartz lantern"))
    result = subprocess.run(
        [sys.executable, "-c", KEYWORD_READ, str(db_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1", "1", "False"]
