"""docs/ui.md shows a screenshot of each page docs/ui_screenshots.py takes, and only those,
each a PNG of the script's fixed window size that exists under docs/."""

from __future__ import annotations

import importlib.util
import re
import struct
from types import ModuleType

from .browser_harness import REPO, WINDOW

DOCS = REPO / "docs"
SCRIPT = DOCS / "ui_screenshots.py"
PAGE = DOCS / "ui.md"
MARKER = "<!-- screenshots: written by docs/ui_screenshots.py -->"
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ui_screenshots", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def png_size(data: bytes) -> tuple[int, int]:
    """A PNG's width and height (its IHDR chunk); an error when the bytes are no PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_docs_show_one_screenshot_per_page_the_script_takes() -> None:
    pages = script().PAGES
    text = PAGE.read_text(encoding="utf-8")
    assert text.count(MARKER) == 1
    images = IMAGE.findall(text.split(MARKER, 1)[1])
    assert sorted(images) == sorted(f"ui/{name}.png" for name in pages)
    assert IMAGE.findall(text.split(MARKER, 1)[0]) == []  # every image is the script's


def test_every_screenshot_exists_as_a_png_of_one_window_size() -> None:
    names = script().PAGES
    sizes = {name: png_size((DOCS / "ui" / f"{name}.png").read_bytes()) for name in names}
    assert len(set(sizes.values())) == 1, sizes
    (width, _height) = next(iter(sizes.values()))
    assert width == WINDOW[0]
    assert sorted(path.stem for path in (DOCS / "ui").glob("*.png")) == sorted(names)
