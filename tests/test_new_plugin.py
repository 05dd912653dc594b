"""``tinymemory new-plugin``: the files it writes, the names in them, what it refuses.

The generated engine is run through the whole conformance suite here, in
process; ``tests/newcomer/`` installs the generated package with its own
tox.ini in a fresh environment.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path, PurePosixPath
from types import ModuleType

import pytest
from doc_examples import ROOT

import tinymemory as tm
from tinymemory._cli.main import main
from tinymemory._cli.new_plugin import (
    plugin_names,
    render,
    tinymemory_requirement,
    write_plugin,
)
from tinymemory.conformance import CHECK_NAMES, Outcome, run

FILES = [
    ".gitignore",
    "README.md",
    "pyproject.toml",
    "src/tinymemory_team_notes/__init__.py",
    "src/tinymemory_team_notes/engine.py",
    "src/tinymemory_team_notes/plugin.py",
    "src/tinymemory_team_notes/py.typed",
    "tests/test_conformance.py",
    "tox.ini",
]


@pytest.fixture(autouse=True)
def _builtins_only(builtin_plugins: None) -> None:
    """Only the built-in engines are installed, whatever this machine has."""


@pytest.fixture
def written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["new-plugin", "team-notes", "--dir", str(tmp_path)]) == 0
    return tmp_path / "tinymemory-team-notes"


@pytest.fixture
def generated_package(written: Path) -> Iterator[ModuleType]:
    """The generated package, imported from its src folder."""
    sys.path.insert(0, str(written / "src"))
    try:
        yield importlib.import_module("tinymemory_team_notes")
    finally:
        sys.path.remove(str(written / "src"))
        for name in [name for name in sys.modules if name.startswith("tinymemory_team_notes")]:
            del sys.modules[name]


def _files(folder: Path) -> list[str]:
    return sorted(
        path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()
    )


def test_it_writes_the_package_and_says_what_to_run_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new-plugin", "team-notes", "--dir", str(tmp_path)]) == 0
    target = tmp_path / "tinymemory-team-notes"
    assert _files(target) == FILES
    assert [path.name for path in tmp_path.iterdir()] == [target.name]  # no staging folder left
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"wrote {target}/, the engine plugin `team-notes`:"
    assert out[1 : 1 + len(FILES)] == [f"  {name}" for name in FILES]
    assert out[-4:] == [
        f"  cd {target}",
        "  pip install tox   # once, when `tox` is not installed yet",
        "  tox               # its tests and the whole conformance suite, in a fresh venv",
        "  pip install -e .  # then `tinymemory engines` lists `team-notes`",
    ]


def test_the_names_follow_the_engine_id(written: Path) -> None:
    project = tomllib.loads((written / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["name"] == "tinymemory-team-notes"
    # The plugin, and the engine it declares (so only building it imports the plugin).
    module = {"team-notes": "tinymemory_team_notes.plugin"}
    assert project["entry-points"] == {"tinymemory": module, "tinymemory.engines": module}
    assert project["dependencies"] == [f"tinymemory>={tm.__version__}"]
    engine = (written / "src/tinymemory_team_notes/engine.py").read_text(encoding="utf-8")
    assert 'id="team-notes"' in engine
    assert "class TeamNotesEngine(tm.MemoryEngine):" in engine
    for path in written.rglob("*"):
        if path.is_file():
            assert "${" not in path.read_text(encoding="utf-8"), path


def test_the_generated_engine_passes_the_whole_conformance_suite(
    generated_package: ModuleType,
) -> None:
    engine_class = generated_package.TeamNotesEngine
    report = run(lambda: engine_class(tm.EngineSettings(), tm.EngineCredential()), profile="ci")
    assert report.passed, str(report)
    assert [result.check for result in report.results] == list(CHECK_NAMES)
    assert {result.outcome for result in report.results} == {Outcome.PASSED}


def test_its_hook_offers_the_engine_with_throwaway_settings(
    generated_package: ModuleType, tmp_path: Path
) -> None:
    plugin = importlib.import_module("tinymemory_team_notes.plugin")
    (factory,) = plugin.tinymemory_engines()
    assert factory.descriptor.id == "team-notes"
    settings = factory.test_settings(tmp_path)
    with factory.build(settings, tm.EngineCredential()) as engine:
        assert engine.health().serving
    assert not engine.health().serving


def test_the_tox_ini_installs_tinymemory_from_where_it_came_from(written: Path) -> None:
    tox_ini = (written / "tox.ini").read_text(encoding="utf-8")
    assert f"\ndeps = {tinymemory_requirement(_direct_url())}\n" in tox_ini


def _direct_url() -> str | None:
    return metadata.distribution("tinymemory").read_text("direct_url.json")


@pytest.mark.parametrize(
    ("direct_url", "from_folder"),
    [
        pytest.param({"url": "FOLDER", "dir_info": {}}, True, id="pip install ."),
        pytest.param(
            {"url": "FOLDER", "dir_info": {"editable": True}}, True, id="pip install -e ."
        ),
        pytest.param({"url": "MISSING", "dir_info": {}}, False, id="a folder since removed"),
        pytest.param({"url": "WHEEL", "archive_info": {}}, False, id="a wheel file"),
        pytest.param(
            {"url": "https://example.com/t.tar.gz", "archive_info": {}}, False, id="a url"
        ),
        pytest.param(None, False, id="from an index"),
    ],
)
def test_the_requirement_names_a_local_folder_only(
    tmp_path: Path, direct_url: dict[str, object] | None, from_folder: bool
) -> None:
    urls = {
        "FOLDER": tmp_path.as_uri(),
        "MISSING": (tmp_path / "gone").as_uri(),
        "WHEEL": (tmp_path / "tinymemory-0.1.0-py3-none-any.whl").as_uri(),
    }
    if direct_url is not None:
        direct_url["url"] = urls.get(str(direct_url["url"]), direct_url["url"])
    requirement = tinymemory_requirement(json.dumps(direct_url) if direct_url else None)
    if from_folder:
        assert requirement == f"tinymemory[conformance] @ {tmp_path.as_uri()}"
    else:
        assert requirement == "tinymemory[conformance]"


@pytest.mark.parametrize(
    "name",
    ["", "MyEngine", "my_engine", "9lives", "my--engine", "engine-", "-engine", "a" * 21, "é"],
)
def test_a_bad_name_is_refused_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert main(["new-plugin", "--dir", str(tmp_path), "--", name]) == 1
    assert capsys.readouterr().err == (
        f"tinymemory: invalid request: `{name}` is not a plugin name: use lowercase letters, "
        "digits and single hyphens, starting with a letter, at most 20 characters "
        "(e.g. `myengine`, `team-notes`)\n"
    )
    assert not list(tmp_path.iterdir())


def test_the_name_of_an_installed_engine_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new-plugin", "reference", "--dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        "tinymemory: invalid request: an installed engine is already called `reference`: "
        "choose another name\n"
    )
    assert not list(tmp_path.iterdir())


def test_an_existing_folder_is_never_written_over(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "tinymemory-team-notes"
    target.mkdir()
    (target / "engine.py").write_text("mine", encoding="utf-8")
    assert main(["new-plugin", "team-notes", "--dir", str(tmp_path)]) == 1
    assert capsys.readouterr().err == (
        f"tinymemory: invalid request: {target} already exists: nothing written "
        "(remove it, or use --dir)\n"
    )
    assert _files(target) == ["engine.py"]
    assert (target / "engine.py").read_text(encoding="utf-8") == "mine"
    assert [path.name for path in tmp_path.iterdir()] == [target.name]


def test_a_file_in_its_place_is_refused(tmp_path: Path) -> None:
    (tmp_path / "tinymemory-team-notes").write_text("", encoding="utf-8")
    with pytest.raises(tm.InvalidRequest, match="already exists"):
        write_plugin(plugin_names("team-notes"), tmp_path)


def test_an_empty_folder_is_filled(tmp_path: Path) -> None:
    (tmp_path / "tinymemory-team-notes").mkdir()
    target, written = write_plugin(plugin_names("team-notes"), tmp_path)
    assert [path.as_posix() for path in written] == FILES == _files(target)


def test_a_parent_that_is_not_a_folder_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new-plugin", "team-notes", "--dir", str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


def _block(page: str, fence: str, first_line: str) -> str:
    """The ``fence`` block of ``docs/page`` whose first line is ``first_line``."""
    text = (ROOT / "docs" / page).read_text(encoding="utf-8")
    (block,) = [
        body
        for body in re.findall(rf"```{fence}\n(.*?)```", text, re.S)
        if body.startswith(first_line)
    ]
    return block


def test_the_plugins_page_shows_what_the_command_prints(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    command, *shown = _block("plugins.md", "console", "$ tinymemory new-plugin").splitlines()
    monkeypatch.chdir(tmp_path)
    assert main(command.removeprefix("$ tinymemory ").split()) == 0
    printed = capsys.readouterr().out.splitlines()
    installs = "its tox.ini installs "
    requirement = [line for line in printed if line.startswith(installs)]
    assert requirement == [f"{installs}{tinymemory_requirement(_direct_url())}"]
    documented = "its tox.ini installs tinymemory[conformance] @ file:///path/to/tinymemory"
    assert [documented if line.startswith(installs) else line for line in printed] == shown


def test_the_conformance_page_shows_the_tox_ini_it_writes() -> None:
    names = plugin_names("myengine")
    names["tinymemory_requirement"] = "tinymemory[conformance] @ file:///path/to/tinymemory"
    assert _block("conformance.md", "ini", "[tox]") == render(names)[PurePosixPath("tox.ini")]
