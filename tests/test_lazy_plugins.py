"""Plugins imported only when a hook they declare is needed.

Each plugin kind is installed as a distribution declaring what it offers (an
engine, another engine, converters, readers and a fetcher, an embedder, a
scrubber with a command), beside one that declares nothing. Each command runs
in a new process, which then names the modules it imported: a read imports
the configured engine's plugin (and the one that declares nothing, which may
offer anything) and none of the others, nor any other plugin installed here
(psycopg, requests, pypdf ... where the repository's plugins are installed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from distributions import make_distribution

from tinymemory._errors import ConfigError
from tinymemory._plugin_manager import (
    BUILTIN_PLUGINS,
    PLUGINS_VARIABLE,
    engine_factories,
    reset_plugins,
)

ENGINE = """
import tinymemory as tm
from tinymemory.plugin import EngineFactory, hookimpl

DESCRIPTOR = tm.EngineDescriptor(
    id="{id}", label="{id}", description="a reference engine", fetch_modes=["keyword"]
)


@hookimpl
def tinymemory_engines():
    return [EngineFactory(descriptor=DESCRIPTOR, build=lambda settings, credential: STORE)]


STORE = tm.ReferenceEngine()
"""

CONVERTERS_AND_READERS = """
import tinymemory as tm
from tinymemory.plugin import hookimpl


class Loud:
    name = "loud"

    def sniff(self, data, name, mime):
        return data.startswith(b"LOUD:")

    def convert(self, data, name, mime):
        return tm.Document(body=data.decode("utf-8"))


class Lines:
    name = "lines"

    def read(self, context):
        yield tm.Learning(text=context.options["path"])


class NoFetch:
    def __call__(self, url, *, headers=None):
        raise tm.Unavailable("no network here")


@hookimpl
def tinymemory_document_converters():
    return [Loud()]


@hookimpl
def tinymemory_source_readers():
    return [Lines()]


@hookimpl
def tinymemory_http_fetcher():
    return NoFetch()
"""

EMBEDDER = """
from tinymemory.plugin import hookimpl


class Tiny:
    name = "tiny"
    dimensions = 2

    def embed(self, texts):
        return [[1.0, float(len(text))] for text in texts]


@hookimpl
def tinymemory_embedders():
    return [Tiny()]
"""

SCRUBBER = """
import click

from tinymemory.plugin import hookimpl, map_texts


class Shout:
    name = "shout"

    def scrub(self, item):
        return map_texts(item, str.upper)


@click.command("shout")
def shout():
    \"\"\"Print what the scrubber does.\"\"\"
    click.echo("SHOUTED")


@hookimpl
def tinymemory_scrubbers():
    return [Shout()]


@hookimpl
def tinymemory_register_commands(cli):
    cli.add_command(shout)
"""

#: Each fake plugin: (distribution and plugin name, module, source, declared groups).
PLUGINS = [
    ("lazyeng", "lazyeng_mod", ENGINE.format(id="lazyeng"), {"engines": ["lazyeng"]}),
    ("otherdb", "otherdb_mod", ENGINE.format(id="otherdb"), {"engines": ["otherdb"]}),
    (
        "convert",
        "convert_mod",
        CONVERTERS_AND_READERS,
        {"document_converters": ["loud"], "source_readers": ["lines"], "http_fetcher": ["nofetch"]},
    ),
    ("embed", "embed_mod", EMBEDDER, {"embedders": ["tiny"]}),
    ("shout", "shout_mod", SCRUBBER, {"scrubbers": ["shout"], "register_commands": ["shout"]}),
    ("anything", "anything_mod", ENGINE.format(id="anything"), {}),
]
FAKE_MODULES = {module for _, module, _, _ in PLUGINS}

#: Run ``main(argv[2:])``; write the status and every imported module to the file argv[1].
PROBE = """
import json, sys
from tinymemory._cli.main import main
status = main(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    json.dump({"status": status, "modules": sorted(sys.modules)}, out)
"""


#: Through the public API: build engine ``lazyeng``, fetch, then store; write the modules
#: imported after each, and what the store kept, to the file argv[1].
API_PROBE = """
import json, sys
import tinymemory as tm
engine = tm.build_engine("lazyeng")
engine.fetch(tm.FetchRequest(query="quiet", mode="keyword"))
after_fetch = sorted(sys.modules)
engine.store(tm.Learning(text="quiet words"))
stored = [hit.text for hit in engine.list(tm.ListRequest()).items]
with open(sys.argv[1], "w") as out:
    json.dump({"fetch": after_fetch, "store": sorted(sys.modules), "stored": stored}, out)
"""


def install(site: Path, broken: bool = False) -> None:
    for name, module, source, declared in PLUGINS:
        groups = {
            f"tinymemory.{group}": dict.fromkeys(names, module) for group, names in declared.items()
        }
        text = "raise ImportError('half installed')\n" if broken and name == "shout" else source
        summary = f"The {name} plugin."
        make_distribution(site, name, "0.1", {name: module}, {module: text}, groups, summary)


def run(site: Path, *args: str) -> tuple[int, str, set[str]]:
    """``tinymemory ARGS`` in a new process on engine ``lazyeng``: status, output, modules."""
    data, output = run_probe(site, PROBE, *args)
    return data["status"], output, set(data["modules"])


def run_probe(site: Path, probe: str, *args: str) -> tuple[Any, str]:
    """``probe`` in a new process on engine ``lazyeng``: what it wrote, and its output."""
    config = site / "config.toml"
    config.write_text('engine = "lazyeng"\n', encoding="utf-8")
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in (PLUGINS_VARIABLE, "TINYMEMORY_ENGINE", "TINYMEMORY_ENDPOINT")
    }
    env["TINYMEMORY_CONFIG"] = str(config)
    env["PYTHONPATH"] = os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])
    report = site / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", probe, str(report), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert report.exists(), done.stderr
    return json.loads(report.read_text(encoding="utf-8")), done.stdout + done.stderr


def installed_plugin_packages() -> set[str]:
    """The top-level packages of the tinymemory plugins installed here (the repository's too)."""
    return {entry.module.split(".")[0] for entry in entry_points(group="tinymemory")}


#: What a read must not import when the repository's plugins are installed.
UNUSED_BY_A_READ = {"psycopg", "requests", "pypdf", "docx", "openpyxl", "phonenumbers", "mcp"}


def test_a_read_imports_only_the_engines_plugin_and_the_undeclared_one(site: Path) -> None:
    install(site)
    status, output, modules = run(site, "fetch", "hello", "--mode", "keyword")
    assert status == 0, output
    assert modules & FAKE_MODULES == {"lazyeng_mod", "anything_mod"}
    roots = {module.split(".")[0] for module in modules}
    assert roots & (installed_plugin_packages() - FAKE_MODULES) == set()
    assert roots & UNUSED_BY_A_READ == set()


def test_help_imports_no_declared_plugin_and_lists_their_commands(site: Path) -> None:
    install(site)
    status, output, modules = run(site, "--help")
    assert status == 0, output
    assert modules & FAKE_MODULES == {"anything_mod"}
    (line,) = [line for line in output.splitlines() if line.split()[:1] == ["shout"]]
    assert line.split(None, 1)[1] == "The shout plugin."


def test_a_declared_command_imports_its_plugin_alone_when_run(site: Path) -> None:
    install(site)
    status, output, modules = run(site, "shout")
    assert status == 0, output
    assert "SHOUTED" in output
    assert modules & FAKE_MODULES == {"shout_mod", "anything_mod"}


def test_a_store_imports_the_scrubbers_and_scrubs(site: Path) -> None:
    install(site)
    status, output, modules = run(site, "store", "quiet words", "--json")
    assert status == 0, output
    assert modules & FAKE_MODULES == {"lazyeng_mod", "shout_mod", "anything_mod"}
    assert json.loads(output.splitlines()[0])["id"]


def test_build_engine_imports_the_scrubbers_at_the_first_store_not_at_a_read(site: Path) -> None:
    install(site)
    data, output = run_probe(site, API_PROBE)
    assert set(data["fetch"]) & FAKE_MODULES == {"lazyeng_mod", "anything_mod"}, output
    assert set(data["store"]) & FAKE_MODULES == {"lazyeng_mod", "shout_mod", "anything_mod"}
    assert data["stored"] == ["QUIET WORDS"]


def test_a_broken_declared_plugin_is_listed_and_says_why_when_its_command_runs(
    site: Path,
) -> None:
    install(site, broken=True)
    status, output, _ = run(site, "--help")
    assert status == 0, output
    assert "shout" in output
    status, output, _ = run(site, "shout")
    assert status == 2
    assert "`shout` comes with shout, which is installed but failed to load: ImportError" in output


def only(
    site: Path, monkeypatch: pytest.MonkeyPatch, name: str, source: str, **declared: str
) -> None:
    """Install plugin ``name`` declaring ``declared`` (group: offered name), it alone loading."""
    module = f"{name}_mod"
    groups = {f"tinymemory.{group}": {offered: module} for group, offered in declared.items()}
    make_distribution(site, name, "0.1", {name: module}, {module: source}, groups)
    monkeypatch.setenv(PLUGINS_VARIABLE, ",".join([*BUILTIN_PLUGINS, name]))
    reset_plugins()


def test_a_plugin_implementing_a_hook_it_does_not_declare_is_left_out(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Declared as an engine only, it would never be asked for its scrubber.
    only(site, monkeypatch, "sneaky", ENGINE.format(id="sneaky") + SCRUBBER, engines="sneaky")
    with pytest.warns(RuntimeWarning, match="`sneaky` failed to load"):
        assert "sneaky" not in engine_factories("sneaky")
    reset_plugins()


def test_a_plugin_offering_a_name_it_does_not_declare_is_a_config_error(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    only(site, monkeypatch, "misnamed", ENGINE.format(id="actual"), engines="declared")
    with pytest.raises(ConfigError, match="offers engine id `actual` without declaring it"):
        engine_factories("declared")
    reset_plugins()


def test_a_plugin_adding_a_command_it_does_not_declare_is_a_config_error(
    site: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tinymemory._cli.main import cli, main

    source = SCRUBBER.replace("cli.add_command(shout)", "cli.add_command(shout, 'loud')")
    only(site, monkeypatch, "misnamed", source, scrubbers="shout", register_commands="shout")
    assert main(["shout"]) == 1
    assert capsys.readouterr().err == (
        "tinymemory: configuration error: plugin `misnamed` adds the command `loud` without "
        "declaring it in the entry-point group `tinymemory.register_commands`\n"
    )
    assert "loud" not in cli.commands
    reset_plugins()
