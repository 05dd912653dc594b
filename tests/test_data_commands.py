"""The data commands of the ``tinymemory`` command line: store, fetch, ..., import, erase."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import attrs
import pytest
from click.testing import CliRunner, Result

import tinymemory as tm
import tinymemory._plugin_manager
import tinymemory.jsonl
from tinymemory._cli import data_commands
from tinymemory._cli.main import cli, main
from tinymemory._engine import EngineDescriptor, EngineWrapper, MemoryEngine
from tinymemory._errors import Unsupported
from tinymemory._hookspecs import EngineFactory, ReaderContext, ReaderOption, SourceSkip, hookimpl
from tinymemory._plugin_manager import plugin_manager
from tinymemory._wire import from_json, to_json
from tinymemory.reference import ReferenceEngine

THIS_FILE = str(Path(__file__))


# Built-ins only: no installed plugin (a scrubber, a converter) changes what is stored.
pytestmark = pytest.mark.usefixtures("builtin_plugins")


class Borrowed(EngineWrapper):
    """The test's engine as one command gets it: the command's close leaves it open."""

    def close(self) -> None:
        return


def use_engine(monkeypatch: pytest.MonkeyPatch, engine: MemoryEngine) -> MemoryEngine:
    """Every command of the test runs on ``engine`` (the reference engine forgets when rebuilt)."""
    monkeypatch.setattr(data_commands, "_open_engine", lambda options=None, **_: Borrowed(engine))
    return engine


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> ReferenceEngine:
    """One reference engine shared by every command the test runs."""
    shared = ReferenceEngine()
    use_engine(monkeypatch, shared)
    return shared


def invoke(*args: str, input: str | bytes | None = None) -> Result:
    result = CliRunner().invoke(cli, list(args), input=input, prog_name="tinymemory")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def ok(*args: str, input: str | bytes | None = None) -> str:
    """The stdout of a command that must succeed."""
    result = invoke(*args, input=input)
    assert result.exit_code == 0, result.output
    return result.stdout


def texts(engine: MemoryEngine, filter: tm.MetaFilter | None = None) -> list[str]:
    page = engine.list(tm.ListRequest(filter=filter, limit=500))
    return [hit.text for hit in page.items]


def fill(engine: MemoryEngine) -> dict[str, str]:
    """Items at the root, at agent:a and at agent:b; their ids by text."""
    items: list[tm.StoreItem] = [
        tm.Learning(text="the office closes at six", meta=tm.MemoryMeta(workspace="acme")),
        tm.Learning(
            text="agent a prefers tabs",
            kind="preference",
            meta=tm.MemoryMeta(namespace="agent:a", tags=["style"]),
        ),
        tm.Learning(
            text="agent b prefers spaces",
            meta=tm.MemoryMeta(namespace="agent:b", tags=["style"], workspace="acme"),
        ),
        tm.Document(title="Release plan", body="We ship tabs on Friday.\nThen rest."),
    ]
    receipts = engine.store_many(items)
    return {item.render_text(): receipt.id for item, receipt in zip(items, receipts, strict=True)}


# --- store ------------------------------------------------------------------------


def test_store_a_learning_and_again_as_a_replay(engine: ReferenceEngine) -> None:
    args = (
        "store",
        "The user prefers tabs",
        "--learning-kind",
        "preference",
        "--confidence",
        "0.9",
    )
    meta_args = (
        "--at",
        "team:acme/agent:writer",
        "--workspace",
        "acme",
        "--tag",
        "a",
        "--tag",
        "b",
    )
    output = ok(*args, *meta_args)
    (hit,) = engine.list(tm.ListRequest()).items
    assert output == f"stored {hit.id}\n"
    assert hit.text == "The user prefers tabs"
    assert hit.confidence == pytest.approx(0.9)
    assert str(hit.meta.namespace) == "team:acme/agent:writer"
    assert (hit.meta.workspace, hit.meta.tags) == ("acme", ("a", "b"))
    assert hit.meta.observed_at is not None
    (exported,) = engine.export(tm.ListRequest()).items
    assert isinstance(exported.item, tm.Learning)
    assert exported.item.kind is tm.LearningKind.PREFERENCE
    assert json.loads(ok(*args, *meta_args, "--json")) == {"id": hit.id, "replayed": True}
    assert ok(*args, *meta_args) == f"replayed {hit.id} (already stored)\n"


def test_store_a_document_and_text_from_stdin(engine: ReferenceEngine) -> None:
    receipt = json.loads(ok("store", "--document", "--title", "Plan", "Ship on Friday", "--json"))
    assert receipt["replayed"] is False
    ok("store", "-", input="read from stdin\n\n")
    ok("store", "--document", "-", input="a document\nfrom stdin\n")
    assert texts(engine) == [
        "# Plan\n\nShip on Friday",
        "read from stdin",
        "a document\nfrom stdin",
    ]
    assert texts(engine, tm.MetaFilter(kinds=["document"]))[0] == "# Plan\n\nShip on Friday"


def test_store_a_text_file_as_a_document(engine: ReferenceEngine, tmp_path: Path) -> None:
    note = tmp_path / "notes.md"
    note.write_text("# Notes\n\nTabs, always. \u2014 the user\n", encoding="utf-8")
    output = ok("store", "--file", str(note), "--tag", "notes", "--at", "agent:a")
    (exported,) = engine.export(tm.ListRequest()).items
    assert output == f"stored {exported.id}\n"
    document = exported.item
    assert isinstance(document, tm.Document)
    assert (document.title, document.body.text) == ("notes.md", note.read_text(encoding="utf-8"))
    assert document.meta.file_path == str(note.resolve())
    assert document.meta.source.kind is tm.SourceKind.FILE
    assert (str(document.meta.namespace), document.meta.tags) == ("agent:a", ("notes",))
    ok("store", "--file", str(note), "--title", "My notes")
    assert texts(engine)[1].startswith("# My notes\n\n# Notes")


@pytest.mark.parametrize(
    ("data", "sniffed"),
    [(b"\x89PNG\r\n\x1a\n\x00\x00", "png"), (b"\x03\x04caf\xe9", "application/octet-stream")],
)
def test_store_refuses_a_file_that_is_not_utf8_text(
    engine: ReferenceEngine, tmp_path: Path, data: bytes, sniffed: str
) -> None:
    file = tmp_path / "picture.bin"
    file.write_bytes(data)
    result = invoke("store", "--file", str(file))
    assert result.exit_code == 1
    assert result.stderr == (
        f"tinymemory: unsupported: `{file}` is {sniffed}, "
        "which no document converter reads (installed: none)\n"
    )
    assert texts(engine) == []


def test_store_a_file_through_the_first_converter_that_claims_it(
    engine: ReferenceEngine, tmp_path: Path
) -> None:
    class Converter:
        def __init__(self, name: str, magic: bytes) -> None:
            self.name = name
            self.magic = magic
            self.seen: list[tuple[str | None, str | None]] = []

        def sniff(self, data: bytes, name: str | None, mime: str | None) -> bool:
            self.seen.append((name, mime))
            return data.startswith(self.magic)

        def convert(self, data: bytes, name: str | None, mime: str | None) -> tm.Document:
            return tm.Document(body=f"converted by {self.name}", meta=tm.MemoryMeta(language="en"))

    converters = [Converter("first", b"%PDF"), Converter("second", b"%PDF")]

    class Plugin:
        @hookimpl
        def tinymemory_document_converters(self) -> list[Converter]:
            return converters

    plugin_manager().register(Plugin())
    file = tmp_path / "report.pdf"
    file.write_bytes(b"%PDF-1.7\x00\x01binary")
    ok("store", "--file", str(file), "--workspace", "acme")
    (exported,) = engine.export(tm.ListRequest()).items
    document = exported.item
    assert isinstance(document, tm.Document)
    assert (document.title, document.body.text) == ("report.pdf", "converted by first")
    assert (document.meta.language, document.meta.workspace) == ("en", "acme")
    assert document.meta.file_path == str(file.resolve())
    assert converters[0].seen == [("report.pdf", None)]  # no mime was declared: none is guessed
    assert converters[1].seen == []


def test_convert_prints_the_document_or_writes_it(tmp_path: Path) -> None:
    note = tmp_path / "notes.md"
    note.write_text("# Notes\n\nTabs, always.", encoding="utf-8")
    assert ok("convert", str(note)) == "# Notes\n\nTabs, always.\n"
    document = from_json(ok("convert", str(note), "--json"), tm.Document)
    assert (document.title, document.mime) == ("notes.md", "text/markdown")
    assert document.meta.file_path == str(note.resolve())
    out = tmp_path / "out" / "notes.txt"
    out.parent.mkdir()
    assert ok("convert", str(note), "-o", str(out)) == (
        f"wrote {out}: 22 characters of text/markdown\n"
    )
    assert out.read_text(encoding="utf-8") == "# Notes\n\nTabs, always.\n"
    assert [path.name for path in out.parent.iterdir()] == ["notes.txt"]  # nothing left aside


def test_convert_of_a_file_nothing_reads_is_unsupported(tmp_path: Path) -> None:
    picture = tmp_path / "picture.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n\x00")
    result = invoke("convert", str(picture))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"tinymemory: unsupported: `{picture}` is png, "
        "which no document converter reads (installed: none)\n"
    )


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ([], "pass TEXT (- for stdin) or --file, one of them"),
        (["text", "--file", THIS_FILE], "pass TEXT (- for stdin) or --file, one of them"),
        (
            ["text", "--document", "--learning-kind", "fact"],
            "--kind and --confidence are for learnings",
        ),
        (["--file", THIS_FILE, "--confidence", "0.5"], "are for learnings"),
        (["text", "--title", "T"], "--title is for documents: add --document"),
        (["text", "--confidence", "2"], "2.0 is not in the range 0.0<=x<=1.0"),
        (["text", "--learning-kind", "rumour"], "'rumour' is not one of 'preference'"),
        (["text", "--at", "agent:a b"], "namespace id `a b` must be 1 to 128 characters"),
        (["--file", "no/such/file"], "'no/such/file' does not exist"),
    ],
)
def test_store_refuses_bad_options_as_usage_errors(
    engine: ReferenceEngine, args: list[str], problem: str
) -> None:
    result = invoke("store", *args)
    assert result.exit_code == 2
    assert problem in result.stderr
    assert texts(engine) == []


def test_store_refuses_blank_text_cleanly(engine: ReferenceEngine) -> None:
    result = invoke("store", "   ")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "tinymemory: invalid request: learning text must not be empty\n"


# --- fetch and recall ---------------------------------------------------------------


def test_fetch_prints_ranked_hits(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    header, *rows = ok("fetch", "tabs", "--mode", "keyword").splitlines()
    assert header.split() == ["SCORE", "ID", "KIND", "NAMESPACE", "SOURCE", "TEXT"]
    assert [row.split()[:5] for row in rows] == [
        ["1.000", ids["agent a prefers tabs"][:8], "learning", "agent:a", "-"],
        [
            "1.000",
            ids["# Release plan\n\nWe ship tabs on Friday.\nThen rest."][:8],
            "document",
            "root",
            "Release",  # its title
        ],
    ]
    # The line that matched, not the document's heading.
    assert rows[1].endswith("Release plan  We ship tabs on Friday.")
    (row,) = ok("fetch", "rest", "--mode", "keyword").splitlines()[1:]
    assert row.endswith("Release plan  Then rest.")
    assert ok("fetch", "nothing-like-this", "--mode", "keyword") == "no hits\n"


def test_fetch_shows_a_hits_file_or_link_and_no_namespace_column_when_all_are_at_the_root(
    engine: ReferenceEngine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    engine.store(tm.Document(body="tabs in the file", meta=tm.MemoryMeta(
        file_path=str(tmp_path / "notes" / "style.md"))))  # fmt: skip
    engine.store(tm.Document(body="tabs on the web", meta=tm.MemoryMeta(
        url="https://example.com/style")))  # fmt: skip
    header, *rows = ok("fetch", "tabs", "--mode", "keyword").splitlines()
    assert header.split() == ["SCORE", "ID", "KIND", "SOURCE", "TEXT"]
    sources = sorted(row.split()[3] for row in rows)
    assert sources == ["https://example.com/style", "notes/style.md"]


def test_the_fetch_help_explains_the_score_once() -> None:
    shown = ok("fetch", "--help")
    for mode in ("keyword", "vector", "hybrid"):
        assert mode in shown
    assert "compare scores within one fetch only" in " ".join(shown.split())


def test_a_read_of_an_empty_memory_points_at_ingest_and_store(engine: ReferenceEngine) -> None:
    for args in (("recall", "anything"), ("fetch", "x", "--mode", "keyword"), ("list",)):
        result = invoke(*args)
        assert result.exit_code == 0
        assert "the memory is empty: `tinymemory ingest PATH`" in result.stderr
        assert "`tinymemory store TEXT`" in result.stderr
    fill(engine)
    quiet = invoke("fetch", "nothing-like-this", "--mode", "keyword")
    assert (quiet.stdout, quiet.stderr) == ("no hits\n", "")  # memory holds items: no hint


def test_fetch_json_pages_with_the_cursor(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    first = json.loads(ok("fetch", "tabs", "--mode", "keyword", "--limit", "1", "--json"))
    assert [hit["id"] for hit in first["hits"]] == [ids["agent a prefers tabs"]]
    assert first["hits"][0]["score"] == 1.0
    cursor = first["next_cursor"]
    shown = ok("fetch", "tabs", "--mode", "keyword", "--limit", "1")
    assert shown.endswith(f"next cursor: {cursor}\n")
    second = json.loads(ok("fetch", "tabs", "--mode", "keyword", "--cursor", cursor, "--json"))
    assert [hit["kind"] for hit in second["hits"]] == ["document"]
    assert "next_cursor" not in second


class KeywordOnly(EngineWrapper):
    """The reference engine declaring only the modes given."""

    def __init__(self, inner: MemoryEngine, *modes: tm.FetchMode) -> None:
        super().__init__(inner)
        self.modes = modes

    @property
    def descriptor(self) -> EngineDescriptor:
        return attrs.evolve(self.inner.descriptor, fetch_modes=self.modes)


def test_fetch_defaults_to_hybrid_else_the_engines_first_mode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    inner = ReferenceEngine()
    fill(inner)
    asked: list[tm.FetchMode] = []

    class Recording(KeywordOnly):
        def handle_fetch(self, request: tm.FetchRequest) -> tm.FetchPage:
            asked.append(request.mode)
            return super().handle_fetch(request)

    use_engine(monkeypatch, Recording(inner, tm.FetchMode.VECTOR, tm.FetchMode.HYBRID))
    ok("fetch", "tabs")
    use_engine(monkeypatch, Recording(inner, tm.FetchMode.VECTOR, tm.FetchMode.KEYWORD))
    ok("fetch", "tabs")
    assert asked == [tm.FetchMode.HYBRID, tm.FetchMode.VECTOR]
    result = invoke("fetch", "tabs", "--mode", "keyword")  # declared, so asked for as given
    assert result.exit_code == 0
    result = invoke("fetch", "tabs", "--mode", "hybrid")
    assert result.exit_code == 1
    assert (
        result.stderr == "tinymemory: unsupported: engine `reference` does not offer hybrid fetch\n"
    )
    use_engine(monkeypatch, KeywordOnly(inner))
    result = invoke("fetch", "tabs")
    assert result.stderr == "tinymemory: unsupported: engine `reference` serves no fetch mode\n"


def test_recall_prints_the_answer_then_numbered_citations(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    output = ok("recall", "who prefers tabs", "--limit", "1")
    assert output == (
        "From 1 stored items: agent a prefers tabs\n"
        "\n"
        f"[1] {ids['agent a prefers tabs'][:8]}  learning  agent a prefers tabs\n"
    )
    answer = from_json(ok("recall", "who prefers tabs", "--limit", "2", "--json"), tm.RecallAnswer)
    assert [citation.id for citation in answer.citations][:1] == [ids["agent a prefers tabs"]]
    assert len(answer.citations) == 2
    assert answer.model == "reference"


def test_recall_refuses_a_blank_question_and_a_zero_limit(engine: ReferenceEngine) -> None:
    result = invoke("recall", " ")
    assert (result.exit_code, result.stderr) == (
        1,
        "tinymemory: invalid request: recall question must not be empty\n",
    )
    assert invoke("recall", "tabs", "--limit", "0").exit_code == 2


# --- list, get and explore ----------------------------------------------------------------


def test_list_prints_a_table_and_the_next_cursor(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    header, *rows, last = ok("list", "--limit", "3").splitlines()
    assert header.split() == ["ID", "KIND", "NAMESPACE", "SOURCE", "TEXT"]
    assert [row.split()[0] for row in rows] == [item_id[:8] for item_id in ids.values()][:3]
    assert rows[0].split(maxsplit=4)[1:] == ["learning", "root", "-", "the office closes at six"]
    assert rows[1].index("agent:a") == header.index("NAMESPACE")
    assert last.startswith("next cursor: ")
    rest = ok("list", "--cursor", last.removeprefix("next cursor: ")).splitlines()
    assert [row.split()[0] for row in rest[1:]] == [item_id[:8] for item_id in ids.values()][3:]
    assert ok("list", "--workspace", "nobody") == "no items\n"


def test_list_json_and_kind_filters(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    page = from_json(ok("list", "--kind", "document", "--json"), tm.ListPage)
    assert [hit.id for hit in page.items] == [
        ids["# Release plan\n\nWe ship tabs on Friday.\nThen rest."]
    ]
    assert page.next_cursor is None
    page = from_json(ok("list", "--kind", "document", "--kind", "learning", "--json"), tm.ListPage)
    assert len(page.items) == 4
    page = from_json(ok("list", "--tag", "style", "--workspace", "acme", "--json"), tm.ListPage)
    assert [hit.text for hit in page.items] == ["agent b prefers spaces"]
    assert "next_cursor" in ok("list", "--limit", "1", "--json")


def test_get_prints_items_whole_in_the_order_named(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    document_id = ids["# Release plan\n\nWe ship tabs on Friday.\nThen rest."]
    output = ok("get", ids["agent a prefers tabs"], document_id)
    first, second = output.split("\n---\n")
    assert first == (
        f"id: {ids['agent a prefers tabs']}\n"
        "kind: learning\n"
        "confidence: 0.8\n"
        "namespace: agent:a\n"
        'source: {"kind":"agent"}\n'
        "tags: style\n"
        "\n"
        "agent a prefers tabs"
    )
    assert second.startswith(f"id: {document_id}\nkind: document\nnamespace: root\n")
    assert second.endswith("\n\n# Release plan\n\nWe ship tabs on Friday.\nThen rest.\n")
    data = json.loads(ok("get", document_id, "--json"))
    assert data["missing"] == []
    (item,) = data["items"]
    assert from_json(json.dumps(item), tm.Hit).text.startswith("# Release plan")


def test_get_reports_ids_it_cannot_find_and_exits_1(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    known = ids["the office closes at six"]
    result = invoke("get", "nope", known)
    assert result.exit_code == 1
    assert result.stdout.startswith(f"id: {known}\n")
    assert result.stderr == "tinymemory: not found: nope\n"
    result = invoke("get", "nope", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout) == {"items": [], "missing": ["nope"]}
    assert invoke("get").exit_code == 2


def test_get_reads_more_ids_than_one_request_takes(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    many = [*ids.values(), *(f"missing-{n}" for n in range(tm.MAX_GET_IDS))]
    result = invoke("get", *many, "--json")
    data = json.loads(result.stdout)
    assert [item["id"] for item in data["items"]] == list(ids.values())
    assert len(data["missing"]) == tm.MAX_GET_IDS


def test_explore_prints_buckets_and_totals(engine: ReferenceEngine) -> None:
    fill(engine)
    assert ok("explore", "workspace") == ("WORKSPACE  COUNT\nacme       2\n\ntotal 4, missing 2\n")
    assert ok("explore", "kind", "--limit", "1") == (
        "KIND      COUNT\nlearning  3\n\ntotal 4, missing 0\n1 more values (raise --limit)\n"
    )
    page = from_json(ok("explore", "tag", "--json"), tm.ExplorePage)
    assert [(bucket.value, bucket.count) for bucket in page.buckets] == [("style", 2)]
    assert (page.total, page.missing, page.truncated) == (4, 2, False)
    assert ok("explore", "tag", "--workspace", "nobody") == "total 0, missing 0\n"


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["explore", "colour"], "'colour' is not one of 'kind', 'source'"),
        (["explore", "kind", "--limit", "0"], "0 is not in the range 1<=x<=500"),
        (["list", "--limit", "0"], "0 is not in the range x>=1"),
        (["fetch", "tabs", "--mode", "telepathy"], "'telepathy' is not one of"),
        (["list", "--at", "nobody"], "namespace segment `nobody` must be written kind:id"),
        (["list", "--reach", "everywhere"], "'everywhere' is not one of"),
        (["list", "--kind", "memo"], "'memo' is not one of 'document'"),
    ],
)
def test_reads_refuse_bad_options_as_usage_errors(
    engine: ReferenceEngine, args: list[str], problem: str
) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    assert problem in result.stderr


def test_an_engine_refusal_is_one_line_through_main_too(
    engine: ReferenceEngine, capsys: pytest.CaptureFixture[str]
) -> None:
    result = invoke("list", "--cursor", "x")
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "tinymemory: invalid request: unknown cursor `x`\n"
    assert main(["list", "--cursor", "x"]) == 1
    captured = capsys.readouterr()
    assert (captured.out, captured.err) == ("", "tinymemory: invalid request: unknown cursor `x`\n")


# --- --at and --reach ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "seen"),
    [
        ([], ["the office closes at six", "agent a prefers tabs", "agent b prefers spaces"]),
        (["--at", "agent:a"], ["the office closes at six", "agent a prefers tabs"]),
        (
            ["--at", "agent:a", "--reach", "of"],
            ["the office closes at six", "agent a prefers tabs"],
        ),
        (["--at", "agent:a", "--reach", "exact"], ["agent a prefers tabs"]),
        (["--at", "root", "--reach", "exact"], ["the office closes at six"]),
        (["--reach", "exact"], ["the office closes at six"]),
        (["--at", "agent:b", "--reach", "subtree"], ["agent b prefers spaces"]),
    ],
)
def test_at_and_reach_confine_every_read(
    engine: ReferenceEngine, args: list[str], seen: list[str]
) -> None:
    ids = fill(engine)
    learnings = ["--kind", "learning", *args]
    listed = from_json(ok("list", *learnings, "--json"), tm.ListPage)
    assert [hit.text for hit in listed.items] == seen
    fetched = from_json(ok("fetch", "prefers office", *learnings, "--json"), tm.FetchPage)
    assert sorted(hit.text for hit in fetched.hits) == sorted(seen)
    answer = from_json(ok("recall", "prefers office", *learnings, "--json"), tm.RecallAnswer)
    assert sorted(citation.snippet for citation in answer.citations) == sorted(seen)
    explored = from_json(ok("explore", "namespace", *learnings, "--json"), tm.ExplorePage)
    assert explored.total == len(seen)
    exported = [json.loads(line)["id"] for line in ok("export", *learnings).splitlines()]
    assert exported == [ids[text] for text in seen]


# --- forget -------------------------------------------------------------------------------


def test_forget_by_ids(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    assert ok("forget", ids["agent a prefers tabs"], "unknown-id") == "forgot 1 item\n"
    assert json.loads(ok("forget", ids["agent a prefers tabs"], "--json")) == {"forgotten": 0}
    assert "agent a prefers tabs" not in texts(engine)
    assert len(texts(engine)) == 3


def test_forget_by_ids_within_a_reach_spares_what_it_cannot_see(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    both = (ids["agent a prefers tabs"], ids["agent b prefers spaces"])
    assert ok("forget", *both, "--at", "agent:a") == "forgot 1 item\n"
    assert "agent b prefers spaces" in texts(engine)
    assert "agent a prefers tabs" not in texts(engine)


def test_forget_by_filter(engine: ReferenceEngine) -> None:
    fill(engine)
    assert ok("forget", "--tag", "style") == "forgot 2 items\n"
    assert json.loads(ok("forget", "--at", "root", "--reach", "exact", "--json")) == {
        "forgotten": 2
    }
    assert texts(engine) == []


def test_forget_refuses_no_target_and_ids_with_a_filter(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    result = invoke("forget")
    assert result.exit_code == 2
    assert "forget needs ids or a filter option" in result.stderr
    result = invoke("forget", ids["agent a prefers tabs"], "--tag", "style")
    assert result.exit_code == 2
    assert "pass ids or --workspace/--tag/--kind, not both" in result.stderr
    assert len(texts(engine)) == 4


# --- export and import ---------------------------------------------------------------------


def exported_lines(engine: MemoryEngine) -> list[str]:
    return [to_json(exported) for exported in engine.export(tm.ListRequest(limit=500)).items]


def test_export_writes_json_lines_to_stdout(engine: ReferenceEngine) -> None:
    fill(engine)
    output = ok("export")
    assert output.splitlines() == exported_lines(engine)
    first = from_json(output.splitlines()[0], tm.Exported)
    assert first.item == engine.export(tm.ListRequest(limit=1)).items[0].item
    assert ok("export", "--json") == output  # --json is only the summary of a file export


def test_export_pages_through_everything(
    engine: ReferenceEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data_commands, "EXPORT_PAGE", 2)
    engine.store_many([tm.Learning(text=f"fact {n}") for n in range(5)])
    assert ok("export").splitlines() == exported_lines(engine)


def test_export_to_a_file_prints_a_summary(engine: ReferenceEngine, tmp_path: Path) -> None:
    fill(engine)
    target = tmp_path / "memory.jsonl"
    assert ok("export", "-o", str(target)) == f"exported 4 items to {target}\n"
    assert target.read_text(encoding="utf-8").splitlines() == exported_lines(engine)
    summary = json.loads(ok("export", "-o", str(target), "--tag", "style", "--json"))
    assert summary == {"exported": 2, "file": str(target), "incomplete": []}
    assert len(target.read_text(encoding="utf-8").splitlines()) == 2


def test_export_shows_progress_on_a_terminal_and_never_on_stdout(
    engine: ReferenceEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(engine)
    monkeypatch.setattr(data_commands, "_stderr_is_terminal", lambda: True)
    target = tmp_path / "memory.jsonl"
    result = invoke("export", "-o", str(target))
    assert result.stdout == f"exported 4 items to {target}\n"
    assert "exporting" in result.stderr
    assert target.read_text(encoding="utf-8").splitlines() == exported_lines(engine)
    result = invoke("export")  # to stdout: the bar on stderr, the items alone on stdout
    assert result.stdout.splitlines() == exported_lines(engine)
    assert "exporting" in result.stderr


def test_an_engine_that_cannot_export_is_a_clean_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    class NoExport(EngineWrapper):
        def handle_export(self, request: tm.ListRequest) -> tm.ExportPage:
            raise Unsupported("engine `reference` does not export items")

    use_engine(monkeypatch, NoExport(ReferenceEngine()))
    target = tmp_path / "memory.jsonl"
    result = invoke("export", "-o", str(target))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "tinymemory: unsupported: engine `reference` does not export items\n"
    assert not target.exists()


class OnFiles(ReferenceEngine):
    """A reference engine that claims files as its storage, as a file-backed engine does."""

    def __init__(self, *owned: Path) -> None:
        super().__init__()
        self.owned = owned

    def storage_paths(self) -> tuple[Path, ...]:
        return self.owned


def test_export_refuses_the_engines_own_storage_even_through_a_symlink(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    database, wal = tmp_path / "memory.db", tmp_path / "memory.db-wal"
    database.write_bytes(b"precious")
    engine = use_engine(monkeypatch, OnFiles(database, wal))
    fill(engine)
    link = tmp_path / "innocent.jsonl"
    link.symlink_to(database)
    for target in (database, wal, link, tmp_path / "sub" / ".." / "memory.db"):
        result = invoke("export", "-o", str(target))
        assert (result.exit_code, result.stdout) == (1, "")
        assert result.stderr == (
            f"tinymemory: invalid request: `{target}` is the engine's own storage "
            f"(`{database if target != wal else wal}`); exporting over it would destroy "
            "the memory: choose another file\n"
        )
    assert database.read_bytes() == b"precious"
    assert not wal.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["innocent.jsonl", "memory.db"]


def test_a_failed_export_leaves_the_old_file_and_no_half_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    class FailsLater(ReferenceEngine):
        def handle_export(self, request: tm.ListRequest) -> tm.ExportPage:
            if request.cursor is not None:
                raise tm.Unavailable("the engine went away")
            return super().handle_export(request)

    monkeypatch.setattr(data_commands, "EXPORT_PAGE", 2)
    engine = use_engine(monkeypatch, FailsLater())
    fill(engine)
    target = tmp_path / "memory.jsonl"
    target.write_text("the previous export\n", encoding="utf-8")
    result = invoke("export", "-o", str(target), "--quiet")
    assert (result.exit_code, result.stderr) == (
        1,
        "tinymemory: unavailable: the engine went away\n",
    )
    assert target.read_text(encoding="utf-8") == "the previous export\n"
    assert [path.name for path in tmp_path.iterdir()] == ["memory.jsonl"]


def test_export_through_a_symlink_replaces_the_file_it_points_to(
    engine: ReferenceEngine, tmp_path: Path
) -> None:
    fill(engine)
    real = tmp_path / "real.jsonl"
    real.write_text("old\n", encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "link.jsonl"
    link.symlink_to(real)
    ok("export", "-o", str(link))
    assert link.is_symlink()
    assert real.read_text(encoding="utf-8").splitlines() == exported_lines(engine)
    assert real.stat().st_mode & 0o777 == 0o640


def test_export_then_import_keeps_ids_and_reimport_is_all_replays(
    engine: ReferenceEngine, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ids = fill(engine)
    dump = tmp_path / "memory.jsonl"
    ok("export", "-o", str(dump))
    other = use_engine(monkeypatch, ReferenceEngine())
    assert ok("import", str(dump)) == "imported 4 items: 4 stored, 0 replayed\n"
    assert [hit.id for hit in other.list(tm.ListRequest()).items] == list(ids.values())
    assert exported_lines(other) == exported_lines(engine)
    assert json.loads(ok("import", str(dump), "--json")) == {"stored": 0, "replayed": 4}
    assert ok("import", "-", input=dump.read_bytes()) == "imported 4 items: 0 stored, 4 replayed\n"


def test_import_reads_bare_items_and_skips_blank_lines(engine: ReferenceEngine) -> None:
    lines = [
        to_json(tm.Learning(text="a bare learning")),
        "",
        "   ",
        to_json(tm.Exported(id="ignored", item=tm.Document(body="an exported document"))),
    ]
    assert ok("import", "-", input="\n".join(lines)) == "imported 2 items: 2 stored, 0 replayed\n"
    assert texts(engine) == ["a bare learning", "an exported document"]
    assert ok("import", "-", input="") == "imported 0 items: 0 stored, 0 replayed\n"
    one = to_json(tm.Learning(text="just one"))
    assert ok("import", "-", input=one) == "imported 1 item: 1 stored, 0 replayed\n"


def test_import_at_rehomes_every_item(engine: ReferenceEngine, tmp_path: Path) -> None:
    item = tm.Learning(text="moved", meta=tm.MemoryMeta(namespace="agent:a", tags=["x"]))
    dump = tmp_path / "one.jsonl"
    dump.write_text(to_json(tm.Exported(id=item.fingerprint(), item=item)) + "\n", encoding="utf-8")
    ok("import", str(dump), "--at", "team:acme")
    (hit,) = engine.list(tm.ListRequest()).items
    assert (str(hit.meta.namespace), hit.meta.tags) == ("team:acme", ("x",))
    assert hit.id != item.fingerprint()
    assert hit.id == item.with_meta(attrs.evolve(item.meta, namespace="team:acme")).fingerprint()


def test_import_stores_in_batches_with_progress(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    batches: list[int] = []

    class Counting(ReferenceEngine):
        def handle_store_many(self, items: list[tm.StoreItem]) -> list[tm.StoreReceipt]:
            batches.append(len(items))
            return super().handle_store_many(items)

    target = use_engine(monkeypatch, Counting())
    monkeypatch.setattr(data_commands, "_stderr_is_terminal", lambda: True)
    count = tm.MAX_STORE_MANY * 2 + 5
    dump = "\n".join(to_json(tm.Learning(text=f"fact {n}")) for n in range(count))
    result = invoke("import", "-", input=dump)
    assert result.stdout == f"imported {count} items: {count} stored, 0 replayed\n"
    assert "importing" in result.stderr
    assert batches == [tm.MAX_STORE_MANY, tm.MAX_STORE_MANY, 5]
    assert len(texts(target)) == count


@pytest.mark.parametrize(
    ("bad", "problem"),
    [
        (b"{not json", "line 2: not valid json: "),
        (b'{"type": "memo", "text": "x"}', "line 2: `memo` is not an item type"),
        (b'{"type": "learning", "text": "  "}', "line 2: learning text must not be empty"),
        (b'{"id": "x", "item": {"type": "learning"}}', "line 2: cannot read Exported: "),
        (b'{"type": "learning", "text": "x", "confidence": 3}', "line 2: learning confidence 3"),
        (b"[1, 2]", "line 2: a stored item is a json object"),
        (b'{"type": "learning", "text": "caf\xe9"}', "line 2: not UTF-8 text"),
    ],
)
def test_import_checks_every_line_before_storing_anything(
    engine: ReferenceEngine, bad: bytes, problem: str
) -> None:
    good = to_json(tm.Learning(text="fine")).encode()
    result = invoke("import", "-", input=b"\n".join([good, bad, good]))
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith(f"tinymemory: invalid request: {problem}")
    assert len(result.stderr.splitlines()) == 1
    assert texts(engine) == []


def test_import_checks_items_fully_so_a_late_lone_surrogate_stores_nothing(
    engine: ReferenceEngine,
) -> None:
    lines = [to_json(tm.Learning(text=f"fact {n}")) for n in range(100)]
    lines.append('{"type": "learning", "text": "broken \\ud800 text"}')
    result = invoke("import", "-", "--quiet", input="\n".join(lines))
    assert result.exit_code == 1
    assert result.stderr == (
        "tinymemory: invalid request: line 101: `text` holds a lone surrogate, "
        "which is not unicode text\n"
    )
    assert texts(engine) == []


def test_import_names_every_bad_line_up_to_a_cap(
    engine: ReferenceEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = to_json(tm.Learning(text="fine"))
    bad = '{"type": "learning", "text": ""}'
    lines = [good, bad, good, "{oops", bad, good]
    result = invoke("import", "-", "--quiet", input="\n".join(lines))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        "tinymemory: invalid request: 3 lines are bad, so nothing was stored:",
        "line 2: learning text must not be empty",
        "line 4: not valid json: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)",
        "line 5: learning text must not be empty",
    ]
    monkeypatch.setattr(tinymemory.jsonl, "MAX_BAD_LINES", 2)
    result = invoke("import", "-", "--quiet", input="\n".join(lines))
    assert result.stderr.splitlines()[1:] == [
        "line 2: learning text must not be empty",
        "line 4: not valid json: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)",
        "and 1 more",
    ]
    assert texts(engine) == []


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('{"type": "learning", "text": "x", "confidance": 0.5}', "confidance"),
        ('{"type": "learning", "text": "x", "tgas": ["a"]}', "tgas"),
        ('{"type": "learning", "text": "x", "meta": {"workspce": "acme"}}', "meta.workspce"),
        (
            '{"id": "x", "item": {"type": "document", "body": {"text": "x"}}, "extra": 1}',
            "extra",
        ),
        (
            '{"type": "conversation", "turns": [{"role": "user", "text": "hi", "whom": "me"}]}',
            "turns[0].whom",
        ),
        (
            '{"type": "learning", "text": "x", "meta": {"source": {"kind": "agent", "idd": "a"}}}',
            "meta.source.idd",
        ),
    ],
)
def test_import_refuses_unknown_keys_naming_line_and_key(
    engine: ReferenceEngine, line: str, key: str
) -> None:
    good = to_json(tm.Learning(text="fine"))
    result = invoke("import", "-", input=f"{good}\n{line}\n")
    assert result.exit_code == 1
    assert result.stderr == f"tinymemory: invalid request: line 2: unknown key `{key}`\n"
    assert texts(engine) == []


def test_import_accepts_a_byte_order_mark(engine: ReferenceEngine) -> None:
    lines = [to_json(tm.Learning(text="first")), to_json(tm.Learning(text="second"))]
    data = b"\xef\xbb\xbf" + "\n".join(lines).encode()
    assert ok("import", "-", input=data) == "imported 2 items: 2 stored, 0 replayed\n"
    assert texts(engine) == ["first", "second"]


def test_import_names_an_export_line_whose_id_is_not_its_fingerprint(
    engine: ReferenceEngine,
) -> None:
    item = tm.Learning(text="claimed")
    lines = [
        to_json(tm.Exported(id=item.fingerprint(), item=item)),
        to_json(tm.Exported(id="not-the-id", item=tm.Learning(text="other"))),
    ]
    result = invoke("import", "-", "--quiet", input="\n".join(lines))
    assert result.stdout == "imported 2 items: 2 stored, 0 replayed\n"
    own = tm.Learning(text="other").fingerprint()
    assert result.stderr == (
        f"tinymemory: line 2: id `not-the-id` is not its item's fingerprint `{own}`; "
        "the item is stored under the id the engine gives it\n"
    )


def test_import_refuses_deeply_nested_json_cleanly(engine: ReferenceEngine) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    result = invoke("import", "-", input=deep)
    assert result.exit_code == 1
    assert (
        result.stderr == "tinymemory: invalid request: line 1: not valid json: nested too deeply\n"
    )


def test_import_refuses_a_missing_file_as_a_usage_error(engine: ReferenceEngine) -> None:
    result = invoke("import", "no/such/file.jsonl")
    assert result.exit_code == 2
    assert "No such file or directory" in result.stderr


# --- erase ------------------------------------------------------------------------------


def test_erase_asks_first_and_a_no_erases_nothing(engine: ReferenceEngine) -> None:
    fill(engine)
    result = invoke("erase", "--at", "agent:a", input="n\n")
    assert result.exit_code == 1
    assert "Erase every item at agent:a, for good? [y/N]: n" in result.stderr
    assert "Aborted!" in result.stderr
    assert result.stdout == ""
    assert len(texts(engine)) == 4
    assert ok("erase", "--at", "agent:a", input="y\n") == "erased 1 item at agent:a\n"
    assert "agent a prefers tabs" not in texts(engine)


def test_erase_with_yes_kinds_and_subtree(engine: ReferenceEngine) -> None:
    fill(engine)
    engine.store(tm.Document(body="team doc", meta=tm.MemoryMeta(namespace="team:t/agent:c")))
    engine.store(tm.Learning(text="team fact", meta=tm.MemoryMeta(namespace="team:t")))
    report = json.loads(
        ok("erase", "--at", "team:t", "--subtree", "--kind", "learning", "--yes", "--json")
    )
    assert report == {"erased_scopes": 1, "receipts": []}
    assert "team doc" in texts(engine)
    assert ok("erase", "--at", "team:t", "--subtree", "-y") == (
        "erased 1 item at team:t and below it (service: sandboxes not counted)\n"
    )
    assert len(texts(engine)) == 4
    result = invoke("erase", "--at", "root", "--kind", "document", input="y\n")
    assert "Erase document items at root, for good?" in result.stderr
    assert len(texts(engine)) == 3


def test_erasing_the_whole_tree_needs_the_flag_and_asks(engine: ReferenceEngine) -> None:
    fill(engine)
    result = invoke("erase", "--at", "root", "--subtree", "--yes")
    assert result.exit_code == 2
    assert "erasing every item at every node needs --whole-tree" in result.stderr
    whole = ("erase", "--at", "root", "--subtree", "--whole-tree")
    result = invoke(*whole, input="n\n")
    assert result.exit_code == 1
    assert "Erase the whole memory tree, every item at every node, for good?" in result.stderr
    assert len(texts(engine)) == 4
    assert ok(*whole, input="y\n") == (
        "erased 4 items at root and below it (service: sandboxes not counted)\n"
    )
    assert texts(engine) == []


def test_a_script_erases_the_whole_tree_with_both_flags(engine: ReferenceEngine) -> None:
    fill(engine)
    assert ok("erase", "--at", "root", "--subtree", "--whole-tree", "--yes") == (
        "erased 4 items at root and below it (service: sandboxes not counted)\n"
    )
    assert texts(engine) == []


def test_erase_counts_items_across_kinds_and_nodes(engine: ReferenceEngine) -> None:
    # Two learnings and a document at one node: three items, but two scopes.
    for text in ("one", "two"):
        engine.store(tm.Learning(text=text, meta=tm.MemoryMeta(namespace="team:t")))
    engine.store(tm.Document(body="doc", meta=tm.MemoryMeta(namespace="team:t")))
    engine.store(tm.Learning(text="elsewhere", meta=tm.MemoryMeta(namespace="team:u")))
    assert ok("erase", "--at", "team:t", "--yes") == "erased 3 items at team:t\n"
    assert texts(engine) == ["elsewhere"]


def test_erase_on_an_engine_that_cannot_count_reports_scopes(
    engine: ReferenceEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    fill(engine)

    def refuse(request: tm.ExploreRequest) -> tm.ExplorePage:
        raise tm.Unsupported("engine `reference` does not explore")

    monkeypatch.setattr(engine, "explore", refuse)
    assert ok("erase", "--at", "agent:a", "--yes") == (
        "erased every item at agent:a: 1 scope (a kind at a node)\n"
    )


def test_erase_needs_a_node(engine: ReferenceEngine) -> None:
    result = invoke("erase")
    assert result.exit_code == 2
    assert "Missing option '--at'" in result.stderr


# --- the configured engine ---------------------------------------------------------------


def test_commands_build_the_configured_engine(
    reference_config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["store", "The user prefers tabs", "--json"]) == 0
    receipt = json.loads(capsys.readouterr().out)
    assert receipt == {
        "id": tm.Learning(text="The user prefers tabs").fingerprint(),
        "replayed": False,
    }
    assert main(["list"]) == 0  # a new reference engine: empty
    assert capsys.readouterr().out == "no items\n"


def test_an_unknown_configured_engine_is_a_clean_error(
    reference_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TINYMEMORY_ENGINE", "nope")
    result = invoke("list")
    assert result.exit_code == 1
    assert result.stderr == (
        "tinymemory: configuration error: unknown engine `nope`; installed engines: reference\n"
    )


def test_export_into_a_missing_folder_is_a_clean_file_error(
    engine: ReferenceEngine, tmp_path: Path
) -> None:
    fill(engine)
    result = invoke("export", "-o", str(tmp_path / "missing" / "memory.jsonl"), "-q")
    assert result.exit_code == 1
    assert result.stderr.startswith("tinymemory: invalid request: `")
    assert "memory.jsonl` cannot be written: No such file or directory" in result.stderr
    assert "Traceback" not in result.output


def test_import_refused_after_its_file_was_named_leaves_no_file_open(tmp_path: Path) -> None:
    import subprocess
    import sys

    dump = tmp_path / "one.jsonl"
    dump.write_text(to_json(tm.Learning(text="kept")) + "\n", encoding="utf-8")
    script = "import sys; from tinymemory._cli.main import run; sys.argv[0] = 'tinymemory'; run()"
    # -X dev reports a file left open for the garbage collector as a ResourceWarning.
    result = subprocess.run(
        [sys.executable, "-X", "dev", "-c", script, "import", str(dump), "extra"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "TINYMEMORY_ENGINE": "reference"},
    )
    assert result.returncode == 2
    assert "Got unexpected extra argument (extra)" in result.stderr
    assert "ResourceWarning" not in result.stderr


# --- ingest ----------------------------------------------------------------------------


class _Readers:
    """A plugin offering ``file``, ``link`` and ``github`` readers that record what they get,
    each declaring its command-line surface as a third party's would."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, dict[str, object]]] = []
        self.tokens: list[str | None] = []

    @hookimpl
    def tinymemory_source_readers(self) -> list[object]:
        outer = self

        class Reader:
            def __init__(self, name: str, source_option: str, claims: object, **more: object):
                self.name, self.source_option, self.claims = name, source_option, claims
                self.__dict__.update(more)

            def read(self, context: ReaderContext) -> object:
                outer.asked.append((self.name, dict(context.options)))
                outer.tokens.append(context.credential.bearer())
                yield tm.Learning(text=f"read by {self.name}")
                yield SourceSkip(what="part", reason="left out")

        depth = ReaderOption(name="max_depth", kind="integer", help="How deep.")
        return [
            Reader("file", "path", lambda source: Path(source).is_file(), options=[depth]),
            Reader("link", "url", lambda source: source.startswith("https://"), priority=1),
            Reader(
                "github",
                "repo",
                lambda source: "//github.com/" in source,
                credential_variable="GITHUB_TOKEN",
            ),
        ]


def test_ingest_reads_syncs_and_reports(
    engine: ReferenceEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    readers = _Readers()
    plugin_manager().register(readers)
    monkeypatch.setattr(data_commands, "_stderr_is_terminal", lambda: True)
    monkeypatch.setenv("GITHUB_TOKEN", "tok-123")
    note = tmp_path / "note.md"
    note.write_text("hello", encoding="utf-8")
    result = invoke("ingest", str(note), "--workspace", "w1", "--max-depth", "3")
    assert result.stdout == (
        "stored    item 1\n"
        "skipped   part: left out\n"
        f"ingested 1 item from {note}: 1 stored, 0 replayed, 1 skipped\n"
    )
    assert "ingesting file" in result.stderr
    again = json.loads(ok("ingest", str(note), "--json", "--workspace", "w1", "--max-depth", "3"))
    (held,) = engine.list(tm.ListRequest()).items
    assert held.meta.workspace == "w1"  # the command places the items, whatever the reader
    assert again == {
        "stored": 0,
        "replayed": 1,
        "skipped": [{"index": 1, "what": "part", "reason": "left out"}],
        "items": [
            {"index": 0, "status": "replayed", "id": held.id},
            {"index": 1, "status": "skipped", "what": "part", "reason": "left out"},
        ],
        "complete": True,
        "stopped": None,
    }
    ok("ingest", "https://example.com/page", "--at", "team:acme")
    ok("ingest", "https://github.com/acme/app")  # github is asked before link (priority)
    assert readers.asked == [
        ("file", {"path": str(note), "max_depth": 3}),
        ("file", {"path": str(note), "max_depth": 3}),
        ("link", {"url": "https://example.com/page"}),
        ("github", {"repo": "https://github.com/acme/app"}),
    ]
    assert readers.tokens == [None, None, None, "tok-123"]  # the token goes to GitHub only
    reach = tm.Reach.exact(tm.Namespace.parse("team:acme"))
    placed = engine.list(tm.ListRequest(filter=tm.MetaFilter(reach=reach)))
    assert [hit.text for hit in placed.items] == ["read by link"]


def test_ingest_without_readers_or_with_bad_arguments(
    engine: ReferenceEngine, tmp_path: Path
) -> None:
    result = invoke("ingest", str(tmp_path))
    assert result.exit_code == 1
    assert "no reader is installed: ingest reads through reader plugins" in result.stderr
    plugin_manager().register(_Readers())
    missing = invoke("ingest", str(tmp_path / "nope"))
    assert missing.exit_code == 2
    assert "no such file or folder" in missing.stderr
    unclaimed = invoke("ingest", str(tmp_path))  # a folder: none of these readers claims it
    assert unclaimed.exit_code == 2
    assert f"no installed reader claims `{tmp_path}`: name one with --reader" in unclaimed.stderr
    assert "(installed: file, github, link)" in unclaimed.stderr
    wrong = invoke("ingest", "https://example.com/", "--max-depth", "2")
    assert wrong.exit_code == 2
    assert "--max-depth is an option of `file`, not of `link`" in wrong.stderr
    unknown = invoke("ingest", str(tmp_path), "--reader", "rss")
    assert unknown.exit_code == 2
    assert "'rss' is not one of 'file', 'github', 'link'" in unknown.stderr


@pytest.mark.parametrize(
    ("text", "query", "shown"),
    [
        (
            "# notes.md\n\nMet Dana.\nThe launch moves to October.",
            "launch",
            "The launch moves to October.",
        ),
        # Most query words wins; the first such line on a tie.
        (
            "launch soon\nlaunch date in October\nlaunch date",
            "launch date",
            "launch date in October",
        ),
        # No line holds a query word (a vector match): the first line that is not a heading.
        ("# Budget\n\n## Travel\nHotels are booked early.", "money", "Hotels are booked early."),
        # Only headings: the first line, as it is.
        ("# Budget\n## Travel", "money", "# Budget"),
        ("Case FOLDED words", "folded", "Case FOLDED words"),
    ],
)
def test_a_ranked_hit_shows_its_matching_line(text: str, query: str, shown: str) -> None:
    assert data_commands._passage(text, query) == shown


def test_a_citation_line_names_the_file_link_or_id(
    engine: ReferenceEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    inside = str(tmp_path / "notes" / "budget.md")
    engine.store_many(
        [
            tm.Document(body="budget inside", meta=tm.MemoryMeta(file_path=inside)),
            tm.Document(body="budget outside", meta=tm.MemoryMeta(file_path="/elsewhere/b.md")),
            tm.Document(body="budget linked", meta=tm.MemoryMeta(url="https://example.com/b")),
        ]
    )
    learning = engine.store(tm.Learning(text="budget learned")).id
    lines = ok("recall", "budget").splitlines()
    cited = [line.split("] ", 1)[1].split("  ")[0] for line in lines if line.startswith("[")]
    assert sorted(cited) == sorted(
        ["notes/budget.md", "/elsewhere/b.md", "https://example.com/b", learning[:8]]
    )


class _Counting:
    """A plugin offering a ``folder`` reader of ``count`` learnings, stopped by ``stop`` after
    ``after`` of them (a KeyboardInterrupt, as Ctrl-C raises, or an engine error)."""

    def __init__(self, count: int, after: int | None = None, stop: BaseException | None = None):
        self.count, self.after, self.stop = count, after, stop

    @hookimpl
    def tinymemory_source_readers(self) -> list[object]:
        outer = self

        class Reader:
            name = "folder"

            def claims(self, source: str) -> bool:
                return True

            def read(self, context: ReaderContext) -> object:
                for number in range(outer.count):
                    if number == outer.after and outer.stop is not None:
                        raise outer.stop
                    yield tm.Learning(text=f"fact {number}")

        return [Reader()]


class FailsOnBatch(EngineWrapper):
    """The engine, whose ``store_many`` fails from its ``failing``-th call (1-based) on."""

    def __init__(self, inner: MemoryEngine, failing: int) -> None:
        super().__init__(inner)
        self.calls, self.failing = 0, failing

    def handle_store_many(self, items: list[tm.StoreItem]) -> list[tm.StoreReceipt]:
        self.calls += 1
        if self.calls >= self.failing:
            raise tm.EngineError("the disk is full")
        return super().handle_store_many(items)

    def close(self) -> None:
        return


@pytest.mark.parametrize(
    ("count", "after", "stop", "status", "said"),
    [
        # Ctrl-C while the reader works: the batches before it are kept (two of 100).
        (250, 230, KeyboardInterrupt(), 130, "interrupted"),
        # The reader's own error mid-way (a feed that went away).
        (150, 120, tm.Unavailable("the feed went away"), 1, "unavailable: the feed went away"),
        # Ctrl-C before anything was read.
        (5, 0, KeyboardInterrupt(), 130, "interrupted"),
        # A reader's own bug, not an error of the contract.
        (320, 310, OSError("disk went away"), 1, "OSError: disk went away"),
    ],
)
def test_an_ingest_stopped_mid_way_keeps_what_it_stored_and_says_how_far_it_got(
    engine: ReferenceEngine,
    tmp_path: Path,
    count: int,
    after: int,
    stop: BaseException,
    status: int,
    said: str,
) -> None:
    plugin_manager().register(_Counting(count, after, stop))
    kept = after // 100 * 100  # whole batches only: the one being read was never stored
    result = invoke("ingest", str(tmp_path))
    assert result.exit_code == status, result.output
    assert len(texts(engine)) == kept
    lines = result.stdout.splitlines()
    assert lines[:-1] == [f"stored    item {n + 1}" for n in range(kept)]
    assert (
        lines[-1] == f"ingested {kept} items from {tmp_path}: {kept} stored, 0 replayed, 0 skipped"
    )
    assert f"stopped after {kept} of the source's entries ({said})" in result.stderr
    report = json.loads(invoke("ingest", str(tmp_path), "--json").stdout)
    assert (report["replayed"], report["complete"], report["stopped"]) == (kept, False, said)
    assert [item["status"] for item in report["items"]] == ["replayed"] * kept


def test_an_engine_failing_mid_way_keeps_the_batches_before(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    inner = ReferenceEngine()
    use_engine(monkeypatch, FailsOnBatch(inner, failing=3))
    plugin_manager().register(_Counting(350))
    result = invoke("ingest", str(tmp_path), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert (report["stored"], report["complete"]) == (200, False)
    assert report["stopped"] == "engine error: the disk is full"
    assert len(texts(inner)) == 200


def test_a_whole_ingest_lists_every_entry_and_exits_0_with_skips(
    engine: ReferenceEngine, tmp_path: Path
) -> None:
    """Skips are the source's news, not the run's failure."""

    class Half:
        @hookimpl
        def tinymemory_source_readers(self) -> list[object]:
            class Reader:
                name = "folder"

                def claims(self, source: str) -> bool:
                    return True

                def read(self, context: ReaderContext) -> object:
                    for number in range(6):
                        path = f"{tmp_path}/file{number}.md"
                        meta = tm.MemoryMeta(file_path=path)
                        yield tm.Document(body="x" * (number % 2), meta=meta)

            return [Reader()]

    plugin_manager().register(Half())
    result = invoke("ingest", str(tmp_path))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        *(
            f"stored    {tmp_path}/file{n}.md"
            if n % 2
            else f"skipped   {tmp_path}/file{n}.md: document body must not be empty"
            for n in range(6)
        ),
        f"ingested 3 items from {tmp_path}: 3 stored, 0 replayed, 3 skipped",
    ]


# --- ids by prefix ---------------------------------------------------------------------


def test_get_and_forget_take_any_unique_prefix(engine: ReferenceEngine) -> None:
    ids = fill(engine)
    tabs = ids["agent a prefers tabs"]
    for width in (4, 8, 12, 39, 40):
        assert ok("get", tabs[:width]).startswith(f"id: {tabs}\n")
    assert ok("get", tabs[:6].upper()).startswith(f"id: {tabs}\n")  # as a person types it
    missing = invoke("get", "0000000")
    assert missing.exit_code == 1
    assert "not found: 0000000" in missing.stderr
    assert ok("forget", tabs[:7]) == "forgot 1 item\n"
    assert tabs not in [hit.id for hit in engine.list(tm.ListRequest()).items]


def test_a_prefix_too_short_or_ambiguous_is_a_usage_error_listing_the_candidates(
    engine: ReferenceEngine,
) -> None:
    # Enough items that some share their first four digits (65536 prefixes, 1500 items:
    # no shared one has a chance of e^-17); the test finds them.
    tm.sync(engine, [tm.Learning(text=f"fact {n}") for n in range(1500)])
    held = [hit.id for hit in engine.export(tm.ListRequest(limit=2000)).items]
    by_prefix: dict[str, list[str]] = {}
    for item_id in held:
        by_prefix.setdefault(item_id[:4], []).append(item_id)
    prefix, sharing = next((p, found) for p, found in by_prefix.items() if len(found) > 1)
    for command in ("get", "forget"):
        result = invoke(command, prefix)
        assert result.exit_code == 2
        assert f"id `{prefix}` is ambiguous: {len(sharing)} items start with it" in result.stderr
        for item_id in sharing:
            assert item_id in result.stderr
        short = invoke(command, prefix[:3])
        assert short.exit_code == 2
        assert "is too short: give at least 4 of its hex digits" in short.stderr
    assert len(engine.export(tm.ListRequest(limit=2000)).items) == 1500  # nothing forgotten


def test_short_ids_grow_until_the_shown_ids_differ() -> None:
    from tinymemory._display import short_ids

    ids = ["abcdef0123" + "0" * 30, "abcdef0124" + "0" * 30, "1234567890" + "0" * 30]
    assert short_ids(ids) == {
        ids[0]: "abcdef0123",
        ids[1]: "abcdef0124",
        ids[2]: "1234567890",
    }
    assert short_ids(ids[2:]) == {ids[2]: "12345678"}


# --- reads create nothing ----------------------------------------------------------------


class _Filed:
    """A plugin whose engine ``filed`` keeps memory in one file, made when it is built."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.builds: list[Path] = []

    @hookimpl
    def tinymemory_engines(self) -> list[EngineFactory]:
        descriptor = attrs.evolve(tm.ReferenceEngine().descriptor, id="filed", label="Filed")

        def build(settings: tm.EngineSettings, credential: tm.EngineCredential) -> MemoryEngine:
            path = Path(settings.options.get("path", self.file))
            path.touch()  # as an embedded engine makes its file
            self.builds.append(path)
            return tm.ReferenceEngine()

        return [
            EngineFactory(
                descriptor=descriptor,
                build=build,
                test_settings=lambda folder: tm.EngineSettings(options={"path": folder / "t.db"}),
                storage=lambda settings: (self.file,),
            )
        ]


@pytest.mark.parametrize(
    "read",
    [
        ("recall", "anything"),
        ("fetch", "x", "--mode", "keyword"),
        ("list",),
        ("get", "abcd"),
        ("explore", "kind"),
        ("export",),
        ("forget", "--tag", "x"),
        ("context",),
    ],
)
def test_a_read_of_a_memory_not_yet_made_creates_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: tuple[str, ...]
) -> None:
    config = tmp_path / "config.toml"
    config.write_text('engine = "filed"\n', encoding="utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(config))
    monkeypatch.delenv("TINYMEMORY_ENGINE", raising=False)
    memory = tmp_path / "memory.db"
    filed = _Filed(memory)
    plugin_manager().register(filed)
    result = invoke(*read)
    assert result.exit_code in (0, 1), result.output  # `get` of an unknown id exits 1
    assert not memory.exists()
    (throwaway,) = filed.builds
    assert not throwaway.parent.exists()  # the throwaway folder is gone with its engine
    ok("store", "now there is a memory")
    assert memory.exists()
    assert filed.builds[1] == memory


class _Streamed:
    """A plugin with a ``notes`` reader of three notes that can count them, and which checks,
    before it yields each next note, that the line of the one before is already out."""

    def __init__(self, texts: list[str], skip_all: bool = False) -> None:
        self.texts, self.skip_all = texts, skip_all
        self.seen_before: list[str] = []

    @hookimpl
    def tinymemory_source_readers(self) -> list[object]:
        outer = self

        class Notes:
            name = "notes"
            source_option = "path"

            def claims(self, source: str) -> bool:
                return source == "notes:"

            def count(self, context: ReaderContext) -> int:
                return len(outer.texts)

            def read(self, context: ReaderContext) -> object:
                for text in outer.texts:
                    outer.seen_before.append(sys.stdout.buffer.getvalue().decode())  # type: ignore[attr-defined]
                    if outer.skip_all:
                        yield SourceSkip(what=text, reason="not wanted")
                    else:
                        yield tm.Document(title=text, body=f"The note {text}.")

        return [Notes()]


def test_ingest_shows_the_total_first_and_each_line_as_it_happens(
    engine: ReferenceEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    readers = _Streamed(["one", "two", "three"])
    plugin_manager().register(readers)
    # No wait for a batch: each entry's line goes out before the next is read.
    monkeypatch.setattr(data_commands, "LINE_WAIT_SECONDS", 0.0)
    result = invoke("ingest", "notes:")
    assert result.exit_code == 0, result.output
    assert result.stderr == "ingesting notes: 3 entries\n"  # a pipe: the total, no status line
    assert result.stdout.splitlines() == [
        "stored    one",
        "stored    two",
        "stored    three",
        "ingested 3 items from notes:: 3 stored, 0 replayed, 0 skipped",
    ]
    assert readers.seen_before == ["", "stored    one\n", "stored    one\nstored    two\n"]


def test_ingest_on_a_terminal_draws_a_status_line_naming_the_entry_at_hand(
    engine: ReferenceEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin_manager().register(_Streamed(["one", "two"]))
    monkeypatch.setattr(data_commands, "_stderr_is_terminal", lambda: True)
    result = invoke("ingest", "notes:")
    assert "ingesting notes: 2 entries\n" in result.stderr
    assert "ingesting notes [1/2] one" in result.stderr
    assert "ingesting notes [2/2] two" in result.stderr
    assert result.stderr.endswith("\r\x1b[K")  # the status line taken away at the end


def test_quiet_silences_every_line_of_progress(
    engine: ReferenceEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin_manager().register(_Streamed(["one", "two"]))
    monkeypatch.setattr(data_commands, "_stderr_is_terminal", lambda: True)
    result = invoke("ingest", "notes:", "--quiet")
    assert (result.exit_code, result.stderr) == (0, "")
    assert result.stdout == "ingested 2 items from notes:: 2 stored, 0 replayed, 0 skipped\n"
    dump = "\n".join(to_json(tm.Learning(text=f"fact {n}")) for n in range(3))
    result = invoke("import", "-", "-q", input=dump)
    assert (result.exit_code, result.stderr) == (0, "")
    result = invoke("export", "-q")
    assert (result.exit_code, result.stderr) == (0, "")


def test_ingest_of_only_skipped_entries_exits_1_and_a_replay_exits_0(
    engine: ReferenceEngine,
) -> None:
    plugin_manager().register(_Streamed(["one"], skip_all=True))
    result = invoke("ingest", "notes:")
    assert result.exit_code == 1
    assert "skipped   one: not wanted" in result.stdout
    assert result.stderr.endswith("tinymemory: nothing was stored: every entry was skipped\n")


def test_a_replayed_ingest_exits_0(engine: ReferenceEngine) -> None:
    plugin_manager().register(_Streamed(["one"]))
    assert invoke("ingest", "notes:").exit_code == 0
    again = invoke("ingest", "notes:")
    assert again.exit_code == 0
    assert "0 stored, 1 replayed" in again.stdout


def test_import_and_export_on_a_pipe_say_the_total_then_each_batch(
    engine: ReferenceEngine,
) -> None:
    count = tm.MAX_STORE_MANY + 5
    dump = "\n".join(to_json(tm.Learning(text=f"fact {n}")) for n in range(count))
    result = invoke("import", "-", input=dump)
    assert result.stderr.splitlines() == [
        f"importing: {count} items",
        f"importing: {tm.MAX_STORE_MANY} of {count} items",
        f"importing: {count} of {count} items",
    ]
    result = invoke("export")
    assert result.stderr.splitlines()[0] == f"exporting: {count} items"
    assert result.stderr.splitlines()[-1] == f"exporting: {count} of {count} items"
    assert len(result.stdout.splitlines()) == count


def test_store_names_a_learnings_kind_kind_and_still_reads_the_old_name(
    engine: ReferenceEngine,
) -> None:
    ok("store", "prefers tabs", "--kind", "preference")
    ok("store", "prefers spaces", "--learning-kind", "correction")
    kinds = {entry.item.text: entry.item.kind for entry in engine.export(tm.ListRequest()).items}  # type: ignore[union-attr]
    assert kinds == {
        "prefers tabs": tm.LearningKind.PREFERENCE,
        "prefers spaces": tm.LearningKind.CORRECTION,
    }
