"""The CLI reference page, generated from the ``tinymemory`` command's own click tree.

A mkdocs hook (``hooks:`` in ``mkdocs.yml`` beside this file): ``on_files`` adds
``reference/cli.md``, written by :func:`reference_markdown` from the commands
installed where the site is built, plugin commands included. The generator
needs only click, so the tests run it without mkdocs.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

PAGE = "reference/cli.md"

INTRO = """\
# CLI reference

Every command of `tinymemory` installed where this site was built, the bundled
plugins' commands included, as the command itself describes it: this page is
written from its click definitions when the site is built, so it cannot drift
from the code. Every command also takes `--help`. The [CLI guide](../cli.md)
explains the data commands with examples.
"""


def command_tree() -> click.Group:
    """The ``tinymemory`` group, with the commands of every installed plugin added."""
    # The console script adds plugin commands in main(); the same hook call here.
    from tinymemory._cli.main import cli
    from tinymemory._plugin_manager import plugin_manager

    plugin_manager().hook.tinymemory_register_commands(cli=cli)
    return cli


def walk(ctx: click.Context) -> Iterator[click.Context]:
    """``ctx`` and a context for every visible command below it, depth first, by name."""
    yield ctx
    command = ctx.command
    if not isinstance(command, click.Group):
        return
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        yield from walk(click.Context(sub, info_name=name, parent=ctx, show_default=True))


def reference_markdown(root: click.Group, prog: str = "tinymemory") -> str:
    """The reference page for ``root``: each command's usage, help, arguments and options."""
    top = click.Context(root, info_name=prog, show_default=True)
    sections = [INTRO, _contents(top)]
    sections.extend(_section(ctx) for ctx in walk(top))
    return "\n".join(sections)


def _contents(top: click.Context) -> str:
    lines = ["| command | what it does |", "| --- | --- |"]
    for ctx in walk(top):
        if ctx is top:
            continue
        path = ctx.command_path
        summary = _cell(ctx.command.get_short_help_str(limit=200))
        lines.append(f"| [`{path}`](#{_anchor(path)}) | {summary} |")
    return "\n".join(lines) + "\n"


def _section(ctx: click.Context) -> str:
    command = ctx.command
    parts = [
        f"## `{ctx.command_path}`",
        "```text\n" + command.get_usage(ctx) + "\n```",
    ]
    if command.help:
        parts.append(_help_text(command.help))
    # get_params: a command may add parameters of its own (ingest, its readers' options).
    params = [
        param
        for param in command.get_params(ctx)
        if not set(param.opts) & set(ctx.help_option_names)
    ]
    arguments = [param for param in params if isinstance(param, click.Argument)]
    if arguments:
        parts.append(_arguments_table(ctx, arguments))
    options = [param for param in params if isinstance(param, click.Option) and not param.hidden]
    if options:
        parts.append(_options_table(ctx, options))
    if isinstance(command, click.Group):
        names = [name for name in command.list_commands(ctx) if _visible(command, ctx, name)]
        parts.append("Commands: " + ", ".join(f"`{name}`" for name in names) + ".")
    return "\n\n".join(parts) + "\n"


def _visible(group: click.Group, ctx: click.Context, name: str) -> bool:
    command = group.get_command(ctx, name)
    return command is not None and not command.hidden


def _help_text(text: str) -> str:
    # As click prints it: the docstring dedented, cut at `\f`; `\b` marks a
    # paragraph click must not rewrap.
    text = inspect.cleandoc(text).partition("\f")[0].strip()
    paragraphs = [block.replace("\b\n", "") for block in text.split("\n\n")]
    return "\n\n".join(_escape(block) for block in paragraphs)


def _arguments_table(ctx: click.Context, arguments: list[click.Argument]) -> str:
    lines = ["| argument | value | |", "| --- | --- | --- |"]
    for argument in arguments:
        notes = ["required" if argument.required else "optional"]
        if argument.nargs == -1:
            notes.append("any number")
        lines.append(
            f"| `{argument.make_metavar(ctx)}` | {_value(ctx, argument)} | {', '.join(notes)} |"
        )
    return "\n".join(lines)


def _options_table(ctx: click.Context, options: list[click.Option]) -> str:
    lines = ["| option | value | default | meaning |", "| --- | --- | --- | --- |"]
    for option in options:
        names = ", ".join(f"`{name}`" for name in [*option.opts, *option.secondary_opts])
        value = "flag" if option.is_flag and not option.secondary_opts else _value(ctx, option)
        extra = option.get_help_extra(ctx)
        default = f"`{extra['default']}`" if "default" in extra else ""
        notes = [_escape(option.help or "")]
        if option.multiple:
            notes.append("Repeatable.")
        if "range" in extra:
            notes.append(f"Range `{extra['range']}`.")
        if "envvars" in extra:
            notes.append("From " + ", ".join(f"`{name}`" for name in extra["envvars"]) + ".")
        if "required" in extra:
            notes.append("Required.")
        meaning = _cell(" ".join(note for note in notes if note))
        lines.append(f"| {names} | {value} | {default} | {meaning} |")
    return "\n".join(lines)


def _value(ctx: click.Context, param: click.Parameter) -> str:
    if isinstance(param.type, click.Choice):
        return "one of " + ", ".join(f"`{choice}`" for choice in param.type.choices)
    if isinstance(param, click.Option):
        return f"`{param.make_metavar(ctx)}`"
    return _escape(param.type.name)


def _anchor(path: str) -> str:
    # The toc extension's slug of the heading `` `tinymemory store` ``.
    return path.lower().replace(" ", "-")


def _escape(text: str) -> str:
    # Help texts are prose with `code` spans, not markdown: outside the spans,
    # keep `<`, `*` and `_` literal (markdown escapes inside them itself).
    pieces = text.split("`")
    for index in range(0, len(pieces), 2):
        pieces[index] = pieces[index].replace("<", "&lt;").replace("*", r"\*").replace("_", r"\_")
    return "`".join(pieces)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", r"\|")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """mkdocs hook: add the generated CLI reference to the site's files.

    A plugin that failed to load would leave its commands out without a word,
    so the build fails instead, naming it and why.
    """
    from mkdocs.exceptions import PluginError
    from mkdocs.structure.files import File

    from tinymemory._plugin_manager import list_plugins

    root = command_tree()
    broken = [f"{info.name}: {info.error}" for info in list_plugins() if info.error]
    if broken:
        raise PluginError(
            "plugins failed to load, so the CLI reference would miss their commands: "
            + "; ".join(broken)
        )
    files.append(File.generated(config, PAGE, content=reference_markdown(root)))
    return files
