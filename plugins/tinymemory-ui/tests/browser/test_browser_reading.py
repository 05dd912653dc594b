"""A user reading memory through ``tinymemory ui`` in headless Chromium: sign in with the printed
URL, recall the README's answer and follow its citation, fetch with filters, page through, the
tree, the facets and the export, each checked against what the ``tinymemory`` command says."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

from .browser_harness import (
    ANSWER_FILE,
    COOKIE,
    NOTES_PATH,
    QUESTION,
    SHELF_COUNT,
    WAIT_SECONDS,
    Browser,
    Memory,
    UiServer,
    item_id,
)


def hit_ids(browser: Browser) -> list[str]:
    """The ids of the hits the page lists, in order."""
    return [
        item_id(hit.find_element(By.CSS_SELECTOR, "a.item-link"))
        for hit in browser.all("#hits li.hit")
    ]


def number(element: WebElement) -> int:
    """A count as a page shows it (``1,234``)."""
    return int(element.text.strip().replace(",", ""))


def test_the_printed_url_turns_its_token_into_a_cookie_and_leaves_the_address_bar(
    browser: Browser, ui: UiServer
) -> None:
    browser.open(ui.at("/tree"), "body")
    browser.driver.delete_all_cookies()
    browser.open(ui.at("/tree"), "body")
    assert not browser.all("#tree")
    assert "tinymemory ui" in browser.find("body").text  # says to open the printed URL

    browser.sign_in(ui)
    assert browser.driver.current_url == ui.at("/")
    (cookie,) = [c for c in browser.driver.get_cookies() if c["name"] == COOKIE]
    assert cookie["value"] == ui.token
    assert (cookie["httpOnly"], cookie["sameSite"], cookie["path"]) == (True, "Strict", "/")
    browser.open(ui.at("/tree"), "#tree")  # later pages pass with the cookie alone


def test_recall_answers_the_readme_question_and_its_citation_opens_the_whole_item(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    said = memory.home.json("recall", QUESTION)
    cited = [citation["id"] for citation in said["citations"]]
    browser.sign_in(ui)

    answer = browser.search(QUESTION, "recall", "#answer")
    assert "The travel budget is 1,200 EUR per trip" in answer.text
    assert said["answer"].split(" [1]")[0] in answer.text
    links = answer.find_elements(By.CSS_SELECTOR, "a.citation")
    assert [link.text for link in links] == [f"[{n}]" for n in range(1, len(cited) + 1)]
    assert [item_id(link) for link in links] == cited
    listed = browser.all("#citations li a.item-link")
    assert [item_id(link) for link in listed] == cited

    text = browser.follow(links[0], "#item-text")
    (whole,) = memory.home.json("get", cited[0])["items"]
    assert browser.driver.current_url == ui.at(f"/items/{whole['id']}")
    assert text.get_attribute("textContent") == whole["text"]
    # Stored absolute, in the home the memory was built in (this one is a copy of it).
    answer_file = whole["meta"]["file_path"]
    assert answer_file.endswith(f"/home/{ANSWER_FILE}")
    assert answer_file in browser.find("#provenance").text
    meta = browser.find("#item-meta").text
    assert whole["id"] in meta
    assert "document" in meta
    pieces = browser.all("#pieces li.piece")
    assert pieces
    assert all(piece.text.strip() for piece in pieces)


def test_an_id_prefix_opens_the_whole_items_page(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    whole = memory.lisbon[0]
    browser.sign_in(ui)
    browser.open(ui.at(f"/items/{whole[:8]}"), "#item-text")
    assert browser.driver.current_url == ui.at(f"/items/{whole}")
    assert not browser.all("#pieces")


@pytest.mark.parametrize("kind", ["learning", "document"])
def test_a_keyword_fetch_filtered_by_kind_lists_only_that_kind(
    browser: Browser, ui: UiServer, memory: Memory, kind: str
) -> None:
    everything = memory.home.json("fetch", "Lisbon", "--mode", "keyword", "--limit", "100")
    kinds = {hit["id"]: hit["kind"] for hit in everything["hits"]}
    assert set(kinds.values()) == {"learning", "document"}  # the filter has work to do
    browser.sign_in(ui)

    browser.search("Lisbon", "keyword", "#hits", kind=kind)
    shown = hit_ids(browser)
    assert sorted(shown) == sorted(i for i, k in kinds.items() if k == kind)
    for hit in browser.all("#hits li.hit"):
        assert kind in hit.text
    other = "document" if kind == "learning" else "learning"
    assert all(other not in hit.text for hit in browser.all("#hits li.hit"))

    browser.search("Lisbon", "keyword", "#hits", kind="")
    assert sorted(hit_ids(browser)) == sorted(kinds)


def test_paging_through_a_fetch_shows_every_hit_once_and_the_last_page_has_no_next_link(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    said = memory.home.json("fetch", "shelf", "--mode", "keyword", "--limit", "500")
    expected = [hit["id"] for hit in said["hits"]]
    assert sorted(expected) == sorted(memory.shelf)
    browser.sign_in(ui)

    browser.search("shelf", "keyword", "#hits", tag="archive")
    pages: list[list[str]] = []
    infos: list[str] = []
    while True:
        pages.append(hit_ids(browser))
        infos.append(browser.find("#page-info").text)
        following = browser.all("a#next-page")
        if not following:
            break
        query = parse_qs(urlsplit(following[0].get_attribute("href") or "").query)
        assert (query["q"], query["mode"], query["tag"]) == (["shelf"], ["keyword"], ["archive"])
        assert query["cursor"][0]
        assert len(pages) <= SHELF_COUNT, "the next link never ends"
        browser.follow(following[0], "#hits")
    seen = [found for page in pages for found in page]
    assert len(pages) > 1, f"{SHELF_COUNT} hits fit one page: the test pages through nothing"
    assert all(pages)
    assert len(seen) == len(set(seen)), "a hit shown on two pages"
    assert sorted(seen) == sorted(expected)
    assert len(set(infos)) == len(infos), f"#page-info does not say which page: {infos}"


def within(node: str, path: str) -> bool:
    """Whether namespace ``path`` is ``node`` or below it."""
    return node == "root" or path == node or path.startswith(node + "/")


def test_the_tree_shows_each_node_with_explores_count_of_its_subtree_and_lists_it(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    explored = memory.home.json("explore", "namespace")
    counts = {bucket["value"]: bucket["count"] for bucket in explored["buckets"]}
    assert len(counts) == 3  # the root and the two agents of team:acme
    browser.sign_in(ui)

    tree = browser.open(ui.at("/tree"), "#tree")
    shown: dict[str, int] = {}
    links: dict[str, WebElement] = {}
    for node in tree.find_elements(By.CSS_SELECTOR, "li.node"):
        link = node.find_element(By.CSS_SELECTOR, ":scope > a.node-link")
        (path,) = parse_qs(urlsplit(link.get_attribute("href") or "").query)["at"]
        shown[path] = number(node.find_element(By.CSS_SELECTOR, ":scope > span.count"))
        links[path] = link
    expected = {
        node: sum(count for path, count in counts.items() if within(node, path))
        for node in ["root", "team:acme", *counts]
    }
    assert shown == expected

    browser.follow(links["team:acme"], "#hits")  # a node lists what it counts
    assert sorted(hit_ids(browser)) == sorted(memory.lisbon)
    assert not browser.all("a#next-page")


def test_the_folder_tree_counts_the_readme_notes(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    explored = memory.home.json("explore", "folder")
    counts = {bucket["value"]: bucket["count"] for bucket in explored["buckets"]}
    (folder,) = counts  # the notes' folder, absolute, in the home the memory was built in
    assert folder.endswith(f"/home/{NOTES_PATH}")
    assert counts[folder] == 7
    notes = Path(folder)
    browser.sign_in(ui)

    tree = browser.open(ui.at("/tree"), "#folder-tree")
    shown = {
        parse_qs(urlsplit(link.get_attribute("href") or "").query)["folder"][0]: number(
            link.find_element(By.XPATH, "following-sibling::span[@class='count']")
        )
        for link in tree.find_elements(By.CSS_SELECTOR, "a.node-link")
    }
    assert shown[str(notes)] == 7
    assert shown[str(notes.parent)] == 7


FACETS = {"kind": "kind", "tags": "tag", "workspace": "workspace"}


def bar_fraction(row: WebElement) -> float:
    """How full a facet row's bar is drawn, 0 to 1."""
    gauges = row.find_elements(By.CSS_SELECTOR, "meter, progress")
    if gauges:
        gauge = gauges[0]
        return float(gauge.get_attribute("value") or 0) / float(gauge.get_attribute("max") or 1)
    (bar,) = row.find_elements(By.CSS_SELECTOR, "[style*='width']")
    track = bar.find_element(By.XPATH, "..")
    return float(bar.size["width"]) / float(track.size["width"])


@pytest.mark.parametrize("facet", sorted(FACETS))
def test_each_facet_shows_explores_counts_as_proportional_bars(
    browser: Browser, ui: UiServer, memory: Memory, facet: str
) -> None:
    explored = memory.home.json("explore", FACETS[facet])
    expected = {bucket["value"]: bucket["count"] for bucket in explored["buckets"]}
    assert len(expected) >= 2
    browser.sign_in(ui)

    browser.open(ui.at("/facets"), "#facets")
    section = browser.find(f"#facets section.facet[data-facet={facet}]")
    rows = section.find_elements(By.CSS_SELECTOR, "div.bar")
    shown = {
        row.find_element(By.CSS_SELECTOR, "span.label").text.strip(): number(
            row.find_element(By.CSS_SELECTOR, "span.count")
        )
        for row in rows
    }
    assert shown == expected
    largest = max(expected.values())
    for row in rows:
        share = number(row.find_element(By.CSS_SELECTOR, "span.count")) / largest
        assert bar_fraction(row) == pytest.approx(share, abs=0.02)


def test_the_time_facet_counts_every_item_that_records_a_time(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    exported = [json.loads(line) for line in memory.home.run("export").stdout.splitlines()]
    timed = [entry for entry in exported if entry["item"]["meta"].get("observed_at")]
    assert 0 < len(timed) < len(exported)  # the tests' own items are stored with no time
    browser.sign_in(ui)
    browser.open(ui.at("/facets"), "#facets")
    section = browser.find("#facets section.facet[data-facet=time]")
    rows = section.find_elements(By.CSS_SELECTOR, "div.bar span.count")
    assert sum(number(count) for count in rows) == len(timed)


def test_the_export_downloads_every_item_as_the_cli_exports_it(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    exported = memory.home.run("export").stdout.splitlines()
    assert len(exported) == memory.home.json("explore", "kind")["total"]
    browser.sign_in(ui)

    link = browser.open(ui.at("/export"), "a#export-download")
    target = browser.downloads / "tinymemory-export.jsonl"
    assert not target.exists()
    link.click()

    def downloaded(_: object) -> bool:
        partial = list(browser.downloads.glob("*.crdownload"))
        return target.exists() and not partial

    WebDriverWait(browser.driver, WAIT_SECONDS).until(downloaded, "the export never arrived")
    lines = target.read_text(encoding="utf-8").splitlines()
    assert lines == exported
    assert all(json.loads(line)["id"] and json.loads(line)["item"] for line in lines)


def test_an_item_holding_markup_shows_it_as_text_and_runs_nothing(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    (stored,) = memory.home.json("get", memory.markup)["items"]
    browser.sign_in(ui)

    text = browser.open(ui.at(f"/items/{memory.markup}"), "#item-text")
    WebDriverWait(browser.driver, WAIT_SECONDS).until(
        lambda driver: driver.execute_script("return document.readyState") == "complete"
    )
    assert text.get_attribute("textContent") == stored["text"]
    assert "<script>" in stored["text"]
    assert not browser.all("main script")
    assert not browser.all("main img")
    with pytest.raises(NoAlertPresentException):
        _ = browser.driver.switch_to.alert

    browser.search("rendered", "keyword", "#hits")
    assert hit_ids(browser) == [memory.markup]
    assert "<script>" in browser.find("#hits").text
    assert not browser.all("main script, main img")
    with pytest.raises(NoAlertPresentException):
        _ = browser.driver.switch_to.alert


def test_the_readme_files_are_listed_with_their_sources(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    said = memory.home.json("fetch", "travel", "--mode", "keyword")
    browser.sign_in(ui)
    browser.search("travel", "keyword", "#hits")
    assert hit_ids(browser) == [hit["id"] for hit in said["hits"]]
    first = browser.find("#hits li.hit")
    assert "travel-policy.docx" in first.text
    assert said["hits"][0]["id"][:8] in first.find_element(By.CSS_SELECTOR, "a.item-link").text


def test_a_search_with_no_hits_says_so(browser: Browser, ui: UiServer) -> None:
    browser.sign_in(ui)
    browser.search("zeppelin", "keyword", "#no-results")
    assert not browser.all("#hits li.hit")


def test_bad_input_is_an_error_on_the_page_not_a_traceback(browser: Browser, ui: UiServer) -> None:
    browser.sign_in(ui)
    error = browser.search("shelf", "keyword", "#error", since="not a date")
    assert error.text
    assert "Traceback" not in browser.find("body").text
