"""Installed, ``minilm-static`` is the embedder of every engine whose settings name none: the
sqlite engine finds notes by meaning with nothing configured; a memory filled under the old
default (``hashing``) keeps it, says so once, and moves to the default with
``tinymemory reindex``."""

from __future__ import annotations

import json
import sqlite3
import warnings
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.plugin import default_embedder
from tinymemory.testing import Cli, Sandbox

NOTES = {
    "incident": "The TLS certificate of the payments gateway expired at 09:12 UTC, so every "
    "checkout request was rejected until it was renewed.",
    "travel": "The travel budget is 1,200 EUR per trip, flights and hotel included.",
    "backup": "Database snapshots are copied to cold storage every night and kept ninety days.",
    "leave": "Employees receive twenty-five paid vacation days a year.",
}
#: Questions sharing no content word with the note they are about (quality.py checks its own).
REWORDED = {
    "how much money may I spend on a journey?": "travel",
    "how much holiday time do staff get?": "leave",
}
NOTE = "tinymemory: note: the sqlite database"


def sqlite(path: Path, embedder: str | None = None) -> tm.MemoryEngine:
    options = {"path": str(path)} | ({} if embedder is None else {"embedder": embedder})
    return tm.build_engine("sqlite", tm.EngineSettings(options=options), scrub=False)


def recorded(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        row = connection.execute("SELECT value FROM settings WHERE key = 'embedder'").fetchone()
    return str(json.loads(row[0])["name"])


def test_the_default_embedder_is_minilm_static() -> None:
    assert default_embedder().name == "minilm-static"


def test_with_nothing_configured_sqlite_finds_notes_by_meaning(tmp_path: Path) -> None:
    with sqlite(tmp_path / "memory.db") as engine:
        assert engine.embedder.name == "minilm-static"  # type: ignore[attr-defined]
        receipts = engine.store_many(tm.Document(body=text) for text in NOTES.values())
        names = {receipt.id: name for receipt, name in zip(receipts, NOTES, strict=True)}
        for question, note in REWORDED.items():
            page = engine.fetch(tm.FetchRequest(query=question, mode=tm.FetchMode.VECTOR))
            assert names[page.hits[0].id] == note, question
    assert recorded(tmp_path / "memory.db") == "minilm-static"


def test_a_memory_filled_under_hashing_keeps_it_and_says_so_once(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    with sqlite(path, "hashing") as engine:
        engine.store(tm.Document(body=NOTES["travel"]))
    with pytest.warns(tm.KeptEmbedderWarning, match=r"`hashing` \(hashing:256\).*reindex"):
        engine = sqlite(path)
    with engine:
        assert engine.embedder.name == "hashing"  # type: ignore[attr-defined]
        answer = engine.recall(tm.RecallRequest(question="What is the travel budget?"))
        assert "1,200 EUR" in answer.answer
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sqlite(path).close()  # said once in a process
    assert recorded(path) == "hashing"


def test_the_command_line_says_it_once_on_stderr_until_reindex(
    sandbox: Sandbox, tmp_path: Path
) -> None:
    path = tmp_path / "filled.db"
    with sqlite(path, "hashing") as engine:
        engine.store(tm.Document(body=NOTES["travel"]))
    env = sandbox.env | {"TINYMEMORY_SQLITE_PATH": str(path)}
    cli = Cli(sandbox)
    first = cli.run("recall", "What is the travel budget?", env=env)
    assert first.exit_code == 0, first.stderr
    assert "1,200 EUR" in first.stdout
    assert first.stderr.count(NOTE) == 1
    assert "`hashing`" in first.stderr
    assert "tinymemory reindex" in first.stderr
    reindexed = cli.run("reindex", env=env)
    assert reindexed.exit_code == 0, reindexed.stderr
    assert NOTE not in reindexed.stderr
    assert "minilm-static" in reindexed.stdout
    after = cli.run("recall", "What is the travel budget?", env=env)
    assert after.exit_code == 0, after.stderr
    assert NOTE not in after.stderr
    assert recorded(path) == "minilm-static"
