"""Forgetting through ``tinymemory ui --write`` in headless Chromium, always after a preview of
what would go; and a read-only server that offers no write control and refuses every write."""

from __future__ import annotations

import re

import requests
from selenium.webdriver.common.by import By

from .browser_harness import COOKIE, Browser, Memory, UiServer, item_id


def listed_ids(browser: Browser, css: str) -> list[str]:
    return [item_id(link) for link in browser.all(css)]


def previewed(browser: Browser) -> list[str]:
    """The items a forget preview lists, as the whole ids or the prefixes it shows."""
    rows = browser.all("#preview li")
    return [row.text for row in rows]


def shows(rows: list[str], ids: list[str]) -> bool:
    """Whether each row names exactly one of ``ids`` (by its short prefix) and each id a row."""
    named = [[i for i in ids if i[:8] in row] for row in rows]
    return all(len(found) == 1 for found in named) and sorted(
        found[0] for found in named
    ) == sorted(ids)


def test_an_item_is_forgotten_from_its_page_after_a_preview_of_exactly_it(
    browser: Browser, write_ui: UiServer, writable: Memory
) -> None:
    target = writable.lisbon[2]
    before = writable.home.stored()
    browser.sign_in(write_ui)
    browser.search("Lisbon", "keyword", "#hits")
    (link,) = [found for found in browser.all("#hits a.item-link") if item_id(found) == target]
    browser.follow(link, "#item-text")
    assert browser.find("#forget-item-form").get_attribute("action") == write_ui.at(
        "/forget/preview"
    )

    browser.follow(browser.find("#forget-item-button"), "#preview")
    assert shows(previewed(browser), [target])
    assert re.search(r"\b1\b", browser.find("#preview-count").text)
    assert writable.home.stored() == before  # a preview removes nothing

    result = browser.follow(browser.find("#forget-confirm"), "#forget-result")
    assert re.search(r"\b1\b", result.text)
    assert writable.home.stored() == before - {target}
    assert writable.home.attempt("get", target).exit_code == 1  # the command misses it too
    browser.search("Lisbon", "keyword", "#hits")
    shown = listed_ids(browser, "#hits a.item-link")
    assert target not in shown
    assert set(writable.lisbon[:2]) <= set(shown)


def test_a_filters_matches_are_forgotten_after_a_preview_listing_each(
    browser: Browser, write_ui: UiServer, writable: Memory
) -> None:
    matches = writable.home.json("list", "--workspace", "beta", "--limit", "500")
    expected = [item["id"] for item in matches["items"]]
    assert 1 < len(expected) < len(writable.shelf)
    before = writable.home.stored()
    browser.sign_in(write_ui)
    browser.search("shelf", "keyword", "#hits", workspace="beta")

    form = browser.find("#forget-matches-form")
    button = form.find_element(By.CSS_SELECTOR, "button, input[type=submit]")
    browser.follow(button, "#preview")
    assert shows(previewed(browser), expected)
    assert re.search(rf"\b{len(expected)}\b", browser.find("#preview-count").text)
    assert writable.home.stored() == before

    result = browser.follow(browser.find("#forget-confirm"), "#forget-result")
    assert re.search(rf"\b{len(expected)}\b", result.text)
    assert writable.home.json("list", "--workspace", "beta")["items"] == []
    assert writable.home.stored() == before - set(expected)
    browser.search("shelf", "keyword", "#hits", workspace="")
    left = []
    while True:  # every page: none of the forgotten is found any more
        left += listed_ids(browser, "#hits a.item-link")
        following = browser.all("a#next-page")
        if not following:
            break
        browser.follow(following[0], "#hits")
    assert sorted(left) == sorted(set(writable.shelf) - set(expected))


def test_the_read_only_server_renders_no_write_control(
    browser: Browser, ui: UiServer, memory: Memory
) -> None:
    browser.sign_in(ui)
    assert not browser.all("#nav-erase")
    browser.search("shelf", "keyword", "#hits", workspace="beta")  # a filter, as forget needs
    assert not browser.all("#forget-matches-form")
    browser.open(ui.at(f"/items/{memory.shelf[0]}"), "#item-text")
    assert not browser.all("#forget-item-form, #forget-item-button")
    assert not browser.all("form[method=post]")


def test_the_read_only_server_refuses_every_write(ui: UiServer, memory: Memory) -> None:
    before = memory.home.stored()
    for method, path in [
        ("POST", "/forget"),
        ("POST", "/forget/preview"),
        ("GET", "/erase"),
        ("POST", "/erase"),
    ]:
        answer = requests.request(
            method,
            ui.at(path),
            cookies={COOKIE: ui.token},
            data={"ids": memory.shelf[0], "csrf": "x", "confirm": "root", "at": "root"},
            allow_redirects=False,
            timeout=30,
        )
        assert answer.status_code == 403, (method, path)
    assert memory.home.stored() == before


def test_erase_runs_only_once_the_node_is_typed_again(
    browser: Browser, write_ui: UiServer, writable: Memory
) -> None:
    before = writable.home.stored()
    browser.sign_in(write_ui)
    browser.follow(browser.find("#nav-erase"), "#erase-form")

    def erase(node: str, confirm: str, expect: str) -> str:
        form = browser.find("#erase-form")
        for name, value in {"at": node, "confirm": confirm}.items():
            field = form.find_element(By.CSS_SELECTOR, f"input[name={name}]")
            field.clear()
            field.send_keys(value)
        form.find_element(By.CSS_SELECTOR, "input[name=subtree]").click()
        return browser.follow(form.find_element(By.CSS_SELECTOR, "#erase-button"), expect).text

    # Not the node's path: asked again on the form, with the question.
    assert erase("team:acme", "team", "#erase-question")
    assert writable.home.stored() == before
    browser.open(write_ui.at("/erase"), "#erase-form")
    assert re.search(r"\b3\b", erase("team:acme", "team:acme", "#erase-result"))
    assert writable.home.stored() == before - set(writable.lisbon)
