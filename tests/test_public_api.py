"""The public namespace: everything the spec names is importable from `tinymemory`."""

from __future__ import annotations

import inspect

import pytest

import tinymemory

SPEC_NAMES = [
    "MemoryMeta",
    "SourceRef",
    "SourceKind",
    "TurnRange",
    "ToolCallRef",
    "MetaFilter",
    "ItemKind",
    "Document",
    "Conversation",
    "Learning",
    "DocumentBody",
    "Turn",
    "Role",
    "LearningKind",
    "StoreReceipt",
    "RecallRequest",
    "RecallAnswer",
    "Citation",
    "FetchMode",
    "FetchRequest",
    "FetchPage",
    "Hit",
    "ListRequest",
    "ListPage",
    "ForgetTarget",
    "ForgetReport",
    "Facet",
    "ExploreRequest",
    "FacetBucket",
    "ExplorePage",
    "GetRequest",
    "Exported",
    "ExportPage",
    "EraseRequest",
    "EraseReport",
    "EngineDescriptor",
    "EngineHealth",
    "SegmentKind",
    "Segment",
    "Namespace",
    "Reach",
    "MAX_STORE_MANY",
    "TinyMemoryError",
    "Unsupported",
    "InvalidRequest",
    "Unauthorized",
    "NotFound",
    "Conflict",
    "Unavailable",
    "EngineError",
    "ConfigError",
    "MemoryEngine",
    "ReferenceEngine",
    "list_engines",
    "build_engine",
    "EngineSettings",
    "EngineCredential",
    "BearerSource",
    "MemoryConfig",
    "StoreItem",
    "hookimpl",
    "list_plugins",
    "MemoryTools",
    "ToolScope",
    "ToolSpec",
    "ContextSpec",
    "Brief",
    "ContextDoc",
    "ContextCompiler",
    "compile_context",
    "convert",
    "read",
    "sync",
    "SyncReport",
]


def test_every_spec_name_is_exported():
    missing = [name for name in SPEC_NAMES if name not in tinymemory.__all__]
    assert missing == []


def test_every_exported_name_resolves():
    for name in tinymemory.__all__:
        assert getattr(tinymemory, name) is not None, name


def test_nothing_public_is_left_out_of_all():
    public = {name for name in vars(tinymemory) if not name.startswith("_")}
    modules = {name for name, value in vars(tinymemory).items() if inspect.ismodule(value)}
    assert public - modules - {"annotations", "importlib", "TYPE_CHECKING", "Any"} <= set(
        tinymemory.__all__
    )


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="NoSuchThing"):
        tinymemory.NoSuchThing  # noqa: B018


def test_error_kinds_share_the_base_and_only_unavailable_is_transient():
    kinds = [
        tinymemory.Unsupported,
        tinymemory.InvalidRequest,
        tinymemory.Unauthorized,
        tinymemory.NotFound,
        tinymemory.Conflict,
        tinymemory.Unavailable,
        tinymemory.EngineError,
        tinymemory.ConfigError,
    ]
    assert all(issubclass(kind, tinymemory.TinyMemoryError) for kind in kinds)
    assert [kind.transient for kind in kinds] == [False] * 5 + [True, False, False]
    assert str(tinymemory.ConfigError("x")) == "configuration error: x"
    assert str(tinymemory.EngineError("x")) == "engine error: x"
    assert not issubclass(tinymemory.TinyMemoryError, MemoryError)
