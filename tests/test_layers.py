"""Layers point one way: identity (canonical JSON, fingerprints) below the contract types,
the JSON converter above them and below context, settings and the plugin system."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "tinymemory"


def core_imports(module: str) -> set[str]:
    """The ``tinymemory`` modules ``module`` imports anywhere in its source, lazily too."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name.removeprefix("tinymemory.") for name in found if name.startswith("tinymemory.")}


@pytest.mark.parametrize(
    ("module", "allowed"),
    [
        ("_canonical", {"_errors", "_f32"}),
        (
            "_item_json",
            {"_canonical", "_errors", "_f32", "_items", "_meta", "_namespace", "_timestamps"},
        ),
        (
            "_items",
            {
                "_canonical",
                # A receipt's notebook view, imported when shown: _display imports
                # only _errors at run time (its contract types under TYPE_CHECKING).
                "_display",
                "_errors",
                "_f32",
                "_limits",
                "_validators",
                "_item_json",
                "_meta",
                "_timestamps",
            },
        ),
        (
            "_wire",
            {
                "_canonical",
                "_engine",
                "_errors",
                "_item_json",
                "_items",
                "_meta",
                "_namespace",
                "_operations",
                "_timestamps",
            },
        ),
    ],
)
def test_a_low_module_imports_nothing_above_it(module: str, allowed: set[str]) -> None:
    imported = core_imports(module)
    assert imported
    assert imported <= allowed


def test_an_items_id_loads_no_context_settings_or_plugins() -> None:
    code = (
        "import sys, tinymemory as tm\n"
        "tm.Learning(text='x').fingerprint()\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('tinymemory'))))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout.split()
    assert {"tinymemory._items", "tinymemory._canonical", "tinymemory._item_json"} <= set(loaded)
    for upper in ("_context", "_settings", "_plugin_manager", "_registry", "_hookspecs", "_tools"):
        assert f"tinymemory.{upper}" not in loaded
        assert (PACKAGE / f"{upper}.py").is_file()
