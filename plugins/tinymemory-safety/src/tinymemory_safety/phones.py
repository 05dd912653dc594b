"""Phone numbers, read and validated by ``phonenumbers`` (Google's libphonenumber).

A candidate is a run of digits and the separators numbers are written with,
7 to 15 digits long. Written internationally (``+44 20 7946 0958``,
``0044 ...``) it is parsed as such; written nationally (``020 7946 0958``,
``(415) 555-0132``) it is parsed in the policy's default region. It is a
phone number when libphonenumber says it is a valid number there and its
digits are grouped as that region writes them (so "2062 100 100" stays a
list of counts), there or in a region the text around it points to (its
language, script, a country named or dialled: :mod:`tinymemory_safety.regions`);
or, when
a word such as "call", "mobile", "tel" or "WhatsApp" comes shortly before
it, when it is a possible number of the default region or valid in any of
thirty-five regions. A bare run of digits (no
separator, no ``+``) needs that word too, so order numbers and timestamps
stay.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator, Sequence

import phonenumbers
from phonenumbers import PhoneMetadata

from tinymemory_safety.credentials import Scan
from tinymemory_safety.regions import language_regions, place_regions, text_regions

#: Digit-led, so ``re`` skips to the digits; a ``(`` or ``+`` before is taken in code.
_CANDIDATE = re.compile(r"(?a)\d[\d \-.()/]{5,24}+")
_NON_DIGITS = re.compile(r"(?a)\D")
_DIGIT_GROUPS = re.compile(r"(?a)\d+")
#: Words that say a number is a phone number (English and a few other languages).
_PHONE_WORDS = re.compile(
    r"(?ai)\b(?:call(?:ed|ing)?|phone|mobile|mob|cell(?:phone)?|tel|telephone|ring|text|sms|"
    r"whatsapp|signal|contact|reach(?: me)?|fax|landline|hotline|dial|"
    r"telefon|telefonnummer|handy|t[ée]l[ée]phone|portable|m[óo]vil|celular|tel[ée]fono|"
    r"cellulare)\b[^\n\d]{0,24}$"
)
#: The numero sign and its abbreviations (``No.``, ``Nr.``, ``n°``, ``n.º``, ``nro``,
#: ``št.``, Serbian ``br.`` in Cyrillic, ``№``, ``#``; with their dot where without it
#: they are words: Portuguese ``no``) right before a number: it numbers an order, an
#: invoice, a case, unless a phone word says otherwise ("Tel. Nr. 030 123456").
_NUMERO_SIGN = re.compile(
    r"(?i)(?:\b(?:no|n[úu]m|[šs]t|\u0431\u0440)\.|\b(?:nr|nro|n\.?[°º])\.?|\u2116|#)\s*$"
)
#: The noun "number" right before a number, in the languages that borrowed Latin's
#: ``numerus`` (``number``, ``Nummer``, ``numéro``, ``número``, ``numer``, ``numurs``,
#: ``номер``): "Rechnung Nummer 83-36-95-17". The text's language alone does not make
#: such a number a phone number (a phone word, a place or a calling code still may). The
#: noun as it is named, up to three letters after ``num``: a case form says where a
#: number is reached ("from the number": Finnish ``numerosta``, Estonian ``numbril``).
_NUMBER_NOUN = re.compile(r"(?i)\b(?:n[uúū]m|\u043d\u043e\u043c)[^\W\d_]{0,3}\.?\s*$")
_PHONE_WORDS_CJK = re.compile(r"(?:電話|携帯|手机|电话|전화)[^\n\d]{0,8}$")
#: Where a number written nationally is tried when a phone word vouches for it.
_OTHER_REGIONS = (
    "GB", "US", "DE", "FR", "IN", "AU", "CA", "ES", "IT", "NL", "BR", "MX", "JP", "IE", "RU",
    "UA", "BY", "KZ", "PL", "TR", "CN", "KR", "ZA", "NG", "PH", "ID", "PK", "AR", "CO", "SE",
    "CH", "AT", "BE", "PT", "TM",
)  # fmt: skip
#: A date written as one (``14/03/2024``), or opening with its year (``2024-05-17 10``),
#: or a span of years (``2020-2024``, ``1998 - 2003``).
_DATE = re.compile(r"(?a)\d{1,2}([-./])\d{1,2}\1\d{2,4}|(?:19|20)\d\d ?[-/] ?(?:19|20)\d\d")
_YEAR_FIRST = re.compile(r"(?a)\d{4}([-./])\d{1,2}\1\d{1,2}")


def default_region(region: str) -> str:
    """``region`` as libphonenumber names it, or ``ValueError`` if it names no region."""
    code = region.strip().upper()
    if code not in phonenumbers.SUPPORTED_REGIONS:
        raise ValueError(region)
    return code


def phone_numbers(
    scan: Scan, region: str, taken: Sequence[tuple[int, int]] = ()
) -> Iterator[tuple[int, int]]:
    """The spans of the phone numbers of ``scan``, national ones read in ``region``.

    A candidate inside a span of ``taken`` (a card, an IBAN, an SSN another
    detector validated, which wins the overlap anyway) is not parsed.
    """
    text = scan.text
    claimed = sorted(taken)
    for found in _CANDIDATE.finditer(text):
        start = found.start()
        inside = bisect.bisect_right(claimed, (start, len(text))) - 1
        if inside >= 0 and claimed[inside][0] <= start < claimed[inside][1]:
            continue
        if text[start - 1 : start] == "(" and start > 0:
            start -= 1
        if text[start - 1 : start] == "+" and start > 0:
            start -= 1
        candidate = text[start : found.end()].rstrip(" -./(")
        if candidate.count("(") != candidate.count(")"):
            candidate = candidate.rstrip(")")
        if not scan.starts_word(start) or text[start - 1 : start] in {"+", "-", ".", "/"}:
            continue  # part of something longer: a range, a path, a version
        international = candidate.startswith(("+", "00"))
        if not international and (_DATE.fullmatch(candidate) or _YEAR_FIRST.search(candidate)):
            continue  # a date (checked first: most numbers in prose are)
        # An international number ends where libphonenumber says it does: of a run that
        # holds more (``+44 20 7946 0958 4111 1111 ...``), the longest valid start.
        cuts = [candidate]
        if candidate.startswith(("+", "00")):
            cuts += [
                candidate[:at] for at in range(len(candidate) - 1, 6, -1) if candidate[at] == " "
            ]
        for cut in cuts:
            if _candidate(scan, start, cut.rstrip(" -./("), region):
                yield start, start + len(cut.rstrip(" -./("))
                break


def _candidate(scan: Scan, start: int, candidate: str, region: str) -> bool:
    """Whether ``candidate``, at ``start``, is a whole phone number."""
    end = start + len(candidate)
    digits = _NON_DIGITS.sub("", candidate)
    if not 7 <= len(digits) <= 15 or not scan.ends_word(end):
        return False
    if sum(len(group) == 1 for group in _DIGIT_GROUPS.findall(candidate)) > 2:
        return False  # numbers are written in groups of two or more: "1 2 3 4 5 6 7" is a list
    if scan.text[end : end + 1] in {"-", "/", ":"}:
        return False  # part of something longer: a range, a path, a time
    return _phone(scan, start, candidate, digits, region)


def _phone(scan: Scan, start: int, candidate: str, digits: str, region: str) -> bool:
    text = scan.text
    international = candidate.startswith(("+", "00"))
    end = start + len(candidate)
    dated = _DATE.fullmatch(candidate) or _YEAR_FIRST.search(candidate)
    if not international and (dated or candidate.count(".") >= 3):
        return False  # a date, an IPv4 address or a version
    before = text[max(0, start - 32) : start]
    vouched = bool(_PHONE_WORDS.search(before) or _PHONE_WORDS_CJK.search(before))
    if not vouched and (candidate == digits or _NUMERO_SIGN.search(before)):
        return False  # a bare run of digits, or a numbered thing: an order number until a
        # word says otherwise
    if international:
        number = _parse("+" + digits[2:] if candidate.startswith("00") else candidate, None)
        return number is not None and _valid(number)
    # Unvouched, it must also be grouped as the region writes it: "415 555 0132"
    # is a phone number, "2062 100 100" three counts. So a run of digits no number
    # of the region is written with is not parsed.
    number = _parse(candidate, region) if vouched or _writable(digits, region) else None
    valid = number is not None and _valid(number)
    if valid and (vouched or _written_as(candidate, number)):  # type: ignore[arg-type]
        return True
    if candidate != digits and (
        _hinted(candidate, region, text_regions(scan, start))
        or _hinted(candidate, region, place_regions(scan, start, end))
        or (
            not _NUMBER_NOUN.search(before)
            and _spoken_elsewhere(candidate, region, language_regions(scan, start))
        )
    ):
        return True  # valid, and grouped as written, in a region the text points to
    if not vouched:
        return False
    if number is not None and phonenumbers.is_possible_number(number):
        return True
    for other in _OTHER_REGIONS:
        number = _parse(candidate, other)
        if number is not None and phonenumbers.is_possible_number(number):
            return True
    return False


def _spoken_elsewhere(candidate: str, region: str, languages: Sequence[Sequence[str]]) -> bool:
    """Whether ``candidate`` is valid, grouped as written, where the text's languages are
    spoken (``languages``: each one's regions).

    Not a language the policy's region speaks: a text in its own language says
    nothing more than the policy does (an English text, spoken officially in 86
    regions, is read in the US, not in Lesotho, where ``2123 4567`` is a number).
    """
    spoken = [hint for regions in languages if region not in regions for hint in regions]
    return bool(spoken) and _hinted(candidate, region, spoken)


def _hinted(candidate: str, region: str, hinted: Sequence[str]) -> bool:
    """Whether ``candidate`` is valid, and grouped as written, in one of the ``hinted`` regions.

    It is parsed once per calling code, in the code's main region, not once per
    region: the regions that share a code (NANP's twenty-five, RU and KZ, GB and
    the Crown dependencies…) parse a national number alike but for local dialling
    rules (a Caribbean island's seven digits take its area code), which make a
    number longer than written, so never grouped as written where the main region
    rejects it. Only when the main region takes the number but the text does not
    point to it is each hinted region of the code asked in turn. The policy's
    region was asked already (:func:`_phone`): its code is skipped when it is the
    code's main region.
    """
    by_code: dict[int, list[str]] = {}
    for hint in hinted:
        by_code.setdefault(_calling_code(hint), []).append(hint)
    for code, regions in by_code.items():
        main = phonenumbers.region_code_for_country_code(code)
        if main == region:
            continue  # the policy's region: its answer was no
        if not _grouped_valid(candidate, main):
            continue
        if main in regions or any(_grouped_valid(candidate, hint) for hint in regions):
            return True
    return False


def _grouped_valid(candidate: str, region: str) -> bool:
    """Whether ``candidate`` read in ``region`` is a valid number grouped as written."""
    if not _writable(_NON_DIGITS.sub("", candidate), region):
        return False
    number = _parse(candidate, region)
    return number is not None and _valid(number) and _written_as(candidate, number)


_calling_code = functools.cache(phonenumbers.country_code_for_region)


def _writable(digits: str, region: str) -> bool:
    """Whether a valid number read in ``region`` may be written nationally with ``digits``.

    Written nationally, a number holds its national significant number (one of
    the lengths its country's metadata gives: ``general_desc.possible_length``)
    and the digits its format adds (a national prefix: ``0``, ``8``, ``1``). A run
    of any other count of digits cannot be grouped as the number is written, so
    it needs no parse. A run that opens with the region's international prefix
    (``011`` in the US) is dialled abroad: its count says nothing, it is parsed.
    """
    if len(digits) in _national_lengths(_calling_code(region)):
        return True
    dialled = _international_prefix(region)
    return dialled is not None and dialled.match(digits) is not None


#: A group of the number in a format's rules (``(\\1) \\2-\\3``, ``8 (\\1)``): the rest is literal.
_GROUP_REFERENCE = re.compile(r"\\\d")


@functools.cache
def _national_lengths(code: int) -> frozenset[int]:
    """Every count of digits a valid number of calling code ``code`` is written with."""
    counts: set[int] = set()
    for region in phonenumbers.region_codes_for_country_code(code):
        metadata = PhoneMetadata.metadata_for_region_or_calling_code(code, region)
        if metadata is None or metadata.general_desc is None:
            continue
        added = {0}
        for layout in metadata.number_format:
            literal = _GROUP_REFERENCE.sub("", layout.national_prefix_formatting_rule or "")
            literal += _GROUP_REFERENCE.sub("", layout.format or "")
            added.add(sum(char.isdigit() for char in literal))
        for length in metadata.general_desc.possible_length or ():
            counts.update(length + extra for extra in added)
    return frozenset(counts)


@functools.cache
def _international_prefix(region: str) -> re.Pattern[str] | None:
    metadata = PhoneMetadata.metadata_for_region(region)
    prefix = None if metadata is None else metadata.international_prefix
    return None if prefix is None else re.compile(prefix)


def _valid(number: phonenumbers.PhoneNumber) -> bool:
    """libphonenumber's validity, its length check first (it rules most non-numbers out).

    A valid number is of its country code's main region more often than not, and
    asking that region alone spares the walk over every region sharing the code
    (NANP has twenty-five).
    """
    if number.country_code is None or not phonenumbers.is_possible_number(number):
        return False
    main = phonenumbers.region_code_for_country_code(number.country_code)
    return phonenumbers.is_valid_number_for_region(number, main) or (
        phonenumbers.is_valid_number(number)
    )


def _written_as(candidate: str, number: phonenumbers.PhoneNumber) -> bool:
    """Whether ``candidate`` is grouped as the number's region writes it nationally."""
    return _groups(candidate) == _groups(
        phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
    )


def _groups(written: str) -> list[int]:
    """The lengths of the digit groups of a written number."""
    return [len(group) for group in _DIGIT_GROUPS.findall(written)]


def _parse(candidate: str, region: str | None) -> phonenumbers.PhoneNumber | None:
    try:
        return phonenumbers.parse(candidate, region)
    except phonenumbers.NumberParseException:
        return None
