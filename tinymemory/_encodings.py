"""Text in any encoding a detector can name, with the encoding it was read in.

UTF-8 (with or without its byte order mark) is tried first, as nearly all
text today is; anything else is given to ``charset-normalizer`` (the detector
``requests`` uses), which names the encoding whose decoding reads most like
language. Data holding a NUL byte is never text, nor is a detected reading
holding control characters text does not use (all of C0 but tab, the line
ends, form feed, backspace and escape, which terminal output keeps): a
detector names some single-byte code page for any binary file, whose bytes
below 0x20 it leaves as they are. UTF-8 is checked for NUL alone, as its
validity is itself strong evidence of text. UTF-16 and UTF-32 are read by
their byte order mark alone (Windows' "Unicode" text files carry one). A
detector needs a few hundred bytes to tell languages apart: a line or two
of single-byte text may come back in a code page that reads it wrongly. When
it scores several code pages alike (Latin-1 text reads the same in most of
them but for a few letters), windows-1252 wins: the most used of them, and
the one WHATWG reads every page labelled ISO-8859-1 in.
"""

from __future__ import annotations

import re

import attrs

#: Byte order marks of the wide encodings (UTF-32 first: its mark begins with UTF-16's).
_UTF16_MARKS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
                (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))  # fmt: skip
#: Without a mark, a wide encoding is no reading of bytes free of NUL, whatever a detector says.
_UNMARKED_WIDE = ["utf_16", "utf_16_be", "utf_16_le", "utf_32", "utf_32_be", "utf_32_le"]
#: Among code pages a detector cannot tell apart, the one most text was written in.
_MOST_USED = "cp1252"
_NOT_TEXT = re.compile("[\x00-\x07\x0e-\x1a\x1c-\x1f\x7f]")


@attrs.frozen
class DecodedText:
    """``text`` and the ``encoding`` it was read in (Python's name, ``utf-8`` for UTF-8)."""

    text: str
    encoding: str


def decode_text(data: bytes) -> DecodedText | None:
    """``data`` as text, or None when it holds a NUL byte or no encoding reads it as text."""
    marked = next((name for bom, name in _UTF16_MARKS if data.startswith(bom)), None)
    if marked is not None:
        try:
            return DecodedText(data.decode(marked), marked)
        except UnicodeDecodeError:
            return None
    if b"\x00" in data:
        return None
    try:
        return DecodedText(data.decode("utf-8-sig"), "utf-8")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    matches = from_bytes(data, cp_exclusion=_UNMARKED_WIDE)
    best = matches.best()
    if best is None:
        return None
    tied = [m for m in matches if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
    best = next((m for m in tied if m.encoding == _MOST_USED), best)
    text = str(best)
    return None if _NOT_TEXT.search(text) else DecodedText(text, best.encoding)
