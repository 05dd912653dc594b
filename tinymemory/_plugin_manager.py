"""The plugin manager: built-in plugins, then the ``tinymemory`` entry points by name.

Nothing is loaded at ``import tinymemory``; the manager is made on first use,
and a plugin is imported only when a hook it implements is needed: what each
declares is read from its entry points first (:mod:`tinymemory._plugin_entries`).
A plugin that declares nothing is imported whenever any hook is needed, as
every plugin once was. A plugin whose entry point fails to load is left out
with a warning and listed as broken, so one bad install cannot take the SDK
down; one that implements a hook, or offers a name, that it did not declare
is broken too, so a declaration can never hide a hook (a scrubber left out of
a store).
"""

from __future__ import annotations

import importlib
import inspect
import threading
import warnings
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import attrs

from tinymemory._errors import ConfigError
from tinymemory._plugin_entries import (
    BUILTIN_PLUGINS,
    COMMANDS_HOOK,
    PLUGINS_VARIABLE,
    Installed,
    Offers,
    blocked_plugins,
    declaration_group,
    forget_installed,
    installed,
)

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    import pluggy

    from tinymemory._hookspecs import (
        Answerer,
        DocumentConverter,
        Embedder,
        EngineFactory,
        Fetcher,
        Scrubber,
        SourceReader,
    )

__all__ = [
    "BUILTIN_PLUGINS",
    "PLUGINS_VARIABLE",
    "PluginInfo",
    "answerer_named",
    "answerers",
    "blocked_plugins",
    "command_manager",
    "undeclared_command_manager",
    "default_embedder",
    "default_fetcher",
    "document_converters",
    "embedder_named",
    "embedders",
    "engine_factories",
    "list_plugins",
    "load_error",
    "may_offer",
    "plugin_manager",
    "reset_plugins",
    "scrubbers",
    "source_readers",
]

T = TypeVar("T")

# Re-entrant, so a plugin that uses the registry while it is imported gets an
# error (and is left out) instead of deadlocking the process.
_lock = threading.RLock()
_loading = False
_installed: Installed | None = None
_manager: pluggy.PluginManager | None = None
_broken: dict[str, str] = {}
#: Plugins found but not imported yet, in load order, each with its entry point
#: (``None`` for a built-in) and what it declares.
_pending: dict[str, tuple[EntryPoint | None, Offers]] = {}
_offers: dict[str, Offers] = {}
_rank: dict[str, int] = {}


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
    """The process's plugin manager, with every plugin that may load loaded.

    Which plugins load is chosen before any is imported: ``$TINYMEMORY_PLUGINS``
    and the configuration file's ``plugins`` table (see :func:`blocked_plugins`).
    """
    return _manager_for(None)


def _manager_for(hook_name: str | None, name: str | None = None) -> pluggy.PluginManager:
    """The manager, with every plugin that may offer ``name`` through ``hook_name`` loaded.

    ``hook_name`` None loads every plugin; ``name`` None every plugin implementing
    the hook. A plugin that declares nothing may offer anything.
    """
    global _loading
    with _lock:
        if _loading:
            raise ConfigError("a plugin used tinymemory's plugins while they were loading")
        manager = _found()
        wanted = [
            plugin
            for plugin, (_, offers) in _pending.items()
            if hook_name is None
            or offers is None
            or (hook_name in offers and (name is None or name in offers[hook_name]))
        ]
        if wanted:
            _loading = True
            try:
                for plugin in wanted:
                    entry, offers = _pending.pop(plugin)
                    _load(manager, plugin, entry, offers)
            finally:
                _loading = False
        return manager


def _scanned() -> Installed:
    """What is installed, read once from the entry points (nothing imported)."""
    global _installed
    with _lock:
        if _installed is None:
            _installed = installed()
            for name, found in _installed.plugins.items():
                _pending[name] = (found.entry, found.offers)
            _rank.update((name, rank) for rank, name in enumerate(_installed.plugins))
        return _installed


def _found() -> pluggy.PluginManager:
    """The manager, made on first call with the hooks and what the user turned off."""
    global _manager
    if _manager is not None:
        return _manager
    import pluggy

    from tinymemory._hookspecs import PROJECT, HookSpecs

    found = _scanned()
    manager = pluggy.PluginManager(PROJECT)
    manager.add_hookspecs(HookSpecs)
    for name in found.blocked:
        manager.set_blocked(name)
    for name in sorted(found.duplicates):
        # The same rule as for every other name: two claimants, neither is used.
        _broken[name] = f"ConfigError: two plugins are named `{name}`"
        warnings.warn(
            f"two tinymemory plugins are named `{name}`: both are left out",
            RuntimeWarning,
            stacklevel=4,
        )
    _manager = manager
    return manager


def may_offer(hook_name: str) -> bool:
    """Whether a plugin that may load may offer something through ``hook_name``, imported or
    not: one declaring the hook, one declaring nothing, or one registered with an implementation
    of it. Nothing is imported to answer."""
    with _lock:
        _scanned()
        if any(offers is None or hook_name in offers for _, offers in _pending.values()):
            return True
        return _manager is not None and bool(getattr(_manager.hook, hook_name).get_hookimpls())


def command_manager(name: str) -> pluggy.PluginManager:
    """The manager with every plugin that may add command ``name`` loaded."""
    return _manager_for(COMMANDS_HOOK, name)


def undeclared_command_manager() -> pluggy.PluginManager | None:
    """The manager with the plugins that declare nothing loaded (they may add any command).

    What the command line needs before it knows the command. ``None`` when no
    manager is made yet and every plugin declares what it offers: then no
    plugin has added a command, and none is imported.
    """
    with _lock:
        if _manager is None and _scanned().every_one_declares:
            return None
    # No command is named "": only the plugins that declare nothing load.
    return _manager_for(COMMANDS_HOOK, "")


def load_error(plugin: str) -> str | None:
    """Why plugin ``plugin`` failed to load; ``None`` when it did not fail."""
    return _broken.get(plugin)


def _load(
    manager: pluggy.PluginManager, name: str, entry: EntryPoint | None, offers: Offers
) -> None:
    """Import plugin ``name`` and register it; a failure leaves it out, listed as broken."""
    if entry is None:
        manager.register(importlib.import_module(name), name=name)
        _offers[name] = offers
        return
    try:
        plugin = entry.load()
        manager.register(plugin, name=name)
        if offers is not None:
            hooks = {caller.name for caller in manager.get_hookcallers(plugin) or ()}
            undeclared = sorted(hooks - set(offers))
            if undeclared:
                raise ConfigError(
                    f"it implements `{undeclared[0]}` without declaring it in the entry-point "
                    f"group `{declaration_group(undeclared[0])}`"
                )
        _offers[name] = offers
    except Exception as error:  # a broken plugin must not break the SDK
        # pluggy keeps a plugin whose hooks fail validation half-registered,
        # with the hooks it checked before the bad one live: take it all out.
        if manager.get_plugin(name) is not None:
            manager.unregister(name=name)
        _broken[name] = f"{type(error).__name__}: {error}"
        warnings.warn(
            f"tinymemory plugin `{name}` failed to load and is left out: {error}",
            RuntimeWarning,
            stacklevel=4,
        )


def reset_plugins() -> None:
    """Forget the manager, so the next use loads plugins again (for tests and reloads)."""
    global _manager, _installed
    with _lock:
        _manager = None
        _installed = None
        forget_installed()
        for table in (_broken, _pending, _offers, _rank):
            table.clear()


def list_plugins() -> list[PluginInfo]:
    """Every plugin: built-ins first, then installed ones, then any that failed to load."""
    manager = plugin_manager()
    from importlib.metadata import version

    core = ("tinymemory", version("tinymemory"))
    infos = []
    for name, plugin in manager.list_name_plugin():
        if plugin is None:
            continue
        builtin = name in BUILTIN_PLUGINS
        distribution, plugin_version = (
            core if builtin else _scanned().distributions.get(name, (None, None))
        )
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
            distribution=_scanned().distributions.get(name, (None, None))[0],
            version=_scanned().distributions.get(name, (None, None))[1],
            hooks=(),
            builtin=False,
            error=error,
        )
        for name, error in sorted(_broken.items())
    )
    return infos


def _offered(
    hook_name: str, kind: type[T], what: str, key: Callable[[T], str], name: str | None = None
) -> list[T]:
    """What every plugin returns from a collection hook, built-ins first, each name once.

    With ``name``, only the plugins that may offer it are loaded (those that
    declare it, and those that declare nothing). Two plugins (or one plugin
    twice) offering one name is ``ConfigError`` naming both: the same rule for
    engines, embedders, converters, readers and scrubbers. Turn one of them
    off to choose. So is a plugin offering a name it did not declare.
    """
    owners: dict[str, str] = {}
    collected: list[T] = []
    impls = getattr(_manager_for(hook_name, name).hook, hook_name).get_hookimpls()
    # Each plugin's implementation is called on its own (built-ins, then installed
    # plugins by name, then those registered at run time) rather than through the
    # hook, so every value is known by who offered it.
    for impl in sorted(impls, key=lambda impl: _rank.get(impl.plugin_name, len(_rank))):
        declared = (_offers.get(impl.plugin_name) or {}).get(hook_name)
        for value in impl.function() or ():
            if not _conforms(value, kind):
                raise ConfigError(
                    f"a plugin returned {type(value).__name__} where a {kind.__name__} belongs"
                )
            offered = key(value)
            if offered in owners:
                raise ConfigError(
                    f"{what} `{offered}` is registered by two plugins ({owners[offered]}, "
                    f"{impl.plugin_name}); turn one off with {PLUGINS_VARIABLE} "
                    "or the configuration's `plugins` table"
                )
            if declared is not None and offered not in declared:
                raise ConfigError(
                    f"plugin `{impl.plugin_name}` offers {what} `{offered}` without declaring "
                    f"it in the entry-point group `{declaration_group(hook_name)}`"
                )
            owners[offered] = impl.plugin_name
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


def engine_factories(engine_id: str | None = None) -> dict[str, EngineFactory]:
    """Every installed engine by id, built-ins first.

    With ``engine_id``, only the plugins that may offer that engine are loaded,
    so the dict holds it (when installed) and the engines loaded so far.
    """
    from tinymemory._hookspecs import EngineFactory

    found = _offered(
        "tinymemory_engines",
        EngineFactory,
        "engine id",
        lambda factory: factory.descriptor.id,
        engine_id,
    )
    return {factory.descriptor.id: factory for factory in found}


def scrubbers() -> list[Scrubber]:
    """Every installed scrubber, in the order they run (by priority, then name)."""
    from tinymemory._hookspecs import Scrubber

    return _in_declared_order(_offered("tinymemory_scrubbers", Scrubber, "scrubber", _name))  # type: ignore[type-abstract]


def embedders(name: str | None = None) -> dict[str, Embedder]:
    """Every installed embedder by name; with ``name``, only the plugins that may offer it load."""
    from tinymemory._hookspecs import Embedder

    found = _offered("tinymemory_embedders", Embedder, "embedder", _name, name)  # type: ignore[type-abstract]
    return {embedder.name: embedder for embedder in found}


def embedder_named(name: object) -> Embedder:
    """The installed embedder ``name``; ``ConfigError`` listing the installed ones when none is."""
    return _one_named("embedder", name, embedders)


def default_embedder() -> Embedder:
    """The embedder an engine uses when its settings name none: the one the plugin
    implementing ``tinymemory_default_embedder`` names, else the core's ``hashing``.

    Two plugins naming one is ``ConfigError`` naming both; so is a name that is
    not a string, or that no installed embedder has.
    """
    named = _one_offer(
        "tinymemory_default_embedder",
        "the default embedder",
        ", or name the embedder in the engine's settings",
    )
    if named is None:
        from tinymemory._hashing_embedder import HashingEmbedder

        return HashingEmbedder()
    return embedder_named(named[1])


def answerers(name: str | None = None) -> dict[str, Answerer]:
    """Every installed answerer by name; with ``name``, only the plugins that may offer it load."""
    from tinymemory._hookspecs import Answerer

    found = _offered("tinymemory_answerers", Answerer, "answerer", _name, name)  # type: ignore[type-abstract]
    return {answerer.name: answerer for answerer in found}


def answerer_named(name: object) -> Answerer:
    """The installed answerer ``name``; ``ConfigError`` listing the installed ones when none is."""
    return _one_named("answerer", name, answerers)


def _one_named(what: str, name: object, installed: Callable[[str | None], Mapping[str, T]]) -> T:
    """The installed ``what`` called ``name`` (an engine's option), loading only the plugins
    that may offer it: ``ConfigError`` listing those installed when none is."""
    if isinstance(name, str) and name:
        found = installed(name)
        if name in found:
            return found[name]
    names = ", ".join(sorted(installed(None))) or "none"
    if not isinstance(name, str) or not name:
        raise ConfigError(f"`{what}` must be an {what}'s name (installed: {names})")
    raise ConfigError(f"no {what} named `{name}` is installed (installed: {names})")


def document_converters() -> list[DocumentConverter]:
    """Every installed document converter, in the order they are asked (by priority, then name).

    ``convert`` asks for them once per file: they are kept while the hook's
    implementations stay the same (a plugin registered or removed asks anew).
    """
    from tinymemory._hookspecs import DocumentConverter

    hook = "tinymemory_document_converters"
    impls = getattr(_manager_for(hook).hook, hook).get_hookimpls()
    key = tuple((impl.plugin_name, impl.function) for impl in impls)
    held = _converters_held.get(key)
    if held is None:
        held = _in_declared_order(
            _offered(hook, DocumentConverter, "converter", _name)  # type: ignore[type-abstract]
        )
        _converters_held.clear()
        _converters_held[key] = held
    return list(held)


#: The converters of the last set of the hook's implementations asked, by that set.
_converters_held: dict[tuple[tuple[str, object], ...], list[DocumentConverter]] = {}


def source_readers() -> dict[str, SourceReader]:
    """Every installed source reader by its name."""
    from tinymemory._hookspecs import SourceReader

    found = _offered("tinymemory_source_readers", SourceReader, "reader", _name)  # type: ignore[type-abstract]
    return {reader.name: reader for reader in found}


def _name(value: Any) -> str:
    return str(value.name)


def default_fetcher() -> Fetcher | None:
    """The fetcher the one plugin implementing ``tinymemory_http_fetcher`` offers, if any.

    Two plugins offering one is ``ConfigError`` naming both, as for every
    other named thing; so is offering something that is not a :class:`Fetcher`.
    """
    from tinymemory._hookspecs import Fetcher

    offered = _one_offer("tinymemory_http_fetcher", "the default http fetcher")
    if offered is None:
        return None
    plugin, fetcher = offered
    if not isinstance(fetcher, Fetcher):
        raise ConfigError(f"plugin `{plugin}` offered {type(fetcher).__name__} as the http fetcher")
    return fetcher


def _one_offer(hook_name: str, what: str, remedy: str = "") -> tuple[str, object] | None:
    """What the one plugin implementing ``hook_name`` (a hook offering one thing, or None)
    offers, with that plugin's name; None when none offers it. Two plugins offering
    one is ``ConfigError`` naming both (``remedy`` adds what else the user may do)."""
    manager = _manager_for(hook_name)
    offered = [
        (impl.plugin_name, value)
        for impl in getattr(manager.hook, hook_name).get_hookimpls()
        if (value := impl.function()) is not None
    ]
    if len(offered) > 1:
        names = ", ".join(plugin for plugin, _ in offered)
        raise ConfigError(
            f"two plugins offer {what} ({names}); turn one off with {PLUGINS_VARIABLE} "
            f"or the configuration's `plugins` table{remedy}"
        )
    return offered[0] if offered else None
