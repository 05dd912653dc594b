"""The declared plugin API: ``tinymemory.plugin``'s names, and plugins importing only it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tinymemory.plugin

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_SOURCES = sorted(ROOT.glob("plugins/*/src/**/*.py"))
#: What a plugin may import of the core: the package and its public modules
#: (``tinymemory.plugin``, ``tinymemory.files``, ...), never a private one.
ALLOWED = {"tinymemory"} | {
    f"tinymemory.{module.stem}" for module in (ROOT / "tinymemory").glob("[!_]*.py")
}


def test_the_plugin_api_is_exactly_these_names() -> None:
    assert tinymemory.plugin.__all__ == [
        "DocumentConverter",
        "Embedder",
        "EngineFactory",
        "EngineWrapper",
        "Fetcher",
        "HttpResponse",
        "MemoryEngine",
        "Piece",
        "ReaderContext",
        "ReaderOption",
        "STOP_WORDS",
        "Scrubber",
        "SourceReader",
        "SourceSkip",
        "WORD_PATTERN",
        "build_explore_page",
        "canonical_json",
        "cut_pieces",
        "decompose",
        "embedders",
        "extractive_answer",
        "fingerprint_json",
        "fold",
        "from_data",
        "from_json",
        "hookimpl",
        "item_from_json",
        "json_and_id",
        "map_texts",
        "plugin_settings",
        "to_data",
        "to_json",
        "to_utc",
        "words",
    ]
    for name in tinymemory.plugin.__all__:
        assert getattr(tinymemory.plugin, name) is not None


def core_imports(source: str) -> list[str]:
    """Every module of the ``tinymemory`` package a source imports, lazily or not."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
            # `from tinymemory import _engine` reaches a module by another road.
            if node.module == "tinymemory":
                found += [
                    f"tinymemory.{alias.name}"
                    for alias in node.names
                    if alias.name not in tinymemory.__all__
                ]
    return [name for name in found if name.split(".")[0] == "tinymemory"]


def test_the_scan_sees_every_road_into_the_core() -> None:
    source = (
        "import tinymemory._wire\n"
        "from tinymemory import Learning, _registry\n"
        "from tinymemory.plugin import to_json\n"
        "def f():\n    from tinymemory._items import fingerprint_json\n"
    )
    assert [name for name in core_imports(source) if name not in ALLOWED] == [
        "tinymemory._wire",
        "tinymemory._registry",
        "tinymemory._items",
    ]


def test_there_are_plugins_to_check() -> None:
    assert any("tinymemory-sqlite" in str(path) for path in PLUGIN_SOURCES)


@pytest.mark.parametrize(
    "path", PLUGIN_SOURCES, ids=[str(path.relative_to(ROOT)) for path in PLUGIN_SOURCES]
)
def test_a_plugin_imports_only_tinymemory_and_the_plugin_api(path: Path) -> None:
    outside = [
        name for name in core_imports(path.read_text(encoding="utf-8")) if name not in ALLOWED
    ]
    assert outside == []
