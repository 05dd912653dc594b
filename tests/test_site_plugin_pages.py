"""The docs site's plugin pages: one per plugin README, every link a page of the site."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from doc_examples import ROOT

sys.path.insert(0, str(ROOT / "docs" / "site-config"))

from plugin_pages import page_markdown, plugin_pages

LINK = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#)([^)\s#]+)(?:#[^)\s]*)?\)")


def test_every_plugin_readme_is_a_page() -> None:
    pages = plugin_pages()
    readmes = {path.parent.name for path in (ROOT / "plugins").glob("*/README.md")}
    assert set(pages) == {"plugins/index.md"} | {f"plugins/{name}.md" for name in readmes}
    assert len(readmes) >= 8


def test_every_link_of_a_plugin_page_is_a_page_of_the_site() -> None:
    docs = ROOT / "docs"
    site = {path.relative_to(docs).as_posix() for path in docs.rglob("*.md")}
    site |= set(plugin_pages()) | {"reference/cli.md"}
    for page, readme in plugin_pages().items():
        written = page_markdown(readme)
        for target in LINK.findall(written):
            resolved = os.path.normpath(Path(page).parent / target).replace(os.sep, "/")
            assert resolved in site, f"{page}: link to {target}"
        # Every link of the README is still a link, or its text stays.
        assert len(re.findall(r"\]\(", written)) <= len(re.findall(r"\]\(", readme.read_text()))


def test_links_are_rewritten_by_what_they_point_at(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    (tmp_path / "docs" / "engines").mkdir(parents=True)
    (plugins / "tinymemory-x" / "src").mkdir(parents=True)
    (plugins / "tinymemory-y").mkdir()
    (plugins / "README.md").write_text("# Plugins\n[x](tinymemory-x/README.md)\n")
    (plugins / "tinymemory-y" / "README.md").write_text("# y\n")
    readme = plugins / "tinymemory-x" / "README.md"
    readme.write_text(
        "# x\n[home](../../README.md) [guide](../../docs/engines/x.md#setup) "
        "[y](../tinymemory-y/README.md) [code](src/engine.py) [web](https://example.com/a) "
        "[here](#usage)\n"
    )
    assert page_markdown(readme, plugins) == (
        "# x\n[home](../index.md) [guide](../engines/x.md#setup) "
        "[y](tinymemory-y.md) code [web](https://example.com/a) [here](#usage)\n"
    )
    assert page_markdown(plugins / "README.md", plugins) == "# Plugins\n[x](tinymemory-x.md)\n"
    assert list(plugin_pages(plugins)) == [
        "plugins/index.md",
        "plugins/tinymemory-x.md",
        "plugins/tinymemory-y.md",
    ]
