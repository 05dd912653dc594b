"""The ``tinymemory`` command line."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import attrs
import click
import pytest
from click.testing import CliRunner
from distributions import make_distribution
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory
import tinymemory._plugin_manager
from tinymemory._cli.main import cli, main
from tinymemory._engine import EngineWrapper
from tinymemory._errors import ConfigError, Unavailable
from tinymemory._hookspecs import hookimpl
from tinymemory._plugin_manager import plugin_manager
from tinymemory._wire import to_data
from tinymemory.reference import DESCRIPTOR as REFERENCE
from tinymemory.reference import ReferenceEngine

CORE_COMMANDS = frozenset(cli.commands)


@pytest.fixture(autouse=True)
def isolated(builtin_plugins: None) -> Iterator[None]:
    """Built-ins only, and no plugin command left on the shared ``cli`` group afterwards."""
    yield
    for name in set(cli.commands) - CORE_COMMANDS:
        del cli.commands[name]


def add_commands(*commands: click.Command) -> None:
    class Commands:
        @hookimpl
        def tinymemory_register_commands(self, cli: click.Group) -> None:
            for command in commands:
                cli.add_command(command)

    plugin_manager().register(Commands())


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), prog_name="tinymemory")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


# --- engines --------------------------------------------------------------------


def test_engines_lists_the_reference_engine_in_a_table() -> None:
    code, output = invoke("engines")
    assert code == 0
    header, *rows = output.splitlines()
    assert header.split() == ["ID", "LABEL", "FETCH", "MODES", "WHERE", "NEEDS"]
    (row,) = rows
    assert row.startswith("reference  Reference (in-memory)  keyword, vector, hybrid")
    assert row.split()[-2:] == ["local", "-"]
    # Columns line up under their headers.
    assert row.index("keyword") == header.index("FETCH MODES")
    assert row.index("local") == header.index("WHERE")


def test_engines_json_holds_the_reference_descriptor() -> None:
    code, output = invoke("engines", "--json")
    assert code == 0
    data = json.loads(output)
    assert data == [to_data(REFERENCE)]
    (reference,) = data
    assert reference["id"] == "reference"
    assert reference["label"] == "Reference (in-memory)"
    assert reference["fetch_modes"] == ["keyword", "vector", "hybrid"]
    assert reference["needs_endpoint"] is False
    assert reference["needs_key"] is False
    assert reference["hosted"] is False


def test_engines_shows_what_a_remote_engine_needs() -> None:
    from tinymemory._engine import EngineDescriptor
    from tinymemory._hookspecs import EngineFactory

    class Remote:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            descriptor = EngineDescriptor(
                id="remote",
                label="Remote",
                description="a hosted engine",
                hosted=True,
                needs_endpoint=True,
                needs_key=True,
            )
            return [EngineFactory(descriptor=descriptor, build=lambda s, c: ReferenceEngine())]

    plugin_manager().register(Remote())
    code, output = invoke("engines")
    assert code == 0
    (row,) = [line for line in output.splitlines() if line.startswith("remote")]
    assert row.split() == ["remote", "Remote", "-", "hosted", "endpoint,", "key"]


# --- plugins --------------------------------------------------------------------


def test_plugins_lists_the_builtin_in_a_table() -> None:
    code, output = invoke("plugins")
    assert code == 0
    header, *rows = output.splitlines()
    assert header.split() == ["NAME", "DISTRIBUTION", "VERSION", "HOOKS"]
    assert rows == [
        f"tinymemory.answerers  tinymemory    {tinymemory.__version__:<7}  tinymemory_answerers",
        f"tinymemory.hashing    tinymemory    {tinymemory.__version__:<7}  tinymemory_embedders",
        f"tinymemory.reference  tinymemory    {tinymemory.__version__:<7}  tinymemory_engines",
    ]


def test_plugins_json() -> None:
    code, output = invoke("plugins", "--json")
    assert code == 0
    assert json.loads(output) == [
        {
            "name": "tinymemory.answerers",
            "distribution": "tinymemory",
            "version": tinymemory.__version__,
            "hooks": ["tinymemory_answerers"],
            "builtin": True,
        },
        {
            "name": "tinymemory.hashing",
            "distribution": "tinymemory",
            "version": tinymemory.__version__,
            "hooks": ["tinymemory_embedders"],
            "builtin": True,
        },
        {
            "name": "tinymemory.reference",
            "distribution": "tinymemory",
            "version": tinymemory.__version__,
            "hooks": ["tinymemory_engines"],
            "builtin": True,
        },
    ]


def test_plugins_shows_a_plugin_without_a_distribution() -> None:
    class Local:
        @hookimpl
        def tinymemory_scrubbers(self) -> list[object]:
            return []

    plugin_manager().register(Local(), name="local")
    code, output = invoke("plugins")
    assert code == 0
    (row,) = [line for line in output.splitlines() if line.startswith("local")]
    assert row.split() == ["local", "-", "-", "tinymemory_scrubbers"]


# --- main(), plugin commands and errors ---------------------------------------------


def test_main_returns_zero_and_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["engines", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == [to_data(REFERENCE)]


def test_a_plugin_command_runs_through_main(capsys: pytest.CaptureFixture[str]) -> None:
    @click.command()
    @click.option("--name", default="world")
    def hello(name: str) -> None:
        """Say hello."""
        click.echo(f"hello {name}")

    add_commands(hello)
    assert "hello" not in cli.commands
    assert main(["hello", "--name", "memory"]) == 0
    assert capsys.readouterr().out == "hello memory\n"
    assert main(["--help"]) == 0
    assert "hello" in capsys.readouterr().out


def test_an_unknown_command_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    assert "No such command" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, output = invoke("--version")
    assert code == 0
    assert output == f"tinymemory, version {tinymemory.__version__}\n"
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"tinymemory, version {tinymemory.__version__}\n"


@pytest.mark.parametrize(
    ("error", "shown"),
    [
        (ConfigError("engine `x` needs a key"), "configuration error: engine `x` needs a key"),
        (Unavailable("engine is restarting"), "unavailable: engine is restarting"),
    ],
)
def test_a_tinymemory_error_exits_1_with_a_message(
    capsys: pytest.CaptureFixture[str], error: Exception, shown: str
) -> None:
    @click.command()
    def fail() -> None:
        raise error

    add_commands(fail)
    assert main(["fail"]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"tinymemory: {shown}\n"
    assert captured.out == ""


def test_a_click_error_keeps_its_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    @click.command()
    def refuse() -> None:
        raise click.ClickException("not today")

    add_commands(refuse)
    assert main(["refuse"]) == 1
    assert "Error: not today" in capsys.readouterr().err


def test_an_abort_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    @click.command()
    def stop() -> None:
        raise click.Abort()

    add_commands(stop)
    assert main(["stop"]) == 1
    assert "bort" in capsys.readouterr().err


@pytest.mark.parametrize("status", [0, 3])
def test_a_command_choosing_its_exit_status_keeps_it(status: int) -> None:
    @click.command()
    @click.pass_context
    def leave(ctx: click.Context) -> None:
        ctx.exit(status)

    @click.command("quit")
    def quit_command() -> None:
        sys.exit(status)

    add_commands(leave, quit_command)
    assert main(["leave"]) == status
    assert main(["quit"]) == status


def test_a_command_exiting_with_a_message_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    @click.command()
    def bail() -> None:
        sys.exit("cannot go on")

    add_commands(bail)
    assert main(["bail"]) == 1
    assert capsys.readouterr().err == "cannot go on\n"


def test_a_failing_command_hook_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    class Failing:
        @hookimpl
        def tinymemory_register_commands(self, cli: click.Group) -> None:
            raise ConfigError("command `x` clashes")

    plugin_manager().register(Failing())
    assert main(["engines"]) == 1
    assert capsys.readouterr().err == "tinymemory: configuration error: command `x` clashes\n"


def test_a_command_returning_a_value_still_exits_0() -> None:
    @click.command()
    def count() -> int:
        return 7

    add_commands(count)
    assert main(["count"]) == 0


def test_a_missing_default_engine_through_the_cli_is_a_clean_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from tinymemory._registry import MemoryConfig

    @click.command()
    def build() -> None:
        MemoryConfig().build()

    add_commands(build)
    assert main(["build"]) == 1
    assert capsys.readouterr().err.startswith(
        "tinymemory: configuration error: unknown engine `sqlite` (install the plugin: "
        "pip install plugins/tinymemory-sqlite from the repository)"
    )


# --- the installed console script ---------------------------------------------------


def console_script() -> str:
    beside = Path(sys.executable).with_name("tinymemory")
    found = str(beside) if beside.exists() else shutil.which("tinymemory")
    assert found, "the tinymemory console script is not installed"
    return found


def test_the_console_script_lists_engines_as_json(tmp_path: Path) -> None:
    done = subprocess.run(
        [console_script(), "engines", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    engines = {engine["id"]: engine for engine in json.loads(done.stdout)}
    assert engines["reference"] == to_data(REFERENCE)


def test_the_console_script_reports_a_usage_error(tmp_path: Path) -> None:
    done = subprocess.run(
        [console_script(), "no-such-command"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "No such command" in done.stderr


# --- config ---------------------------------------------------------------------


def test_config_shows_the_file_engine_and_settings_without_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    file = tmp_path / "memory.toml"
    file.write_text(
        'engine = "reference"\n[engines.reference]\n'
        'endpoint = "https://u:pw-SECRET@memory.example.com"\n'
        'headers = { X-Token = "hdr-SECRET" }\npath = "/data/m.db"\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(file))
    monkeypatch.setenv("TINYMEMORY_API_KEY", "sk-cli-SECRET")
    code, output = invoke("config", "--json")
    assert code == 0
    assert json.loads(output) == {
        "file": str(file),
        "file_exists": True,
        "engine": "reference",
        "endpoint": "https://***@memory.example.com",
        "scope_root": None,
        "tenant_root": None,
        "headers": ["X-Token"],
        "options": ["path"],
        "api_key_set": True,
    }
    code, text = invoke("config")
    assert code == 0
    assert "engine       reference" in text
    assert "SECRET" not in output + text


def test_config_without_a_file_shows_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TINYMEMORY_CONFIG", raising=False)
    monkeypatch.delenv("TINYMEMORY_ENGINE", raising=False)
    monkeypatch.delenv("TINYMEMORY_ENDPOINT", raising=False)
    monkeypatch.delenv("TINYMEMORY_API_KEY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code, output = invoke("config", "--json")
    report = json.loads(output)
    assert code == 0
    assert report["file"] == str(tmp_path / "tinymemory" / "config.toml")
    assert (report["file_exists"], report["engine"], report["api_key_set"]) == (
        False,
        "sqlite",
        False,
    )


def test_config_with_a_broken_file_is_a_clean_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "bad.toml"
    file.write_text("engine = [", encoding="utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(file))
    assert main(["config"]) == 1
    assert "is not valid toml" in capsys.readouterr().err


# --- tools ------------------------------------------------------------------------


def reference_specs(*, writes: bool = True) -> list[tinymemory.ToolSpec]:
    tools = tinymemory.MemoryTools(ReferenceEngine())
    return list((tools if writes else tools.read_only()).specs())


def test_tools_lists_the_seven_tools_in_a_table(reference_config: Path) -> None:
    code, output = invoke("tools")
    assert code == 0
    header, *rows = output.splitlines()
    assert header.split() == ["NAME", "KIND", "WHAT", "IT", "DOES"]
    assert [row.split()[:2] for row in rows] == [
        ["memory_recall", "read"],
        ["memory_fetch", "read"],
        ["memory_list", "read"],
        ["memory_get", "read"],
        ["memory_explore", "read"],
        ["memory_store", "write"],
        ["memory_forget", "write"],
    ]
    assert rows[0].index("read") == header.index("KIND")
    assert rows[0].endswith("returns an answer and the memories it cites")


def compact(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def test_tools_json_in_each_format(reference_config: Path) -> None:
    specs = reference_specs()
    code, output = invoke("tools", "--json")
    assert code == 0
    # One compact line, as every --json prints; the confidence default as written.
    assert output == compact([spec.as_data() for spec in specs]) + "\n"
    assert '"default":0.8' in output
    assert "0.800000011920929" not in output
    code, output = invoke("tools", "--format", "openai")
    assert output == compact([spec.as_openai() for spec in specs]) + "\n"
    assert json.loads(output)[0]["type"] == "function"
    code, output = invoke("tools", "--json", "--format", "anthropic", "--read-only")
    assert code == 0
    expected = [spec.as_anthropic() for spec in reference_specs(writes=False)]
    assert output == compact(expected) + "\n"
    assert [tool["name"] for tool in json.loads(output)][-1] == "memory_explore"


def test_tools_with_an_unknown_engine_is_a_clean_error(
    reference_config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TINYMEMORY_ENGINE", "nope")
    assert main(["tools"]) == 1
    assert capsys.readouterr().err == (
        "tinymemory: configuration error: unknown engine `nope`; installed engines: reference\n"
    )


# --- context ----------------------------------------------------------------------


def register_filled_engine(*items: tinymemory.StoreItem) -> None:
    """An engine `filled` whose every build holds ``items``."""
    from tinymemory._hookspecs import EngineFactory

    def build(settings: object, credential: object) -> ReferenceEngine:
        engine = ReferenceEngine()
        for item in items:
            engine.store(item)
        return engine

    class Filled:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            descriptor = attrs.evolve(REFERENCE, id="filled", label="Filled")
            return [EngineFactory(descriptor=descriptor, build=build)]

    plugin_manager().register(Filled())


def test_context_from_an_empty_engine_prints_nothing_and_says_so(reference_config: Path) -> None:
    result = CliRunner().invoke(cli, ["context"], prog_name="tinymemory")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == (
        "tinymemory: the memory is empty: `tinymemory ingest PATH` reads a folder (or a file, "
        "a link, a feed) into it, `tinymemory store TEXT` stores one learning\n"
        "tinymemory: no stored item answers the briefs and no learning is stored; "
        "the document is empty\n"
    )


def test_context_too_small_a_budget_says_so(
    reference_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_filled_engine(tinymemory.Learning(text="The user prefers tabs over spaces"))
    monkeypatch.setenv("TINYMEMORY_ENGINE", "filled")
    result = CliRunner().invoke(cli, ["context", "--budget", "1"], prog_name="tinymemory")
    assert (result.exit_code, result.stdout) == (0, "")
    whole = CliRunner().invoke(cli, ["context", "--json"], prog_name="tinymemory")
    tokens = json.loads(whole.stdout)["tokens"]
    assert tokens > 1
    assert result.stderr == (
        f"tinymemory: nothing fits in --budget 1: the whole document takes {tokens} tokens; "
        "the document is empty\n"
    )


def test_context_prints_the_document(
    reference_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_filled_engine(
        tinymemory.Learning(text="The user prefers tabs"),
        tinymemory.Learning(
            text="The user's secret plan", meta=tinymemory.MemoryMeta(namespace="agent:b")
        ),
    )
    monkeypatch.setenv("TINYMEMORY_ENGINE", "filled")
    code, output = invoke("context", "--budget", "300")
    assert code == 0
    assert output.startswith("---\ngenerated_at: ")
    assert "\nengine: reference\n" in output  # the built engine's own id
    assert "\n# Context\n" in output
    assert re.search(r"^- The user prefers tabs \[\d+\]$", output, re.M)
    assert "secret" in output
    tokens = int(output.split("\ntokens: ")[1].split("\n")[0])
    assert tokens <= 300
    assert tokens == -(-len(output) // 4)


def test_context_at_a_node_reads_only_its_reach(
    reference_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    register_filled_engine(
        tinymemory.Learning(
            text="The user prefers tabs", meta=tinymemory.MemoryMeta(namespace="agent:a")
        ),
        tinymemory.Learning(text="The user likes tea"),
        tinymemory.Learning(
            text="The user's secret plan", meta=tinymemory.MemoryMeta(namespace="agent:b")
        ),
    )
    monkeypatch.setenv("TINYMEMORY_ENGINE", "filled")
    code, output = invoke("context", "--at", "agent:a")
    assert code == 0
    assert "tabs" in output
    assert "tea" in output
    assert "secret" not in output
    code, output = invoke("context", "--at", "agent:a", "--reach", "exact")
    assert "tabs" in output
    assert "tea" not in output
    code, output = invoke("context", "--reach", "subtree")  # at the root: all but sandboxes
    assert "secret" in output


def test_context_writes_a_file_and_reports_json(
    reference_config: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    register_filled_engine(tinymemory.Learning(text="The user prefers tabs"))
    monkeypatch.setenv("TINYMEMORY_ENGINE", "filled")
    target = tmp_path / "context.md"
    code, output = invoke("context", "-o", str(target))
    assert code == 0
    written = target.read_text(encoding="utf-8")
    refs = written.split("\nrefs: [")[1].split("]")[0].split(", ")
    tokens = -(-len(written) // 4)
    assert len(refs) == 1
    assert output == f"wrote {target}: {tokens} tokens, citing 1 item\n"
    code, output = invoke("context", "--json", "--budget", "200")
    report = json.loads(output)
    assert sorted(report) == ["engine", "generated_at", "markdown", "refs", "tokens"]
    assert report["engine"] == "reference"
    assert report["refs"] == refs
    assert report["tokens"] == -(-len(report["markdown"]) // 4) <= 200
    assert report["generated_at"].endswith("Z")


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--at", "nobody"], "namespace segment `nobody` must be written kind:id"),
        (["--at", "agent:a.b"], "namespace id `a.b` must be 1 to 128 characters"),
        (["--budget", "0"], "0 is not in the range x>=1"),
        (["--reach", "everything"], "'everything' is not one of"),
    ],
)
def test_context_refuses_bad_options_as_usage_errors(
    reference_config: Path, args: list[str], problem: str
) -> None:
    result = CliRunner().invoke(cli, ["context", *args], prog_name="tinymemory")
    assert result.exit_code == 2
    assert problem in result.stderr


def test_conformance_runs_the_checks_named_against_the_configured_engine(
    reference_config: Path,
) -> None:
    code, output = invoke("conformance", "--check", "health", "--check", "namespaces")
    assert code == 0
    first, *lines = output.splitlines()
    assert first == (
        "engine `reference` with the engine's throwaway test settings, "
        "in a temporary folder removed afterwards"
    )
    assert [line.split()[:2] for line in lines[:-1]] == [
        ["passed", "health"],
        ["passed", "namespaces"],
    ]
    assert lines[-1] == "2 passed, 0 failed, 0 skipped"


def test_conformance_reports_json_and_fails_a_broken_engine(reference_config: Path) -> None:
    from broken_engines import ReportsDown

    from tinymemory._hookspecs import EngineFactory

    class DownEngines:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            descriptor = attrs.evolve(REFERENCE, id="down")
            return [EngineFactory(descriptor=descriptor, build=lambda s, c: ReportsDown())]

    plugin_manager().register(DownEngines())
    code, output = invoke("conformance", "down", "--check", "health", "--check", "get", "--json")
    assert code == 1
    report = json.loads(output)
    assert report["passed"] is False
    assert [(r["check"], r["outcome"]) for r in report["results"]] == [
        ("health", "failed"),
        ("get", "passed"),
    ]
    assert report["results"][0]["detail"].endswith("got: down (maintenance)")


def test_conformance_refuses_an_unknown_engine_or_check(
    reference_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conformance", "nope"]) == 1
    assert "unknown engine `nope`; installed engines: reference" in capsys.readouterr().err
    assert main(["conformance", "--check", "nope"]) == 1
    assert "unknown conformance check nope; expected one of health, " in capsys.readouterr().err
    code, output = invoke("conformance", "--profile", "fast")
    assert code == 2
    assert "'fast' is not one of" in output


def test_conformance_takes_settings_and_a_peer_for_the_isolation_check(
    reference_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tinymemory._hookspecs import EngineFactory

    stores: dict[object, ReferenceEngine] = {}

    class StoreUser(EngineWrapper):
        def close(self) -> None:
            """A user closing its engine leaves the shared store open."""

    class SharedStores:
        @hookimpl
        def tinymemory_engines(self) -> list[EngineFactory]:
            def build(settings: tinymemory.EngineSettings, credential: object) -> StoreUser:
                return StoreUser(stores.setdefault(settings.options["store"], ReferenceEngine()))

            return [EngineFactory(descriptor=attrs.evolve(REFERENCE, id="shared"), build=build)]

    plugin_manager().register(SharedStores())
    one_store = ("conformance", "shared", "--check", "isolation", "--settings", '{"store": "a"}')
    code, output = invoke(*one_store)
    assert code == 1
    assert "both users were built alike, so they may be one user twice; pass --peer-settings" in (
        output
    )
    assert invoke(*one_store, "--peer-settings", '{"store": "b"}')[0] == 0
    assert main(["conformance", "shared", "--settings", "[1]"]) == 1
    assert "--settings must be a JSON object" in capsys.readouterr().err
    assert main(["conformance", "shared", "--peer-settings", "{"]) == 1
    assert "--peer-settings is not valid JSON" in capsys.readouterr().err


# --- fuzzing: arbitrary arguments never end in a traceback ---------------------------------

#: Argument strings at the edges: integer widths, bytes that are not UTF-8 (as a shell hands
#: them over, surrogate-escaped), invisible text, paths, namespaces, JSON.
FUZZ_WORDS = [
    "",
    "-",
    "--",
    "0",
    "-1",
    "50",
    str(2**63),
    str(2**64),
    "9" * 40,
    "1e309",
    "nan",
    "root",
    "team:acme/agent:writer",
    "agent:",
    "learning",
    "document",
    "keyword",
    "tag",
    "\udcff",
    "caf\udce9",
    "\u200b",
    "0001-01-01T00:00:00+05:00",
    "{}",
    '{"path": 1}',
    "[" * 50,
    ".",
    "..",
    "memory.jsonl",
]


def _command_words(command: click.Command) -> list[str]:
    """The command's option names, so draws reach its body as often as its parser."""
    return [opt for param in command.params for opt in param.opts if opt.startswith("-")]


@pytest.mark.usefixtures("reference_config")
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_arbitrary_arguments_to_every_command_never_end_in_a_traceback(
    data: st.DataObject,
) -> None:
    # conformance is left out: a valid draw runs the whole suite, which is tested on its own.
    names = [name for name in cli.list_commands(click.Context(cli)) if name != "conformance"]
    name = data.draw(st.sampled_from(names))
    command = cli.get_command(click.Context(cli), name)
    assert command is not None
    # A NUL never reaches argv: the operating system ends an argument at one.
    free = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=8)
    words = st.sampled_from(FUZZ_WORDS + _command_words(command)) | free
    args = [name, *data.draw(st.lists(words, max_size=6))]
    runner = CliRunner()
    with (
        tempfile.TemporaryDirectory() as folder,
        contextlib.chdir(folder),
        runner.isolation(input=b"n\n"),
    ):
        status = main(args)  # anything but SystemExit or a contract error propagates
    assert status in (0, 1, 2)


@pytest.mark.usefixtures("reference_config")
def test_context_into_a_missing_folder_is_a_clean_file_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["context", "-o", str(tmp_path / "missing" / "context.md")])
    assert result.exit_code == 1
    assert "No such file or directory" in result.output
    assert not isinstance(result.exception, OSError)


@pytest.mark.usefixtures("reference_config")
@pytest.mark.parametrize("args", [["context", "-o", "\udcff.md"], ["export", "-o", "caf\udce9"]])
def test_a_file_name_that_is_not_utf8_is_echoed_back_as_given(
    tmp_path: Path, args: list[str]
) -> None:
    # Python reads the argument byte 0xff as the lone surrogate \udcff.
    runner = CliRunner()
    with contextlib.chdir(tmp_path), runner.isolation() as (out, _, _):
        status = main(args)
        printed = out.getvalue()
    assert status == 0
    assert os.fsencode(args[2]) in printed
    assert (tmp_path / args[2]).is_file()


# --- completion ---------------------------------------------------------------------


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_a_script_that_asks_this_command(
    shell: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["completion", shell]) == 0
    script = capsys.readouterr().out
    assert "_TINYMEMORY_COMPLETE" in script
    assert f"{shell}_complete" in script


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        ("tinymemory rec", ["recall"]),
        ("tinymemory store --learning-kind pr", ["preference", "procedure"]),
        ("tinymemory list --kind ", ["document", "conversation", "learning"]),
        ("tinymemory completion ", ["bash", "zsh", "fish"]),
    ],
)
def test_the_shell_asks_and_gets_commands_options_and_choices(
    words: str,
    expected: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # What the bash script sends: the words so far and the index of the one completed.
    monkeypatch.setenv("_TINYMEMORY_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", words)
    monkeypatch.setenv("COMP_CWORD", str(len(words.split(" ")) - 1))
    assert main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(",", 1)[1] for line in lines] == expected


# --- a plugin's command, not installed ----------------------------------------------------

REPOSITORY = Path(__file__).resolve().parents[1]


def declared_commands() -> dict[str, str]:
    """Every command the plugins of this repository declare, by name: the distribution."""
    import tomllib

    declared: dict[str, str] = {}
    for project in sorted((REPOSITORY / "plugins").glob("*/pyproject.toml")):
        data = tomllib.loads(project.read_text(encoding="utf-8"))
        groups = data["project"].get("entry-points", {})
        for command in groups.get("tinymemory.register_commands", {}):
            declared[command] = data["project"]["name"]
    return declared


def test_the_cores_table_of_plugin_commands_is_what_the_plugins_declare() -> None:
    from tinymemory._cli.plugin_commands import PLUGIN_COMMANDS

    assert declared_commands() == PLUGIN_COMMANDS


@pytest.mark.parametrize("name", sorted(declared_commands()))
def test_a_plugins_command_run_without_the_plugin_names_the_plugin_to_install(name: str) -> None:
    distribution = declared_commands()[name]
    for args in ([name], [name, "--help"], [name, "anything", "--json"]):
        status, output = invoke(*args)
        assert status == 2, output
        assert f"No such command '{name}': `{name}` comes with the {distribution} plugin" in output
        assert f"`pip install plugins/{distribution}`" in output


def test_an_unknown_command_no_plugin_declares_is_clicks_own_error() -> None:
    status, output = invoke("frobnicate")
    assert status == 2
    assert "No such command 'frobnicate'." in output


def test_an_installed_plugins_command_runs_as_itself(capsys: pytest.CaptureFixture[str]) -> None:
    @click.command("mcp")
    def mcp() -> None:
        click.echo("serving")

    add_commands(mcp)
    assert main(["mcp"]) == 0
    assert capsys.readouterr().out == "serving\n"


def test_a_plugin_command_whose_plugin_failed_to_load_says_so(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tinymemory._plugin_manager import BUILTIN_PLUGINS, PLUGINS_VARIABLE, reset_plugins

    source = "raise ImportError('the mcp SDK is missing')\n"
    make_distribution(site, "tinymemory-mcp", "0.1", {"mcp": "brokenmcp"}, {"brokenmcp": source})
    monkeypatch.setenv(PLUGINS_VARIABLE, ",".join([*BUILTIN_PLUGINS, "mcp"]))
    reset_plugins()
    with pytest.warns(RuntimeWarning, match="`mcp` failed to load"):
        status, output = invoke("mcp", "--help")
    assert status == 2
    assert "comes with tinymemory-mcp, which is installed but failed to load: ImportError" in output
