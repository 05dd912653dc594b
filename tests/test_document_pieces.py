"""Cutting a long document into pieces: reference notes, "Document chunking"."""

from __future__ import annotations

import json
import re
import time
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinymemory._document_pieces import MAX_SECTION_CHARS, Piece, cut_pieces, utf8_size
from tinymemory._errors import InvalidRequest


def texts(pieces: list[Piece]) -> list[str]:
    return [piece.text for piece in pieces]


def json_size(text: str) -> int:
    """A JSON-escaped length, the measure an engine with a JSON wire would use."""
    return utf8_size(json.dumps(text, ensure_ascii=False)) - 2


# --- a literal reading of the rules, slow and plain, to check the real cut against ---


def reference_pieces(text, target, size=utf8_size):
    if not text:
        return []
    # Units: cut after each page break and before each heading line.
    headings = {}
    line_starts = [0] + [i + 1 for i, char in enumerate(text) if char in "\n\f"]
    for start in line_starts:
        line = re.match(r"[^\n\f]*", text[start:]).group()
        heading = re.fullmatch(r" {0,3}#{1,6} (.*)", line)
        if heading:
            title = heading.group(1).strip().rstrip("#").rstrip()
            if title:
                headings[start] = title[:MAX_SECTION_CHARS].rstrip()
    page_starts = [i + 1 for i, char in enumerate(text) if char == "\f"]
    cuts = sorted({0, len(text), *headings, *page_starts})
    units = []
    pending = 0
    for start, end in pairwise(cuts):
        if text[start:end].strip():
            units.append([pending, end])
            pending = end
    if pending < len(text):
        if units:
            units[-1][1] = len(text)
        else:
            units.append([0, len(text)])

    # Parts: a unit over the target is cut after blank lines, line ends, characters.
    def parts(start, end, level):
        if size(text[start:end]) <= target:
            return [(start, end)]
        if level == 2:
            found = []
            while start < end:
                stop = start + 1
                while stop < end and size(text[start : stop + 1]) <= target:
                    stop += 1
                found.append((start, stop))
                start = stop
            return found
        separator = r"\n\n+" if level == 0 else r"\n"
        points = [start]
        points += [start + m.end() for m in re.finditer(separator, text[start:end])]
        points = sorted({*points, end})
        return [part for a, b in pairwise(points) for part in parts(a, b, level + 1)]

    items = [part for start, end in units for part in parts(start, end, 0)]
    spans = []
    for start, end in items:
        if spans and size(text[spans[-1][0] : end]) <= target:
            spans[-1][1] = end
        else:
            spans.append([start, end])

    def page(position):
        return text.count("\f", 0, position) + 1

    pieces = []
    for start, end in spans:
        body = text[start:end]
        content = [start + i for i, char in enumerate(body) if not char.isspace()]
        first, last = (content[0], content[-1]) if content else (start, end - 1)
        section = None
        for heading_start, title in headings.items():
            if heading_start <= first:
                section = title
        pages = (page(first), page(last)) if "\f" in text else None
        pieces.append(Piece(text=body, start=start, pages=pages, section=section))
    return pieces


# --- examples -----------------------------------------------------------------------


def test_a_text_that_fits_is_one_piece():
    assert cut_pieces("# Notes\nshort", 100) == [Piece("# Notes\nshort", 0, section="Notes")]


def test_an_empty_text_has_no_pieces():
    assert cut_pieces("", 10) == []


@pytest.mark.parametrize("target", [0, -1])
def test_the_target_must_be_positive(target):
    with pytest.raises(InvalidRequest, match=f"piece target must be at least 1, not {target}"):
        cut_pieces("text", target)


def test_page_breaks_give_page_tags():
    pieces = cut_pieces("one\ftwo", 4)
    assert texts(pieces) == ["one\f", "two"]
    assert [piece.tags() for piece in pieces] == [("page:1",), ("page:2",)]


def test_a_piece_over_several_pages_has_a_range():
    (piece,) = cut_pieces("a\fb\fc", 100)
    assert piece.pages == (1, 3)
    assert piece.tags() == ("page:1-3",)


def test_without_page_breaks_there_are_no_pages():
    assert all(piece.pages is None for piece in cut_pieces("a\n\nb\nc" * 10, 5))


def test_headings_cut_units_and_name_sections():
    text = "intro\n# First #\nbody one\n  ## Second ##\nbody\n"
    pieces = cut_pieces(text, 20)
    assert texts(pieces) == ["intro\n", "# First #\nbody one\n", "  ## Second ##\nbody\n"]
    assert [piece.section for piece in pieces] == [None, "First", "Second"]
    assert pieces[1].tags() == ("section:First",)


def test_a_section_holds_across_pages_until_the_next_heading():
    pieces = cut_pieces("# Scope\nfirst page\fsecond page", 12)
    assert texts(pieces) == ["# Scope\n", "first page\f", "second page"]
    assert [piece.tags() for piece in pieces] == [
        ("page:1", "section:Scope"),
        ("page:1", "section:Scope"),
        ("page:2", "section:Scope"),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "    # four spaces is code",
        "#no space",
        "####### seven",
        "#",
        "# ",
        "## ###",
        "\t# tab",
    ],
)
def test_lines_that_are_not_headings(line):
    pieces = cut_pieces(f"abc\n{line}\nxyz", 4 + len(line) + 5)
    assert texts(pieces) == [f"abc\n{line}\nxyz"]
    assert pieces[0].section is None


def test_a_heading_may_open_a_page():
    pieces = cut_pieces("abc\f# Next\nx", 8)
    assert texts(pieces) == ["abc\f", "# Next\nx"]
    assert pieces[1].tags() == ("page:2", "section:Next")


def test_section_titles_are_cut_to_120_characters():
    (piece,) = cut_pieces("# " + "t" * 130 + " ##\nbody", 1000)
    assert piece.section == "t" * 120


def test_whitespace_joins_the_unit_after_it():
    text = "# A\nbody\f \n\f# B\nmore"
    pieces = cut_pieces(text, 11)
    # The blank second page is no unit of its own: it opens the unit of page 3.
    assert texts(pieces) == ["# A\nbody\f", " \n\f# B\nmore"]
    assert [piece.tags() for piece in pieces] == [("page:1", "section:A"), ("page:3", "section:B")]


def test_whitespace_at_the_end_joins_the_unit_before_it():
    pieces = cut_pieces("# A\nx\f\n \f  ", 12)
    assert texts(pieces) == ["# A\nx\f\n \f  "]
    assert pieces[0].pages == (1, 1)


def test_a_text_of_only_whitespace_is_kept():
    assert texts(cut_pieces(" \n\f\n ", 100)) == [" \n\f\n "]
    assert "".join(texts(cut_pieces(" \n\f\n ", 2))) == " \n\f\n "


def test_an_oversized_unit_is_cut_at_blank_lines_then_line_ends_then_characters():
    text = "aaaa\n\nbb\ncc\nddddddddd"
    assert texts(cut_pieces(text, 6)) == ["aaaa\n\n", "bb\ncc\n", "dddddd", "ddd"]


def test_a_run_of_blank_lines_stays_with_the_paragraph_before_it():
    assert texts(cut_pieces("one\n\n\n\ntwo two", 7)) == ["one\n\n\n\n", "two two"]


def test_parts_of_an_oversized_unit_pack_with_the_units_around_them():
    text = "# A\nx\n# B\nline one\nline two\n# C\ny"
    pieces = cut_pieces(text, 14)
    assert texts(pieces) == ["# A\nx\n# B\n", "line one\n", "line two\n# C\ny"]
    assert [piece.section for piece in pieces] == ["A", "B", "B"]


def test_multi_byte_text_is_cut_between_characters_by_bytes():
    pieces = cut_pieces("日本語テキスト", 7)  # 3 bytes each
    assert texts(pieces) == ["日本", "語テ", "キス", "ト"]
    assert [piece.start for piece in pieces] == [0, 2, 4, 6]


def test_a_character_over_the_target_is_a_piece_of_its_own():
    assert texts(cut_pieces("a😀b", 3)) == ["a", "😀", "b"]


def test_a_custom_measure():
    # A newline is 2 bytes escaped: "ab\n" is 4, not 3.
    assert texts(cut_pieces("ab\ncd\n", 4, size=json_size)) == ["ab\n", "cd\n"]
    assert texts(cut_pieces("ab\ncd\n", 4)) == ["ab\n", "cd\n"]
    assert texts(cut_pieces("ab\ncd\n", 6)) == ["ab\ncd\n"]
    assert texts(cut_pieces("ab\ncd\n", 6, size=json_size)) == ["ab\n", "cd\n"]


def test_utf8_size():
    assert utf8_size("aé中😀") == 1 + 2 + 3 + 4
    assert utf8_size("\ud800") == 3


def test_tags():
    assert Piece("x", 0).tags() == ()
    assert Piece("x", 0, pages=(2, 2)).tags() == ("page:2",)
    assert Piece("x", 0, pages=(3, 5), section="Pricing").tags() == ("page:3-5", "section:Pricing")
    assert Piece("x", 0, section="Pricing").tags() == ("section:Pricing",)


@pytest.mark.parametrize(
    "text",
    [
        "word " * 2_000_000,
        "short line\n" * 1_000_000,
        "\n" * 10_000_000,
        "page\f" * 2_000_000,
        ("# Heading\n\n" + "Some text on a line of its own.\n" * 20 + "\f") * 15_000,
    ],
    ids=["one-line", "lines", "newlines", "pages", "document"],
)
def test_ten_megabytes_cut_in_linear_time(text):
    # A quadratic cut would take minutes here; the bound is loose. CPU seconds, not wall
    # seconds: other processes on a loaded machine stretch the one, not the other.
    began = time.process_time()
    pieces = cut_pieces(text, 2_000)
    assert time.process_time() - began < 5
    assert sum(len(piece.text) for piece in pieces) == len(text)


# --- properties -----------------------------------------------------------------------

FRAGMENTS = [
    "\n",
    "\n\n",
    "\f",
    " ",
    "   ",
    "\t",
    "\r\n",
    "#",
    "# ",
    "## Title",
    "  # A ##",
    "    # code",
    "# #",
    "####### x",
    "word",
    "é",
    "中",
    "😀",
]
FRAGMENT = st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6))
TEXTS = st.lists(FRAGMENT, max_size=40).map("".join)


def check_pieces(text, target, size, pieces):
    assert "".join(texts(pieces)) == text
    position = 0
    for piece in pieces:
        assert piece.text
        assert piece.start == position
        position += len(piece.text)
        assert size(piece.text) <= target or len(piece.text) == 1
        if piece.section is not None:
            assert 0 < len(piece.section) <= MAX_SECTION_CHARS
            assert piece.section == piece.section.strip()
    if "\f" in text:
        pages = [page for piece in pieces for page in piece.pages]
        assert pages == sorted(pages)
        assert pages[0] >= 1
        assert pages[-1] <= text.count("\f") + 1
    else:
        assert all(piece.pages is None for piece in pieces)


@settings(max_examples=500, deadline=None)
@given(TEXTS, st.integers(1, 40))
def test_pieces_give_the_text_back_within_the_target(text, target):
    pieces = cut_pieces(text, target)
    check_pieces(text, target, utf8_size, pieces)
    assert pieces == reference_pieces(text, target)


@settings(max_examples=200, deadline=None)
@given(TEXTS, st.integers(1, 40))
def test_pieces_by_a_custom_measure(text, target):
    pieces = cut_pieces(text, target, size=json_size)
    check_pieces(text, target, json_size, pieces)
    assert pieces == reference_pieces(text, target, size=json_size)


@settings(max_examples=200, deadline=None)
@given(TEXTS)
def test_a_text_within_the_target_is_one_piece(text):
    pieces = cut_pieces(text, max(utf8_size(text), 1))
    assert texts(pieces) == ([text] if text else [])
    assert pieces == reference_pieces(text, max(utf8_size(text), 1))


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab ", min_size=1, max_size=200), st.integers(1, 30))
def test_one_line_fills_every_piece_but_the_last(text, target):
    pieces = cut_pieces(text, target)
    assert [len(piece.text) for piece in pieces[:-1]] == [target] * (len(pieces) - 1)
    assert 0 < len(pieces[-1].text) <= target
