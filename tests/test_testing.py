"""tinymemory.testing: a sandbox, plugins for one test, the CLI, doc examples, the cursor check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

import tinymemory as tm
from tinymemory.plugin import EngineWrapper, embedders, hookimpl
from tinymemory.testing import (
    BUILTIN_PLUGINS,
    Cli,
    Sandbox,
    check_cursors_blind_to_siblings,
    examples,
    only_plugins,
    registered,
)


def test_a_sandbox_isolates_home_configuration_and_choices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TINYMEMORY_ENGINE", "cortexdb")
    monkeypatch.setenv("XDG_DATA_HOME", "/somewhere/real")
    sandbox = Sandbox(tmp_path, extra={"MY_ENGINE_PATH": None, "MY_FLAG": "1"})
    monkeypatch.setenv("MY_ENGINE_PATH", "/real.db")
    with sandbox.enter():
        assert os.environ["XDG_DATA_HOME"] == str(tmp_path / "data")
        assert os.environ["HOME"] == str(tmp_path / "home")
        assert "TINYMEMORY_ENGINE" not in os.environ
        assert "MY_ENGINE_PATH" not in os.environ
        assert os.environ["MY_FLAG"] == "1"
        assert tm.MemoryConfig().engine == "sqlite"  # the default, from nothing
    assert os.environ["TINYMEMORY_ENGINE"] == "cortexdb"
    assert os.environ["MY_ENGINE_PATH"] == "/real.db"
    assert "MY_FLAG" not in os.environ
    assert "TINYMEMORY_ENGINE" not in sandbox.env
    assert not (tmp_path / "data").exists()


class _Tiny:
    name = "tiny"
    dimensions = 2

    def embed(self, texts: list[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


class _TinyPlugin:
    @hookimpl
    def tinymemory_embedders(self) -> list[object]:
        return [_Tiny()]


def test_a_plugin_registered_for_a_block_and_only_the_plugins_named(tmp_path: Path) -> None:
    with Sandbox(tmp_path).enter(), only_plugins(*BUILTIN_PLUGINS):
        assert sorted(embedders()) == ["hashing"]
        with registered(_TinyPlugin(), name="tiny"):
            assert sorted(embedders()) == ["hashing", "tiny"]
        assert sorted(embedders()) == ["hashing"]
    with only_plugins("tinymemory.reference"):
        assert embedders() == {}


def test_the_cli_in_process_and_installed(tmp_path: Path) -> None:
    cli = Cli(Sandbox(tmp_path))
    with only_plugins(*BUILTIN_PLUGINS):
        listed = cli.invoke("engines")
        assert listed.exit_code == 0
        assert "reference" in listed.stdout
    bad = cli.invoke("fetch", "x", "--engine", "nothing-like-it")
    assert bad.exit_code != 0
    assert bad.stderr
    done = cli.run("--help")
    assert (done.exit_code, done.stderr) == (0, "")
    assert "Usage: tinymemory" in done.stdout


def test_examples_pair_code_with_the_output_shown(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "```python\nprint(1 + 1)\n```\n\n```text\n2\n```\n\n```py\nimport nothing\n```\n"
        "```python\nx = 1\n```\n",
        encoding="utf-8",
    )
    found = examples(page)
    assert [(e.name, e.code, e.expected) for e in found] == [
        ("page.md-1", "print(1 + 1)\n", "2\n"),
        ("page.md-2", "x = 1\n", None),
    ]
    assert found[0].run() == "2\n"
    assert [e.code for e in examples(page, language="py")] == ["import nothing\n"]


class _SeqCursors(EngineWrapper):
    """The reference engine with a side channel: its list cursors count every item stored."""

    def handle_list(self, request: tm.ListRequest) -> tm.ListPage:
        if request.cursor is not None:
            request = attrs.evolve(request, cursor=request.cursor.split(".")[0])
        page = super().handle_list(request)
        if page.next_cursor is None:
            return page
        whole = self.inner.list(tm.ListRequest(limit=10_000)).items
        return tm.ListPage(items=page.items, next_cursor=f"{page.next_cursor}.{len(whole)}")


def test_the_cursor_check_passes_the_reference_and_catches_a_side_channel() -> None:
    check_cursors_blind_to_siblings(tm.build_engine("reference", scrub=False))
    leaky = _SeqCursors(tm.build_engine("reference", scrub=False))
    with pytest.raises(AssertionError, match="a cursor changed after one sibling item"):
        check_cursors_blind_to_siblings(leaky)


def test_without_numpy_vectors_say_what_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['numpy'] = None\n"
        "import tinymemory as tm\n"
        "from tinymemory.retrieval import HashingEmbedder\n"
        "try:\n"
        "    HashingEmbedder().embed(['a'])\n"
        "except tm.ConfigError as error:\n"
        "    print(error)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert done == (
        "configuration error: the hashing embedder needs numpy, which is not installed: "
        "pip install 'tinymemory[vectors]'\n"
    )


def test_the_cli_in_an_entered_sandbox_keeps_a_registered_plugin(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    with sandbox.enter(), only_plugins(*BUILTIN_PLUGINS), registered(_TinyPlugin(), name="tiny"):
        assert sandbox.entered
        listed = Cli(sandbox).invoke("plugins")
    assert not sandbox.entered
    assert listed.exit_code == 0
    assert "tiny" in listed.stdout


def test_the_cli_in_process_feeds_input_as_a_console_does(tmp_path: Path) -> None:
    """Text and bytes alike: ``import -`` reads ``sys.stdin.buffer``."""
    line = tm.plugin.to_json(tm.Learning(text="piped in, é")) + "\n"
    with only_plugins(*BUILTIN_PLUGINS):
        sandbox = Sandbox(tmp_path, {"TINYMEMORY_ENGINE": "reference"})
        imported = Cli(sandbox).invoke("import", "-", input=line)
    # stderr carries only the import's progress (its total, then each batch).
    assert imported.exit_code == 0, imported.stderr
    assert imported.stderr.splitlines() == ["importing: 1 item", "importing: 1 of 1 item"]
    assert imported.stdout.startswith("imported 1")
