"""The plugin's hooks: the scrubber for every engine ``build_engine`` makes; ``tinymemory scrub``.

Its policy comes from the configuration file's ``[plugins.safety]`` table,
then the environment (``TINYMEMORY_SAFETY_BARE_CARD``, ``..._EMAILS``,
``..._REGION``, ``..._IP_ADDRESSES``), read each time the core collects
scrubbers, so a bad value is a ``ConfigError`` from ``build_engine`` before
anything is stored.
"""

from __future__ import annotations

import click

from tinymemory.plugin import Scrubber, hookimpl, plugin_settings
from tinymemory_safety.commands import scrub_command
from tinymemory_safety.policy import installed_policy
from tinymemory_safety.scrubber import SafetyScrubber


@hookimpl
def tinymemory_scrubbers() -> list[Scrubber]:
    """The safety scrubber, with the configuration's and the environment's policy."""
    return [SafetyScrubber(installed_policy(plugin_settings("safety")))]


@hookimpl
def tinymemory_register_commands(cli: click.Group) -> None:
    """``tinymemory scrub``: a text as the installed scrubber would store it."""
    cli.add_command(scrub_command)
