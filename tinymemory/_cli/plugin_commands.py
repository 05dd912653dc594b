"""Commands that come with a plugin, and what ``tinymemory`` says when one is not installed.

Each plugin of this repository declares the commands it adds in its
``pyproject.toml`` (``[tool.tinymemory] commands = [...]``); :data:`PLUGIN_COMMANDS`
is those declarations gathered, as data (a test holds the two equal). A
command that is not installed is then not ``No such command``, but the
plugin that brings it and the line that installs it.
"""

from __future__ import annotations

import click

from tinymemory._plugin_manager import list_plugins

#: The command each plugin of this repository adds, by command name: its distribution.
PLUGIN_COMMANDS: dict[str, str] = {
    "import-v1": "tinymemory-legacy-import",
    "mcp": "tinymemory-mcp",
    "scrub": "tinymemory-safety",
    "sqlite": "tinymemory-sqlite",
}


def missing_command_hint(name: str) -> str | None:
    """Why ``name`` is no command here and how to get it; ``None`` when no known plugin has it."""
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


class PluginAwareGroup(click.Group):
    """A command group that names the plugin to install for a known command it lacks."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """As click resolves it, but a plugin's command that is not installed says which plugin."""
        name = click.utils.make_str(args[0]) if args else ""
        if self.get_command(ctx, name) is None and (hint := missing_command_hint(name)):
            ctx.fail(f"No such command '{name}': {hint}.")
        return super().resolve_command(ctx, args)
