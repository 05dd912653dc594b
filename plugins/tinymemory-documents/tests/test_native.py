"""The native converter, through ``tm.convert``: text kept, HTML and CSV to markdown."""

from __future__ import annotations

from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory_documents import Limits, NativeConverter


def test_markdown_text_and_code_are_kept_as_written(tmp_path: Path) -> None:
    markdown = "# Plan\n\n  - keep   spacing\n\n\n\ttabs\n"
    document = tm.convert(markdown.encode(), name="plan.md")
    assert (document.body.text, document.title, document.mime) == (
        markdown,
        "Plan",
        "text/markdown",
    )

    code = "# a comment, no title\nimport os\n"
    file = tmp_path / "tool.py"
    file.write_text(code, encoding="utf-8")
    document = tm.convert(file)
    assert document.body.text == code
    assert (document.title, document.mime, document.meta.language) == (
        "tool.py",
        "text/x-source",
        "python",
    )
    assert document.meta.file_path == str(file.resolve())

    text = tm.convert("caf\u00e9 notes\n".encode(), name="notes.txt")
    assert (text.body.text, text.title, text.mime) == (
        "caf\u00e9 notes\n",
        "notes.txt",
        "text/plain",
    )


def test_the_callers_language_wins_over_the_file_names() -> None:
    document = tm.convert(b"fn main() {}", name="main.rs", meta=tm.MemoryMeta(language="en"))
    assert document.meta.language == "en"
    assert tm.convert(b"fn main() {}", name="main.rs").meta.language == "rust"


LATIN_1 = (
    "Dieses Paket enth\u00e4lt die Dokumentation f\u00fcr das Programm. Die \u00dcbersetzung "
    "wurde von J\u00fcrgen M\u00fcller erstellt.\nBitte melden Sie Fehler an die Betreuer. "
    "Gr\u00fc\u00dfe aus K\u00f6ln.\nCopyright 1998 Fran\u00e7ois Ren\u00e9, "
    "caf\u00e9 na\u00efve.\n"
)


def test_text_in_another_encoding_is_read_and_its_encoding_recorded() -> None:
    document = tm.convert(LATIN_1.encode("latin-1"), name="menu.txt")
    assert document.body.text == LATIN_1
    assert document.mime is not None
    assert document.mime.startswith("text/plain; charset=")
    # with no name to go by, sniffing still finds it is text
    assert tm.convert(LATIN_1.encode("latin-1")).body.text == LATIN_1


def test_binary_data_in_no_encoding_is_an_invalid_request() -> None:
    with pytest.raises(tm.InvalidRequest, match=r"`menu.txt` is not text in any encoding"):
        tm.convert(bytes(range(1, 256)), name="menu.txt")


PAGE = """<!DOCTYPE html>
<html><head><title>Release &amp; notes</title>
<style>body { color: red }</style><script>var secret = 1;</script></head>
<body>
<!-- a comment nobody should store -->
<noscript>enable javascript</noscript>
<template><p>never shown</p></template>
<h1>Version <em>2.0</em></h1>
<p>It is  <strong>faster</strong>,&nbsp;smaller &lt;and&gt; safer.<br>See
<a href="https://example.com/docs">the docs</a>
or <a href="https://example.com/x"></a>.</p>
<h3>Changes</h3>
<ul><li>New parser<ul><li>streaming</li></ul></li><li>Fewer <code>deps</code></li></ul>
<ol><li>Upgrade<li>Restart</ol>
<blockquote><p>Best release yet.</p></blockquote>
<pre><code class="language-sh">pip install tool
tool --help</code></pre>
<table>
<thead><tr><th>Metric</th><th>Before</th><th>After</th></tr></thead>
<tbody><tr><td>Speed</td><td>1x</td><td>3x</td></tr><tr><td>Size | MB</td><td>12</td></tr></tbody>
</table>
<hr>
<svg><text>drawing text</text></svg>
<p>Thanks, <i>team</i>.</p>
</body></html>
"""

EXPECTED = """# Version *2.0*

It is **faster**,\u00a0smaller <and> safer.\x20\x20
See [the docs](https://example.com/docs) or <https://example.com/x>.

### Changes

- New parser
  - streaming
- Fewer `deps`

1. Upgrade
2. Restart

> Best release yet.

```sh
pip install tool
tool --help
```

| Metric | Before | After |
| --- | --- | --- |
| Speed | 1x | 3x |
| Size \\| MB | 12 | |

---

Thanks, *team*."""


def test_html_becomes_clean_markdown_titled_by_its_title_tag() -> None:
    document = tm.convert(PAGE.encode(), name="notes.html")
    assert document.body.text == EXPECTED
    assert (document.title, document.mime) == ("Release & notes", "text/html")
    for dropped in ("secret", "comment", "javascript", "never shown", "drawing", "color"):
        assert dropped not in document.body.text


def test_html_without_a_title_is_titled_by_its_first_heading_else_its_name() -> None:
    assert tm.convert(b"<p>intro</p><h2>Scope</h2>", name="a.html").title == "Scope"
    assert tm.convert(b"<html><p>just text</p>", name="b.html").title == "b.html"


def test_html_in_a_declared_charset_is_decoded() -> None:
    page = '<html><meta charset="iso-8859-1"><p>caf\u00e9</p>'.encode("latin-1")
    assert tm.convert(page, name="old.html").body.text == "caf\u00e9"
    undeclared = f"<html><body><p>{LATIN_1}</p></body></html>".encode("latin-1")
    read = tm.convert(undeclared, name="old.html")
    assert read.body.text == " ".join(LATIN_1.split())  # HTML folds its white space
    assert read.mime is not None
    assert read.mime.startswith("text/html; charset=")


def test_deeply_nested_html_converts_without_recursion() -> None:
    page = "<div>" * 50_000 + "deep text" + "</div>" * 50_000
    assert tm.convert(page.encode(), name="deep.html").body.text == "deep text"


def test_html_with_no_text_is_an_invalid_request() -> None:
    with pytest.raises(tm.InvalidRequest, match=r"`empty\.html` holds no text to convert"):
        tm.convert(b"<html><script>x()</script></html>", name="empty.html")


def test_csv_becomes_a_markdown_table() -> None:
    data = b'name,team,note\nAda,core,"says ""hi"", often"\nBob,,a|b\n\n'
    document = tm.convert(data, name="people.csv")
    assert document.body.text == (
        "| name | team | note |\n"
        "| --- | --- | --- |\n"
        '| Ada | core | says "hi", often |\n'
        "| Bob | | a\\|b |"
    )
    assert (document.title, document.mime) == ("people.csv", "text/csv")
    semicolons = tm.convert(b"a;b\n1;2\n", name="eu.csv").body.text
    assert semicolons.splitlines()[2] == "| 1 | 2 |"
    assert tm.convert(b"a\tb\n1\t2\n", name="t.tsv").body.text.splitlines()[0] == "| a | b |"


def test_a_csv_over_the_cell_limit_is_refused() -> None:
    converter = NativeConverter(Limits(max_cells=10))
    with pytest.raises(tm.InvalidRequest, match="over 10 cells"):
        tm.convert(b"a,b,c\n" * 4, name="big.csv", converters=[converter])


def test_the_raw_size_cap_and_an_empty_file_are_refused() -> None:
    converter = NativeConverter(Limits(max_bytes=100))
    with pytest.raises(tm.InvalidRequest, match="is 101 bytes, over the 100-byte limit"):
        tm.convert(b"x" * 101, name="big.txt", converters=[converter])
    with pytest.raises(tm.InvalidRequest, match=r"`none\.md` is empty"):
        tm.convert(b"", name="none.md", mime="text/markdown")


def test_limits_must_be_positive() -> None:
    with pytest.raises(tm.InvalidRequest, match="`max_cells` must be a positive number"):
        Limits(max_cells=0)
