"""``tinymemory --help`` from data: core commands are named with their help, imported when run."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys

import click
import pytest

from tinymemory._cli.main import CORE_COMMANDS, cli

MODULES = sorted({core.module for core in CORE_COMMANDS.values()})


def defined_commands() -> dict[str, tuple[str, str, click.Command]]:
    """Every click command the core's command modules define: module, attribute, command."""
    found = {}
    for module in MODULES:
        for attribute, value in vars(importlib.import_module(module)).items():
            if isinstance(value, click.Command):
                assert value.name is not None
                found[value.name] = (module, attribute, value)
    return found


def test_the_table_names_every_core_command_where_it_is_defined() -> None:
    defined = defined_commands()
    assert set(CORE_COMMANDS) == set(defined)
    for name, (module, attribute, _) in defined.items():
        assert (CORE_COMMANDS[name].module, CORE_COMMANDS[name].attribute) == (module, attribute)


@pytest.mark.parametrize("limit", [12, 30, 45, 60, 80, 120, 400])
def test_each_listed_line_is_the_commands_own_at_any_width(limit: int) -> None:
    listed = {name: click.Command(name, help=core.help) for name, core in CORE_COMMANDS.items()}
    for name, (_, _, command) in defined_commands().items():
        assert listed[name].get_short_help_str(limit) == command.get_short_help_str(limit), name


#: What ``tinymemory --help`` may not import: a command's module, the contract, the plugin system.
NOT_FOR_HELP = (
    "tinymemory._cli.data_commands",
    "tinymemory._cli.info_commands",
    "tinymemory._cli.new_plugin",
    "tinymemory._plugin_manager",
    "tinymemory._engine",
    "tinymemory._items",
    "pluggy",
    "attrs",
    "cattrs",
)

HELP_PROBE = """
import json, sys
from tinymemory._cli.main import main
status = main(["--help"])
print(json.dumps({"status": status, "modules": sorted(sys.modules)}), file=sys.stderr)
"""


def test_help_imports_no_command_module_and_no_plugin_system() -> None:
    env = {name: value for name, value in os.environ.items() if name != "TINYMEMORY_PLUGINS"}
    done = subprocess.run(
        [sys.executable, "-c", HELP_PROBE], capture_output=True, text=True, env=env, check=True
    )
    report = json.loads(done.stderr.splitlines()[-1])
    assert report["status"] == 0
    for name in CORE_COMMANDS:
        assert f"  {name} " in done.stdout
    # Holds where every installed plugin declares what it offers (all of this repository's).
    assert set(report["modules"]) & set(NOT_FOR_HELP) == set()


def test_a_command_looked_up_is_the_one_its_module_defines() -> None:
    context = click.Context(cli)
    for name, (_, _, command) in defined_commands().items():
        assert cli.get_command(context, name) is command
