"""The plugin manager: built-in plugins, then the ``tinymemory`` entry points.

Nothing is loaded at ``import tinymemory``; the manager is made on first use.
A plugin whose entry point fails to load is left out with a warning and
listed as broken, so one bad install cannot take the SDK down.
"""

from __future__ import annotations

import importlib
import threading
import warnings
from collections.abc import Iterable
from typing import Any, TypeVar

import attrs
import pluggy

from tinymemory.errors import ConfigError
from tinymemory.hookspecs import (
    PROJECT,
    DocumentConverter,
    Embedder,
    EngineFactory,
    HookSpecs,
    Scrubber,
    SourceReader,
)

#: Modules registered exactly like third-party plugins, before them.
BUILTIN_PLUGINS = ("tinymemory.reference",)

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
    """The process's plugin manager, made and loaded on first call."""
    global _manager, _loading
    with _lock:
        if _manager is None:
            if _loading:
                raise ConfigError("a plugin used tinymemory's plugins while they were loading")
            _loading = True
            try:
                manager = pluggy.PluginManager(PROJECT)
                manager.add_hookspecs(HookSpecs)
                for module_name in BUILTIN_PLUGINS:
                    manager.register(importlib.import_module(module_name), name=module_name)
                _load_entry_points(manager)
            finally:
                _loading = False
            _manager = manager
        return _manager


def _load_entry_points(manager: pluggy.PluginManager) -> None:
    from importlib.metadata import entry_points

    for entry in entry_points(group=PROJECT):
        if manager.get_plugin(entry.name) is not None or manager.is_blocked(entry.name):
            continue
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
        if entry.dist is not None:
            _distributions[entry.name] = (entry.dist.name, entry.dist.version)


def reset_plugins() -> None:
    """Forget the manager, so the next use loads plugins again (for tests and reloads)."""
    global _manager
    with _lock:
        _manager = None
        _broken.clear()
        _distributions.clear()


def list_plugins() -> list[PluginInfo]:
    """Every plugin: built-ins first, then installed ones, then any that failed to load."""
    from importlib.metadata import version

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
        PluginInfo(name=name, distribution=None, version=None, hooks=(), builtin=False, error=error)
        for name, error in sorted(_broken.items())
    )
    return infos


def _collect(results: Iterable[Any], kind: type[T]) -> list[T]:
    # pluggy calls the last registered plugin first; reverse so built-ins come first.
    collected: list[T] = []
    for result in reversed(list(results)):
        for value in result or ():
            if not isinstance(value, kind):
                raise ConfigError(
                    f"a plugin returned {type(value).__name__} where a {kind.__name__} belongs"
                )
            collected.append(value)
    return collected


def engine_factories() -> dict[str, EngineFactory]:
    """Every installed engine by id. ``ConfigError`` when two plugins claim one id."""
    factories: dict[str, EngineFactory] = {}
    for factory in _collect(plugin_manager().hook.tinymemory_engines(), EngineFactory):
        engine_id = factory.descriptor.id
        if engine_id in factories:
            raise ConfigError(f"engine id `{engine_id}` is registered by two plugins")
        factories[engine_id] = factory
    return factories


def scrubbers() -> list[Scrubber]:
    """Every installed scrubber, in registration order."""
    return _collect(plugin_manager().hook.tinymemory_scrubbers(), Scrubber)  # type: ignore[type-abstract]


def embedders() -> dict[str, Embedder]:
    """Every installed embedder by name."""
    found = _collect(plugin_manager().hook.tinymemory_embedders(), Embedder)  # type: ignore[type-abstract]
    return {embedder.name: embedder for embedder in found}


def document_converters() -> list[DocumentConverter]:
    """Every installed document converter, in registration order."""
    return _collect(plugin_manager().hook.tinymemory_document_converters(), DocumentConverter)  # type: ignore[type-abstract]


def source_readers() -> list[SourceReader]:
    """Every installed source reader, in registration order."""
    return _collect(plugin_manager().hook.tinymemory_source_readers(), SourceReader)  # type: ignore[type-abstract]
