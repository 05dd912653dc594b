"""The docs site's CLI reference lists every command of the click tree, with its options."""

from __future__ import annotations

import importlib.util
import sys

import click
from doc_examples import ROOT

sys.path.insert(0, str(ROOT / "docs" / "site-config"))

from cli_reference import command_tree, reference_markdown, walk


def sections(markdown: str) -> dict[str, str]:
    """Each ``## `command path` `` heading's section, by command path."""
    found = {}
    for block in markdown.split("\n## `")[1:]:
        path, _, body = block.partition("`\n")
        found[path] = body
    return found


@click.group(name="demo")
def demo() -> None:
    """A demo tool."""


@demo.group(name="queue")
def queue() -> None:
    """Work with queues.

    Queues hold <jobs> in order.
    """


@queue.command(name="push")
@click.argument("items", nargs=-1, required=True)
@click.option("--priority", type=click.Choice(["low", "high"]), default="low", help="How urgent.")
@click.option("--tag", "tags", multiple=True, help="A label | any text.")
@click.option("--retries", type=click.IntRange(0, 5), default=2, help="Tries after the first.")
@click.option("--dry-run", is_flag=True, help="Only count.")
def push(items: tuple[str, ...], priority: str, tags: tuple[str, ...], retries: int) -> None:
    """Push ITEMS onto the queue."""


@demo.command(name="secret", hidden=True)
def secret() -> None:
    """Not shown."""


def test_a_nested_group_is_written_with_usage_help_arguments_and_options() -> None:
    page = sections(reference_markdown(demo, prog="demo"))

    assert list(page) == ["demo", "demo queue", "demo queue push"]
    assert "Usage: demo queue [OPTIONS] COMMAND [ARGS]..." in page["demo queue"]
    assert "Queues hold &lt;jobs> in order." in page["demo queue"]
    assert "Commands: `push`." in page["demo queue"]
    push_section = page["demo queue push"]
    assert "```text\nUsage: demo queue push [OPTIONS] ITEMS...\n```" in push_section
    assert "Push ITEMS onto the queue." in push_section
    assert "| `ITEMS...` | text | required, any number |" in push_section
    assert "| `--priority` | one of `low`, `high` | `low` | How urgent. |" in push_section
    assert "| `--tag` | `TEXT` |  | A label \\| any text. Repeatable. |" in push_section
    assert "| `--retries` | `INTEGER RANGE` | `2` | Tries after the first. Range `0<=x<=5`. |" in (
        push_section
    )
    assert "| `--dry-run` | flag |  | Only count. |" in push_section


def test_hidden_commands_are_left_out_and_the_contents_link_every_section() -> None:
    markdown = reference_markdown(demo, prog="demo")
    assert "secret" not in markdown
    assert "| [`demo queue push`](#demo-queue-push) | Push ITEMS onto the queue. |" in markdown


def test_every_command_of_the_tinymemory_tree_is_listed_with_every_option() -> None:
    root = command_tree()
    page = sections(reference_markdown(root))
    contexts = list(walk(click.Context(root, info_name="tinymemory")))

    assert len(contexts) > 10  # the core's own commands, at least
    assert list(page) == [ctx.command_path for ctx in contexts]
    for ctx in contexts:
        section = page[ctx.command_path]
        assert ctx.command.get_usage(ctx) in section
        for param in ctx.command.get_params(ctx):
            if set(param.opts) & set(ctx.help_option_names):
                continue
            if isinstance(param, click.Option):
                for name in [*param.opts, *param.secondary_opts]:
                    assert f"`{name}`" in section, (ctx.command_path, name)
            else:
                assert f"| `{param.make_metavar(ctx)}` |" in section, (ctx.command_path, param)


def test_the_data_commands_are_there() -> None:
    page = sections(reference_markdown(command_tree()))
    for name in ("store", "fetch", "recall", "list", "get", "export", "import", "erase"):
        assert f"tinymemory {name}" in page


def test_the_docs_env_installs_every_plugin_so_the_reference_has_their_commands() -> None:
    """toxfile.py adds every plugin's folder to tox.ini's ``docs`` deps (tox not needed here)."""
    spec = importlib.util.spec_from_file_location("toxfile", ROOT / "toxfile.py")
    assert spec is not None
    assert spec.loader is not None
    toxfile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(toxfile)
    deps = toxfile.every_plugins_deps()["docs"]
    folders = [str(path.parent) for path in sorted((ROOT / "plugins").glob("*/pyproject.toml"))]
    assert len(folders) > 1
    assert [dep for dep in deps if "/plugins/" in dep] == folders
    assert str(ROOT) in deps


def test_ingest_lists_the_options_the_installed_readers_declare(builtin_plugins: None) -> None:
    from tinymemory._hookspecs import ReaderOption, hookimpl
    from tinymemory._plugin_manager import plugin_manager

    class Notes:
        name = "notes"
        options = (ReaderOption(name="separator", help="Where a note ends."),)

        def read(self, context: object) -> list[object]:
            return []

    class Offers:
        @hookimpl
        def tinymemory_source_readers(self) -> list[object]:
            return [Notes()]

    plugin_manager().register(Offers())
    section = sections(reference_markdown(command_tree()))["tinymemory ingest"]
    assert "| `--separator` | `TEXT` |  | notes: Where a note ends. |" in section
    assert "one of `notes`" in section
    assert "`--help`" not in section
