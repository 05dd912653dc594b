"""The ``tinymemory`` command line.

Core commands list what is installed; the data commands (``store``,
``fetch``, ``export``, ...) come from :mod:`tinymemory._cli.data_commands`; plugins
add their own commands through the ``tinymemory_register_commands`` hook.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

import attrs
import click

from tinymemory._cli.data_commands import add_data_commands, hint_when_empty, open_reader
from tinymemory._cli.new_plugin import new_plugin_command
from tinymemory._cli.options import (
    at_option,
    items_text,
    json_option,
    reach_from,
    reach_option,
    table,
)
from tinymemory._cli.plugin_commands import PluginAwareGroup
from tinymemory._cli.reindex_command import reindex_command
from tinymemory._context import ContextCompiler, ContextSpec
from tinymemory._engine import EngineDescriptor
from tinymemory._errors import ConfigError, TinyMemoryError
from tinymemory._namespace import Namespace
from tinymemory._plugin_manager import list_plugins, plugin_manager
from tinymemory._registry import (
    MemoryConfig,
    config_path,
    list_engines,
    settings_from_json,
    unknown_engine,
)
from tinymemory._settings import API_KEY_VARIABLE, EngineCredential, redact_url
from tinymemory._timestamps import format_timestamp
from tinymemory._tool_schemas import READ_TOOLS, tool_specs
from tinymemory._wire import dumps, to_data
from tinymemory.conformance.profiles import PROFILES

#: A budget no document reaches: what `context` compiles to tell an empty
#: engine from a budget too small for anything.
UNBOUNDED_TOKENS = 2**32 - 1


@click.group(name="tinymemory", cls=PluginAwareGroup)
@click.version_option(package_name="tinymemory")
def cli() -> None:
    """TinyMemory: memory for AI agents."""


# Registered from their own module so this one stays about what is installed.
add_data_commands(cli)
cli.add_command(new_plugin_command)
cli.add_command(reindex_command)


@cli.command()
@json_option("Print JSON instead of a table.")
def engines(as_json: bool) -> None:
    """List the installed engines."""
    descriptors = list_engines()
    if as_json:
        click.echo(dumps([to_data(descriptor) for descriptor in descriptors]))
        return
    rows = [
        (
            d.id,
            d.label,
            ", ".join(mode.value for mode in d.fetch_modes) or "-",
            "hosted" if d.hosted else "local",
            ", ".join(
                need for need, on in (("endpoint", d.needs_endpoint), ("key", d.needs_key)) if on
            )
            or "-",
        )
        for d in descriptors
    ]
    click.echo(table(("ID", "LABEL", "FETCH MODES", "WHERE", "NEEDS"), rows))


@cli.command()
@json_option("Print JSON instead of a table.")
def plugins(as_json: bool) -> None:
    """List the installed plugins, their versions and the hooks they implement."""
    infos = list_plugins()
    if as_json:
        click.echo(dumps([to_data(info) for info in infos]))
        return
    rows = [
        (
            info.name,
            info.distribution or "-",
            info.version or "-",
            f"failed to load: {info.error}" if info.error else ", ".join(info.hooks) or "-",
        )
        for info in infos
    ]
    click.echo(table(("NAME", "DISTRIBUTION", "VERSION", "HOOKS"), rows))


@cli.command()
@json_option("Print JSON instead of text.")
def config(as_json: bool) -> None:
    """Show the configuration in force: its file, the engine and its settings.

    No key is shown: only whether TINYMEMORY_API_KEY is set.
    """
    path = config_path()
    loaded = MemoryConfig.load()
    settings = loaded.settings_for(loaded.engine)
    report = {
        "file": str(path),
        "file_exists": path.is_file(),
        "engine": loaded.engine,
        "endpoint": redact_url(settings.endpoint) if settings.endpoint else None,
        "scope_root": settings.scope_root,
        "tenant_root": settings.tenant_root,
        "headers": sorted(settings.headers),
        "options": sorted(settings.options),
        "api_key_set": bool(os.environ.get(API_KEY_VARIABLE, "").strip()),
    }
    if as_json:
        click.echo(dumps(report))
        return
    for key, value in report.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        click.echo(f"{key:<12} {'-' if shown in (None, '') else shown}")


@cli.command("context")
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=ContextSpec().budget_tokens,
    show_default=True,
    help="Most tokens the document may take (four characters each).",
)
@at_option("Whose memory: the node to read from (team:acme/agent:writer); default every node.")
@reach_option()
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the document to this file instead of printing it.",
)
@json_option("Print the document and its facts as JSON.")
def context_command(
    budget: int,
    at: Namespace | None,
    reach_kind: str | None,
    output: Path | None,
    as_json: bool,
) -> None:
    """Compile context.md from the configured engine: briefs and learnings within a budget."""
    spec = ContextSpec(budget_tokens=budget, reach=reach_from(at, reach_kind))
    whole_tokens = 0
    with open_reader() as engine:
        compiler = ContextCompiler()
        doc = compiler.compile(engine, spec)
        if not doc.markdown:
            # Nothing to say, or nothing that fits: the unbounded document tells which.
            whole = compiler.compile(engine, attrs.evolve(spec, budget_tokens=UNBOUNDED_TOKENS))
            whole_tokens = whole.tokens
            hint_when_empty(engine)
    if output is not None:
        try:
            output.write_text(doc.markdown, encoding="utf-8")
        except OSError as error:
            raise click.FileError(str(output), error.strerror) from None
    if as_json:
        report = {
            "markdown": doc.markdown,
            "tokens": doc.tokens,
            "generated_at": format_timestamp(doc.generated_at),
            "engine": doc.engine,
            "refs": list(doc.refs),
        }
        click.echo(dumps(report))
    elif output is not None:
        click.echo(f"wrote {output}: {doc.tokens} tokens, citing {items_text(len(doc.refs))}")
    else:
        click.echo(doc.markdown, nl=False)
    if whole_tokens:
        click.echo(
            f"tinymemory: nothing fits in --budget {budget}: the whole document takes "
            f"{whole_tokens} tokens; the document is empty",
            err=True,
        )
    elif not doc.markdown:
        click.echo(
            "tinymemory: no stored item answers the briefs and no learning is stored; "
            "the document is empty",
            err=True,
        )


def _configured_descriptor() -> EngineDescriptor:
    engine_id = MemoryConfig.load().engine
    descriptors = list_engines()
    for descriptor in descriptors:
        if descriptor.id == engine_id:
            return descriptor
    raise unknown_engine(engine_id, (descriptor.id for descriptor in descriptors))


@cli.command("tools")
@json_option("Print the tool specs as JSON.")
@click.option(
    "--format",
    "shape",
    type=click.Choice(["spec", "openai", "anthropic"]),
    help="The JSON shape: spec ({name, description, parameters}), openai or anthropic "
    "tool lists. Implies --json.",
)
@click.option("--read-only", is_flag=True, help="Only the read tools.")
def tools_command(as_json: bool, shape: str | None, read_only: bool) -> None:
    """List the memory tools a model is offered over the configured engine."""
    specs = tool_specs(_configured_descriptor().fetch_modes, writes=not read_only)
    if as_json or shape is not None:
        shapes = {
            "spec": [spec.as_data() for spec in specs],
            "openai": [spec.as_openai() for spec in specs],
            "anthropic": [spec.as_anthropic() for spec in specs],
        }
        # Compact as every --json, but not through the canonical writer, which would
        # print the confidence default's widened f32 as 0.8: the schema is the
        # original's, number for number, as the MCP server serves it.
        click.echo(json.dumps(shapes[shape or "spec"], ensure_ascii=False, separators=(",", ":")))
        return
    rows = [
        (
            spec.name,
            "read" if spec.name in READ_TOOLS else "write",
            spec.description.split(". ")[0].rstrip("."),
        )
        for spec in specs
    ]
    click.echo(table(("NAME", "KIND", "WHAT IT DOES"), rows))


@cli.command("conformance")
@click.argument("engine_id", required=False, metavar="[ENGINE]")
@click.option(
    "--profile",
    type=click.Choice(sorted(PROFILES)),
    help="How many random examples to try (default: $TINYMEMORY_CONFORMANCE_PROFILE or default).",
)
@click.option("--check", "checks", multiple=True, metavar="NAME", help="Run only this check.")
@click.option(
    "--settings",
    "settings_json",
    metavar="JSON",
    help="The engine's settings as a JSON object, instead of the configuration's "
    '(e.g. \'{"path": ":memory:"}\' for the sqlite engine).',
)
@click.option(
    "--peer-settings",
    "peer_json",
    metavar="JSON",
    help="Settings of a second user of the same store, for the isolation check.",
)
@json_option("Print the report as JSON.")
@click.pass_context
def conformance_command(
    ctx: click.Context,
    engine_id: str | None,
    profile: str | None,
    checks: tuple[str, ...],
    settings_json: str | None,
    peer_json: str | None,
    as_json: bool,
) -> None:
    """Run the conformance suite against an installed engine (default: the configured one).

    Without --settings, an engine that offers throwaway test settings (the
    sqlite engine: files in a temporary folder) is tested on those, so your
    memory is never touched; any other engine is built from the
    configuration's settings for it. Each check stores under a workspace of
    its own and forgets it afterwards. The isolation check needs two users
    of one store: --peer-settings for the second. Exits 1 when a check fails.
    """
    loaded = MemoryConfig.load()
    chosen = engine_id or loaded.engine
    settings = (
        settings_from_json(chosen, settings_json, "--settings")
        if settings_json is not None
        else None
    )
    peer = settings_from_json(chosen, peer_json, "--peer-settings") if peer_json else None
    try:
        from tinymemory.conformance import installed, runner
    except ModuleNotFoundError as error:
        if error.name != "hypothesis":
            raise
        from tinymemory.conformance import MISSING_HYPOTHESIS

        raise ConfigError(MISSING_HYPOTHESIS) from None
    target = installed.InstalledEngine(
        chosen,
        EngineCredential.from_env(),
        settings=settings,
        peer_settings=peer,
        fallback=loaded.settings_for(chosen),
        settings_option="--settings",
        peer_option="--peer-settings JSON",
        fallback_named="the configuration's settings",
    )
    try:
        target.build().close()  # a ConfigError now, not per check
        if not as_json:
            click.echo(f"engine `{chosen}` with {target.settings_used}")

        def heard(result: runner.CheckResult) -> None:
            if not as_json:
                click.echo(f"{result.outcome.value:<8} {result.check} ({result.seconds:.2f} s)")
                for line in result.detail.splitlines():
                    click.echo(f"         {line}")

        report = runner.run(
            target.build,
            pair=target.build_pair if target.has_peer else None,
            profile=profile,
            checks=checks or None,
            on_result=heard,
            pair_hint=target.pair_hint,
        )
    finally:
        target.close()
    if as_json:
        click.echo(dumps(report.as_data()))
    else:
        click.echo(str(report).splitlines()[-1])
    if not report.passed:
        ctx.exit(1)


#: The environment variable click's completion scripts set to ask for completions.
COMPLETE_VARIABLE = "_TINYMEMORY_COMPLETE"


@cli.command("completion")
@click.argument("shell", type=click.Choice(["bash", "zsh", "fish"]))
def completion_command(shell: str) -> None:
    """Print the completion script for SHELL: commands, options and their choices.

    Load it from your shell's start-up file, e.g. for bash add
    `eval "$(tinymemory completion bash)"` to ~/.bashrc; zsh and fish alike.
    """
    from click.shell_completion import get_completion_class

    completion = get_completion_class(shell)
    if completion is None:  # not one of the shells this click offers
        raise click.UsageError(f"no completion for {shell}")
    click.echo(completion(cli, {}, "tinymemory", COMPLETE_VARIABLE).source())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (with plugin commands added); returns the exit status."""
    _echo_bytes_as_given()
    try:
        plugin_manager().hook.tinymemory_register_commands(cli=cli)
        # Standalone mode shows click's own errors and ends every run with
        # SystemExit, which carries the status a command chose through
        # ctx.exit() or sys.exit(); non-standalone mode loses it.
        cli.main(args=list(argv) if argv is not None else None, prog_name="tinymemory")
    except SystemExit as done:
        return _status(done.code)
    except TinyMemoryError as error:
        click.echo(f"tinymemory: {error}", err=True)
        return 1


def _echo_bytes_as_given() -> None:
    """Let stdout and stderr write back argument bytes that are not UTF-8 (a file name) as given.

    Python reads such bytes into lone surrogates; written strictly, they would
    end the command in a UnicodeEncodeError after its work was done.
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="surrogateescape")


def _status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    click.echo(str(code), err=True)  # sys.exit("message") prints it and fails
    return 1


def run() -> None:
    """Entry point of the ``tinymemory`` console script."""
    sys.exit(main())
