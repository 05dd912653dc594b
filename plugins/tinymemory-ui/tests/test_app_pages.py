"""Each page over the README's notes (and over memories built for a case): search by recall
and by every fetch mode with each filter, paging, items, trees, facets and export."""

from __future__ import annotations

import html
import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from app_support import BUDGET, NOTES, QUESTION, MakeClient, ids_in, store_learnings
from hypothesis import given
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.plugin import EngineWrapper
from tinymemory.retrieval import PIECE_TARGET
from tinymemory_ui.app import PAGE_SIZE, _answer_parts


def text_of(page: str, element: str) -> str:
    """The text inside the element with ``id=element`` (tags dropped, entities read)."""
    opened = re.search(rf'<(\w+) id="{element}"[^>]*>', page)
    assert opened is not None, f"no #{element}"
    body = page[opened.end() : page.index(f"</{opened.group(1)}>", opened.end())]
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def travel_policy_id(engine: tm.MemoryEngine) -> str:
    (hit,) = [
        hit
        for hit in engine.list(tm.ListRequest(limit=50)).items
        if (hit.meta.file_path or "").endswith("travel-policy.docx")
    ]
    return hit.id


# --- search ---------------------------------------------------------------------------


def test_the_start_page_is_the_form_alone(
    app_notes: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    page = ui_client(app_notes).get("/").text
    assert '<form id="search-form" method="get" action="/search">' in page
    for field in ("q", "kind", "workspace", "folder", "tag", "since", "until"):
        assert f'name="{field}"' in page
    assert 'id="search-button"' in page
    assert 'id="answer"' not in page
    assert 'id="hits"' not in page
    modes = re.findall(r'<option value="(\w+)"', page.split('name="mode"')[1].split("</select>")[0])
    assert modes == ["recall", *(mode.value for mode in app_notes.descriptor.fetch_modes)]
    for nav in ("nav-search", "nav-tree", "nav-facets", "nav-export"):
        assert f'id="{nav}"' in page
    assert 'id="nav-erase"' not in page


def test_recall_answers_the_readme_question_with_linked_citations(
    app_notes: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    client = ui_client(app_notes)
    page = client.get("/search", query_string={"q": QUESTION, "mode": "recall"}).text
    assert BUDGET in text_of(page, "answer")
    expected = app_notes.recall(tm.RecallRequest(question=QUESTION))
    cited = [citation.id for citation in expected.citations]
    links = re.findall(r'<a class="citation" href="/items/([0-9a-f]{40})">\[(\d+)\]</a>', page)
    assert links
    assert all(cited[int(number) - 1] == item_id for item_id, number in links)
    assert ids_in(page, "citations") == cited
    assert travel_policy_id(app_notes) in cited
    item = client.get(f"/items/{links[0][0]}")
    assert item.status_code == 200
    assert BUDGET in text_of(item.text, "item-text")


def test_recall_is_the_default_mode(app_notes: tm.MemoryEngine, ui_client: MakeClient) -> None:
    page = ui_client(app_notes).get("/search", query_string={"q": QUESTION}).text
    assert BUDGET in text_of(page, "answer")


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_fetch_in_each_declared_mode_lists_hits(
    app_notes: tm.MemoryEngine, ui_client: MakeClient, mode: str
) -> None:
    if tm.FetchMode(mode) not in app_notes.descriptor.fetch_modes:
        pytest.fail(f"the sqlite engine declares {mode}")
    page = ui_client(app_notes).get("/search", query_string={"q": "travel budget", "mode": mode})
    expected = app_notes.fetch(tm.FetchRequest(query="travel budget", mode=mode, limit=PAGE_SIZE))
    assert ids_in(page.text, "hits") == [hit.id for hit in expected.hits]
    first = page.text.split('<li class="hit">')[1].split("</li>")[0]
    hit = expected.hits[0]
    assert f">{hit.id[:8]}</a>" in first
    assert f'<span class="kind">{hit.kind.value}</span>' in first
    assert f"score {hit.score:.3f}" in first
    assert html.escape(hit.meta.file_path or "") in first
    assert 'id="page-info"' in page.text
    assert 'id="next-page"' not in page.text


def test_an_unknown_mode_is_a_400(app_notes: tm.MemoryEngine, ui_client: MakeClient) -> None:
    answer = ui_client(app_notes).get("/search?q=budget&mode=telepathy")
    assert answer.status_code == 400
    assert "mode must be one of recall" in text_of(answer.text, "error")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"since": "yesterday"}, "since must be an ISO date"),
        ({"until": "2026-13-01"}, "until must be an ISO date"),
        ({"kind": "document,poem"}, "kind must be among"),
        ({"at": "nobody"}, ""),
        ({"reach": "everywhere"}, "reach must be one of"),
        ({"q": "budget", "mode": "keyword", "cursor": "not-a-cursor"}, ""),
    ],
)
def test_bad_input_is_a_400_page_naming_it(
    app_notes: tm.MemoryEngine, ui_client: MakeClient, params: dict, message: str
) -> None:
    answer = ui_client(app_notes).get("/search", query_string=params)
    assert answer.status_code == 400
    shown = text_of(answer.text, "error")
    assert message in shown
    assert shown.strip()
    assert "Traceback" not in answer.text


def test_each_filter_narrows_fetch_and_listing(
    app_notes: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    store_learnings(app_notes, ["the travel budget was raised"], workspace="work", tags=("b",))
    store_learnings(app_notes, ["travel budget rumours"], tags=("a",))
    client = ui_client(app_notes)
    cases = [
        ({"kind": "learning"}, tm.MetaFilter(kinds=("learning",))),
        ({"kind": "document"}, tm.MetaFilter(kinds=("document",))),
        ({"workspace": "work"}, tm.MetaFilter(workspace="work")),
        ({"tag": "b, nope"}, tm.MetaFilter(tags_any=("b", "nope"))),
        ({"folder": str(NOTES)}, tm.MetaFilter(folder=str(NOTES))),
    ]
    everything = len(app_notes.list(tm.ListRequest(limit=50)).items)
    for params, filter in cases:
        for query in ("travel budget", ""):
            page = client.get("/search", query_string={"q": query, "mode": "keyword", **params})
            if query:
                request = tm.FetchRequest(query=query, mode="keyword", filter=filter, limit=20)
                expected = [hit.id for hit in app_notes.fetch(request).hits]
            else:
                request = tm.ListRequest(filter=filter, limit=20)
                expected = [hit.id for hit in app_notes.list(request).items]
            assert 0 < len(expected) < everything, params  # each narrows, to something
            assert ids_in(page.text, "hits") == expected, params


def test_the_time_window_admits_what_was_observed_in_it(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    days = [datetime(2026, 11, day, 12, tzinfo=UTC) for day in (1, 2, 3)]
    ids = [
        store_learnings(app_engine, [f"note of day {day.day}"], observed_at=day)[0] for day in days
    ]
    client = ui_client(app_engine)

    def listed(**window: str) -> set[str]:
        page = client.get("/search", query_string=window)
        return set(ids_in(page.text, "hits")) if 'id="hits"' in page.text else set()

    assert listed(since="2026-11-02") == set(ids[1:])
    assert listed(until="2026-11-02") == set(ids[:2])  # a bare date takes in the whole day
    assert listed(since="2026-11-02", until="2026-11-02") == {ids[1]}
    assert listed(since="2026-11-02T12:00:00") == set(ids[1:])
    assert listed(since="2026-11-02T12:00:01+00:00") == {ids[2]}
    assert listed(until="2026-11-01T11:59:59") == set()
    page = client.get("/search", query_string={"since": "2026-11-04"})
    assert 'id="no-results"' in page.text


def test_no_hits_says_so(app_notes: tm.MemoryEngine, ui_client: MakeClient) -> None:
    page = ui_client(app_notes).get("/search?q=zyzzyva&mode=keyword").text
    assert 'id="no-results"' in page
    assert 'id="hits"' not in page


def test_the_node_filter_confines_reads(app_engine: tm.MemoryEngine, ui_client: MakeClient) -> None:
    root = store_learnings(app_engine, ["budget at the root"])
    acme = store_learnings(app_engine, ["budget of acme"], namespace="team:acme")
    client = ui_client(app_engine)
    page = client.get("/search?q=budget&mode=keyword&at=team:acme&reach=exact").text
    assert ids_in(page, "hits") == acme
    page = client.get("/search?q=budget&mode=keyword&at=team:acme").text  # of: and ancestors
    assert set(ids_in(page, "hits")) == {*root, *acme}
    confined = ui_client(app_engine, reach=tm.Reach.exact(tm.Namespace.parse("team:acme")))
    assert ids_in(confined.get("/search?q=budget&mode=keyword").text, "hits") == acme
    assert confined.get(f"/items/{acme[0]}").status_code == 200
    assert confined.get(f"/items/{root[0]}").status_code == 404  # beyond the server's reach


# --- paging ---------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["", "budget"])
def test_paging_walks_every_item_once_across_page_boundaries(
    app_engine: tm.MemoryEngine, ui_client: MakeClient, query: str
) -> None:
    count = 2 * PAGE_SIZE + 1  # a last page of one
    stored = store_learnings(app_engine, [f"budget line {n}" for n in range(count)], tags=("t",))
    client = ui_client(app_engine)
    url = "/search?" + ("q=budget&mode=keyword&tag=t" if query else "tag=t")
    seen: list[str] = []
    pages = 0
    while url:
        page = client.get(url).text
        pages += 1
        ids = ids_in(page, "hits")
        first = (pages - 1) * PAGE_SIZE + 1
        assert f"Page {pages}: " in text_of(page, "page-info")
        assert f"{first} to {first + len(ids) - 1}" in text_of(page, "page-info")
        seen.extend(ids)
        found = re.search(r'<a id="next-page" href="([^"]+)"', page)
        url = html.unescape(found.group(1)) if found else ""
        if url:
            assert "tag=t" in url
            assert "cursor=" in url
            assert not query or "q=budget" in url
    assert pages == 3
    assert len(seen) == len(set(seen)) == count
    assert set(seen) == set(stored)


def test_exactly_one_page_has_no_next_link(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    store_learnings(app_engine, [f"line {n}" for n in range(PAGE_SIZE)], tags=("t",))
    page = ui_client(app_engine).get("/search?tag=t").text
    assert len(ids_in(page, "hits")) == PAGE_SIZE
    assert 'id="next-page"' not in page


# --- items ----------------------------------------------------------------------------


def test_an_item_page_shows_text_metadata_and_provenance(
    app_notes: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    item_id = travel_policy_id(app_notes)
    (hit,) = app_notes.get(tm.GetRequest(ids=(item_id,)))
    page = ui_client(app_notes).get(f"/items/{item_id}").text
    assert text_of(page, "item-text") == hit.text
    meta = text_of(page, "item-meta")
    for shown in (item_id, "document", "root", str(hit.meta.observed_at.year)):
        assert shown in meta
    assert '"kind": "file"' in meta  # a nested field as JSON
    assert hit.meta.file_path is not None
    assert hit.meta.file_path in text_of(page, "provenance")
    assert 'id="pieces"' in page  # a document, even one piece long
    assert 'id="forget-item-form"' not in page


def test_a_long_document_shows_each_piece(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    sections = [f"# Part {n}\n\n" + f"Sentence {n} of the long report. " * 80 for n in range(4)]
    body = "\n\n".join(sections)
    receipt = app_engine.store(tm.Document(title="Report", body=body))
    (hit,) = app_engine.get(tm.GetRequest(ids=(receipt.id,)))
    page = ui_client(app_engine).get(f"/items/{receipt.id}").text
    pieces = re.findall(r'<li class="piece">.*?<pre>(.*?)</pre></li>', page, re.S)
    assert len(pieces) > 1
    assert len(hit.text.encode()) > PIECE_TARGET
    assert "".join(html.unescape(piece) for piece in pieces) == hit.text
    assert "section:Part 1" in page


def test_a_learning_has_no_pieces_or_provenance(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    (item_id,) = store_learnings(app_engine, ["prefers tabs"], tags=("style",))
    page = ui_client(app_engine).get(f"/items/{item_id}").text
    assert 'id="pieces"' not in page
    assert 'id="provenance"' not in page
    assert "style" in text_of(page, "item-meta")


def test_text_is_escaped_never_run(app_engine: tm.MemoryEngine, ui_client: MakeClient) -> None:
    attack = "<script>alert(1)</script>"
    (item_id,) = store_learnings(app_engine, [attack], tags=('"><img src=x onerror=alert(2)>',))
    client = ui_client(app_engine)
    for url in (f"/items/{item_id}", "/search?q=alert&mode=keyword", "/search?kind=learning",
                "/facets", "/search?q=alert"):  # fmt: skip
        page = client.get(url).text
        assert "<script>" not in page, url
        assert "<img" not in page, url
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get(f"/items/{item_id}").text


@pytest.mark.parametrize(
    ("url", "linked"),
    [("https://example.com/a?b=1", True), ("HTTP://example.com", True),
     ("javascript:alert(1)", False), ("data:text/html,<b>x</b>", False)],
)  # fmt: skip
def test_only_a_web_url_is_linked(
    app_engine: tm.MemoryEngine, ui_client: MakeClient, url: str, linked: bool
) -> None:
    (item_id,) = store_learnings(app_engine, ["from a page"], url=url)
    provenance = ui_client(app_engine).get(f"/items/{item_id}").text.split('id="provenance"')[1]
    assert html.unescape(provenance).count(url) >= 1
    assert (f'<a href="{html.escape(url)}"' in provenance) is linked
    assert "<b>" not in provenance


def test_a_unique_prefix_redirects_to_the_whole_id(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    (item_id,) = store_learnings(app_engine, ["prefers tabs"])
    client = ui_client(app_engine)
    for prefix in (item_id[:4], item_id[:12].upper(), item_id[:39]):
        answer = client.get(f"/items/{prefix}")
        assert answer.status_code == 303
        assert answer.headers["Location"] == f"/items/{item_id}"


class CraftedIds(EngineWrapper):
    """An engine whose listing holds two ids sharing the prefix ``abcd``."""

    def handle_list(self, request: tm.ListRequest) -> tm.ListPage:
        made = [tm.Hit(id=f"abcd{digit * 36}", kind="learning", text="x", meta=tm.MemoryMeta())
                for digit in "01"]  # fmt: skip
        return tm.ListPage(items=made)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("abcd", "ambiguous: 2 items"),
        ("abc", "too short"),
        ("ef01", "no stored item has an id starting `ef01`"),
        ("f" * 40, "no stored item has the id"),
        ("not-an-id", "no stored item has the id"),
    ],
)
def test_an_ambiguous_or_unknown_id_is_a_404(
    app_engine: tm.MemoryEngine, ui_client: MakeClient, given: str, message: str
) -> None:
    answer = ui_client(CraftedIds(app_engine)).get(f"/items/{given}")
    assert answer.status_code == 404
    assert message in text_of(answer.text, "error")


# --- tree, facets, export -------------------------------------------------------------


def test_the_tree_counts_each_node_and_below_and_links_to_it(
    app_engine: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    store_learnings(app_engine, ["a", "b"])
    acme = store_learnings(app_engine, ["c"], namespace="team:acme")
    writer = store_learnings(app_engine, ["d", "e", "f"], namespace="team:acme/agent:writer")
    client = ui_client(app_engine)
    page = client.get("/tree").text
    nodes = re.findall(
        r'<a class="node-link" href="([^"]+)">([^<]+)</a> <span class="count">(\d+)', page
    )
    shown = {label: (html.unescape(href), int(count)) for href, label, count in nodes}
    assert shown["root"][1] == 6
    assert shown["team:acme"][1] == 4
    assert shown["agent:writer"][1] == 3
    listed = client.get(shown["team:acme"][0]).text
    assert set(ids_in(listed, "hits")) == {*acme, *writer}
    assert set(ids_in(client.get(shown["agent:writer"][0]).text, "hits")) == set(writer)
    assert page.index('id="tree"') < page.index("team:acme") < page.index("agent:writer")


def test_the_folder_tree_of_the_notes(app_notes: tm.MemoryEngine, ui_client: MakeClient) -> None:
    client = ui_client(app_notes)
    page = client.get("/tree").text
    folder = app_notes.explore(tm.ExploreRequest(facet="folder")).buckets[0]
    links = re.findall(
        r'href="(/search\?folder=[^"]+)">([^<]+)</a> <span class="count">(\d+)', page
    )
    deepest = [(href, int(count)) for href, label, count in links if folder.value.endswith(label)]
    assert deepest
    assert deepest[-1][1] == folder.count == 7
    assert len(ids_in(client.get(html.unescape(deepest[-1][0])).text, "hits")) == 7


def test_the_facets_are_bars_of_explores_counts(
    app_notes: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    store_learnings(app_notes, ["x", "y"], workspace="work", tags=("b",))
    store_learnings(app_notes, ["z"], tags=("b", "c"))
    page = ui_client(app_notes).get("/facets").text
    sections = dict(
        re.findall(r'<section class="facet" data-facet="(\w+)">(.*?)</section>', page, re.S)
    )
    assert set(sections) == {"kind", "tags", "workspace", "time"}

    def bars(name: str) -> dict[str, int]:
        rows = re.findall(
            r'<span class="label">([^<]*)</span> <meter min="0" max="(\d+)" value="(\d+)">',
            sections[name],
        )
        return {label: int(value) for label, top, value in rows}

    assert bars("kind") == {"document": 7, "learning": 3}
    assert bars("tags") == {"b": 3, "c": 1}
    assert bars("workspace") == {"work": 2}
    months = bars("time")
    # The notes were ingested now; the learnings record no time.
    assert len(months) == 12
    assert months[f"{datetime.now(UTC):%Y-%m}"] == 7
    assert sum(months.values()) == 7
    assert "3 more items older than this or recording no time" in sections["time"]
    top = re.findall(r'max="(\d+)"', sections["kind"])
    assert set(top) == {"7"}  # each bar is drawn against the facet's largest


def test_the_time_facet_counts_by_month(app_engine: tm.MemoryEngine, ui_client: MakeClient) -> None:
    now = datetime.now(UTC)
    long_ago = now - timedelta(days=800)
    store_learnings(app_engine, ["old"], observed_at=long_ago)
    store_learnings(app_engine, ["new", "newer"], observed_at=now)
    page = ui_client(app_engine).get("/facets").text
    time = page.split('data-facet="time"')[1].split("</section>")[0]
    counts = dict(re.findall(r'<span class="label">([^<]*)</span> <meter[^>]*value="(\d+)"', time))
    assert counts[f"{now:%Y-%m}"] == "2"
    assert f"{long_ago:%Y-%m}" not in counts  # older than the year shown
    assert "1 more item older than this or recording no time" in time


def test_export_downloads_every_item_as_the_cli_writes_it(
    app_notes: tm.MemoryEngine, ui_client: MakeClient
) -> None:
    client = ui_client(app_notes)
    assert 'id="export-download" href="/export.jsonl"' in client.get("/export").text
    answer = client.get("/export.jsonl")
    assert answer.status_code == 200
    assert answer.headers["Content-Disposition"] == (
        'attachment; filename="tinymemory-export.jsonl"'
    )
    lines = answer.text.splitlines()
    assert len(lines) == 7
    listed = {hit.id for hit in app_notes.list(tm.ListRequest(limit=50)).items}
    assert {json.loads(line)["id"] for line in lines} == listed


def test_an_engine_error_is_a_400_page(app_engine: tm.MemoryEngine, ui_client: MakeClient) -> None:
    class Failing(EngineWrapper):
        def handle_explore(self, request: tm.ExploreRequest) -> tm.ExplorePage:
            raise tm.Unavailable("the engine is down for maintenance")

    answer = ui_client(Failing(app_engine)).get("/facets")
    assert answer.status_code == 400
    assert "the engine is down for maintenance" in text_of(answer.text, "error")
    assert "Traceback" not in answer.text


@given(
    text=st.lists(st.one_of(st.text(max_size=8), st.integers(0, 4).map(lambda n: f"[{n}]"))),
    cited=st.integers(0, 3),
)
def test_an_answer_cut_at_its_markers_is_the_answer(text: list[str], cited: int) -> None:
    """The answer's text comes back whole; exactly the markers of a citation become links."""
    answer = "".join(text)
    citation = tm.Citation(id="a" * 40, kind="learning", snippet="s", meta=tm.MemoryMeta())
    parts = _answer_parts(tm.RecallAnswer(answer=answer, citations=[citation] * cited))
    assert "".join(part for part, _ in parts) == answer
    for part, number in parts:
        if number is not None:
            assert part == f"[{number}]"
            assert 1 <= number <= cited
    linked = sum(number is not None for _, number in parts)
    markers = [int(found) for found in re.findall(r"\[(\d+)\]", answer)]
    assert linked == sum(1 <= number <= cited for number in markers)
