"""The plugin's hook: the engine ``cortexdb`` (CortexDB's Direct wire).

Settings (``[engines.cortexdb]`` in the configuration, or ``EngineSettings``):
``endpoint`` (default ``https://api-v1.cortexdb.ai``), ``scope_root`` (lay
memory out in layout v3 below it, such as ``org:42``), ``headers`` (fixed,
non-credential headers) and the options ``scope_owner`` (the actor, such as
``user:42``, registered as the root's owner before the first write),
``timeout`` (seconds per request, default 60), ``poll_interval`` (seconds
between visibility polls, default 0.25), ``wait_budget`` (seconds a write
waits to become readable, default 30) and ``settle_budget`` (seconds a write
waits, at best, for ranked recall to hold it, default 10). ``tenant_root``
belongs to the hosted wire and is refused here.
"""

from __future__ import annotations

from tinymemory import ConfigError, EngineCredential, EngineSettings, MemoryEngine
from tinymemory.plugin import EngineFactory, hookimpl

from .descriptor import DESCRIPTOR

OPTIONS = ("scope_owner", "timeout", "poll_interval", "wait_budget", "settle_budget")


def _seconds(settings: EngineSettings, name: str, default: float) -> float:
    value = settings.options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
        raise ConfigError(f"the cortexdb engine's `{name}` must be a number of seconds above 0")
    return float(value)


def _owner(settings: EngineSettings) -> str | None:
    owner = settings.options.get("scope_owner")
    if owner is not None and not isinstance(owner, str):
        raise ConfigError("the cortexdb engine's `scope_owner` must be an actor such as user:42")
    return owner


def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    """The engine for these settings; unknown options and a tenant root are ``ConfigError``."""
    unknown = sorted(set(settings.options) - set(OPTIONS))
    if unknown:
        raise ConfigError(
            f"engine `cortexdb` has no option `{unknown[0]}` (options: {', '.join(OPTIONS)})"
        )
    if settings.tenant_root is not None:
        raise ConfigError(
            "`tenant_root` belongs to the hosted wire (tinyhumans); use `scope_root` with cortexdb"
        )
    from .engine import CortexEngine

    return CortexEngine(
        (settings.endpoint or DESCRIPTOR.default_endpoint or "").strip(),
        credential,
        scope_root=settings.scope_root,
        scope_owner=_owner(settings),
        headers=dict(settings.headers),
        timeout=_seconds(settings, "timeout", 60.0),
        poll_interval=_seconds(settings, "poll_interval", 0.25),
        wait_budget=_seconds(settings, "wait_budget", 30.0),
        settle_budget=_seconds(settings, "settle_budget", 10.0),
    )


@hookimpl
def tinymemory_engines() -> list[EngineFactory]:
    """The CortexDB engine ``cortexdb``."""
    return [EngineFactory(descriptor=DESCRIPTOR, build=build)]
