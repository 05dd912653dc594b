"""What the browser tests and ``docs/ui_screenshots.py`` share: a user's home holding the
README's memory, ``tinymemory ui`` started on it as a user starts it, and Debian's Chromium
driven headless by Selenium through Debian's ChromeDriver (never Selenium Manager: the
machine has no network).
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

import tinymemory as tm
from tinymemory.testing import Cli, CliResult, Sandbox

REPO = Path(__file__).resolve().parents[4]
#: The README's main job ingests this folder.
NOTES = REPO / "docs" / "examples" / "notes"
#: Where a home keeps its copy of the notes, ingested by this path from the home as the
#: README's main job does from the clone (pages show the home's paths, not the checkout's).
NOTES_PATH = "docs/examples/notes"
#: The README's question, and the file its answer comes from (in the home).
QUESTION = "What is the travel budget?"
ANSWER_FILE = f"{NOTES_PATH}/travel-policy.docx"

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
#: Without the networking flags Chromium stalls on this machine's refused connections.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
WINDOW = (1280, 900)
#: The URL ``tinymemory ui`` prints (the contract's regex).
URL_PATTERN = re.compile(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+")
COOKIE = "tinymemory_ui_token"
#: How long a page, a server start or a download may take before a wait fails.
WAIT_SECONDS = 20.0


class BrowserMissing(RuntimeError):
    """Chromium or ChromeDriver is not installed where the tests drive it from."""


class Home:
    """A user's home in a folder (a :class:`~tinymemory.testing.Sandbox`): the default engine,
    ``sqlite``, keeps its file there, so every ``tinymemory`` run in it shares one memory."""

    def __init__(self, folder: Path) -> None:
        # The sqlite engine's own path variable would point elsewhere: cleared.
        self.sandbox = Sandbox(folder, extra={"TINYMEMORY_SQLITE_PATH": None})
        folder.mkdir(parents=True, exist_ok=True)  # the commands run from it

    @property
    def folder(self) -> Path:
        return self.sandbox.folder

    @property
    def env(self) -> dict[str, str]:
        return self.sandbox.env

    @property
    def database(self) -> Path:
        return self.sandbox.data_home / "tinymemory" / "memory.db"

    def attempt(self, *args: str) -> CliResult:
        """``tinymemory ARGS`` in a process of its own, in this home."""
        return Cli(self.sandbox).run(*args, timeout=120)

    def run(self, *args: str) -> CliResult:
        """``tinymemory ARGS``, which must succeed."""
        done = self.attempt(*args)
        if done.exit_code != 0:
            raise RuntimeError(f"tinymemory {' '.join(args)}: {done.stderr}")
        return done

    def json(self, *args: str) -> Any:
        """``tinymemory ARGS --json``, read."""
        return json.loads(self.run(*args, "--json").stdout)

    def engine(self) -> tm.MemoryEngine:
        """The engine every command of this home opens (scrubbing included), in this process."""
        return tm.build_engine("sqlite", tm.EngineSettings(options={"path": str(self.database)}))

    def store(self, items: Iterable[tm.StoreItem]) -> list[str]:
        """Store ``items`` in this home's memory; their ids."""
        with self.engine() as engine:
            return [receipt.id for receipt in engine.store_many(list(items))]

    def stored(self) -> set[str]:
        """The id of every item the memory holds now."""
        found: set[str] = set()
        cursor = None
        with self.engine() as engine:
            while True:
                page = engine.list(tm.ListRequest(limit=100, cursor=cursor))
                found.update(hit.id for hit in page.items)
                cursor = page.next_cursor
                if cursor is None:
                    return found

    def copy(self, folder: Path) -> Home:
        """A copy of this home (no process may hold its memory open meanwhile)."""
        shutil.copytree(self.folder, folder)
        return Home(folder)


def readme_home(folder: Path) -> Home:
    """A home after the README's main job (``tinymemory ingest docs/examples/notes``) and its
    next example's two ``tinymemory store`` lines."""
    home = Home(folder)
    shutil.copytree(NOTES, home.folder / NOTES_PATH)
    home.run("ingest", NOTES_PATH)
    home.run(
        "store",
        "The user prefers tabs over spaces",
        "--learning-kind",
        "preference",
        "--tag",
        "style",
    )
    home.run(
        "store",
        "--document",
        "--title",
        "Release plan",
        "We ship the SDK on Friday. Docs follow on Monday.",
    )
    return home


class UiServer:
    """``tinymemory ui ARGS`` in a process of its own, in ``home``, as a user starts it."""

    def __init__(self, home: Home, *args: str) -> None:
        #: Where the server's stderr goes (its log; it never holds the token).
        self.log = home.folder / f"ui-{time.monotonic_ns()}.log"
        #: What the server printed to stdout after its first line.
        self._rest = b""
        with self.log.open("w", encoding="utf-8") as stderr:
            self.process = subprocess.Popen(
                [str(Path(sys.executable).parent / "tinymemory"), "ui", *args],
                env=home.env,
                cwd=home.folder,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
        self.line = self._first_line()
        found = URL_PATTERN.findall(self.line)
        if len(found) != 1:
            self.stop()
            raise RuntimeError(f"`tinymemory ui` printed no single URL: {self.line!r}")
        self.url: str = found[0]
        self.token: str = self.url.split("?token=", 1)[1]
        self.base: str = self.url.split("/?token=", 1)[0]
        self.port = int(self.base.rsplit(":", 1)[1])

    def _first_line(self) -> str:
        """The first line the server prints to stdout (it must come before serving)."""
        assert self.process.stdout is not None
        read = b""
        deadline = time.monotonic() + WAIT_SECONDS
        with selectors.DefaultSelector() as selector:
            selector.register(self.process.stdout, selectors.EVENT_READ)
            while b"\n" not in read:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    self.stop()
                    raise RuntimeError(f"`tinymemory ui` printed no URL in time: {self.errors()}")
                chunk = os.read(self.process.stdout.fileno(), 4096)
                if not chunk:
                    self.stop()
                    raise RuntimeError(f"`tinymemory ui` ended before serving: {self.errors()}")
                read += chunk
        line, self._rest = read.split(b"\n", 1)
        return line.decode()

    def errors(self) -> str:
        """What the server wrote to stderr so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self, sig: signal.Signals = signal.SIGTERM) -> tuple[int, str]:
        """Signal the server to stop; its exit code and what else it printed to stdout."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            out, _ = self.process.communicate(timeout=WAIT_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            out, _ = self.process.communicate()
        return self.process.returncode, (self._rest + out).decode()

    def at(self, path: str) -> str:
        """The address of ``path`` on this server."""
        return self.base + path


@contextmanager
def serving(home: Home, *args: str) -> Iterator[UiServer]:
    """A server for the block, stopped with SIGTERM after it; it must exit 0."""
    server = UiServer(home, *args)
    try:
        yield server
    finally:
        code, _ = server.stop()
        if code != 0:
            raise RuntimeError(f"`tinymemory ui` exited {code} on SIGTERM: {server.errors()}")


def chromium(profile: Path, downloads: Path) -> webdriver.Chrome:
    """Headless Chromium with a new profile in ``profile``, downloading into ``downloads``."""
    for program, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not program.is_file():
            raise BrowserMissing(
                f"{program} is missing: the browser tests drive Debian's Chromium through "
                f"ChromeDriver; `.ci/run` installs them (apt-get install chromium "
                f"chromium-driver; this one is in `{package}`)"
            )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={WINDOW[0]},{WINDOW[1]}")
    options.add_experimental_option(
        "prefs",
        {
            "download.default_directory": str(downloads),
            "download.prompt_for_download": False,
        },
    )
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)


class Browser:
    """A user at the browser: open a page, click, type, and wait for what comes next."""

    def __init__(self, driver: webdriver.Chrome, downloads: Path) -> None:
        self.driver = driver
        #: Where a download from this browser lands.
        self.downloads = downloads

    def wait(self, css: str) -> WebElement:
        """The element ``css`` once the page shows it; else an error quoting the page."""
        try:
            # A page still loading may answer with another error than "no such element"
            # (Chromium's "unhandled inspector error"): asked again, as for a missing one.
            return WebDriverWait(
                self.driver, WAIT_SECONDS, ignored_exceptions=(WebDriverException,)
            ).until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, css)))
        except TimeoutException:
            shown = self.driver.find_element(By.TAG_NAME, "body").text[:300]
            raise AssertionError(
                f"no element {css} on {self.driver.current_url}, which shows: {shown!r}"
            ) from None

    def find(self, css: str) -> WebElement:
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css: str) -> list[WebElement]:
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def open(self, url: str, expect: str = "main") -> WebElement:
        """Go to ``url`` and wait for ``expect`` there."""
        self.driver.get(url)
        return self.wait(expect)

    def sign_in(self, server: UiServer) -> None:
        """Open the URL the server printed (its token becomes a cookie) and see the search."""
        self.open(server.url, "#search-form")

    def follow(self, element: WebElement, expect: str) -> WebElement:
        """Click ``element`` (a link or a button), wait for the next page and ``expect`` there."""
        page = self.find("html")
        element.click()
        # While the next page replaces this one, asking after the old page may fail with
        # another error than "stale" (Chromium's "unhandled inspector error"): asked again.
        WebDriverWait(self.driver, WAIT_SECONDS, ignored_exceptions=(WebDriverException,)).until(
            expected_conditions.staleness_of(page), f"clicking left {self.driver.current_url}"
        )
        return self.wait(expect)

    def search(self, query: str, mode: str, expect: str, **filters: str) -> WebElement:
        """Fill the search form as a user does (query, mode, filters) and submit it; from
        another page, go to the search first (the nav's link)."""
        if not self.all("#search-form"):
            self.follow(self.find("#nav-search"), "#search-form")
        form = self.find("#search-form")
        for name, value in {"q": query, **filters}.items():
            field = form.find_element(By.CSS_SELECTOR, f"input[name={name}]")
            field.clear()
            field.send_keys(value)
        Select(form.find_element(By.CSS_SELECTOR, "select[name=mode]")).select_by_value(mode)
        return self.follow(form.find_element(By.CSS_SELECTOR, "#search-button"), expect)

    def screenshot(self, path: Path) -> None:
        """The window as a PNG, at the fixed window size."""
        path.parent.mkdir(parents=True, exist_ok=True)
        if not self.driver.save_screenshot(str(path)):
            raise RuntimeError(f"no screenshot written to {path}")


def item_id(link: WebElement) -> str:
    """The whole id an ``a.item-link`` or ``a.citation`` leads to (``/items/<id>``)."""
    href = link.get_attribute("href") or ""
    found = re.fullmatch(r"http://[^/]+/items/([0-9a-f]+)", href)
    if found is None:
        raise AssertionError(f"not a link to an item: {href!r}")
    return found.group(1)


#: Learnings sharing the word "shelf": more hits than one page of the search.
SHELF_COUNT = 45
WRITER = "team:acme/agent:writer"
EDITOR = "team:acme/agent:editor"
#: A learning's text that a page would run, were it rendered as markup.
MARKUP = (
    "<script>alert('tinymemory-ui')</script>"
    '<img src="/no-such-image" onerror="alert(\'tinymemory-ui\')"> rendered as text'
)


@dataclass(frozen=True)
class Memory:
    """A home holding the README's memory and the tests' own items, by their ids."""

    home: Home
    #: Learnings on the archive shelf (tag ``archive``; workspace ``acme`` or ``beta``).
    shelf: list[str]
    #: Learnings about Lisbon (which the README's team-offsite.md mentions too), at two nodes.
    lisbon: list[str]
    #: The learning whose text is markup.
    markup: str

    def copy(self, folder: Path) -> Memory:
        """The same memory in another home (no process may hold it open meanwhile)."""
        return Memory(self.home.copy(folder), self.shelf, self.lisbon, self.markup)


def seeded_memory(folder: Path) -> Memory:
    """The README's memory, then what the tests page, filter, forget and render through,
    stored as a user's program would."""
    home = readme_home(folder)
    shelf = home.store(
        tm.Learning(
            text=f"Archive shelf note {number:02d}: box {number} holds the old invoices.",
            meta=tm.MemoryMeta(workspace="acme" if number % 2 else "beta", tags=["archive"]),
        )
        for number in range(SHELF_COUNT)
    )
    lisbon = home.store(
        [
            tm.Learning(
                text="Ada flies to Lisbon on Tuesday mornings.",
                meta=tm.MemoryMeta(namespace=WRITER),
            ),
            tm.Learning(
                text="The Lisbon office has a quiet room on the second floor.",
                meta=tm.MemoryMeta(namespace=WRITER),
            ),
            tm.Learning(
                text="Lisbon dinners are booked for eight people.",
                meta=tm.MemoryMeta(namespace=EDITOR),
            ),
        ]
    )
    (markup,) = home.store([tm.Learning(text=MARKUP)])
    return Memory(home, shelf, lisbon, markup)
