"""Reading markdown-ish text as blocks: headings, prose (unwrapped), code lines, table rows."""

from __future__ import annotations

import textwrap

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory._text_blocks import BlockKind, TextBlock, inline_text, text_blocks

H, P, C, T = BlockKind.HEADING, BlockKind.PROSE, BlockKind.CODE, BlockKind.TABLE_ROW


def kinds_and_texts(text: str) -> list[tuple[BlockKind, str]]:
    return [(block.kind, block.text) for block in text_blocks(text)]


@pytest.mark.parametrize("level", range(1, 7))
def test_atx_headings_of_every_level_with_or_without_closing_hashes(level: int) -> None:
    marks = "#" * level
    text = f"{marks} Root *cause*\n\nIt failed.\n\n{marks} Fix {marks}\n"
    assert kinds_and_texts(text) == [(H, "Root cause"), (P, "It failed."), (H, "Fix")]


def test_setext_headings_and_thematic_breaks() -> None:
    text = "Incident report\n===============\nThe API failed.\n\nRoot cause\n---\nA cert.\n\n***\n"
    assert kinds_and_texts(text) == [
        (H, "Incident report"),
        (P, "The API failed."),
        (H, "Root cause"),
        (P, "A cert."),
    ]
    # Not headings: a hashtag, seven hashes, a break after a blank line.
    assert kinds_and_texts("#tag here\n\n####### seven\n\n---\n") == [
        (P, "#tag here"),
        (P, "####### seven"),
    ]


@pytest.mark.parametrize("width", [12, 20, 33, 50, 79, 120])
def test_a_hard_wrapped_paragraph_is_one_line_again(width: int) -> None:
    paragraph = (
        "The root cause was an expired TLS certificate on the card gateway, which made "
        "every card charge fail for two hours until the on-call engineer renewed it."
    )
    wrapped = "\n".join(wrap(paragraph, width))
    assert kinds_and_texts(wrapped) == [(P, paragraph)]
    # Two trailing spaces (a hard break) still join the lines into the paragraph.
    assert kinds_and_texts(wrapped.replace("\n", "  \n")) == [(P, paragraph)]


@pytest.mark.parametrize("marker", ["-", "*", "+", "•", "1.", "2)", "10."])
def test_list_items_are_prose_with_their_wrapped_lines_joined(marker: str) -> None:
    pad = " " * (len(marker) + 1)
    text = (
        f"{marker} First item, wrapped\n{pad}onto a second line.\n"
        f"{marker} [x] Second item.\n"
        f"  {marker} Nested item\n  {pad}continued.\n"
        f"\n    Loose continuation of the item.\n"
    )
    assert kinds_and_texts(text) == [
        (P, "First item, wrapped onto a second line."),
        (P, "Second item."),
        (P, "Nested item continued."),
        (P, "Loose continuation of the item."),
    ]


def test_block_quotes_are_read_as_their_content() -> None:
    text = "> Quoted and\n> wrapped.\n>\n> - quoted item\n>> ## Deep heading\n>= 3 stays text\n"
    assert kinds_and_texts(text) == [
        (P, "Quoted and wrapped."),
        (P, "quoted item"),
        (H, "Deep heading"),
        (P, ">= 3 stays text"),
    ]


@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
def test_fenced_code_lines_are_code_even_when_they_look_like_markdown(fence: str) -> None:
    text = (
        f"Intro.\n\n{fence}python\n# not a heading\n- not an item\n\n"
        f'budget = "2,000 EUR"\n{fence}\nAfter.\n'
    )
    assert kinds_and_texts(text) == [
        (P, "Intro."),
        (C, "# not a heading"),
        (C, "- not an item"),
        (C, 'budget = "2,000 EUR"'),
        (P, "After."),
    ]


def test_a_longer_fence_holds_a_shorter_one_and_an_unclosed_fence_runs_to_the_end() -> None:
    text = "````\n```\ninside\n```\n````\nOut.\n\n```\nnever closed\n# still code"
    assert kinds_and_texts(text) == [
        (C, "```"),
        (C, "inside"),
        (C, "```"),
        (P, "Out."),
        (C, "never closed"),
        (C, "# still code"),
    ]
    # Inline backticks on one line open no fence.
    assert kinds_and_texts("```inline``` code") == [(P, "inline code")]


def test_indented_code_after_a_blank_line_outside_a_list() -> None:
    text = "Run this:\n\n    tinymemory ingest docs\n\n    tinymemory recall 'x'\nBack to prose.\n"
    assert kinds_and_texts(text) == [
        (P, "Run this:"),
        (C, "tinymemory ingest docs"),
        (C, "tinymemory recall 'x'"),
        (P, "Back to prose."),
    ]
    assert kinds_and_texts("\tindented by a tab\n") == [(C, "indented by a tab")]
    # Indented right after a prose line: a continuation, not code.
    assert kinds_and_texts("Prose\n    continued.\n") == [(P, "Prose continued.")]


@pytest.mark.parametrize(
    ("header", "delimiter", "row"),
    [
        ("| Plan | Price |", "| --- | ---: |", "| Pro | 49 EUR |"),
        ("Plan | Price", "--- | ---", "Pro | 49 EUR"),
        ("|Plan|Price|", "|:-:|:--|", "|Pro|49 EUR|"),
    ],
)
def test_pipe_tables_with_or_without_outer_pipes(header: str, delimiter: str, row: str) -> None:
    text = f"Prices:\n\n{header}\n{delimiter}\n{row}\n| **Team** | 99 \\| 199 EUR |\n"
    assert text_blocks(text) == [
        TextBlock(P, "Prices:"),
        TextBlock(T, "Plan | Price"),
        TextBlock(T, "Pro | 49 EUR", "Plan | Price"),
        TextBlock(T, "Team | 99 | 199 EUR", "Plan | Price"),
    ]


def test_tables_without_a_delimiter_row() -> None:
    # Rows starting with a pipe (a table cut in two), and tab-separated rows.
    assert kinds_and_texts("| Pro | 49 EUR |\n| Team | 99 EUR |") == [
        (T, "Pro | 49 EUR"),
        (T, "Team | 99 EUR"),
    ]
    assert text_blocks("Plan\tPrice\nPro\t49 EUR\n") == [
        TextBlock(T, "Plan | Price"),
        TextBlock(T, "Pro | 49 EUR", "Plan | Price"),
    ]
    # A pipe in prose makes no table.
    assert kinds_and_texts("Use a | b to pipe.") == [(P, "Use a | b to pipe.")]


@pytest.mark.parametrize(
    ("markdown", "text"),
    [
        ("**bold** and __strong__", "bold and strong"),
        ("*em* and _em_ but snake_case_name", "em and em but snake_case_name"),
        ("~~gone~~ here", "gone here"),
        ("see [the docs](https://x.test/a_b) and [ref][1]", "see the docs and ref"),
        ("![a chart](chart.png) shows it", "a chart shows it"),
        ("<https://x.test> or <b>bold</b>", "https://x.test or bold"),
        ("call `tm.recall(**x)` now", "call tm.recall(**x) now"),
        ("a note[^1] and \\*stars\\*", "a note and *stars*"),
        ("  spaced\t out  ", "spaced out"),
    ],
)
def test_inline_markdown_is_reduced_to_its_text(markdown: str, text: str) -> None:
    assert inline_text(markdown) == text


# --- a model of documents: blocks drawn, rendered as markdown, read back -------------------

WORDS = {
    "latin": ["budget", "trip", "hotel", "gateway", "renewed", "café", "naïve", "größe"],
    "greek": ["προϋπολογισμός", "ταξίδι", "ξενοδοχείο"],
    "cyrillic": ["бюджет", "поездка", "гостиница"],
    "numbers": ["1,200", "EUR", "2026", "42"],
}
ALL_WORDS = [word for group in WORDS.values() for word in group]


@st.composite
def prose_sentence(draw: st.DrawFn) -> str:
    """A sentence: a capitalised first word, more words, an end mark."""
    count = draw(st.integers(1, 9))
    # A sentence does not open with a number: `2026.` alone would be a list item.
    chosen = [
        draw(st.sampled_from(ALL_WORDS[:-4] if not index else ALL_WORDS)) for index in range(count)
    ]
    chosen[0] = chosen[0][0].upper() + chosen[0][1:]
    return " ".join(chosen) + draw(st.sampled_from([".", "!", "?"]))


CJK_SENTENCES = ["東京は晴れ。", "予算は千二百ユーロです。", "これは何ですか？"]  # noqa: RUF001
HINDI_SENTENCES = ["यह बजट है।", "होटल पास है।"]


@st.composite
def sentence_run(draw: st.DrawFn) -> list[str]:
    return draw(
        st.lists(
            st.one_of(prose_sentence(), st.sampled_from(CJK_SENTENCES + HINDI_SENTENCES)),
            min_size=1,
            max_size=4,
        )
    )


MARKUP = ["**{}**", "*{}*", "_{}_", "~~{}~~", "`{}`", "[{}](https://x.test/p)"]


@st.composite
def marked_up(draw: st.DrawFn, text: str) -> str:
    """``text`` with some of its words wrapped in inline markup."""
    out = []
    for word in text.split(" "):
        if draw(st.booleans()) and word[-1].isalnum():
            word = draw(st.sampled_from(MARKUP)).format(word)
        out.append(word)
    return " ".join(out)


def wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False) or [text]


@attrs.frozen
class Drawn:
    markdown: str
    blocks: list[tuple[BlockKind, str]]
    #: Whether a list (or a quote) was the last block: indented code cannot follow it.
    listy: bool = False


@st.composite
def heading(draw: st.DrawFn) -> Drawn:
    title = " ".join(draw(st.lists(st.sampled_from(ALL_WORDS), min_size=1, max_size=4)))
    if draw(st.booleans()):
        level = draw(st.integers(1, 6))
        closing = " " + "#" * level if draw(st.booleans()) else ""
        markdown = f"{'#' * level} {draw(marked_up(title))}{closing}"
    else:
        markdown = f"{draw(marked_up(title))}\n{draw(st.sampled_from(['===', '---', '=']))}"
    return Drawn(markdown, [(H, title)])


@st.composite
def paragraph(draw: st.DrawFn) -> Drawn:
    text = " ".join(draw(sentence_run()))
    lines = wrap(draw(marked_up(text)), draw(st.integers(10, 100)))
    return Drawn("\n".join(lines), [(P, text)])


@st.composite
def bullet_list(draw: st.DrawFn) -> Drawn:
    marker = draw(st.sampled_from(["-", "*", "+", "1.", "1)"]))
    lines, blocks = [], []
    depth = -1
    for _ in range(draw(st.integers(1, 4))):
        depth = draw(st.integers(0, depth + 1))  # one level deeper at most
        text = " ".join(draw(sentence_run()))
        indent = " " * (depth * (len(marker) + 1))
        pad = indent + " " * (len(marker) + 1)
        wrapped = wrap(draw(marked_up(text)), draw(st.integers(10, 80)))
        lines.append(f"{indent}{marker} {wrapped[0]}")
        lines.extend(pad + line for line in wrapped[1:])
        blocks.append((P, text))
    return Drawn("\n".join(lines), blocks, listy=True)


@st.composite
def quote(draw: st.DrawFn) -> Drawn:
    inner = draw(st.one_of(paragraph(), bullet_list()))
    prefix = draw(st.sampled_from([">", "> ", ">> "]))
    lines = [prefix + line if line else ">" for line in inner.markdown.splitlines()]
    return Drawn("\n".join(lines), inner.blocks, listy=True)


CODE_LINES = [
    'budget = "2,000 EUR"',
    "# a comment, not a heading",
    "- 1",
    "def plan(trip):",
    "    return trip.hotel",
    "| not | a table |",
    "> not a quote",
]


@st.composite
def fenced_code(draw: st.DrawFn) -> Drawn:
    fence = draw(st.sampled_from(["```", "~~~", "````"]))
    info = draw(st.sampled_from(["", "python", "toml"]))
    code = draw(st.lists(st.sampled_from(CODE_LINES), min_size=1, max_size=5))
    markdown = "\n".join([fence + info, *code, fence])
    return Drawn(markdown, [(C, line.strip()) for line in code])


@st.composite
def indented_code(draw: st.DrawFn) -> Drawn:
    code = draw(st.lists(st.sampled_from(CODE_LINES), min_size=1, max_size=4))
    return Drawn("\n".join("    " + line for line in code), [(C, line.strip()) for line in code])


@st.composite
def table(draw: st.DrawFn) -> Drawn:
    width = draw(st.integers(1, 4))
    outer = draw(st.booleans()) or width == 1  # one column needs its pipes
    rows = draw(
        st.lists(
            st.lists(st.sampled_from(ALL_WORDS), min_size=width, max_size=width),
            min_size=2,
            max_size=5,
        )
    )

    def line(cells: list[str]) -> str:
        inner = " | ".join(cells)
        return f"| {inner} |" if outer else inner

    lines = [line(rows[0]), line(["---"] * width), *(line(row) for row in rows[1:])]
    return Drawn("\n".join(lines), [(T, " | ".join(row)) for row in rows])


@st.composite
def documents(draw: st.DrawFn) -> Drawn:
    parts: list[Drawn] = []
    for _ in range(draw(st.integers(1, 7))):
        choices = [heading(), paragraph(), bullet_list(), quote(), fenced_code(), table()]
        if parts and not parts[-1].listy:
            choices.append(indented_code())
        parts.append(draw(st.one_of(choices)))
    separator = draw(st.sampled_from(["\n\n", "\n\n\n", "\n \n"]))
    markdown = separator.join(part.markdown for part in parts)
    return Drawn(markdown, [block for part in parts for block in part.blocks])


@settings(max_examples=100, deadline=None)
@given(documents())
def test_every_drawn_document_reads_back_as_the_blocks_it_was_drawn_from(doc: Drawn) -> None:
    assert kinds_and_texts(doc.markdown) == doc.blocks


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_reads_without_error_into_blocks_with_text(text: str) -> None:
    for block in text_blocks(text):
        assert block.text
        assert block.text == block.text.strip()
        assert block.kind is not BlockKind.PROSE or any(char.isalnum() for char in block.text)
