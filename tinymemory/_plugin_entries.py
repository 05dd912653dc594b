"""What is installed, read from the entry points alone: no plugin, and not pluggy, is imported.

A plugin is an entry of the group ``tinymemory``. It declares what it offers
in groups of its own distribution, one per hook: ``tinymemory.`` and the
hook's name without ``tinymemory_`` (``tinymemory.engines``,
``tinymemory.register_commands``, ``tinymemory.scrubbers`` ...), each entry
named for what it offers (an engine id, a command, a scrubber's name) and
pointing at the plugin's module. :func:`scan` reads all of it, with what the
user turned off, for the plugin manager (which imports each plugin when a hook
it declares is needed) and for ``tinymemory --help`` (which lists the declared
commands and imports nothing).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from tinymemory._config_file import parse_toml, plugins_table, read_config_text

if TYPE_CHECKING:
    from importlib.metadata import Distribution, EntryPoint

#: The entry-point group of plugins (the pluggy project name, ``_hookspecs.PROJECT``).
GROUP = "tinymemory"
#: Names the only plugins to load, comma-separated (unset: every installed one).
PLUGINS_VARIABLE = "TINYMEMORY_PLUGINS"
#: Modules registered exactly like third-party plugins, before them, each declaring what
#: it offers as an installed plugin would (so it loads only when that is needed); none
#: adds a command.
BUILTIN_OFFERS: dict[str, dict[str, frozenset[str]]] = {
    "tinymemory.reference": {"tinymemory_engines": frozenset({"reference"})},
    "tinymemory.hashing": {"tinymemory_embedders": frozenset({"hashing"})},
    "tinymemory.answerers": {"tinymemory_answerers": frozenset({"extractive"})},
}
BUILTIN_PLUGINS = tuple(BUILTIN_OFFERS)
#: The hook that adds commands to the command line.
COMMANDS_HOOK = "tinymemory_register_commands"

#: What a plugin declares: hook name to the names it offers there; ``None``: nothing declared.
Offers = dict[str, frozenset[str]] | None


class Found(NamedTuple):
    """A plugin that may load: its entry point (``None`` for a built-in) and its declarations."""

    entry: EntryPoint | None
    offers: Offers


class DeclaredCommand(NamedTuple):
    """A command an installed plugin declares: its name, plugin, and distribution's summary."""

    name: str
    plugin: str
    distribution: str | None
    summary: str


class Installed(NamedTuple):
    """What :func:`scan` found.

    ``plugins``: those that may load, in load order (built-ins, then by name);
    ``every_one_declares``: whether each installed plugin (built-ins aside)
    declares what it offers, so no command can come from an unloaded plugin
    but a declared one;
    ``blocked``: those the user turned off; ``duplicates``: names two
    distributions claim (neither loads); ``distributions``: each installed
    plugin's distribution and version; ``commands``: the declared commands.
    """

    plugins: dict[str, Found]
    every_one_declares: bool
    blocked: frozenset[str]
    duplicates: frozenset[str]
    distributions: dict[str, tuple[str, str]]
    commands: dict[str, DeclaredCommand]


_installed: Installed | None = None


def installed() -> Installed:
    """What :func:`scan` finds, scanned once per process (until :func:`forget_installed`)."""
    global _installed
    if _installed is None:
        _installed = scan()
    return _installed


def forget_installed() -> None:
    """Scan again on the next :func:`installed` (after plugins are installed or turned off)."""
    global _installed
    _installed = None


def declaration_group(hook_name: str) -> str:
    """The entry-point group a plugin declares what it offers through ``hook_name`` in."""
    return f"{GROUP}.{hook_name.removeprefix(GROUP + '_')}"


def scan(environ: Mapping[str, str] | None = None) -> Installed:
    """Every installed plugin and what it declares, from the entry points, importing none."""
    # Here, not at the top: an engine used directly (no registry) never reads metadata.
    from importlib.metadata import entry_points

    groups = entry_points()
    # Sorted, so what loads (and in which order) never depends on the machine.
    entries = sorted(groups.select(group=GROUP), key=lambda entry: (entry.name, entry.value))
    blocked = frozenset(
        blocked_plugins([*BUILTIN_PLUGINS, *(entry.name for entry in entries)], environ)
    )
    plugins = {
        name: Found(None, offers) for name, offers in BUILTIN_OFFERS.items() if name not in blocked
    }
    fields = {id(entry.dist): _metadata(entry.dist) for entry in entries if entry.dist is not None}
    declared = _declarations(groups, entries, fields)
    counts = Counter(entry.name for entry in entries)
    duplicates = {
        entry.name
        for entry in entries
        if entry.name not in blocked and (counts[entry.name] > 1 or entry.name in BUILTIN_PLUGINS)
    }
    distributions: dict[str, tuple[str, str]] = {}
    commands: dict[str, DeclaredCommand] = {}
    for entry in entries:
        if entry.name in blocked:
            continue
        meta = fields.get(id(entry.dist), {})
        if entry.dist is not None:  # known for a plugin that fails to load, too
            distributions[entry.name] = (meta.get("Name", ""), meta.get("Version", ""))
        if entry.name in duplicates:
            continue
        offers = declared.get(entry.name)
        plugins[entry.name] = Found(entry, offers)
        for command in sorted((offers or {}).get(COMMANDS_HOOK, ())):
            commands[command] = DeclaredCommand(
                command, entry.name, meta.get("Name"), meta.get("Summary", "")
            )
    every_one_declares = all(
        found.offers is not None for found in plugins.values() if found.entry is not None
    )
    return Installed(
        plugins, every_one_declares, blocked, frozenset(duplicates), distributions, commands
    )


def _declarations(
    groups: Any, entries: list[EntryPoint], fields: dict[int, dict[str, str]]
) -> dict[str, dict[str, frozenset[str]]]:
    """What each plugin of ``entries`` declares, by plugin name (same distribution and module)."""

    def origin(entry: EntryPoint) -> tuple[str | None, str]:
        return fields.get(id(entry.dist), {}).get("Name"), entry.module

    owner = {origin(entry): entry.name for entry in entries}
    found: dict[str, dict[str, set[str]]] = {}
    prefix = GROUP + "."
    for group in sorted(name for name in groups.groups if name.startswith(prefix)):
        hook_name = f"{GROUP}_{group.removeprefix(prefix)}"
        for entry in groups.select(group=group):
            plugin = owner.get(origin(entry))
            if plugin is not None:
                found.setdefault(plugin, {}).setdefault(hook_name, set()).add(entry.name)
    return {
        plugin: {hook: frozenset(names) for hook, names in hooks.items()}
        for plugin, hooks in found.items()
    }


def _metadata(dist: Distribution) -> dict[str, str]:
    """``Name``, ``Version`` and ``Summary`` of a distribution, read by hand (no email parser)."""
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line:
            break
        key, _, value = line.partition(":")
        if key in ("Name", "Version", "Summary") and key not in fields:
            fields[key] = value.strip()
    return fields


def blocked_plugins(names: Iterable[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """Of the plugins ``names``, those the user turned off.

    ``$TINYMEMORY_PLUGINS``, when set, lists (comma-separated) the only
    plugins to load, built-ins included; set but empty, none load. The
    configuration file's ``plugins`` table turns single plugins off
    (``name = false``). A plugin loads when both allow it.
    """
    env = os.environ if environ is None else environ
    chosen = env.get(PLUGINS_VARIABLE)
    allowed = None if chosen is None else {name.strip() for name in chosen.split(",")}
    text, source = read_config_text(environ=env)
    table = plugins_table(parse_toml(text, source), source) if text is not None else {}
    return [
        name
        for name in dict.fromkeys(names)
        if (allowed is not None and name not in allowed) or table.get(name) is False
    ]
