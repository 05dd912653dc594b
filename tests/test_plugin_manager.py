"""The plugin manager: built-ins, real entry points, broken plugins and lazy loading."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from distributions import make_distribution

import tinymemory
from tinymemory._cli.main import cli, main
from tinymemory._engine import EngineDescriptor
from tinymemory._errors import ConfigError
from tinymemory._hookspecs import EngineFactory, hookimpl
from tinymemory._plugin_manager import (
    BUILTIN_PLUGINS,
    PluginInfo,
    embedders,
    list_plugins,
    plugin_manager,
    reset_plugins,
    scrubbers,
)
from tinymemory._registry import MemoryConfig, build_engine, list_engines
from tinymemory._scrubbing import ScrubbingEngine
from tinymemory._wire import to_data
from tinymemory.plugin import plugin_settings
from tinymemory.reference import ReferenceEngine

FAKE_MODULE = '''
"""A third-party plugin, as a distribution would ship it."""

from tinymemory._engine import EngineDescriptor
from tinymemory._hookspecs import EngineFactory, hookimpl
from tinymemory.reference import ReferenceEngine

DESCRIPTOR = EngineDescriptor(
    id="fake",
    label="Fake engine",
    description="An engine from an installed distribution.",
    fetch_modes=["keyword"],
)


class Shout:
    name = "shout"

    def scrub(self, item):
        return item


class Hasher:
    name = "hasher"
    dimensions = 2

    def embed(self, texts):
        return [[float(len(text)), 1.0] for text in texts]


@hookimpl
def tinymemory_engines():
    return [EngineFactory(descriptor=DESCRIPTOR, build=build)]


def build(settings, credential):
    return ReferenceEngine()


@hookimpl
def tinymemory_scrubbers():
    return [Shout()]


@hookimpl
def tinymemory_embedders():
    return [Hasher()]
'''


@pytest.fixture(autouse=True)
def fresh_plugins() -> Iterator[None]:
    reset_plugins()
    yield
    reset_plugins()


def builtin_info() -> PluginInfo:
    (info,) = [info for info in list_plugins() if info.name == "tinymemory.reference"]
    return info


# --- built-ins ----------------------------------------------------------------


def test_the_builtin_is_listed_with_the_core_distribution() -> None:
    info = builtin_info()
    assert info == PluginInfo(
        name="tinymemory.reference",
        distribution="tinymemory",
        version=tinymemory.__version__,
        hooks=("tinymemory_engines",),
        builtin=True,
    )
    assert list(info.hooks) == ["tinymemory_engines"]
    assert info.error is None
    assert BUILTIN_PLUGINS == ("tinymemory.reference", "tinymemory.hashing", "tinymemory.answerers")
    builtins = [found for found in list_plugins() if found.builtin]
    assert builtins == list_plugins()[:3]
    assert [found.name for found in builtins] == [
        "tinymemory.answerers",
        "tinymemory.hashing",
        "tinymemory.reference",
    ]
    assert builtins[0].hooks == ("tinymemory_answerers",)
    assert builtins[1].hooks == ("tinymemory_embedders",)


def test_plugin_info_has_a_json_form() -> None:
    assert to_data(builtin_info()) == {
        "name": "tinymemory.reference",
        "distribution": "tinymemory",
        "version": tinymemory.__version__,
        "hooks": ["tinymemory_engines"],
        "builtin": True,
    }


def test_a_plugin_registered_at_run_time_has_no_distribution() -> None:
    class Local:
        @hookimpl
        def tinymemory_scrubbers(self) -> list[object]:
            return []

    plugin_manager().register(Local(), name="local")
    (info,) = [info for info in list_plugins() if info.name == "local"]
    assert info == PluginInfo(
        name="local",
        distribution=None,
        version=None,
        hooks=("tinymemory_scrubbers",),
        builtin=False,
    )
    names = [info.name for info in list_plugins()]
    assert names.index("tinymemory.reference") < names.index("local")


def test_reset_forgets_plugins_registered_at_run_time() -> None:
    class Extra:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            descriptor = EngineDescriptor(id="extra", label="Extra", description="extra")
            return [EngineFactory(descriptor=descriptor, build=lambda s, c: ReferenceEngine())]

    manager = plugin_manager()
    assert plugin_manager() is manager
    manager.register(Extra())
    assert "extra" in [engine.id for engine in list_engines()]
    reset_plugins()
    assert plugin_manager() is not manager
    assert "extra" not in [engine.id for engine in list_engines()]


# --- a real entry-point plugin --------------------------------------------------


def test_an_installed_distribution_is_found_through_its_entry_point(site: Path) -> None:
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    reset_plugins()
    assert "fakeplug_mod" not in sys.modules

    engines = {engine.id: engine for engine in list_engines()}

    assert "fakeplug_mod" in sys.modules
    assert engines["fake"].label == "Fake engine"
    assert list_engines()[0].id == "reference"
    assert isinstance(build_engine("fake", scrub=False), ReferenceEngine)
    scrubbed = build_engine("fake")
    assert isinstance(scrubbed, ScrubbingEngine)
    assert isinstance(scrubbed.inner, ReferenceEngine)
    # Other installed distributions may add their own; these are the fake's.
    assert "shout" in [scrubber.name for scrubber in scrubbers()]
    assert isinstance(embedders()["hasher"].embed(["abc"]), list)
    assert isinstance(MemoryConfig(engine="fake").build(), ScrubbingEngine)

    (info,) = [info for info in list_plugins() if info.name == "fake"]
    assert info == PluginInfo(
        name="fake",
        distribution="fakeplug",
        version="1.2.3",
        hooks=("tinymemory_embedders", "tinymemory_engines", "tinymemory_scrubbers"),
        builtin=False,
    )
    assert [info.name for info in list_plugins()[:3]] == [
        "tinymemory.answerers",
        "tinymemory.hashing",
        "tinymemory.reference",
    ]


def test_the_cli_lists_an_installed_plugin(site: Path) -> None:
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    reset_plugins()
    result = CliRunner().invoke(cli, ["plugins", "--json"])
    assert result.exit_code == 0, result.output
    listed = {info["name"]: info for info in json.loads(result.output)}
    assert listed["fake"]["distribution"] == "fakeplug"
    assert listed["fake"]["version"] == "1.2.3"
    result = CliRunner().invoke(cli, ["engines"])
    assert any(line.split()[:1] == ["fake"] for line in result.output.splitlines())


def test_a_plugin_object_inside_a_module_can_be_the_entry_point(site: Path) -> None:
    source = textwrap.dedent(
        """
        from tinymemory._hookspecs import hookimpl


        class Plugin:
            @hookimpl
            def tinymemory_scrubbers(self):
                return []


        plugin = Plugin()
        """
    )
    make_distribution(
        site, "objplug", "0.4", {"objects": "objplug_mod:plugin"}, {"objplug_mod": source}
    )
    reset_plugins()
    (info,) = [info for info in list_plugins() if info.name == "objects"]
    assert (info.distribution, info.version, info.hooks) == (
        "objplug",
        "0.4",
        ("tinymemory_scrubbers",),
    )


# --- broken plugins -------------------------------------------------------------


def test_a_broken_plugin_is_left_out_with_a_warning(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    make_distribution(
        site,
        "brokenplug",
        "0.1",
        {"broken": "brokenplug_mod"},
        {"brokenplug_mod": "raise RuntimeError('boom at import')\n"},
    )
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    reset_plugins()

    with pytest.warns(RuntimeWarning, match="plugin `broken` failed to load.*boom at import"):
        engines = [engine.id for engine in list_engines()]

    assert "reference" in engines
    assert "fake" in engines
    assert isinstance(build_engine("reference", scrub=False), ReferenceEngine)
    assert "brokenplug_mod" not in sys.modules
    infos = {info.name: info for info in list_plugins()}
    assert infos["broken"] == PluginInfo(  # its distribution says what to reinstall
        name="broken",
        distribution="brokenplug",
        version="0.1",
        hooks=(),
        builtin=False,
        error="RuntimeError: boom at import",
    )
    assert list_plugins()[-1].name == "broken"
    assert infos["fake"].error is None
    assert infos["tinymemory.reference"].error is None

    result = CliRunner().invoke(cli, ["plugins"])
    assert result.exit_code == 0
    (line,) = [line for line in result.output.splitlines() if line.startswith("broken")]
    assert "failed to load: RuntimeError: boom at import" in line

    # Asked for by id, a broken plugin's engine is not "not installed": the reason is given.
    with pytest.raises(ConfigError) as refused:
        build_engine("broken", scrub=False)
    message = refused.value.message
    assert message.startswith("unknown engine `broken`; installed engines: ")
    assert message.endswith(
        "; plugins that failed to load: `broken` (RuntimeError: boom at import)"
    )
    # The same wherever the command line asks for the configured engine by id.
    monkeypatch.setenv("TINYMEMORY_ENGINE", "broken")
    for command in (["tools"], ["conformance"], ["recall", "anything"]):
        assert main(command) == 1, command
        error = capsys.readouterr().err
        assert "plugins that failed to load: `broken` (RuntimeError" in error, command

    reset_plugins()
    with pytest.warns(RuntimeWarning, match="`broken`"):
        plugin_manager()


@pytest.mark.parametrize(
    ("target", "source", "error"),
    [
        ("badplug_mod:missing", "X = 1\n", "AttributeError"),
        ("badplug_mod", "import no_such_module_anywhere_xyz\n", "ModuleNotFoundError"),
        (
            "badplug_mod",
            "from tinymemory._hookspecs import hookimpl\n\n"
            "@hookimpl\ndef tinymemory_engines(unexpected):\n    return []\n",
            "PluginValidationError",
        ),
        (
            # The valid hook is registered before pluggy reaches the bad one.
            "badplug_mod",
            FAKE_MODULE
            + "\n@hookimpl\ndef tinymemory_source_readers(unexpected):\n    return []\n",
            "PluginValidationError",
        ),
    ],
    ids=["missing-attribute", "missing-import", "bad-hook-signature", "one-bad-hook"],
)
def test_other_broken_plugins_are_listed_with_their_error(
    site: Path, target: str, source: str, error: str
) -> None:
    make_distribution(site, "badplug", "0.1", {"bad": target}, {"badplug_mod": source})
    reset_plugins()
    with pytest.warns(RuntimeWarning, match="`bad` failed to load"):
        plugin_manager()
    (info,) = [info for info in list_plugins() if info.name == "bad"]
    assert info.error is not None
    assert info.error.startswith(f"{error}: ")
    assert info.hooks == ()
    engines = [engine.id for engine in list_engines()]
    assert "reference" in engines
    assert "fake" not in engines
    assert "shout" not in [scrubber.name for scrubber in scrubbers()]
    assert plugin_manager().get_plugin("bad") is None


def test_a_plugin_returning_a_wrong_type_is_a_config_error(site: Path) -> None:
    source = (
        "from tinymemory._hookspecs import hookimpl\n\n"
        "@hookimpl\ndef tinymemory_engines():\n    return ['not a factory']\n"
    )
    make_distribution(
        site, "wrongplug", "0.1", {"wrong": "wrongplug_mod"}, {"wrongplug_mod": source}
    )
    reset_plugins()
    with pytest.raises(ConfigError, match="str where a EngineFactory belongs"):
        list_engines()


REENTRANT_PROBE = """
import json
import warnings

import tinymemory
from tinymemory._plugin_manager import list_plugins

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    engines = [engine.id for engine in tinymemory.list_engines()]
broken = {info.name: info.error for info in list_plugins() if info.error}
warned = [str(warning.message) for warning in caught]
print(json.dumps({"engines": engines, "broken": broken, "warned": warned}))
"""


def test_a_plugin_using_the_registry_while_imported_is_left_out(site: Path) -> None:
    # In a subprocess with a timeout: the failure this guards against is a deadlock.
    source = "import tinymemory\n\ntinymemory.list_engines()\n"
    make_distribution(site, "eager", "0.1", {"eager": "eager_mod"}, {"eager_mod": source})
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", REENTRANT_PROBE],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    report = json.loads(done.stdout)
    assert "reference" in report["engines"]
    assert report["broken"]["eager"] == (
        "ConfigError: configuration error: "
        "a plugin used tinymemory's plugins while they were loading"
    )
    assert any("`eager` failed to load" in message for message in report["warned"])


# --- lazy loading -----------------------------------------------------------------


LAZY_PROBE = """
import json
import sys

before = set(sys.modules)
import tinymemory

imported = sorted(set(sys.modules) - before)
tinymemory.list_engines()
used = sorted(set(sys.modules) - before)
print(json.dumps({"imported": imported, "used": used}))
"""


def test_import_tinymemory_loads_no_plugin(site: Path) -> None:
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", LAZY_PROBE],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    )
    modules = json.loads(done.stdout)
    imported, used = set(modules["imported"]), set(modules["used"])
    lazy = {
        "pluggy",
        "cattrs",
        "click",
        "tomllib",
        "importlib.metadata",
        "fakeplug_mod",
        "tinymemory.reference",
        "tinymemory._plugin_manager",
        "tinymemory._registry",
        "tinymemory._hookspecs",
        "tinymemory._wire",
    }
    assert "tinymemory" in imported
    assert imported & lazy == set()
    # The probe can tell: using the registry loads the manager, the built-in and the plugin.
    assert {"pluggy", "importlib.metadata", "fakeplug_mod", "tinymemory.reference"} <= used


# --- choosing what loads ------------------------------------------------------------


@pytest.fixture
def no_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A configuration file path that holds nothing yet; ``TINYMEMORY_PLUGINS`` unset."""
    file = tmp_path / "config.toml"
    file.write_text("", encoding="utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(file))
    monkeypatch.delenv("TINYMEMORY_PLUGINS", raising=False)
    return file


def test_tinymemory_plugins_names_the_only_plugins_that_load(
    site: Path, no_config_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    monkeypatch.setenv("TINYMEMORY_PLUGINS", "tinymemory.reference")
    reset_plugins()
    assert [engine.id for engine in list_engines()] == ["reference"]
    assert "fakeplug_mod" not in sys.modules
    assert [info.name for info in list_plugins()] == ["tinymemory.reference"]

    monkeypatch.setenv("TINYMEMORY_PLUGINS", " fake ")
    reset_plugins()
    assert [engine.id for engine in list_engines()] == ["fake"]

    monkeypatch.setenv("TINYMEMORY_PLUGINS", "")
    reset_plugins()
    assert list_engines() == []


def test_the_config_files_plugins_table_turns_a_plugin_off(
    site: Path, no_config_file: Path
) -> None:
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    no_config_file.write_text("[plugins]\nfake = false\n", encoding="utf-8")
    reset_plugins()
    assert "fake" not in [engine.id for engine in list_engines()]
    assert "fakeplug_mod" not in sys.modules
    assert MemoryConfig.load().plugins == {"fake": False}

    no_config_file.write_text('[plugins]\n"tinymemory.reference" = false\n', encoding="utf-8")
    reset_plugins()
    assert "reference" not in [engine.id for engine in list_engines()]
    assert "fake" in [engine.id for engine in list_engines()]


def test_a_plugins_table_that_is_not_true_or_false_is_a_config_error(
    no_config_file: Path,
) -> None:
    no_config_file.write_text('[plugins]\nfake = "off"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="`plugins` must be a table of plugin names to true"):
        plugin_manager()
    with pytest.raises(ConfigError, match="`plugins` must be a table"):
        MemoryConfig.load()


def test_a_plugin_settings_table_loads_the_plugin_and_is_read_through_the_plugin_api(
    site: Path, no_config_file: Path
) -> None:
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    no_config_file.write_text(
        '[plugins]\n"tinymemory.reference" = true\n\n[plugins.fake]\nloud = true\n'
        'words = ["a", "b"]\n',
        encoding="utf-8",
    )
    reset_plugins()
    assert "fake" in [engine.id for engine in list_engines()]
    assert MemoryConfig.load().plugins == {"tinymemory.reference": True, "fake": True}
    assert plugin_settings("fake") == {"loud": True, "words": ["a", "b"]}
    assert plugin_settings("tinymemory.reference") == {}
    assert plugin_settings("absent") == {}
    # No file at the default place: no settings.
    assert plugin_settings("fake", {"XDG_CONFIG_HOME": str(no_config_file.parent / "none")}) == {}
    no_config_file.write_text("[plugins]\nfake = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="or a table of the plugin's settings"):
        plugin_settings("fake")


def test_two_plugins_offering_one_embedder_name_are_refused(
    site: Path, no_config_file: Path
) -> None:
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    twin = FAKE_MODULE.replace('id="fake"', 'id="fake2"').replace('"shout"', '"shout2"')
    make_distribution(site, "twinplug", "1.0", {"twin": "twinplug_mod"}, {"twinplug_mod": twin})
    reset_plugins()
    with pytest.raises(
        ConfigError,
        match=r"embedder `hasher` is registered by two plugins \(fake, twin\); turn one off",
    ):
        embedders()


def test_two_distributions_naming_one_plugin_are_both_left_out(
    site: Path, no_config_file: Path
) -> None:
    make_distribution(
        site, "fakeplug", "1.2.3", {"fake": "fakeplug_mod"}, {"fakeplug_mod": FAKE_MODULE}
    )
    other = FAKE_MODULE.replace('id="fake"', 'id="other"')
    make_distribution(site, "otherplug", "2.0", {"fake": "otherplug_mod"}, {"otherplug_mod": other})
    reset_plugins()
    with pytest.warns(RuntimeWarning, match="two tinymemory plugins are named `fake`"):
        engines = [engine.id for engine in list_engines()]
    assert "fake" not in engines
    assert "other" not in engines
    assert "fakeplug_mod" not in sys.modules
    (info,) = [info for info in list_plugins() if info.name == "fake"]
    assert info.error == "ConfigError: two plugins are named `fake`"
