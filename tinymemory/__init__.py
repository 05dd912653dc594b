"""TinyMemory: memory for AI agents — recall, fetch and store, on any engine.

Everything public is importable from here::

    import tinymemory
    engine = tinymemory.build_engine("reference")
    engine.store(tinymemory.Learning(text="prefers tabs", kind="preference"))

``tinymemory.build_engine()`` with no id builds the configured engine (the
configuration file and the environment; ``sqlite`` when nothing is
configured). Every engine ``build_engine`` hands out passes what it stores
through the installed scrubbers. Bytes become documents with ``convert``,
sources become items with ``read``, and ``sync`` stores items in batches.
Plugin authors import ``tinymemory.plugin`` as well, and nothing else.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tinymemory._context import Brief, ContextCompiler, ContextDoc, ContextSpec, compile_context
    from tinymemory._embedder_choice import KeptEmbedderWarning
    from tinymemory._engine import (
        EngineDescriptor,
        EngineHealth,
        HealthState,
        MemoryEngine,
        explore_by_listing,
        get_by_listing,
    )
    from tinymemory._errors import (
        ConfigError,
        Conflict,
        EngineError,
        InvalidRequest,
        NotFound,
        TinyMemoryError,
        Unauthorized,
        Unavailable,
        Unsupported,
    )
    from tinymemory._hookspecs import (
        DocumentConverter,
        Embedder,
        EngineFactory,
        Scrubber,
        SourceReader,
        hookimpl,
    )
    from tinymemory._ingest import SyncedItem, SyncReport, convert, count_entries, read, sync
    from tinymemory._items import (
        MAX_STORE_MANY,
        Conversation,
        Document,
        DocumentBody,
        Learning,
        LearningKind,
        Role,
        StoreItem,
        StoreReceipt,
        Turn,
        item_size,
    )
    from tinymemory._limits import (
        MAX_CURSOR_BYTES,
        MAX_FILTER_TAGS,
        MAX_FILTER_VALUE_BYTES,
        MAX_FORGET_IDS,
        MAX_ID_BYTES,
        MAX_INSTRUCTIONS_BYTES,
        MAX_KINDS,
        MAX_QUERY_BYTES,
        MAX_QUESTION_BYTES,
        MAX_SOURCES,
        ItemLimits,
        item_limits,
        set_item_limits,
    )
    from tinymemory._meta import (
        ItemKind,
        MemoryMeta,
        MetaFilter,
        SourceKind,
        SourceRef,
        ToolCallRef,
        TurnRange,
    )
    from tinymemory._namespace import MAX_DEPTH, Namespace, Reach, Segment, SegmentKind
    from tinymemory._operations import (
        MAX_BUCKETS,
        MAX_GET_IDS,
        MAX_SCAN_LIMIT,
        Citation,
        EraseReport,
        EraseRequest,
        ExplorePage,
        ExploreRequest,
        Exported,
        ExportPage,
        Facet,
        FacetBucket,
        FetchMode,
        FetchPage,
        FetchRequest,
        ForgetReport,
        ForgetTarget,
        GetRequest,
        Hit,
        ListPage,
        ListRequest,
        RecallAnswer,
        RecallRequest,
    )
    from tinymemory._plugin_manager import PluginInfo, list_plugins
    from tinymemory._registry import DEFAULT_ENGINE, MemoryConfig, build_engine, list_engines
    from tinymemory._scrubbing import ScrubbingEngine
    from tinymemory._settings import BearerSource, CredentialKind, EngineCredential, EngineSettings
    from tinymemory._tools import MemoryTools, ToolScope, ToolSpec
    from tinymemory.reference import ReferenceEngine

    __version__: str

# Every name loads its module on first use, so `import tinymemory` (and so the
# command line's `tinymemory --help`) imports nothing else: the contract types,
# the plugin system (pluggy, entry points, TOML), the memory tools and the
# context compiler each come with the first name that needs them.
_LAZY = {
    "tinymemory._embedder_choice": ("KeptEmbedderWarning",),
    "tinymemory._engine": (
        "EngineDescriptor",
        "EngineHealth",
        "HealthState",
        "MemoryEngine",
        "explore_by_listing",
        "get_by_listing",
    ),
    "tinymemory._errors": (
        "ConfigError",
        "Conflict",
        "EngineError",
        "InvalidRequest",
        "NotFound",
        "TinyMemoryError",
        "Unauthorized",
        "Unavailable",
        "Unsupported",
    ),
    "tinymemory._items": (
        "MAX_STORE_MANY",
        "Conversation",
        "Document",
        "DocumentBody",
        "Learning",
        "LearningKind",
        "Role",
        "StoreItem",
        "StoreReceipt",
        "Turn",
        "item_size",
    ),
    "tinymemory._limits": (
        "MAX_CURSOR_BYTES",
        "MAX_FILTER_TAGS",
        "MAX_FILTER_VALUE_BYTES",
        "MAX_FORGET_IDS",
        "MAX_ID_BYTES",
        "MAX_INSTRUCTIONS_BYTES",
        "MAX_KINDS",
        "MAX_QUERY_BYTES",
        "MAX_QUESTION_BYTES",
        "MAX_SOURCES",
        "ItemLimits",
        "item_limits",
        "set_item_limits",
    ),
    "tinymemory._meta": (
        "ItemKind",
        "MemoryMeta",
        "MetaFilter",
        "SourceKind",
        "SourceRef",
        "ToolCallRef",
        "TurnRange",
    ),
    "tinymemory._namespace": (
        "MAX_DEPTH",
        "Namespace",
        "Reach",
        "Segment",
        "SegmentKind",
    ),
    "tinymemory._operations": (
        "MAX_BUCKETS",
        "MAX_GET_IDS",
        "MAX_SCAN_LIMIT",
        "Citation",
        "EraseReport",
        "EraseRequest",
        "ExplorePage",
        "ExploreRequest",
        "Exported",
        "ExportPage",
        "Facet",
        "FacetBucket",
        "FetchMode",
        "FetchPage",
        "FetchRequest",
        "ForgetReport",
        "ForgetTarget",
        "GetRequest",
        "Hit",
        "ListPage",
        "ListRequest",
        "RecallAnswer",
        "RecallRequest",
    ),
    "tinymemory._context": (
        "Brief",
        "ContextCompiler",
        "ContextDoc",
        "ContextSpec",
        "compile_context",
    ),
    "tinymemory._hookspecs": (
        "DocumentConverter",
        "Embedder",
        "EngineFactory",
        "Scrubber",
        "SourceReader",
        "hookimpl",
    ),
    "tinymemory._ingest": ("SyncReport", "SyncedItem", "convert", "count_entries", "read", "sync"),
    "tinymemory._plugin_manager": ("PluginInfo", "list_plugins"),
    "tinymemory.reference": ("ReferenceEngine",),
    "tinymemory._registry": ("DEFAULT_ENGINE", "MemoryConfig", "build_engine", "list_engines"),
    "tinymemory._scrubbing": ("ScrubbingEngine",),
    "tinymemory._settings": (
        "BearerSource",
        "CredentialKind",
        "EngineCredential",
        "EngineSettings",
    ),
    "tinymemory._tools": ("MemoryTools", "ToolScope", "ToolSpec"),
}
_LAZY_NAMES = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value: Any = version("tinymemory")
        except PackageNotFoundError:  # pragma: no cover - a bare source tree
            value = "0+unknown"
    elif name in _LAZY_NAMES:
        value = getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    else:
        raise AttributeError(f"module 'tinymemory' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "DEFAULT_ENGINE",
    "MAX_BUCKETS",
    "MAX_CURSOR_BYTES",
    "MAX_DEPTH",
    "MAX_FILTER_TAGS",
    "MAX_FILTER_VALUE_BYTES",
    "MAX_FORGET_IDS",
    "MAX_GET_IDS",
    "MAX_ID_BYTES",
    "MAX_INSTRUCTIONS_BYTES",
    "MAX_KINDS",
    "MAX_QUERY_BYTES",
    "MAX_QUESTION_BYTES",
    "MAX_SCAN_LIMIT",
    "MAX_SOURCES",
    "MAX_STORE_MANY",
    "BearerSource",
    "Brief",
    "Citation",
    "ConfigError",
    "Conflict",
    "ContextCompiler",
    "ContextDoc",
    "ContextSpec",
    "Conversation",
    "CredentialKind",
    "Document",
    "DocumentBody",
    "DocumentConverter",
    "Embedder",
    "EngineCredential",
    "EngineDescriptor",
    "EngineError",
    "EngineFactory",
    "EngineHealth",
    "EngineSettings",
    "EraseReport",
    "EraseRequest",
    "ExplorePage",
    "ExploreRequest",
    "ExportPage",
    "Exported",
    "Facet",
    "FacetBucket",
    "FetchMode",
    "FetchPage",
    "FetchRequest",
    "ForgetReport",
    "ForgetTarget",
    "GetRequest",
    "HealthState",
    "Hit",
    "InvalidRequest",
    "ItemKind",
    "ItemLimits",
    "KeptEmbedderWarning",
    "Learning",
    "LearningKind",
    "ListPage",
    "ListRequest",
    "MemoryConfig",
    "MemoryEngine",
    "MemoryMeta",
    "MemoryTools",
    "MetaFilter",
    "Namespace",
    "NotFound",
    "PluginInfo",
    "Reach",
    "RecallAnswer",
    "RecallRequest",
    "ReferenceEngine",
    "Role",
    "Scrubber",
    "ScrubbingEngine",
    "Segment",
    "SegmentKind",
    "SourceKind",
    "SourceReader",
    "SourceRef",
    "StoreItem",
    "StoreReceipt",
    "SyncReport",
    "SyncedItem",
    "TinyMemoryError",
    "ToolCallRef",
    "ToolScope",
    "ToolSpec",
    "Turn",
    "TurnRange",
    "Unauthorized",
    "Unavailable",
    "Unsupported",
    "__version__",
    "build_engine",
    "compile_context",
    "convert",
    "count_entries",
    "explore_by_listing",
    "get_by_listing",
    "hookimpl",
    "item_limits",
    "item_size",
    "list_engines",
    "list_plugins",
    "read",
    "set_item_limits",
    "sync",
]
