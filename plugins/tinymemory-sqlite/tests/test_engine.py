"""What the engine adds to the contract: a file that persists, search that never
breaks on a query's syntax, long documents by pieces, stable cursors, and recall."""

from __future__ import annotations

import base64
import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import tinymemory as tm
from tinymemory.plugin import to_json
from tinymemory.retrieval import CursorCodec, read_key
from tinymemory.testing import check_cursors_blind_to_siblings
from tinymemory_sqlite import SqliteEngine

if TYPE_CHECKING:
    from conftest import RunCommand


def _learning(text: str, **meta: object) -> tm.Learning:
    return tm.Learning(text=text, meta=tm.MemoryMeta(**meta))  # type: ignore[arg-type]


def test_memory_persists_in_the_file(db_path: Path) -> None:
    with SqliteEngine(db_path) as first:
        receipt = first.store(_learning("The deploy key rotates every Monday"))
    with SqliteEngine(db_path) as second:
        page = second.fetch(tm.FetchRequest(query="deploy key", mode=tm.FetchMode.KEYWORD))
        assert [hit.id for hit in page.hits] == [receipt.id]
        assert second.store(_learning("The deploy key rotates every Monday")).replayed


@pytest.mark.parametrize(
    "query",
    [
        '"',
        "tabs*",
        "tabs NEAR spaces",
        "tabs AND",
        "(tabs",
        "tabs)",
        "-tabs",
        "text:tabs",
        "^",
        "'",
    ],
)
def test_query_syntax_is_searched_as_text(engine: SqliteEngine, query: str) -> None:
    engine.store(_learning("The user prefers tabs over spaces"))
    for mode in tm.FetchMode:
        engine.fetch(tm.FetchRequest(query=query, mode=mode))
    words = [hit.text for hit in engine.fetch(tm.FetchRequest(query=query, mode="keyword")).hits]
    assert words == (["The user prefers tabs over spaces"] if "tabs" in query else [])


def test_keyword_search_folds_case_and_diacritics(engine: SqliteEngine) -> None:
    engine.store(_learning("Le CAFÉ crème est servi à Noël"))
    for query in ("cafe creme", "café", "NOEL"):
        hits = engine.fetch(tm.FetchRequest(query=query, mode=tm.FetchMode.KEYWORD)).hits
        assert len(hits) == 1, query


def test_every_word_ranks_above_some_words(engine: SqliteEngine) -> None:
    both = engine.store(_learning("harbour crane at dawn")).id
    one = engine.store(_learning("harbour at dusk, and the harbour again, harbour")).id
    hits = engine.fetch(tm.FetchRequest(query="harbour crane", mode=tm.FetchMode.KEYWORD)).hits
    assert [hit.id for hit in hits] == [both, one]
    assert hits[0].score > hits[1].score > 0


def test_a_long_document_ranks_by_pieces_and_reads_whole(engine: SqliteEngine) -> None:
    pages = [f"Page {n} talks about {'lighthouses ' * 40}." for n in range(1, 4)]
    pages[1] = "## Tides\n\nThe spring tide table for the northern harbour. " + "Sea " * 600
    body = "\f".join(pages)
    document = tm.Document(title="Coast guide", body=body, meta=tm.MemoryMeta(tags=["guide"]))
    stored = engine.store(document).id
    hits = engine.fetch(tm.FetchRequest(query="spring tide table", mode="keyword")).hits
    assert [hit.id for hit in hits] == [stored]
    assert "spring tide table" in hits[0].text
    assert len(hits[0].text) < len(document.render_text())
    assert hits[0].meta.tags == ("guide", "page:2", "section:Tides")
    for mode in tm.FetchMode:
        assert len(engine.fetch(tm.FetchRequest(query="lighthouses", mode=mode)).hits) == 1
    [listed] = engine.list(tm.ListRequest()).items
    assert listed.text == document.render_text()
    assert listed.meta.tags == ("guide",)
    [exported] = engine.export(tm.ListRequest()).items
    assert exported.item == document


def test_a_piece_keeps_its_text_unless_it_is_its_items_whole_text(db_path: Path) -> None:
    """A one-piece learning's text is read from its item (stored once); every piece of a
    document cut into several keeps its own, written without reading the item's JSON."""
    long_body = "\f".join(f"Page {n}. " + "harbour tides " * 300 for n in range(1, 5))
    with SqliteEngine(db_path) as engine:
        engine.store_many(
            [
                tm.Learning(text="the tide turns at noon"),
                tm.Document(title="Coast guide", body=long_body),
            ]
        )
    with sqlite3.connect(db_path) as connection:
        rows = connection.execute(
            "SELECT p.text = '', count(*) FROM pieces p JOIN items i ON i.seq = p.item "
            "GROUP BY i.kind, p.text = '' ORDER BY i.kind"
        ).fetchall()
        whole = connection.execute("SELECT text FROM piece_texts ORDER BY id").fetchall()
    assert rows[0][0] == 0  # the document's pieces, each its own text
    assert rows[0][1] > 1
    assert rows[1] == (1, 1)  # the learning's one piece, its text stored once
    assert ("the tide turns at noon",) in whole


def test_cursors_stay_stable_while_others_write(db_path: Path) -> None:
    with SqliteEngine(db_path) as reader, SqliteEngine(db_path) as writer:
        for number in range(30):
            writer.store(_learning(f"beacon signal number {number}"))
        seen: list[str] = []
        for added, mode in enumerate(tm.FetchMode):
            request = tm.FetchRequest(query="beacon signal", mode=mode, limit=7)
            page = reader.fetch(request)
            seen = [hit.id for hit in page.hits]
            writer.store(_learning(f"beacon signal added during {mode.value}"))
            while page.next_cursor:
                page = reader.fetch(
                    tm.FetchRequest(
                        query="beacon signal", mode=mode, limit=7, cursor=page.next_cursor
                    )
                )
                seen += [hit.id for hit in page.hits]
            # Exactly the items there were at the first page: none twice, none added since.
            assert len(seen) == len(set(seen)) == 30 + added, mode
        listed: list[str] = []
        page_list = reader.list(tm.ListRequest(limit=8))
        writer.forget(tm.ForgetTarget.by_ids([page_list.items[0].id]))
        writer.store(_learning("beacon stored while listing"))
        while True:
            listed += [hit.id for hit in page_list.items]
            if page_list.next_cursor is None:
                break
            page_list = reader.list(tm.ListRequest(limit=8, cursor=page_list.next_cursor))
        # 33 stored, one forgotten after the first page had listed it, one stored since.
        assert len(listed) == len(set(listed)) == 34


def test_cursors_are_checked(engine: SqliteEngine) -> None:
    for number in range(3):
        engine.store(_learning(f"anchor {number}"))
    page = engine.fetch(tm.FetchRequest(query="anchor", mode="keyword", limit=1))
    assert page.next_cursor
    with pytest.raises(tm.InvalidRequest, match="unknown cursor"):
        engine.fetch(tm.FetchRequest(query="other", mode="keyword", cursor=page.next_cursor))
    with pytest.raises(tm.InvalidRequest, match="unknown cursor"):
        engine.list(tm.ListRequest(cursor=page.next_cursor))
    for bad in ("7", "", "tm1.l.3", "!!!"):
        with pytest.raises(tm.InvalidRequest, match="unknown cursor"):
            engine.list(tm.ListRequest(cursor=bad))


def test_recall_answers_with_sentences_it_cites(engine: SqliteEngine) -> None:
    tabs = engine.store(_learning("The user prefers tabs over spaces. They use vim.")).id
    engine.store(_learning("The release ships on Friday."))
    question = tm.RecallRequest(question="Does the user prefer tabs or spaces?")
    answer = engine.recall(question)
    assert answer.model == "extractive"
    assert answer.answer.startswith("The user prefers tabs over spaces. [1]")
    assert answer.citations[0].id == tabs
    assert answer.citations[0].snippet == "The user prefers tabs over spaces."
    assert engine.recall(question) == answer


def test_recall_with_nothing_relevant_cites_nothing(engine: SqliteEngine) -> None:
    engine.store(_learning("The user prefers tabs over spaces"))
    answer = engine.recall(tm.RecallRequest(question="What is the capital of Peru?"))
    assert answer.citations == ()
    assert answer.answer == "Nothing stored answers this question."


def test_a_bad_batch_writes_nothing(engine: SqliteEngine) -> None:
    good = _learning("kept out with its batch")
    with pytest.raises(tm.InvalidRequest):
        engine.store_many([good, _learning("\ud800 lone surrogate")])
    assert engine.list(tm.ListRequest()).items == ()


def test_a_failing_embedder_writes_nothing(db_path: Path) -> None:
    class Broken:
        name = "broken"
        dimensions = 16

        def embed(self, texts: object) -> list[list[float]]:
            raise RuntimeError("no vectors today")

    with SqliteEngine(db_path, embedder=Broken()) as engine:
        with pytest.raises(RuntimeError):
            engine.store(_learning("never written"))
        assert engine.list(tm.ListRequest()).items == ()


def test_a_file_keeps_its_embedder(db_path: Path) -> None:
    from tinymemory.retrieval import HashingEmbedder

    with SqliteEngine(db_path) as engine:
        stored = engine.store(_learning("vectors of 256 dimensions")).id
    refused = r"hashing:256\), not `hashing` \(64 dimensions.*run `tinymemory reindex`"
    with SqliteEngine(db_path, embedder=HashingEmbedder(dimensions=64)) as other:
        # What would mix vectors of the two is refused; what reads no vector still works.
        for mode in (tm.FetchMode.VECTOR, tm.FetchMode.HYBRID):
            with pytest.raises(tm.ConfigError, match=refused):
                other.fetch(tm.FetchRequest(query="vectors", mode=mode))
        with pytest.raises(tm.ConfigError, match=refused):
            other.recall(tm.RecallRequest(question="how many dimensions?"))
        with pytest.raises(tm.ConfigError, match='open it with embedder = "hashing"'):
            other.store(_learning("64 of them"))
        keyword = other.fetch(tm.FetchRequest(query="vectors", mode=tm.FetchMode.KEYWORD))
        assert [hit.id for hit in keyword.hits] == [stored]
        assert [hit.id for hit in other.list(tm.ListRequest()).items] == [stored]


def test_a_newer_schema_is_refused(db_path: Path) -> None:
    import sqlite3

    SqliteEngine(db_path).close()
    with sqlite3.connect(db_path) as connection:
        connection.execute("PRAGMA user_version = 99")
    with pytest.raises(tm.ConfigError, match="schema version 99"):
        SqliteEngine(db_path)


def test_threads_share_one_engine(engine: SqliteEngine) -> None:
    def store(thread: int) -> None:
        for number in range(50):
            engine.store(_learning(f"thread {thread} item {number}"))

    workers = [threading.Thread(target=store, args=(thread,)) for thread in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    explored = engine.explore(tm.ExploreRequest(facet=tm.Facet.KIND))
    assert explored.total == 200
    hits = engine.fetch(tm.FetchRequest(query="thread item", mode="vector", limit=500)).hits
    assert len(hits) == 200


def test_another_engine_on_the_file_sees_writes_in_vector_search(db_path: Path) -> None:
    with SqliteEngine(db_path) as one, SqliteEngine(db_path) as other:
        request = tm.FetchRequest(query="quartz lantern", mode="vector")
        assert other.fetch(request).hits == ()
        stored = one.store(_learning("a quartz lantern")).id
        assert [hit.id for hit in other.fetch(request).hits] == [stored]
        other.forget(tm.ForgetTarget.by_ids([stored]))
        assert one.fetch(request).hits == ()


def test_explore_scans_at_most_the_scan_limit(engine: SqliteEngine) -> None:
    engine.store_many([_learning(f"note {n}", tags=["a", "b"][: n % 3]) for n in range(9)])
    page = engine.explore(tm.ExploreRequest(facet=tm.Facet.TAG, scan_limit=6))
    assert (page.total, page.truncated) == (6, True)
    assert {bucket.value: bucket.count for bucket in page.buckets} == {"a": 4, "b": 2}
    assert page.missing == 2


def test_a_file_that_is_not_a_database_is_a_config_error(db_path: Path) -> None:
    db_path.write_bytes(b"these are notes, not a database " * 200)
    with pytest.raises(tm.ConfigError, match="file is not a database"):
        SqliteEngine(db_path)


def test_sqlite_failures_surface_as_the_contract_s_errors(engine: SqliteEngine) -> None:
    engine.store(_learning("a note"))
    connection = engine._connections.connection()
    connection.execute("DROP TABLE item_tags")
    with pytest.raises(tm.EngineError, match="no such table"):
        engine.store(_learning("another note", tags=["x"]))
    assert [hit.text for hit in engine.list(tm.ListRequest()).items] == ["a note"]


def test_a_closed_engine_is_unavailable(db_path: Path) -> None:
    engine = SqliteEngine(db_path)
    engine.close()
    with pytest.raises(tm.Unavailable, match="closed"):
        engine.list(tm.ListRequest())
    assert not engine.health().serving


def test_a_folder_that_cannot_be_made_is_a_config_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    with pytest.raises(tm.ConfigError, match="cannot make the folder"):
        SqliteEngine(blocker / "memory.db")


def test_storage_paths_name_the_file_and_its_companions(db_path: Path) -> None:
    with SqliteEngine(db_path) as engine:
        assert engine.storage_paths() == tuple(
            Path(f"{db_path}{suffix}") for suffix in ("", "-wal", "-shm", "-journal")
        )
    with SqliteEngine(":memory:") as in_memory:
        assert in_memory.storage_paths() == ()


def test_export_refuses_to_write_over_the_database(
    tmp_path: Path, tinymemory_command: RunCommand
) -> None:
    path = tmp_path / "data" / "tinymemory" / "memory.db"
    with SqliteEngine(path) as engine:
        engine.store(_learning("kept safe"))
    (tmp_path / "alias.jsonl").symlink_to(path)
    for target in (str(path), f"{path}-wal", f"{path}-shm", "alias.jsonl"):
        result = tinymemory_command("export", "-o", target)
        assert result.exit_code == 1, result.stdout
        assert "is the engine's own storage" in result.stderr
        assert "Traceback" not in result.stderr
    with SqliteEngine(path) as engine:
        (hit,) = engine.list(tm.ListRequest()).items
        assert hit.text == "kept safe"
    assert tinymemory_command("export", "-o", "copy.jsonl").exit_code == 0
    assert "kept safe" in (tmp_path / "copy.jsonl").read_text(encoding="utf-8")


def _cursor(plain: str) -> str:
    return base64.urlsafe_b64encode(plain.encode("ascii")).decode("ascii").rstrip("=")


@pytest.mark.parametrize("limit", [2**31, 2**63 - 1, 2**63, 2**64 - 1])
def test_any_usize_limit_reads_everything_there_is(engine: SqliteEngine, limit: int) -> None:
    ids = [receipt.id for receipt in engine.store_many([_learning(f"note {n}") for n in range(3)])]
    assert [hit.id for hit in engine.list(tm.ListRequest(limit=limit)).items] == ids
    for mode in tm.FetchMode:
        page = engine.fetch(tm.FetchRequest(query="note", mode=mode, limit=limit))
        assert sorted(hit.id for hit in page.hits) == sorted(ids)
        assert page.next_cursor is None
    assert engine.recall(tm.RecallRequest(question="note", limit=limit)).citations


@pytest.mark.parametrize(
    "plain",
    ["tm1.l.9223372036854775808", "tm1.l.9999999999999999999", "tm1.r.{big}.1.{digest}"],
)
def test_a_crafted_cursor_beyond_sqlites_integers_is_refused(
    engine: SqliteEngine, plain: str
) -> None:
    engine.store(_learning("note"))
    digest = read_key("fetch", "keyword", "note", to_json(tm.MetaFilter()))[:12]
    cursor = _cursor(plain.format(big=2**63, digest=digest))
    tools = tm.MemoryTools(engine)
    for name, arguments in (
        ("memory_list", {"cursor": cursor}),
        ("memory_fetch", {"query": "note", "mode": "keyword", "cursor": cursor}),
    ):
        with pytest.raises(tm.InvalidRequest, match="unknown cursor `"):
            tools.call(name, arguments)
    with pytest.raises(tm.InvalidRequest, match="unknown cursor `"):
        engine.list(tm.ListRequest(cursor=cursor))


def test_a_cursor_at_sqlites_largest_offset_with_any_limit_is_an_empty_page(
    engine: SqliteEngine,
) -> None:
    engine.store(_learning("note"))
    # Sealed with the file's own secret, as the engine seals its cursors.
    with sqlite3.connect(engine.path) as connection:
        (secret,) = connection.execute(
            "SELECT value FROM settings WHERE key = 'cursor_secret'"
        ).fetchone()
    codec = CursorCodec(bytes.fromhex(secret), engine="sqlite")
    largest = 2**63 - 1
    ranked = codec.encode(
        read_key("fetch", "keyword", "note", to_json(tm.MetaFilter())), 1, largest
    )
    request = tm.FetchRequest(query="note", mode="keyword", cursor=ranked, limit=2**64 - 1)
    assert engine.fetch(request).hits == ()
    listing = codec.encode(read_key("list", to_json(tm.MetaFilter())), largest)
    listed = engine.list(tm.ListRequest(cursor=listing, limit=2**64 - 1))
    assert listed.items == ()


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["list", "--workspace", "\udcff"], "workspace"),
        (["fetch", "caf\udce9", "--mode", "keyword"], "query"),
        (["recall", "\udcff?"], "question"),
        (["list", "--tag", "ok", "--tag", "\udcfe"], "tags_any[1]"),
        (["forget", "--workspace", "\udcff"], "workspace"),
        (["get", "\udcff", "--json"], "ids[0]"),
        (["forget", "ok", "\udcff"], "ids[1]"),
    ],
)
def test_argument_bytes_that_are_not_utf8_are_a_clean_error(
    tinymemory_command: RunCommand, args: list[str], field: str
) -> None:
    # A str holding surrogate escapes reaches the process as the raw bytes (0xff, 0xe9...).
    result = tinymemory_command(*args)
    assert result.exit_code == 1
    assert result.stderr == (
        f"tinymemory: invalid request: `{field}` holds a lone surrogate, "
        "which is not unicode text\n"
    )


def test_cursors_say_nothing_of_a_siblings_memory(engine: SqliteEngine) -> None:
    check_cursors_blind_to_siblings(engine)


@pytest.mark.parametrize(
    ("held", "dimensions", "adopted"),
    [
        (None, 256, True),  # written before embedders were recorded: vectors of its size
        (None, 64, False),  # ... of another size: left as it is
        ('{"name": "hashing", "dimensions": 256}', 256, True),  # before identities were
        ('{"name": "hashing", "dimensions": 256}', 64, False),
        ('{"name": "other", "dimensions": 256}', 256, False),
    ],
)
def test_an_older_file_is_adopted_by_its_own_embedder(
    db_path: Path, held: str | None, dimensions: int, adopted: bool
) -> None:
    import json
    import sqlite3

    from tinymemory.retrieval import HashingEmbedder

    with SqliteEngine(db_path) as engine:
        stored = engine.store(_learning("vectors of 256 dimensions")).id
    with sqlite3.connect(db_path) as connection:
        if held is None:
            connection.execute("DELETE FROM settings WHERE key = 'embedder'")
        else:
            connection.execute("UPDATE settings SET value = ? WHERE key = 'embedder'", (held,))
    connection.close()
    request = tm.FetchRequest(query="vectors", mode=tm.FetchMode.VECTOR)
    with SqliteEngine(db_path, embedder=HashingEmbedder(dimensions=dimensions)) as engine:
        if adopted:
            assert [hit.id for hit in engine.fetch(request).hits] == [stored]
        else:
            with pytest.raises(tm.ConfigError, match="run `tinymemory reindex`"):
                engine.fetch(request)
    with sqlite3.connect(db_path) as connection:
        row = connection.execute("SELECT value FROM settings WHERE key = 'embedder'").fetchone()
    connection.close()
    record = None if row is None else row[0]
    if adopted:  # recorded now with its identity
        assert record is not None
        assert json.loads(record) == {
            "name": "hashing",
            "dimensions": 256,
            "identity": "hashing:256",
        }
    else:  # left as it was
        assert record == held
