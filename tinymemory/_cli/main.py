"""The ``tinymemory`` command line: the group, and the commands it loads when they run.

``tinymemory --help`` imports no command's module and no plugin: each core
command is named here, with its module and its one-line help, as data
(:data:`CORE_COMMANDS`; a test holds each line equal to the command's own),
and plugins declare theirs in their entry points
(:mod:`tinymemory._cli.plugin_commands`). A command's module is imported when
the command is looked up to run. The informational commands live in
:mod:`tinymemory._cli.info_commands`, the data commands in
:mod:`tinymemory._cli.data_commands`.
"""

from __future__ import annotations

import importlib
import io
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import click

from tinymemory._cli.plugin_commands import PluginAwareGroup
from tinymemory._errors import TinyMemoryError
from tinymemory._plugin_entries import installed


class CoreCommand(NamedTuple):
    """Where a core command is defined (module and attribute) and its one-line help."""

    module: str
    attribute: str
    help: str


_INFO = "tinymemory._cli.info_commands"
_DATA = "tinymemory._cli.data_commands"

#: Every core command by name.
CORE_COMMANDS: dict[str, CoreCommand] = {
    "completion": CoreCommand(
        _INFO,
        "completion_command",
        "Print the completion script for SHELL: commands, options and their choices.",
    ),
    "config": CoreCommand(
        _INFO,
        "config",
        "Show the configuration in force: its file, the engine and its settings.",
    ),
    "conformance": CoreCommand(
        _INFO,
        "conformance_command",
        "Run the conformance suite against an installed engine (default: the configured one).",
    ),
    "context": CoreCommand(
        _INFO,
        "context_command",
        "Compile context.md from the configured engine: briefs and learnings within a budget.",
    ),
    "convert": CoreCommand(
        _DATA,
        "convert_command",
        "Convert FILE to markdown with the installed converters, as `store --file` does.",
    ),
    "engines": CoreCommand(_INFO, "engines", "List the installed engines."),
    "erase": CoreCommand(
        _DATA,
        "erase",
        "Delete items for good: every item (of --kind) at a node, and with --subtree below it.",
    ),
    "explore": CoreCommand(
        _DATA, "explore", "Count stored items per value of FACET, largest first."
    ),
    "export": CoreCommand(
        _DATA,
        "export",
        'Write items whole as JSON lines ({"id": ..., "item": {...}}), for `import`.',
    ),
    "fetch": CoreCommand(
        _DATA, "fetch", "Rank stored items against QUERY by keyword, vector or hybrid search."
    ),
    "forget": CoreCommand(
        _DATA,
        "forget",
        "Forget items by id (or any unique prefix of 4 or more digits), or every item the "
        "filter options admit.",
    ),
    "get": CoreCommand(
        _DATA,
        "get",
        "Print items whole by id (or any unique prefix of 4 or more digits): text and metadata.",
    ),
    "import": CoreCommand(
        _DATA,
        "import_command",
        "Store the items of a JSON-lines FILE (from `export`, or one item per line); - is stdin.",
    ),
    "ingest": CoreCommand(
        _DATA,
        "ingest",
        "Read a source (a folder, a file, a link, ...) into memory through an installed reader.",
    ),
    "list": CoreCommand(
        _DATA, "list_command", "List stored items, without ranking, a page at a time."
    ),
    "new-plugin": CoreCommand(
        "tinymemory._cli.new_plugin",
        "new_plugin_command",
        "Write tinymemory-NAME/, an engine plugin that passes the conformance suite.",
    ),
    "plugins": CoreCommand(
        _INFO,
        "plugins",
        "List the installed plugins, their versions and the hooks they implement.",
    ),
    "recall": CoreCommand(
        _DATA, "recall", "Answer QUESTION from memory, then list the items the answer cites."
    ),
    "reindex": CoreCommand(
        "tinymemory._cli.reindex_command",
        "reindex_command",
        "Re-embed every item of the configured memory and record the embedder as its own.",
    ),
    "store": CoreCommand(
        _DATA,
        "store",
        "Store TEXT as a learning, or as a document (--document, --file); - reads stdin.",
    ),
    "tools": CoreCommand(
        _INFO,
        "tools_command",
        "List the memory tools a model is offered over the configured engine.",
    ),
}


class CommandLine(PluginAwareGroup):
    """The ``tinymemory`` group: core commands imported from their module when looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command: the core's, the plugins' (declared or added) and any added."""
        return sorted({*super().list_commands(ctx), *CORE_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, its module imported (a core command) or its plugin loaded first."""
        core = CORE_COMMANDS.get(cmd_name)
        if core is not None and cmd_name not in self.commands:
            command = getattr(importlib.import_module(core.module), core.attribute)
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def listed(self, name: str) -> click.Command | None:
        """A core command not imported yet, as ``--help`` lists it."""
        core = CORE_COMMANDS.get(name)
        if core is None or name in self.commands:
            return super().listed(name)
        return click.Command(name, help=core.help)


@click.group(name="tinymemory", cls=CommandLine)
@click.version_option(package_name="tinymemory")
def cli() -> None:
    """TinyMemory: memory for AI agents."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line (with plugin commands added); returns the exit status."""
    _echo_bytes_as_given()
    with warnings.catch_warnings():
        warnings.showwarning = _show_notices_as_lines(warnings.showwarning)
        try:
            _add_undeclared_commands()
            # Standalone mode shows click's own errors and ends every run with
            # SystemExit, which carries the status a command chose through
            # ctx.exit() or sys.exit(); non-standalone mode loses it.
            cli.main(args=list(argv) if argv is not None else None, prog_name="tinymemory")
        except SystemExit as done:
            return _status(done.code)
        except TinyMemoryError as error:
            click.echo(f"tinymemory: {error}", err=True)
            return 1


def _show_notices_as_lines(shown: Callable[..., None]) -> Callable[..., None]:
    """``warnings.showwarning`` that writes the SDK's notices to a user (a memory keeping
    its embedder) as one ``tinymemory: note: ...`` line on stderr, and others as ``shown``."""

    def show(message: Warning | str, category: type[Warning], *rest: Any, **named: Any) -> None:
        from tinymemory._embedder_choice import KeptEmbedderWarning

        if issubclass(category, KeptEmbedderWarning):
            click.echo(f"tinymemory: note: {message}", err=True)
        else:
            shown(message, category, *rest, **named)

    return show


def _add_undeclared_commands() -> None:
    """Add the commands of the plugins that declare none (any of them may add any command).

    Declared commands load when they run. When every installed plugin declares
    what it offers and the plugin system is not in use in this process (no
    plugin registered at run time), nothing is imported.
    """
    in_use = "tinymemory._plugin_manager" in sys.modules
    if not in_use and installed().every_one_declares:
        return
    from tinymemory._plugin_manager import undeclared_command_manager

    manager = undeclared_command_manager()
    if manager is not None:
        manager.hook.tinymemory_register_commands(cli=cli)


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
