"""The plugin manager: built-in plugins, then the ``tinymemory`` entry points by name.

Nothing is loaded at ``import tinymemory``; the manager is made on first use.
A plugin whose entry point fails to load is left out with a warning and
listed as broken, so one bad install cannot take the SDK down.
"""

from __future__ import annotations

import importlib
import inspect
import os
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import EntryPoint, entry_points, version
from typing import Any, Protocol, TypeVar

import attrs
import pluggy

from tinymemory._config_file import parse_toml, plugins_table, read_config_text
from tinymemory._errors import ConfigError
from tinymemory._hookspecs import (
    PROJECT,
    DocumentConverter,
    Embedder,
    EngineFactory,
    Fetcher,
    HookSpecs,
    Scrubber,
    SourceReader,
)

#: Names the only plugins to load, comma-separated (unset: every installed one).
PLUGINS_VARIABLE = "TINYMEMORY_PLUGINS"
#: Modules registered exactly like third-party plugins, before them.
BUILTIN_PLUGINS = ("tinymemory.reference", "tinymemory.hashing")

T = TypeVar("T")

# Re-entrant, so a plugin that uses the registry while it is imported gets an
# error (and is left out) instead of deadlocking the process.
_lock = threading.RLock()
_loading = False
_manager: pluggy.PluginManager | None = None
_broken: dict[str, str] = {}
_distributions: dict[str, tuple[str, str]] = {}


@attrs.frozen(kw_only=True)
class PluginInfo:
    """An installed plugin: its name, distribution and version, and the hooks it implements."""

    name: str
    distribution: str | None
    version: str | None
    hooks: tuple[str, ...]
    builtin: bool
    error: str | None = None


def plugin_manager() -> pluggy.PluginManager:
    """The process's plugin manager, made and loaded on first call.

    Which plugins load is chosen before any is imported: ``$TINYMEMORY_PLUGINS``
    and the configuration file's ``plugins`` table (see :func:`blocked_plugins`).
    """
    global _manager, _loading
    with _lock:
        if _manager is None:
            if _loading:
                raise ConfigError("a plugin used tinymemory's plugins while they were loading")
            _loading = True
            try:
                manager = pluggy.PluginManager(PROJECT)
                manager.add_hookspecs(HookSpecs)
                entries = _entry_points()
                for name in blocked_plugins([*BUILTIN_PLUGINS, *(entry.name for entry in entries)]):
                    manager.set_blocked(name)
                for module_name in BUILTIN_PLUGINS:
                    if not manager.is_blocked(module_name):
                        manager.register(importlib.import_module(module_name), name=module_name)
                _load_entry_points(manager, entries)
            finally:
                _loading = False
            _manager = manager
        return _manager


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


def _entry_points() -> list[EntryPoint]:
    # Sorted, so what loads (and in which order) never depends on the machine.
    return sorted(entry_points(group=PROJECT), key=lambda entry: (entry.name, entry.value))


def _load_entry_points(manager: pluggy.PluginManager, entries: list[EntryPoint]) -> None:
    counts = Counter(entry.name for entry in entries)
    for entry in entries:
        if manager.is_blocked(entry.name):
            continue
        if counts[entry.name] > 1 or manager.get_plugin(entry.name) is not None:
            # The same rule as for every other name: two claimants, neither is used.
            if entry.name not in _broken:
                _broken[entry.name] = f"ConfigError: two plugins are named `{entry.name}`"
                warnings.warn(
                    f"two tinymemory plugins are named `{entry.name}`: both are left out",
                    RuntimeWarning,
                    stacklevel=2,
                )
            continue
        if entry.dist is not None:  # known for a plugin that fails to load, too
            _distributions[entry.name] = (entry.dist.name, entry.dist.version)
        try:
            plugin = entry.load()
            manager.register(plugin, name=entry.name)
        except Exception as error:  # a broken plugin must not break the SDK
            # pluggy keeps a plugin whose hooks fail validation half-registered,
            # with the hooks it checked before the bad one live: take it all out.
            if manager.get_plugin(entry.name) is not None:
                manager.unregister(name=entry.name)
            _broken[entry.name] = f"{type(error).__name__}: {error}"
            warnings.warn(
                f"tinymemory plugin `{entry.name}` failed to load and is left out: {error}",
                RuntimeWarning,
                stacklevel=2,
            )
            continue


def reset_plugins() -> None:
    """Forget the manager, so the next use loads plugins again (for tests and reloads)."""
    global _manager
    with _lock:
        _manager = None
        _broken.clear()
        _distributions.clear()


def list_plugins() -> list[PluginInfo]:
    """Every plugin: built-ins first, then installed ones, then any that failed to load."""
    manager = plugin_manager()
    core = ("tinymemory", version("tinymemory"))
    infos = []
    for name, plugin in manager.list_name_plugin():
        if plugin is None:
            continue
        builtin = name in BUILTIN_PLUGINS
        distribution, plugin_version = core if builtin else _distributions.get(name, (None, None))
        infos.append(
            PluginInfo(
                name=name,
                distribution=distribution,
                version=plugin_version,
                hooks=tuple(
                    sorted(caller.name for caller in manager.get_hookcallers(plugin) or ())
                ),
                builtin=builtin,
            )
        )
    infos.sort(key=lambda info: (not info.builtin, info.name))
    infos.extend(
        PluginInfo(
            name=name,
            distribution=_distributions.get(name, (None, None))[0],
            version=_distributions.get(name, (None, None))[1],
            hooks=(),
            builtin=False,
            error=error,
        )
        for name, error in sorted(_broken.items())
    )
    return infos


def _offered(hook_name: str, kind: type[T], what: str, key: Callable[[T], str]) -> list[T]:
    """What every plugin returns from a collection hook, built-ins first, each name once.

    Two plugins (or one plugin twice) offering one name is ``ConfigError``
    naming both: the same rule for engines, embedders, converters, readers
    and scrubbers. Turn one of them off to choose.
    """
    owners: dict[str, str] = {}
    collected: list[T] = []
    # Each plugin's implementation is called on its own (in registration order)
    # rather than through the hook, so every value is known by who offered it.
    for impl in getattr(plugin_manager().hook, hook_name).get_hookimpls():
        for value in impl.function() or ():
            if not _conforms(value, kind):
                raise ConfigError(
                    f"a plugin returned {type(value).__name__} where a {kind.__name__} belongs"
                )
            name = key(value)
            if name in owners:
                raise ConfigError(
                    f"{what} `{name}` is registered by two plugins ({owners[name]}, "
                    f"{impl.plugin_name}); turn one off with {PLUGINS_VARIABLE} "
                    "or the configuration's `plugins` table"
                )
            owners[name] = impl.plugin_name
            collected.append(value)
    return collected


def _conforms(value: object, kind: type) -> bool:
    """``isinstance(value, kind)``, where a protocol's attributes are looked up without running
    them (as Python 3.12 does): an embedder's ``dimensions`` may load its model, or fail for
    its settings, which listing what is installed must never do."""
    if not getattr(kind, "_is_protocol", False):
        return isinstance(value, kind)
    members = {*getattr(kind, "__annotations__", {})} | {
        name
        for name, member in vars(kind).items()
        if (callable(member) or isinstance(member, property)) and name[0] != "_"
    }
    missing = object()
    return all(inspect.getattr_static(value, name, missing) is not missing for name in members)


class _Named(Protocol):
    name: str


N = TypeVar("N", bound=_Named)


def _in_declared_order(found: list[N]) -> list[N]:
    """``found`` by each one's ``priority`` (lower first, default 0), ties by name."""
    for value in found:
        priority = getattr(value, "priority", 0)
        if not isinstance(priority, int) or isinstance(priority, bool):
            raise ConfigError(f"`{getattr(value, 'name', value)}`: priority must be an integer")
    return sorted(found, key=lambda value: (getattr(value, "priority", 0), value.name))


def engine_factories() -> dict[str, EngineFactory]:
    """Every installed engine by id, built-ins first."""
    found = _offered(
        "tinymemory_engines", EngineFactory, "engine id", lambda factory: factory.descriptor.id
    )
    return {factory.descriptor.id: factory for factory in found}


def scrubbers() -> list[Scrubber]:
    """Every installed scrubber, in the order they run (by priority, then name)."""
    return _in_declared_order(_offered("tinymemory_scrubbers", Scrubber, "scrubber", _name))  # type: ignore[type-abstract]


def embedders() -> dict[str, Embedder]:
    """Every installed embedder by name."""
    found = _offered("tinymemory_embedders", Embedder, "embedder", _name)  # type: ignore[type-abstract]
    return {embedder.name: embedder for embedder in found}


def document_converters() -> list[DocumentConverter]:
    """Every installed document converter, in the order they are asked (by priority, then name)."""
    return _in_declared_order(
        _offered("tinymemory_document_converters", DocumentConverter, "converter", _name)  # type: ignore[type-abstract]
    )


def source_readers() -> dict[str, SourceReader]:
    """Every installed source reader by its name."""
    found = _offered("tinymemory_source_readers", SourceReader, "reader", _name)  # type: ignore[type-abstract]
    return {reader.name: reader for reader in found}


def _name(value: Any) -> str:
    return str(value.name)


def default_fetcher() -> Fetcher | None:
    """The fetcher the one plugin implementing ``tinymemory_http_fetcher`` offers, if any.

    Two plugins offering one is ``ConfigError`` naming both, as for every
    other named thing; so is offering something that is not a :class:`Fetcher`.
    """
    offered: list[tuple[str, Fetcher]] = []
    for impl in plugin_manager().hook.tinymemory_http_fetcher.get_hookimpls():
        fetcher = impl.function()
        if fetcher is None:
            continue
        if not isinstance(fetcher, Fetcher):
            raise ConfigError(
                f"plugin `{impl.plugin_name}` offered {type(fetcher).__name__} as the http fetcher"
            )
        offered.append((impl.plugin_name, fetcher))
    if len(offered) > 1:
        names = ", ".join(name for name, _ in offered)
        raise ConfigError(
            f"two plugins offer the default http fetcher ({names}); turn one off with "
            f"{PLUGINS_VARIABLE} or the configuration's `plugins` table"
        )
    return offered[0][1] if offered else None
