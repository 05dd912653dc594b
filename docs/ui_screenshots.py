"""Screenshots of ``tinymemory ui`` for docs/ui.md: ``python docs/ui_screenshots.py``.

Builds the README's memory in a temporary home (``tinymemory ingest docs/examples/notes``
and the README's two ``tinymemory store`` lines), starts ``tinymemory ui --write`` on it,
and writes a PNG of each page of :data:`PAGES` into ``docs/ui/`` with headless Chromium
at a fixed window size. Needs, in the active environment, the core, tinymemory-sqlite,
tinymemory-sources, "tinymemory-documents[office]" and "tinymemory-ui[test]" (selenium),
and Debian's chromium and chromium-driver (which ``.ci/run`` installs). It shares its
set-up with the browser tests (plugins/tinymemory-ui/tests/browser/browser_harness.py).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "plugins" / "tinymemory-ui" / "tests" / "browser"))

from browser_harness import QUESTION, Browser, UiServer, chromium, readme_home, serving  # noqa: E402

#: Where the PNGs go, named ``<page>.png``.
FOLDER = Path(__file__).resolve().parent / "ui"


def search_recall(browser: Browser, server: UiServer) -> None:
    browser.sign_in(server)
    browser.search(QUESTION, "recall", "#answer")


def search_fetch(browser: Browser, server: UiServer) -> None:
    browser.sign_in(server)
    browser.search("travel", "keyword", "#hits")


def item(browser: Browser, server: UiServer) -> None:
    search_recall(browser, server)
    browser.follow(browser.find("#answer a.citation"), "#item-text")


def tree(browser: Browser, server: UiServer) -> None:
    browser.open(server.at("/tree"), "#tree")


def facets(browser: Browser, server: UiServer) -> None:
    browser.open(server.at("/facets"), "#facets")


def export(browser: Browser, server: UiServer) -> None:
    browser.open(server.at("/export"), "#export-download")


def forget_preview(browser: Browser, server: UiServer) -> None:
    browser.sign_in(server)
    browser.search("tabs", "keyword", "#hits")
    browser.follow(browser.find("#hits a.item-link"), "#forget-item-button")
    browser.follow(browser.find("#forget-item-button"), "#preview")


#: Each page shown in docs/ui.md: its name (the PNG's) and how a user gets there.
PAGES: dict[str, Callable[[Browser, UiServer], None]] = {
    "search-recall": search_recall,
    "search-fetch": search_fetch,
    "item": item,
    "tree": tree,
    "facets": facets,
    "export": export,
    "forget-preview": forget_preview,
}


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        home = readme_home(folder / "home")
        driver = chromium(folder / "profile", folder / "downloads")
        browser = Browser(driver, folder / "downloads")
        try:
            with serving(home, "--write") as server:
                for name, reach in PAGES.items():
                    reach(browser, server)
                    browser.screenshot(FOLDER / f"{name}.png")
                    print(f"wrote {(FOLDER / f'{name}.png').relative_to(ROOT)}")
        finally:
            driver.quit()


if __name__ == "__main__":
    main()
