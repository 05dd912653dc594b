"""tox, driven from the plugins folder: a plugin declares its own test environments.

A plugin's ``pyproject.toml`` holds a table per environment,
``[tool.tinymemory.tox.<name>]``, with the keys of a ``[testenv]`` section it
needs: ``description``, ``deps``, ``commands`` (each a command line),
``pass_env`` and ``change_dir``. In their text ``{root}`` is this folder,
``{plugin}`` the plugin's folder, ``{envtmpdir}`` the environment's
temporary folder and ``{posargs}`` the arguments after ``--``. tox loads this
file (an in-tree plugin) and adds every declared environment to
``env_list``, so ``tox p -o`` runs it and ``tox -e <name>`` finds it: adding a
plugin edits no list here. Each environment installs nothing of its own
(``skip_install``): its ``deps`` name the core and the plugin folders.

Two environments of ``tox.ini`` take every plugin besides their own ``deps``:
``docs`` installs each plugin's folder (the CLI reference lists its
commands), and ``type`` what each plugin's ``[tool.tinymemory] type_deps``
names (the libraries and stubs mypy needs to read its ``src/``).

tox is imported only in the hooks, so the tests read what this file derives
without it.
"""

from __future__ import annotations

import configparser
import shlex
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from tox.config.sets import CoreConfigSet
    from tox.session.state import State

ROOT = Path(__file__).resolve().parent
#: The keys a plugin's environment may set.
KEYS = {"description", "deps", "commands", "pass_env", "change_dir"}
#: tox's hook marker (``tox.plugin.impl``).
impl = pluggy.HookimplMarker("tox")


def plugins() -> dict[Path, dict[str, Any]]:
    """Every plugin's folder and its ``[tool.tinymemory]`` table."""
    return {
        pyproject.parent: tomllib.loads(pyproject.read_text(encoding="utf-8"))
        .get("tool", {})
        .get("tinymemory", {})
        for pyproject in sorted(ROOT.glob("plugins/*/pyproject.toml"))
    }


def declared() -> dict[str, tuple[Path, dict[str, Any]]]:
    """Every plugin's environments by name: the plugin's folder and the table declaring it."""
    found: dict[str, tuple[Path, dict[str, Any]]] = {}
    for folder, tool in plugins().items():
        for name, table in tool.get("tox", {}).items():
            unknown = set(table) - KEYS
            if unknown or name in found:
                raise ValueError(f"{folder}: environment `{name}`: unknown keys or a second one")
            found[name] = (folder, table)
    return found


def ini() -> configparser.ConfigParser:
    """tox.ini, as written (no substitution)."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    return parser


def every_plugins_deps() -> dict[str, list[str]]:
    """The ``deps`` of tox.ini's ``docs`` and ``type``, with what every plugin adds to them."""
    parser = ini()
    found = plugins()
    added = {
        "docs": [str(folder) for folder in found],
        "type": [dep for tool in found.values() for dep in tool.get("type_deps", [])],
    }
    deps: dict[str, list[str]] = {}
    for name, extra in added.items():
        own = parser[f"testenv:{name}"]["deps"].replace("{toxinidir}", str(ROOT)).split("\n")
        deps[name] = list(dict.fromkeys(dep.strip() for dep in [*own, *extra] if dep.strip()))
    return deps


@impl
def tox_extend_envs() -> list[str]:
    return list(declared())


@impl
def tox_add_core_config(core_conf: CoreConfigSet, state: State) -> None:
    from tox.config.loader.memory import MemoryLoader
    from tox.config.types import Command, EnvList
    from tox.tox_env.python.pip.req_file import PythonDeps

    envs = declared()
    listed = [name.strip() for name in ini()["tox"]["env_list"].replace("\n", ",").split(",")]
    core_conf.loaders.insert(0, MemoryLoader(env_list=EnvList([n for n in listed if n] + [*envs])))
    for name, deps in every_plugins_deps().items():
        loader = MemoryLoader(deps=PythonDeps("\n".join(deps), root=ROOT))
        state.conf.memory_seed_loaders[name].append(loader)
    posargs = list(state.conf.pos_args(None) or ())
    work = Path(state.conf.options.work_dir or ROOT / ".tox")
    for name, (plugin, table) in envs.items():
        places = {
            "{root}": str(ROOT),
            "{plugin}": str(plugin),
            "{envtmpdir}": str(work / name / "tmp"),
        }

        def fill(text: str, places: dict[str, str] = places) -> str:
            for mark, value in places.items():
                text = text.replace(mark, value)
            return text

        commands = []
        for line in table.get("commands", []):
            words: list[str] = []
            for word in shlex.split(fill(line)):
                words += posargs if word == "{posargs}" else [word]
            commands.append(Command(words))
        values: dict[str, Any] = {
            "description": table.get("description", ""),
            "skip_install": True,
            "deps": PythonDeps("\n".join(fill(dep) for dep in table.get("deps", [])), root=ROOT),
            "commands": commands,
            "pass_env": list(table.get("pass_env", [])),
        }
        if "change_dir" in table:
            values["change_dir"] = Path(fill(table["change_dir"]))
        state.conf.memory_seed_loaders[name].append(MemoryLoader(**values))
