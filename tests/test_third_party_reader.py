"""A reader from a distribution of its own, installed as a third party installs it, read through
``tinymemory ingest``: the command offers its name, its options and its credential, and knows
nothing of it beforehand."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from distributions import make_distribution

import tinymemory as tm
import tinymemory.plugin
from tinymemory._cli import data_commands
from tinymemory._cli.main import cli, main
from tinymemory._plugin_manager import BUILTIN_PLUGINS, PLUGINS_VARIABLE, reset_plugins

#: A reader of ``.notes`` files: one learning per line, cut at ``separator``; it declares
#: its option, its secret and where its credential comes from, and imports only the API.
NOTES_PLUGIN = """
import pathlib

import tinymemory as tm
from tinymemory.plugin import ReaderOption, hookimpl

SEEN = []


class NotesReader:
    name = "notes"
    source_option = "file"
    options = (
        ReaderOption(name="separator", help="Where a note ends (default a new line)."),
        ReaderOption(name="max_notes", kind="integer", help="Most notes read."),
        ReaderOption(name="shout", kind="flag", help="Upper-case every note."),
        ReaderOption(name="passphrase", help="Unlocks the notes.", secret=True,
                     variable="NOTES_PASSPHRASE"),
    )
    credential_variable = "NOTES_TOKEN"

    def claims(self, source):
        return source.endswith(".notes")

    def read(self, context):
        SEEN.append((dict(context.options), context.credential.bearer()))
        text = pathlib.Path(context.options["file"]).read_text()
        notes = [n.strip() for n in text.split(context.options.get("separator", "\\\\n"))]
        limit = context.options.get("max_notes", len(notes))
        for note in [n for n in notes if n][:limit]:
            yield tm.Learning(text=note.upper() if context.options.get("shout") else note)


@hookimpl
def tinymemory_source_readers():
    return [NotesReader()]
"""


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> tm.MemoryEngine:
    """One reference engine every command of the test stores into, left open by each."""
    shared = tm.ReferenceEngine()

    class Borrowed(tm.plugin.EngineWrapper):
        def close(self) -> None:
            return

    monkeypatch.setattr(data_commands, "_open_engine", lambda options=None, **_: Borrowed(shared))
    return shared


@pytest.fixture
def notes_plugin(site: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> object:
    make_distribution(site, "notes-reader", "1.0", {"notes": "notes_reader"},
                      {"notes_reader": NOTES_PLUGIN})  # fmt: skip
    config = tmp_path / "config.toml"
    config.write_text('engine = "reference"\n', encoding="utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(config))
    monkeypatch.setenv(PLUGINS_VARIABLE, ",".join([*BUILTIN_PLUGINS, "notes"]))
    for name in ("TINYMEMORY_ENGINE", "NOTES_TOKEN", "NOTES_PASSPHRASE"):
        monkeypatch.delenv(name, raising=False)
    reset_plugins()
    yield __import__("notes_reader")
    reset_plugins()


def test_the_command_offers_the_installed_readers_options(notes_plugin: object) -> None:
    shown = CliRunner().invoke(cli, ["ingest", "--help"], prog_name="tinymemory").output
    assert "[notes]" in shown  # the only reader installed
    for flag in ("--separator TEXT", "--max-notes N", "--shout / --no-shout", "--passphrase"):
        assert flag in shown
    assert "notes: Where a note ends" in shown
    assert "env var: NOTES_PASSPHRASE" in shown
    assert "notes from $NOTES_TOKEN" in " ".join(shown.split())


def test_ingest_reads_through_the_third_party_reader(
    notes_plugin: object,
    engine: tm.MemoryEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    notes = tmp_path / "week.notes"
    notes.write_text("ship friday; call dana ;fix the build; rest", encoding="utf-8")
    monkeypatch.setenv("NOTES_TOKEN", "tok-9")
    monkeypatch.setenv("NOTES_PASSPHRASE", "open sesame")
    status = main(["ingest", str(notes), "--separator", ";", "--max-notes", "3", "--shout",
                   "--json"])  # fmt: skip
    printed = capsys.readouterr()
    assert status == 0, printed.err
    report = json.loads(printed.out)
    assert (report["stored"], report["complete"]) == (3, True)
    (options, token), *_ = notes_plugin.SEEN  # type: ignore[attr-defined]
    assert options == {"file": str(notes), "separator": ";", "max_notes": 3, "shout": True,
                       "passphrase": "open sesame"}  # fmt: skip
    assert token == "tok-9"
    assert "open sesame" not in printed.out + printed.err  # a secret is never echoed
    held = engine.list(tm.ListRequest()).items
    assert sorted(hit.text for hit in held) == ["CALL DANA", "FIX THE BUILD", "SHIP FRIDAY"]


def test_a_source_no_reader_claims_asks_for_one(notes_plugin: object, tmp_path: Path) -> None:
    other = tmp_path / "week.txt"
    other.write_text("x", encoding="utf-8")
    result = CliRunner().invoke(cli, ["ingest", str(other)], prog_name="tinymemory")
    assert result.exit_code == 2
    assert "no installed reader claims" in result.output
    assert "(installed: notes)" in result.output
