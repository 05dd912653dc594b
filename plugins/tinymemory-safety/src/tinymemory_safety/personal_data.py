"""The personal-data detectors: each shape, then its validity gate, then a typed token.

Numbers are found as whole runs (no digit or letter right before or after),
so a card number is never carved out of a longer number or a hash. Formatted
shapes (``123.456.789-09``, ``078-05-1120``) and bare digit runs are read by
separate patterns; every bare run is classified once by its length.
"""

from __future__ import annotations

import enum
import ipaddress
import re
from collections.abc import Iterator

from tinymemory_safety import checksums
from tinymemory_safety.credentials import DIGITS, PII_PASS, Scan
from tinymemory_safety.hits import Hit


class BareCard(enum.Enum):
    """Which unformatted digit runs count as card numbers (``Policy.bare_card``).

    ``LUHN_ONLY`` (the default, strictest): every Luhn-valid run of 13-19
    digits. ``CORROBORATED``: a bare run must also start with a real network's
    IIN at a length it issues, or have a card word within 64 characters.
    Grouped numbers (``4111 1111 1111 1111``) need only Luhn either way.
    """

    LUHN_ONLY = "luhn-only"
    CORROBORATED = "corroborated"


def token(kind: str) -> str:
    """The replacement of a personal-data class: ``[REDACTED_PII_<KIND>]``."""
    return f"[REDACTED_PII_{kind.upper()}]"


#: The classes in the order they win a tie (same start, same length).
CLASSES = (
    "iban", "credit_card", "cpf", "cnpj", "cuit", "aadhaar", "dni", "ssn", "nino", "rrn",
    "rfc", "pan_in", "mynumber", "phone", "email", "ip",
)  # fmt: skip
_RANK = {kind: index for index, kind in enumerate(CLASSES)}
_TOKENS = {kind: token(kind) for kind in CLASSES}
#: Words that make a bare card number believable under ``CORROBORATED``.
_CARD_WORDS = re.compile(
    r"(?a)card|credit|debit|visa|mastercard|amex|american express|discover|diners|jcb|maestro"
    r"|unionpay|cvv|cvc|expir"
)
_AADHAAR_WORDS = re.compile(r"(?a)aadhaa?r|\buid\b|uidai")
_MYNUMBER_WORDS = re.compile(r"(?a)my ?number|mynumber|kojin|個人番号|マイナンバー")

_TOKEN = re.compile(r"(?a)\[redacted[a-z_]*\]")
_DIGIT = re.compile(r"(?a)\d")
_NON_DIGITS = re.compile(r"(?a)\D")
_BARE_RUN = re.compile(r"(?a)\d{9,}+")
_GROUPED_CARD = re.compile(r"(?a)\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}+|\d{4}([ -])\d{6}\2\d{4,5}+")
_CPF = re.compile(r"(?a)\d{3}\.\d{3}\.\d{3}-\d{2}")
_CNPJ = re.compile(r"(?a)\d{2}\.\d{3}\.\d{3}/\d{4}-\d{2}")
_CUIT = re.compile(r"(?a)\d{2}-\d{8}-\d")
_AADHAAR_GROUPED = re.compile(r"(?a)[2-9]\d{3}([ -])\d{4}\1\d{4}")
_SSN = re.compile(r"(?a)(\d{3})-(\d{2})-(\d{4})")
_RRN = re.compile(r"(?a)(\d{6})-([1-8])\d{6}")
_DNI = re.compile(r"(?a)(?:([XYZ])[ -]?)?(\d{7,8})[ -]?([A-Z])")
_NINO = re.compile(r"(?a)([A-Z]{2}) ?(\d{2}) ?(\d{2}) ?(\d{2}) ?[A-D]")
_RFC = re.compile(r"(?a)[A-Z&\u00d1]{3,4}(\d{6})[A-Z\d]{2}[A\d]")
_PAN_IN = re.compile(r"(?a)[A-Z]{3}[ABCFGHJLPT][A-Z]\d{4}[A-Z]")
_IBAN = re.compile(r"(?a)([A-Z]{2})(\d{2})((?: ?[A-Z0-9]){11,30}+)")
_E164 = re.compile(r"(?a)\+\d++(?:[ .\-]?\(\d{1,4}\)[ .\-]?\d++|[ .\-]\d++)*+")
#: ``(415) 555-0132``, ``415-555-0132``, ``415.555.0132``: spaces alone would take
#: "200 300 4000" for a number, and bare ten digits are never redacted.
_NANP = re.compile(
    r"(?a)(?:\+?1[ .-]?)?"
    r"(?:\([2-9]\d\d\)[ .-]?[2-9]\d\d[ .-]\d{4}|[2-9]\d\d([.-])[2-9]\d\d\1\d{4})"
)
_EMAIL_DOMAIN = re.compile(r"(?a)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}")
_EMAIL_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")
_IPV6 = re.compile(r"(?a)[0-9A-Fa-f:.]++")


class PersonalData:
    """Every personal-data detector, with the two choices a policy makes."""

    def __init__(self, *, bare_card: BareCard, emails: bool) -> None:
        self.bare_card = bare_card
        self.emails = emails

    def find(self, scan: Scan) -> Iterator[Hit]:
        """Every validated personal-data span of ``scan``, overlaps left to :func:`settle`."""
        text = scan.text
        if _DIGIT.search(text):
            yield from self._numbers(scan)
            yield from _phones(scan)
            yield from _letter_led(scan)
        if self.emails and "@" in text:
            yield from _emails(scan)
        if "::" in text or text.count(":") >= 7:
            yield from _ipv6(scan)

    def _numbers(self, scan: Scan) -> Iterator[Hit]:
        text = scan.text
        for match in _BARE_RUN.finditer(text):
            start, end = match.span()
            if scan.starts_word(start) and scan.ends_word(end) and not _decimal(text, start, end):
                yield from self._bare(scan, start, end)
        formatted = (
            (_GROUPED_CARD, "credit_card", _card),
            (_CPF, "cpf", checksums.cpf),
            (_CNPJ, "cnpj", checksums.cnpj),
            (_CUIT, "cuit", checksums.cuit),
            (_AADHAAR_GROUPED, "aadhaar", checksums.aadhaar),
        )
        for pattern, kind, valid in formatted:
            for found in pattern.finditer(text):
                digits = _NON_DIGITS.sub("", found.group())
                if _whole(scan, found) and valid(digits):
                    yield _hit(found.start(), found.end(), kind)
        for found in _SSN.finditer(text):
            if _whole(scan, found) and checksums.ssn(*found.groups()):
                yield _hit(found.start(), found.end(), "ssn")
        for found in _RRN.finditer(text):
            if _whole(scan, found) and checksums.date_yymmdd(found.group(1)):
                yield _hit(found.start(), found.end(), "rrn")

    def _bare(self, scan: Scan, start: int, end: int) -> Iterator[Hit]:
        digits = scan.text[start:end]
        length = len(digits)
        if 13 <= length <= 19 and _card(digits) and self._believable_card(scan, start, end):
            yield _hit(start, end, "credit_card")
        if length == 11 and checksums.cpf(digits):
            yield _hit(start, end, "cpf")
        if length == 14 and checksums.cnpj(digits):
            yield _hit(start, end, "cnpj")
        if length == 12:
            near = _words_near(scan, start - 64, start)
            if _AADHAAR_WORDS.search(near) and checksums.aadhaar(digits):
                yield _hit(start, end, "aadhaar")
            if _MYNUMBER_WORDS.search(near) and checksums.my_number(digits):
                yield _hit(start, end, "mynumber")

    def _believable_card(self, scan: Scan, start: int, end: int) -> bool:
        if self.bare_card is BareCard.LUHN_ONLY:
            return True
        digits = scan.text[start:end]
        near = _words_near(scan, start - 64, end + 64)
        return checksums.card_network_length(digits) or bool(_CARD_WORDS.search(near))


def _words_near(scan: Scan, start: int, end: int) -> str:
    """The lowered text from ``start`` to ``end``, without the tokens of earlier redactions.

    ``[REDACTED_PII_CREDIT_CARD]`` is no card word, nor ``..._AADHAAR]`` the keyword.
    """
    return _TOKEN.sub(" ", scan.lower[max(0, start) : end])


def _card(digits: str) -> bool:
    return 13 <= len(digits) <= 19 and checksums.luhn(digits)


def _decimal(text: str, start: int, end: int) -> bool:
    """Whether a digit run is a part of a decimal number (``3.14159265358979``)."""
    before = start >= 2 and text[start - 1] in ".," and text[start - 2] in DIGITS
    after = end + 1 < len(text) and text[end] in ".," and text[end + 1] in DIGITS
    return before or after


def _hit(start: int, end: int, kind: str) -> Hit:
    return Hit(start, end, _TOKENS[kind], kind, (PII_PASS, _RANK[kind]))


def _whole(scan: Scan, found: re.Match[str]) -> bool:
    """Whether a match is not part of a longer word or number."""
    return scan.starts_word(found.start()) and scan.ends_word(found.end())


def _phones(scan: Scan) -> Iterator[Hit]:
    """E.164 (``+`` and 7-15 digits) and formatted NANP numbers (area and exchange 2-9)."""
    text = scan.text
    if "+" in text:
        for found in _E164.finditer(text):
            digits = len(_NON_DIGITS.sub("", found.group()))
            if (
                7 <= digits <= 15
                and scan.starts_word(found.start())
                and scan.ends_word(found.end())
            ):
                yield _hit(found.start(), found.end(), "phone")
    for found in _NANP.finditer(text):
        if _whole(scan, found):
            yield _hit(found.start(), found.end(), "phone")


def _letter_led(scan: Scan) -> Iterator[Hit]:
    """IBANs, Spanish DNI/NIE, UK NINO, Mexican RFC and Indian PAN."""
    text = scan.text
    for found in _IBAN.finditer(text):
        if not scan.starts_word(found.start()):
            continue
        span = _iban_span(text, found)
        if span and scan.ends_word(span[1]):
            yield _hit(*span, "iban")
    for found in _DNI.finditer(text):
        number = "".join(part or "" for part in found.groups())
        if len(number) == 9 and _whole(scan, found) and checksums.dni(number):
            yield _hit(found.start(), found.end(), "dni")
    for found in _NINO.finditer(text):
        if _whole(scan, found) and checksums.nino(found.group(1)):
            yield _hit(found.start(), found.end(), "nino")
    for found in _RFC.finditer(text):
        if _whole(scan, found) and checksums.date_yymmdd(found.group(1)):
            yield _hit(found.start(), found.end(), "rfc")
    for found in _PAN_IN.finditer(text):
        if _whole(scan, found):
            yield _hit(found.start(), found.end(), "pan_in")


def _iban_span(text: str, found: re.Match[str]) -> tuple[int, int] | None:
    """The span of the IBAN ``found`` starts, cut to its country's length, if mod-97 holds."""
    length = checksums.IBAN_LENGTHS.get(found.group(1))
    if length is None:
        return None
    chars = 4
    at = found.start(3)
    end = found.end(3)
    while chars < length and at < end:
        if text[at] != " ":
            chars += 1
        at += 1
    if chars < length:
        return None
    compact = text[found.start() : at].replace(" ", "")
    return (found.start(), at) if checksums.iban_mod97(compact) else None


def _emails(scan: Scan) -> Iterator[Hit]:
    """Addresses found from each ``@``: a local part before it, a dotted domain after it."""
    text = scan.text
    at = 0
    while (sign := text.find("@", at)) >= 0:
        at = sign + 1
        domain = _EMAIL_DOMAIN.match(text, sign + 1)
        if domain is None:
            continue
        start = scan.run_before(sign, _EMAIL_LOCAL, 64)
        while start < sign and text[start] == ".":
            start += 1
        # ``git@github.com:acme/app.git`` is an scp-style remote, not somebody's address.
        after = text[domain.end() : domain.end() + 2]
        remote = len(after) == 2 and after[0] == ":" and not after[1].isspace()
        if start < sign and scan.ends_word(domain.end()) and not remote:
            yield _hit(start, domain.end(), "email")
            at = domain.end()


def _ipv6(scan: Scan) -> Iterator[Hit]:
    """IPv6 addresses of at least three groups (so ``a::b`` in code is not one)."""
    for found in _IPV6.finditer(scan.text):
        candidate = found.group().rstrip(".")
        start, end = found.start(), found.start() + len(candidate)
        if candidate.count(":") < 2 or not scan.starts_word(start) or not scan.ends_word(end):
            continue
        try:
            address = ipaddress.IPv6Address(candidate)
        except ValueError:
            continue
        # An IPv4 tail (``::ffff:192.0.2.1``) stands for two groups.
        groups = sum(bool(group) for group in candidate.split(":")) + ("." in candidate)
        if groups >= 3 and not (address.is_loopback or address.is_unspecified):
            yield _hit(start, end, "ip")
