"""The declared plugin API: ``tinymemory.plugin``'s and the retrieval kit's names as documented,
and plugins (their sources and their tests) importing only what is declared."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import tinymemory
import tinymemory.commands
import tinymemory.plugin
import tinymemory.retrieval

ROOT = Path(__file__).resolve().parent.parent
PLUGIN_SOURCES = sorted(ROOT.glob("plugins/*/src/**/*.py"))
#: What a plugin may import of the core: the package, the retrieval kit and the public
#: modules (``tinymemory.plugin``, ``tinymemory.files``, ...), never a private one; the
#: testing helpers only in tests.
ALLOWED = {"tinymemory", "tinymemory.retrieval"} | {
    f"tinymemory.{module.stem}"
    for module in (ROOT / "tinymemory").glob("[!_]*.py")
    if module.stem != "testing"
}
#: What a plugin's tests may import besides: the testing helpers and the conformance suite.
ALLOWED_IN_TESTS = ALLOWED | {"tinymemory.testing", "tinymemory.conformance"}
#: Every plugin's tests, which run as a third party's would (against the installed core, from
#: the plugin's own folder).
PLUGIN_TESTS = sorted(ROOT.glob("plugins/*/tests/**/*.py"))


def documented(page: Path, heading: str) -> list[str]:
    """The names in the first column of the first table after ``heading`` on ``page``."""
    text = page.read_text(encoding="utf-8").split(heading, 1)[1]
    rows = re.findall(r"^\| ([^|]*) \|", text.split("\n\n|", 1)[1].split("\n\n", 1)[0], re.M)
    return sorted(name for row in rows for name in re.findall(r"`(\w+)`", row))


@pytest.mark.parametrize(
    ("module", "page", "heading"),
    [
        (tinymemory.plugin, "plugins.md", "## The plugin API"),
        (tinymemory.retrieval, "retrieval.md", "# The retrieval kit"),
    ],
)
def test_the_declared_names_are_the_documented_ones(
    module: ModuleType, page: str, heading: str
) -> None:
    """Each name is declared once, by its import (``__all__`` derives from them), and the
    docs' table lists exactly those names."""
    assert module.__all__ == sorted(module.__all__)
    assert documented(ROOT / "docs" / page, heading) == sorted(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None


def type_checking_imports(module: ModuleType) -> dict[str, str]:
    """Each name a module imports under ``if TYPE_CHECKING:``, with the module it comes from."""
    found = {}
    for node in ast.parse(Path(str(module.__file__)).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                assert statement.module
                found.update((alias.name, statement.module) for alias in statement.names)
    return found


@pytest.mark.parametrize("module", [tinymemory.plugin, tinymemory.retrieval, tinymemory.commands])
def test_what_type_checkers_see_is_what_loads(module: ModuleType) -> None:
    """A lazy face's names load on first use: each is the object its ``TYPE_CHECKING``
    import names, and those imports are exactly ``__all__``."""
    seen = type_checking_imports(module)
    assert sorted(seen) == module.__all__
    for name, source in seen.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name)
    with pytest.raises(AttributeError, match="has no attribute 'undeclared'"):
        module.undeclared  # noqa: B018


def test_importing_a_face_loads_none_of_its_names() -> None:
    probe = (
        "import sys, tinymemory.plugin, tinymemory.retrieval\n"
        "print(sorted(m for m in sys.modules if m.startswith(('tinymemory', 'attr', 'pluggy'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = ["tinymemory", "tinymemory._exports", "tinymemory.plugin", "tinymemory.retrieval"]
    assert done.stdout.strip() == repr(loaded)


def test_the_kit_and_the_plugin_api_share_no_name() -> None:
    assert not set(tinymemory.plugin.__all__) & set(tinymemory.retrieval.__all__)


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
    for plugin in ROOT.glob("plugins/*/"):
        assert any(path.is_relative_to(plugin / "tests") for path in PLUGIN_TESTS), plugin.name


@pytest.mark.parametrize(
    "path", PLUGIN_SOURCES, ids=[str(path.relative_to(ROOT)) for path in PLUGIN_SOURCES]
)
def test_a_plugin_imports_only_tinymemory_and_the_plugin_api(path: Path) -> None:
    outside = [
        name for name in core_imports(path.read_text(encoding="utf-8")) if name not in ALLOWED
    ]
    assert outside == []


def _touches_sys_path(source: str) -> bool:
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == "path"
        and getattr(node.value, "id", "") == "sys"
        for node in ast.walk(ast.parse(source))
    )


def test_the_scan_sees_sys_path() -> None:
    assert _touches_sys_path("import sys\nsys.path.insert(0, 'tests')\n")
    assert not _touches_sys_path("import os\nos.path.join('a')\n")


@pytest.mark.parametrize(
    "path", PLUGIN_TESTS, ids=[str(path.relative_to(ROOT)) for path in PLUGIN_TESTS]
)
def test_a_plugins_tests_import_only_what_is_declared(path: Path) -> None:
    """As a third party's: no private core module, and no folder put on ``sys.path``."""
    source = path.read_text(encoding="utf-8")
    assert [name for name in core_imports(source) if name not in ALLOWED_IN_TESTS] == []
    assert not _touches_sys_path(source)
