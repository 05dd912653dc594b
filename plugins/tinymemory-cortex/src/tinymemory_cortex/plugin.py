"""The plugin's hook: the engines ``cortexdb`` (CortexDB's Direct wire) and ``tinyhumans`` (hosted).

Settings (``[engines.cortexdb]`` / ``[engines.tinyhumans]`` in the
configuration, or ``EngineSettings``): ``endpoint`` (default
``https://api-v1.cortexdb.ai`` and ``https://api.tinyhumans.ai``),
``headers`` (fixed, non-credential headers) and the options ``timeout``
(seconds per request, default 60), ``poll_interval`` (seconds between
visibility polls, default 0.25), ``wait_budget`` (seconds a write waits to
become readable, default 30), ``settle_budget`` (seconds a write waits, at
best, for ranked recall to hold it, default 10) and ``rate_limit``
(requests a minute the engine sends at most; default 300 on ``tinyhumans``,
unpaced on ``cortexdb``).

``cortexdb`` also takes ``scope_root`` (lay memory out in layout v3 below
it, such as ``org:42``) and the option ``scope_owner`` (the actor, such as
``user:42``, registered as the root's owner before the first write).
``tinyhumans`` writes the legacy layout: the backend roots every scope under
the caller's tenant itself, so ``scope_root``, ``scope_owner`` and
``tenant_root`` are refused there (``tenant_root``, layout v3 on the hosted
wire, is not in this release).
"""

from __future__ import annotations

from tinymemory import ConfigError, EngineCredential, EngineSettings, MemoryEngine
from tinymemory.plugin import EngineFactory, hookimpl

from .descriptor import DESCRIPTOR, HOSTED_DESCRIPTOR
from .wire import DIRECT, HOSTED, Wire

SHARED_OPTIONS = ("timeout", "poll_interval", "wait_budget", "settle_budget", "rate_limit")
OPTIONS = ("scope_owner", *SHARED_OPTIONS)
HOSTED_OPTIONS = SHARED_OPTIONS


def _seconds(settings: EngineSettings, wire: Wire, name: str, default: float) -> float:
    value = settings.options.get(name, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
        raise ConfigError(
            f"the {wire.engine_id} engine's `{name}` must be a number of seconds above 0"
        )
    return float(value)


def _rate_limit(settings: EngineSettings, wire: Wire) -> int | None:
    value = settings.options.get("rate_limit")
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise ConfigError(
            f"the {wire.engine_id} engine's `rate_limit` must be a whole number of requests "
            "a minute, at least 1"
        )
    return value


def _owner(settings: EngineSettings) -> str | None:
    owner = settings.options.get("scope_owner")
    if owner is not None and not isinstance(owner, str):
        raise ConfigError("the cortexdb engine's `scope_owner` must be an actor such as user:42")
    return owner


def _build(settings: EngineSettings, credential: EngineCredential, wire: Wire) -> MemoryEngine:
    allowed = OPTIONS if wire is DIRECT else HOSTED_OPTIONS
    unknown = sorted(set(settings.options) - set(allowed))
    if unknown:
        raise ConfigError(
            f"engine `{wire.engine_id}` has no option `{unknown[0]}` "
            f"(options: {', '.join(allowed)})"
        )
    if wire is DIRECT and settings.tenant_root is not None:
        raise ConfigError(
            "`tenant_root` belongs to the hosted wire (tinyhumans); use `scope_root` with cortexdb"
        )
    if wire is HOSTED and (settings.tenant_root is not None or settings.scope_root is not None):
        raise ConfigError(
            "engine `tinyhumans` writes the legacy layout (the backend roots it under your "
            "tenant); `scope_root` and `tenant_root` are not supported there in this release"
        )
    from .engine import CortexEngine

    return CortexEngine(
        (settings.endpoint or wire.default_endpoint).strip(),
        credential,
        wire=wire,
        scope_root=settings.scope_root,
        scope_owner=_owner(settings),
        headers=dict(settings.headers),
        timeout=_seconds(settings, wire, "timeout", 60.0),
        poll_interval=_seconds(settings, wire, "poll_interval", 0.25),
        wait_budget=_seconds(settings, wire, "wait_budget", 30.0),
        settle_budget=_seconds(settings, wire, "settle_budget", 10.0),
        rate_limit=_rate_limit(settings, wire),
    )


def build(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    """The engine ``cortexdb`` for these settings; bad settings are ``ConfigError``."""
    return _build(settings, credential, DIRECT)


def build_hosted(settings: EngineSettings, credential: EngineCredential) -> MemoryEngine:
    """The engine ``tinyhumans`` for these settings; bad settings are ``ConfigError``."""
    return _build(settings, credential, HOSTED)


@hookimpl
def tinymemory_engines() -> list[EngineFactory]:
    """The CortexDB engines: ``cortexdb`` (Direct) and ``tinyhumans`` (hosted)."""
    return [
        EngineFactory(descriptor=DESCRIPTOR, build=build),
        EngineFactory(descriptor=HOSTED_DESCRIPTOR, build=build_hosted),
    ]
