"""Commands that come with a plugin: loaded when run, and what is said when one is missing.

An installed plugin declares the commands it adds in its entry points (the
group ``tinymemory.register_commands``, one entry per command), so
``tinymemory --help`` lists them, with the distribution's summary as their
line, without importing the plugin; the plugin is imported, and its
``tinymemory_register_commands`` hook called, when one of its commands runs.

Each plugin of this repository declares its commands so; :data:`PLUGIN_COMMANDS`
is those declarations gathered, as data (a test holds the two equal). A
command that is not installed is then not ``No such command``, but the
plugin that brings it and the line that installs it.
"""

from __future__ import annotations

import click

from tinymemory._errors import ConfigError
from tinymemory._plugin_entries import COMMANDS_HOOK, DeclaredCommand, declaration_group, installed

#: The command each plugin of this repository adds, by command name: its distribution.
PLUGIN_COMMANDS: dict[str, str] = {
    "import-v1": "tinymemory-legacy-import",
    "mcp": "tinymemory-mcp",
    "scrub": "tinymemory-safety",
    "sqlite": "tinymemory-sqlite",
    "ui": "tinymemory-ui",
}


def missing_command_hint(name: str) -> str | None:
    """Why ``name`` is no command here and how to get it; ``None`` when no known plugin has it."""
    from tinymemory._plugin_manager import list_plugins, load_error

    declared = _declared().get(name)
    if declared is not None:
        error = load_error(declared.plugin)
        if error is None:
            return f"plugin `{declared.plugin}` declares `{name}` but did not add it"
        return (
            f"`{name}` comes with {declared.distribution or declared.plugin}, which is "
            f"installed but failed to load: {error} (`tinymemory plugins` lists the plugins)"
        )
    distribution = PLUGIN_COMMANDS.get(name)
    if distribution is None:
        return None
    failed = [
        info
        for info in list_plugins()
        if info.error and (info.distribution or "").lower() == distribution
    ]
    if failed:
        return (
            f"`{name}` comes with {distribution}, which is installed but failed to load: "
            f"{failed[0].error} (`tinymemory plugins` lists the plugins)"
        )
    return (
        f"`{name}` comes with the {distribution} plugin, which is not installed. From a clone "
        f"of the repository, install it with `pip install plugins/{distribution}` "
        f"(once published: `pip install {distribution}`)"
    )


def _declared() -> dict[str, DeclaredCommand]:
    # The plugin manager (pluggy, the hooks) is imported only to load a plugin.
    return installed().commands


class PluginAwareGroup(click.Group):
    """A command group with the commands plugins declare, each plugin loaded when its command runs.

    ``--help`` lists a declared command without loading its plugin
    (:meth:`listed`). It also names the plugin to install for a known command
    it lacks.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The commands added and those installed plugins declare, by name."""
        return sorted({*self.commands, *_declared()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command; a declared one's plugin is loaded first (``None`` if it fails to)."""
        if cmd_name not in self.commands and cmd_name in _declared():
            self.load_command(cmd_name)
        return self.commands.get(cmd_name)

    def listed(self, name: str) -> click.Command | None:
        """The command as ``--help`` lists it: a declared one not loaded yet stands in unloaded."""
        declared = _declared().get(name)
        if name in self.commands or declared is None:
            return self.commands.get(name)
        return click.Command(name, help=declared.summary or declared.distribution)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The ``Commands:`` section of ``--help``, from :meth:`listed` (nothing is loaded)."""
        listed = [(name, self.listed(name)) for name in self.list_commands(ctx)]
        shown = [(name, command) for name, command in listed if command and not command.hidden]
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in shown)
        with formatter.section("Commands"):
            formatter.write_dl(
                [(name, command.get_short_help_str(limit)) for name, command in shown]
            )

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click resolves it; a plugin's command that is not installed (or whose plugin
        failed to load) says which plugin and why."""
        name = click.utils.make_str(args[0]) if args else ""
        if self.get_command(ctx, name) is None and (hint := missing_command_hint(name)):
            ctx.fail(f"No such command '{name}': {hint}.")
        return super().resolve_command(ctx, args)

    def load_command(self, name: str) -> None:
        """Import the plugin declaring command ``name`` and add the commands it adds.

        A plugin adding a command it did not declare is ``ConfigError``: its
        command would be missing whenever the plugin is not loaded yet.
        """
        from tinymemory._plugin_manager import command_manager

        declared = _declared()
        owner = declared[name].plugin
        for impl in command_manager(name).hook.tinymemory_register_commands.get_hookimpls():
            if impl.plugin_name != owner:
                continue
            added = click.Group()
            impl.function(cli=added)
            for command_name, command in added.commands.items():
                if command_name not in declared or declared[command_name].plugin != owner:
                    group = declaration_group(COMMANDS_HOOK)
                    raise ConfigError(
                        f"plugin `{impl.plugin_name}` adds the command `{command_name}` without "
                        f"declaring it in the entry-point group `{group}`"
                    )
                self.add_command(command, command_name)
