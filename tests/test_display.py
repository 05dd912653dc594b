"""Results in a notebook: what IPython's display formatter shows for answers, pages, explores
and sync reports, and the hand-off of a page to pandas."""

from __future__ import annotations

import re
import sys
import types
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from IPython.core.formatters import DisplayFormatter

import tinymemory as tm
from tinymemory._display import BAR_WIDTH

FORMATTER = DisplayFormatter()


def shown(value: object) -> tuple[str, str]:
    """What a notebook cell ending in ``value`` renders: its markdown and its HTML."""
    data, _ = FORMATTER.format(value)
    return data["text/markdown"], data["text/html"]


@pytest.fixture
def engine() -> tm.MemoryEngine:
    engine = tm.build_engine("reference", scrub=False)
    plan = tm.MemoryMeta(file_path="/notes/plan.md")
    linked = tm.MemoryMeta(url="https://example.com/a?b=1&c=2")
    engine.store_many(
        [
            tm.Document(title="Plan", body="We ship on Friday.\nThen | rest.", meta=plan),
            tm.Document(body="Ship <script>alert(1)</script> carefully.", meta=linked),
            tm.Learning(text="The team ships on Fridays"),
        ]
    )
    return engine


def test_an_answer_renders_with_its_citations(engine: tm.MemoryEngine) -> None:
    answer = engine.recall(tm.RecallRequest(question="when do we ship", limit=3))
    assert len(answer.citations) == 3
    markdown, html = shown(answer)
    numbered = re.findall(r"^(\d+)\. \*\*(.+?)\*\* \((\w+)\): ", markdown, re.M)
    assert [int(number) for number, _, _ in numbered] == [1, 2, 3]
    sources = {source for _, source, _ in numbered}
    assert sources >= {"/notes/plan.md", "https://example.com/a?b=1&amp;c=2"}  # HTML escaped
    assert html.count("<li ") == 3
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    for citation in answer.citations:
        assert f'title="{citation.id}"' in html  # the whole id, a hover away


def test_pages_render_as_tables_a_row_a_hit(engine: tm.MemoryEngine) -> None:
    fetched = engine.fetch(tm.FetchRequest(query="ship", mode="keyword", limit=1))
    listed = engine.list(tm.ListRequest(limit=2))
    for page, hits, header in ((fetched, fetched.hits, "| score | id |"),
                               (listed, listed.items, "| id | kind |")):  # fmt: skip
        markdown, html = shown(page)
        lines = markdown.splitlines()
        assert lines[0].startswith(header)
        assert len([line for line in lines if line.startswith("| ")]) == 2 + len(hits)  # head, rule
        assert "<script>" not in markdown
        assert all(line.count(" | ") == lines[0].count(" | ") for line in lines[2 : 2 + len(hits)])
        assert html.count("<tr title=") == len(hits)
        assert f"next cursor: `{page.next_cursor}`" in markdown
        assert "<script>" not in html


def test_an_empty_page_says_so() -> None:
    assert shown(tm.FetchPage(hits=[]))[0] == "*no hits*"
    assert shown(tm.ListPage(items=[]))[0] == "*no items*"


@given(counts=st.lists(st.integers(min_value=1, max_value=10_000), min_size=1, max_size=12))
def test_an_explore_renders_as_a_bar_list_in_proportion(counts: list[int]) -> None:
    counts = sorted(counts, reverse=True)
    buckets = [tm.FacetBucket(f"value {n}", count) for n, count in enumerate(counts)]
    page = tm.ExplorePage(facet="tag", buckets=buckets, total=sum(counts), missing=0,
                          more_buckets=0, truncated=False)  # fmt: skip
    markdown, html = shown(page)
    bars = re.findall(r"^    (value \d+) +(█*) (\d+)$", markdown, re.M)
    assert [(value, int(count)) for value, _, count in bars] == [
        (bucket.value, bucket.count) for bucket in buckets
    ]
    assert len(bars[0][1]) == BAR_WIDTH
    for (_, bar, _), count in zip(bars, counts, strict=True):
        assert len(bar) == round(BAR_WIDTH * count / counts[0])
    assert html.count("<tr>") == len(buckets)
    assert f"total {sum(counts)}, missing 0" in markdown


def test_a_sync_report_renders_its_counts_and_skips(engine: tm.MemoryEngine) -> None:
    report = tm.sync(engine, [tm.Learning(text="new fact"), tm.Learning(text=" "),
                              tm.Learning(text="The team ships on Fridays")])  # fmt: skip
    markdown, html = shown(report)
    assert markdown.startswith("**1 stored, 1 replayed, 1 skipped**")
    assert "- skipped learning text must not be empty" in markdown
    assert html.count("<li>") == 1


def test_to_pandas_without_pandas_says_how_to_get_it(
    engine: tm.MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    page = engine.list(tm.ListRequest())
    with pytest.raises(tm.Unsupported, match=r"to_pandas\(\) needs pandas.*pip install pandas"):
        page.to_pandas()


def test_to_pandas_hands_every_row_and_column_to_pandas(
    engine: tm.MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[tuple[list[dict[str, Any]], list[str]]] = []
    fake = types.ModuleType("pandas")
    fake.DataFrame = lambda rows, columns: made.append((rows, columns)) or "frame"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pandas", fake)
    page = engine.list(tm.ListRequest())
    assert page.to_pandas() == "frame"
    rows, columns = made[0]
    assert [row["id"] for row in rows] == [hit.id for hit in page.items]
    assert columns[:3] == ["id", "kind", "score"]
    assert all(set(row) == set(columns) for row in rows)
    explored = engine.explore(tm.ExploreRequest(facet="kind"))
    explored.to_pandas()
    assert made[1] == ([{"value": b.value, "count": b.count} for b in explored.buckets],
                       ["value", "count"])  # fmt: skip


def test_a_hit_renders_as_a_one_row_table(engine: tm.MemoryEngine) -> None:
    (hit,) = engine.fetch(tm.FetchRequest(query="ship", mode="keyword", limit=1)).hits
    markdown, html = shown(hit)
    assert markdown.splitlines()[0].startswith("| score | id | kind | source | text |")
    assert len(markdown.splitlines()) == 3
    assert html.count(f'<tr title="{hit.id}">') == 1
    (listed,) = engine.list(tm.ListRequest(limit=1)).items
    assert shown(listed)[0].startswith("| id | kind |")  # a listing's hit has no score


def test_a_store_receipt_says_what_became_of_the_item() -> None:
    engine = tm.build_engine("reference", scrub=False)
    first = engine.store(tm.Learning(text="ship on Friday"))
    again = engine.store(tm.Learning(text="ship on Friday"))
    assert shown(first)[0] == f"**stored** `{first.id[:8]}`"
    markdown, html = shown(again)
    assert markdown == f"**replayed (already held)** `{again.id[:8]}`"
    assert f'title="{again.id}"' in html


def test_a_compiled_context_shows_as_the_markdown_it_is(engine: tm.MemoryEngine) -> None:
    doc = tm.compile_context(engine)
    data, _ = FORMATTER.format(doc)
    markdown = data["text/markdown"]
    assert markdown.startswith(doc.markdown)  # the markdown itself, not a repr of a string
    assert "\\n" not in markdown
    assert f"{doc.tokens} tokens from `{doc.engine}`" in markdown
    assert len(repr(doc)) < 300  # the plain repr stays short
    assert repr(doc).startswith("ContextDoc(")
    empty = tm.ContextDoc(markdown="", tokens=0, generated_at=doc.generated_at, engine="x")
    assert "nothing to say" in shown_markdown(empty)


def shown_markdown(value: object) -> str:
    data, _ = FORMATTER.format(value)
    return str(data["text/markdown"])
