"""The plugins' READMEs as pages of the site, found in the repository's plugins folder.

A mkdocs hook (``hooks:`` in ``mkdocs.yml`` beside this file): ``on_config``
adds a "Plugins" section to the nav, one page per plugin README (and the
folder's own README as its first page), and ``on_files`` writes those pages
as ``plugins/<folder>.md``. Their links are made to work from the site: to a
docs page, the repository's README (the site's home) or another plugin's
README, each its page; a link to any other file of the repository keeps its
text and loses the link. Nothing is listed by hand: a new plugin folder with
a README is a new page.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "plugins"
DOCS = ROOT / "docs"
#: Where the plugin pages live in the site.
FOLDER = PurePosixPath("plugins")
#: A markdown link whose target is a path (not a URL, an anchor alone or mail).
_LINK = re.compile(r"(\[[^\]]*\])\((?![a-z][a-z0-9+.-]*:|#)([^)\s]+)\)")


def plugin_pages(plugins: Path = PLUGINS) -> dict[str, Path]:
    """Each page's path in the site and the README it is written from, index first."""
    pages = {str(FOLDER / "index.md"): plugins / "README.md"}
    for folder in sorted(plugins.iterdir()):
        if (folder / "README.md").is_file():
            pages[str(FOLDER / f"{folder.name}.md")] = folder / "README.md"
    return {page: readme for page, readme in pages.items() if readme.is_file()}


def page_of(target: Path, plugins: Path = PLUGINS) -> str | None:
    """The site page a repository file is, relative to the plugin pages; None for none."""
    if target == plugins.parent / "README.md":
        return "../index.md"
    if target == plugins / "README.md":
        return "index.md"
    if target.name == "README.md" and target.parent.parent == plugins:
        return f"{target.parent.name}.md"
    docs = plugins.parent / "docs"
    if target.suffix == ".md" and target.is_relative_to(docs):
        return os.path.relpath(target, docs / FOLDER).replace(os.sep, "/")
    return None


def page_markdown(readme: Path, plugins: Path = PLUGINS) -> str:
    """The README's text with every link to a repository file made a link of the site."""

    def relinked(found: re.Match[str]) -> str:
        label, link = found.group(1), found.group(2)
        path, _, anchor = link.partition("#")
        page = page_of(Path(os.path.normpath(readme.parent / path)), plugins)
        if page is None:
            return label[1:-1]  # a source file, a licence: its text stays, the link goes
        return f"{label}({page}{'#' + anchor if anchor else ''})"

    return _LINK.sub(relinked, readme.read_text(encoding="utf-8"))


def _title(readme: Path) -> str:
    first = readme.read_text(encoding="utf-8").lstrip().splitlines()[0]
    return first.lstrip("#").strip() if first.startswith("#") else readme.parent.name


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """mkdocs hook: a "Plugins" section at the end of the nav, a page per plugin."""
    pages = plugin_pages()
    entries = [{"Overview" if page.endswith("index.md") else _title(readme): page}
               for page, readme in pages.items()]  # fmt: skip
    config["nav"].append({"Plugins": entries})
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """mkdocs hook: write each plugin README as its page."""
    from mkdocs.structure.files import File

    for page, readme in plugin_pages().items():
        files.append(File.generated(config, page, content=page_markdown(readme)))
    return files
