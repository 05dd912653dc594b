"""Hypothesis, the second net: any workspace resumes to exactly its rest, and migrates whole."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from legacy_workspaces import FailingEngine, LegacyBuilder, snapshot

import tinymemory as tm
from tinymemory.plugin import to_json
from tinymemory_legacy_import import Checkpoint, LegacyWorkspace, MigrationFailed, migrate

keys = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)
texts = st.sampled_from(["note", " ", "\u00a0", "ünï", "漢字", "\u200b", "a\nb", "x" * 40])
namespaces = st.sampled_from(
    ["document_a", "global", "learning_style", "learning", "event_x", "team/alpha", "Zeta"]
)
docs = st.dictionaries(keys, st.tuples(namespaces, texts), max_size=25)
turns = st.lists(st.tuples(keys, st.floats(-10, 10), texts), max_size=25)
facets = st.dictionaries(keys, texts, max_size=10)


DocRows = dict[str, tuple[str, str]]


def build(
    root: Path,
    doc_rows: DocRows,
    turn_rows: list[tuple[str, float, str]],
    facet_rows: dict[str, str],
) -> None:
    builder = LegacyBuilder(root, chunks=True)
    for key, (namespace, text) in doc_rows.items():
        builder.doc(key, namespace, text)
    for number, (session, at, text) in enumerate(turn_rows):
        builder.turn(session, at, "user", text)
        builder.chunk(f"c{number}", "chat" if at > 0 else "email", session, int(at), text)
    for number, (key, text) in enumerate(facet_rows.items()):
        builder.facet(key, "preference", f"k{number}", text)
    builder.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs, turns, facets, st.integers(1, 5))
def test_every_checkpoint_resumes_to_exactly_the_rest(
    doc_rows: DocRows,
    turn_rows: list[tuple[str, float, str]],
    facet_rows: dict[str, str],
    page: int,
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        build(Path(folder) / "ws", doc_rows, turn_rows, facet_rows)
        with LegacyWorkspace.open(Path(folder) / "ws") as workspace:
            whole = list(workspace.items())
            shown = [to_json(imported.item) for imported in whole]
            assert [to_json(i.item) for i in workspace.items_from(None, page_size=page)] == shown
            for position, imported in enumerate(whole):
                checkpoint = Checkpoint.from_json(imported.checkpoint.to_json())
                rest = workspace.items_from(checkpoint, page_size=page)
                assert [to_json(i.item) for i in rest] == shown[position + 1 :]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(keys, st.tuples(namespaces, texts), min_size=1, max_size=250),
    st.integers(1, 3),
    st.integers(0, 99),
)
def test_an_interrupted_migration_resumes_to_the_same_items(
    doc_rows: DocRows, fail_on: int, partly: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        build(Path(folder) / "ws", doc_rows, [], {})
        with LegacyWorkspace.open(Path(folder) / "ws") as workspace:
            with tm.build_engine("reference") as engine:
                migrate(engine, workspace)
                uninterrupted = snapshot(engine)
            with tm.build_engine("reference") as engine:
                try:
                    migrate(FailingEngine(engine, fail_on, partly), workspace)
                except MigrationFailed as failure:
                    migrate(engine, workspace, failure.checkpoint)
                assert snapshot(engine) == uninterrupted
