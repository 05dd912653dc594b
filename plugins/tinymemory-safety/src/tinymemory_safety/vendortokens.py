"""Tokens of any vendor, as a class: a short prefix, a separator, a random body.

Vendors announce their tokens with a short prefix (``tskey-api-``, ``sgp_``,
``pat.``, ``st.``, ``bkua_``) and then a body their issuer drew at random: hex,
base62, or several such segments joined by ``_``, ``-`` or ``.`` (an id and a
secret). The catalogue of :mod:`tinymemory_safety.providers` names the vendors
it knows; this rule takes the ones it does not, by what makes a body random
rather than by a vendor's name:

- **The prefix** is one to four name-like parts (letters of one case, digits
  only at the end, at most ten characters: ``tskey``, ``api``, ``v1``,
  ``live``), the first of two or more letters, starting a word, each followed
  by one separator (``KEY-----`` of a PEM line is no prefix).
- **The body** is the rest of the word, cut at the separators into segments.
  A segment of :data:`JUDGED` characters or more is *random* when it mixes
  two or more kinds of character (small letters, capitals, digits) and
  changes kind as often as a random draw does: a random string over an
  alphabet of kinds with shares ``s`` changes kind at a character with
  probability ``p = 1 - sum(s**2)`` (0.62 for base62, 0.47 for hex, 0.40 for
  small letters and digits), so its runs of one kind average ``1/p``
  characters; a segment whose runs average more than twice that is words and
  numbers (``manylinux2014``, ``Base64Encoder``), not a draw; and a segment of both
  cases is not one when words of a capital and small letters cover more than half of it
  (``getUserProfileById2``).
- **Enough randomness**: the random segments hold :data:`MIN_RANDOM`
  characters or more and more than :data:`MIN_BITS` bits, each character
  worth ``log2`` of its segment's alphabet (16 for hex, 36 for small letters
  and digits, 62 for both cases and digits). Object ids an API hands out
  (Stripe's 24 characters, MongoDB's 24 hex digits, a ULID's 26, a UUID's 32 hex
  digits) stop at 32 characters and a UUID or an MD5 digest carries 128 bits,
  so neither is enough; every vendor secret of the catalogue has more.
  The body as a whole holds a digit and a letter (a name of letters is no draw).

What is left alone though it has the shape: a prefix that names what the body
is (``sha256-``, ``commit_``, ``build-``, ``id-``, ``uuid_``: a digest, a
revision or an identifier, not a credential), a word ending in a file's
extension (``main.<hash>.js``, ``<name>-<digest>.tar.gz``), and a run of
base64 that goes on with ``+``, ``/`` or ``=``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

#: The shortest segment whose randomness is judged (shorter ones are let through unjudged).
JUDGED = 8
#: The fewest random characters a body holds: more than an API's object ids (see module).
MIN_RANDOM = 32
#: The bits a body must exceed: a UUID's or an MD5 digest's 128.
MIN_BITS = 128
#: A run's mean length may be this many times a random draw's before the segment is words.
_RUN_SLACK = 2.0

#: A candidate: a prefix's first part and a separator, then a long run of token characters.
_CANDIDATE = re.compile(r"(?a)(?<![A-Za-z0-9._-])[A-Za-z][A-Za-z0-9]{1,9}[._-][A-Za-z0-9._-]{31,}+")
_SEGMENTS = re.compile(r"(?a)[A-Za-z0-9]++")
_SEPARATORS = re.compile(r"(?a)[._-]++")
#: A name-like prefix part: letters of one case, digits only at its end.
_PREFIX_PART = re.compile(r"(?a)(?:[a-z]{1,10}|[A-Z]{1,10})[0-9]{0,3}")
#: Prefix words saying what the body is: a digest, a revision, an identifier.
_NAMING_PARTS = frozenset(
    {"sha", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3", "md5", "blake2b",
     "blake2s", "blake3", "crc32", "xxh64", "hash", "digest", "checksum", "sum", "etag",
     "integrity", "commit", "rev", "revision", "ref", "git", "build", "release", "version",
     "id", "ids", "uuid", "guid", "uid", "oid", "object", "obj", "blob", "tree", "tag",
     "snapshot", "image", "layer", "trace", "span", "request", "req", "correlation"}
)  # fmt: skip
#: A file's extension: the word ends with ``.`` and a few small letters (and digits).
_EXTENSION = re.compile(r"(?a)\.[a-z][a-z0-9]{0,4}$")
#: A word of a camelCase name: a capital or none, then three small letters or more.
_WORD = re.compile(r"(?a)[A-Z]?[a-z]{3,}")
#: The share of a mixed-case segment such words may cover in a random draw: a base62 draw
#: of 16 has more than half of it in them about one time in twenty-five, a camelCase
#: name almost always.
_WORDS_SHARE = 0.5
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")
_HEX_LETTERS = frozenset("abcdef")
#: The sizes of the kinds: small letters, capitals, digits.
_SIZES = (26, 26, 10)


def _words_share(segment: str) -> float:
    return sum(len(word) for word in _WORD.findall(segment)) / len(segment)


def _kind(char: str) -> int:
    return 0 if char in _LOWER else 1 if char in _UPPER else 2


def segment_bits(segment: str) -> float:
    """The bits a random segment carries, or 0.0 when it is not judged random (see module)."""
    if len(segment) < JUDGED:
        return 0.0
    counts = [0, 0, 0]
    runs = 1
    previous = _kind(segment[0])
    counts[previous] += 1
    for char in segment[1:]:
        kind = _kind(char)
        counts[kind] += 1
        if kind != previous:
            runs += 1
            previous = kind
    if sum(1 for count in counts if count) < 2:
        return 0.0
    letters = set(segment.lower()) - _DIGITS
    # The alphabet the segment was drawn from: hex, or the kinds it holds.
    if (not counts[0] or not counts[1]) and letters <= _HEX_LETTERS:
        alphabet, shares = 16, [6 / 16, 10 / 16]
    else:
        sizes = [size for size, count in zip(_SIZES, counts, strict=True) if count]
        alphabet = sum(sizes)
        shares = [size / alphabet for size in sizes]
    change = 1.0 - sum(share * share for share in shares)
    if len(segment) / runs > _RUN_SLACK / change:
        return 0.0
    if counts[0] and counts[1] and _words_share(segment) > _WORDS_SHARE:
        return 0.0  # camelCase: capitals open words of small letters
    return len(segment) * math.log2(alphabet)


def vendor_token(word: str) -> bool:
    """Whether ``word`` (a whole word of token characters) is a vendor token (see module)."""
    if _EXTENSION.search(word):
        return False
    segments = _SEGMENTS.findall(word)
    prefix = 0
    while prefix < min(4, len(segments) - 1) and _PREFIX_PART.fullmatch(segments[prefix]):
        if segments[prefix].lower().rstrip("0123456789") in _NAMING_PARTS or (
            segments[prefix].lower() in _NAMING_PARTS
        ):
            return False
        prefix += 1
    if prefix == 0 or len(segments[0]) < 2:
        return False
    if any(len(run) > 1 for run in _SEPARATORS.findall(word)[:prefix]):
        return False  # ``KEY-----``, ``a__b``: a rule or a name's padding, not a prefix
    body = segments[prefix:]
    joined = "".join(body)
    if not any(char.isdigit() for char in joined) or not any(char.isalpha() for char in joined):
        return False
    bits = 0.0
    characters = 0
    for segment in body:
        worth = segment_bits(segment)
        if worth:
            bits += worth
            characters += len(segment)
    return characters >= MIN_RANDOM and bits > MIN_BITS


def vendor_tokens(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """The spans of vendor tokens in ``text[start:end]`` (a long word of the text)."""
    for found in _CANDIDATE.finditer(text, start, end):
        word = found.group().rstrip("._-")
        stop = found.start() + len(word)
        if text[stop : stop + 1] in {"+", "/", "="} and stop < end:
            continue  # a run of base64 goes on
        if vendor_token(word):
            yield found.start(), stop
