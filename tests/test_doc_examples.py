"""The examples of the README and of every docs page run as written and print what they show."""

from __future__ import annotations

import contextlib
import io

import pytest
from doc_examples import FENCE, ROOT, examples

# Every page of the site, in subfolders too; a plugin's page (docs/engines/) marks
# its examples ```py, and the plugin's tests run them.
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def test_the_readme_has_examples():
    assert len(examples(ROOT / "README.md")) >= 5


def console_blocks(page):
    return [
        body
        for language, body in FENCE.findall(page.read_text(encoding="utf-8"))
        if language == "console"
    ]


def test_the_docs_home_page_shows_the_readmes_two_commands():
    readme = console_blocks(ROOT / "README.md")[:2]
    assert len(readme) == 2
    assert console_blocks(ROOT / "docs" / "index.md")[:2] == readme


@pytest.mark.parametrize(("code", "expected"), [e for page in PAGES for e in examples(page)])
def test_example_runs_and_prints_what_it_shows(code, expected, monkeypatch):
    monkeypatch.delenv("TINYMEMORY_API_KEY", raising=False)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(code, "example", "exec"), {"__name__": "docs"})
    if expected is not None:
        assert output.getvalue() == expected


def test_every_readme_configuration_is_one_the_sdk_reads():
    import tinymemory as tm

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [body for language, body in FENCE.findall(readme) if language == "toml"]
    assert blocks
    for body in blocks:
        config = tm.MemoryConfig.from_toml(body)
        assert f'engine = "{config.engine}"' in body
        for settings in config.engines.values():
            assert settings.scope_root is None or f'"{settings.scope_root}"' in body


def test_every_readme_code_block_is_run_by_a_test():
    # python: above; py: the plugins' tests; console: the newcomer tests (the first
    # screen, the conformance lines) and the sqlite plugin's (`$ tinymemory` sessions);
    # toml: above; text: the output a block before it prints.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    languages = {language for language, _ in FENCE.findall(readme)}
    assert languages <= {"python", "py", "console", "toml", "text"}
