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
from collections.abc import Callable, Iterator
from types import ModuleType

from tinymemory_safety import checksums
from tinymemory_safety.credentials import DIGITS, PII_PASS, Scan
from tinymemory_safety.hits import Hit
from tinymemory_safety.identifiers import (
    IDENTIFIER_CLASSES,
    STANDALONE_LETTERS,
    STANDALONE_NUMERIC,
    dates_of_birth,
    labelled,
)
from tinymemory_safety.lookalikes import dotted_number, in_notice, nobodys_address, role_mailbox
from tinymemory_safety.phones import phone_numbers


class BareCard(enum.Enum):
    """Which unformatted digit runs count as card numbers (``Policy.bare_card``).

    ``LUHN_ONLY`` (the default, strictest): every Luhn-valid run of 13-19
    digits. ``CORROBORATED``: a bare run must also start with a real network's
    IIN at a length it issues, or have a card word within 64 characters.
    Grouped numbers (``4111 1111 1111 1111``) need only Luhn either way.
    """

    LUHN_ONLY = "luhn-only"
    CORROBORATED = "corroborated"


class IpAddresses(enum.Enum):
    """Which IP addresses are personal data (``Policy.ip_addresses``).

    ``PUBLIC`` (the default): every address but this machine's and private
    networks' (loopback, unspecified, RFC 1918 and carrier-grade NAT, IPv6
    unique-local, multicast, broadcast and netmasks); documentation ranges
    are redacted, since examples stand for real addresses. ``ALL``: every
    address. ``KEEP``: none.
    """

    PUBLIC = "public"
    ALL = "all"
    KEEP = "keep"


def token(kind: str) -> str:
    """The replacement of a personal-data class: ``[REDACTED_PII_<KIND>]``."""
    return f"[REDACTED_PII_{kind.upper()}]"


#: The classes in the order they win a tie (same start, same length).
CLASSES = (
    "iban", "credit_card", "cpf", "cnpj", "cuit", "aadhaar", "dni", "ssn", "nino", "rrn",
    "rfc", "pan_in", "mynumber", *IDENTIFIER_CLASSES, "phone", "email", "ip",
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
_NON_DIGITS = re.compile(r"(?a)\D")
#: A run of digits and the separators numbers are written with. Every numeric
#: shape lies in one, with at most ``_LEAD`` characters before it (``+1 (``, an
#: NIE's ``X-``) and ``_TAIL`` after it (a DNI's ``-Z``).
#: Only runs of ``_SHORTEST_NUMBER`` characters or more (an NIE's seven digits) are
#: found: a shorter run fails at each of its digits in ``re``, not in Python.
_SHORTEST_NUMBER = 7
_NUMBER_RUN = re.compile(rf"(?a)\d[\d .\-/()]{{{_SHORTEST_NUMBER - 1},}}+")
_LEAD, _TAIL = 4, 2
#: Two to five capitals before a digit: where an IBAN, NINO, RFC or PAN may start.
_LETTERS_THEN_DIGIT = re.compile(r"(?a)[A-Z&\u00d1]{2,6}+ ?\d")
_BARE_RUN = re.compile(r"(?a)\d{9,}+")
#: A run that is a date and nothing more (``2025-03-04``, ``14/03/2024``) holds no shape.
_DATE = re.compile(r"(?a)\d{4}([-./])\d{1,2}\1\d{1,2}|\d{1,2}([-./])\d{1,2}\2\d{2,4}")
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


def _digits_pass(check: Callable[[str], bool]) -> Callable[[re.Match[str]], bool]:
    return lambda found: check(_NON_DIGITS.sub("", found.group()))


def _stdnum(module: ModuleType) -> Callable[[re.Match[str]], bool]:
    return lambda found: checksums.stdnum_valid(module, found.group())


def _dni(found: re.Match[str]) -> bool:
    number = "".join(part or "" for part in found.groups())
    return len(number) == 9 and checksums.dni(number)


_Shape = tuple[re.Pattern[str], str, Callable[[re.Match[str]], bool]]
_DNI_SHAPE: _Shape = (_DNI, "dni", _dni)
#: The only shape a run of bare digits can hold besides the bare classes.
_BARE_SHAPES: tuple[_Shape, ...] = (
    _DNI_SHAPE,
    *((pattern, kind, _stdnum(module)) for kind, pattern, module in STANDALONE_NUMERIC
      if kind == "cn_ric"),
)  # fmt: skip
#: The shapes looked for around a run of digits: (pattern, class, gate on the match).
_FORMATTED: tuple[_Shape, ...] = (
    (_GROUPED_CARD, "credit_card", _digits_pass(checksums.luhn)),
    (_CPF, "cpf", _digits_pass(checksums.cpf)),
    (_CNPJ, "cnpj", _digits_pass(checksums.cnpj)),
    (_CUIT, "cuit", _digits_pass(checksums.cuit)),
    (_AADHAAR_GROUPED, "aadhaar", _digits_pass(checksums.aadhaar)),
    (_SSN, "ssn", lambda found: checksums.ssn(*found.groups())),
    (_RRN, "rrn", lambda found: checksums.date_yymmdd(found.group(1))),
    _DNI_SHAPE,
    (_NANP, "phone", lambda found: True),
    *((pattern, kind, _stdnum(module)) for kind, pattern, module in STANDALONE_NUMERIC),
)
#: The shapes that open with capitals, IBANs aside (their length is the country's).
_LETTER_LED: tuple[_Shape, ...] = (
    (_NINO, "nino", lambda found: checksums.nino(found.group(1))),
    (_RFC, "rfc", lambda found: checksums.date_yymmdd(found.group(1))),
    (_PAN_IN, "pan_in", lambda found: True),
    *((pattern, kind, _stdnum(module)) for kind, pattern, module in STANDALONE_LETTERS),
)
_EMAIL_DOMAIN = re.compile(r"(?a)[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}\.)+[A-Za-z]{2,63}")
_EMAIL_LOCAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%+-")
#: Hex groups joined by two to eight colons, maybe an IPv4 tail; bounded, so linear.
_IPV4 = re.compile(r"(?a)\d{1,3}+(?:\.\d{1,3}+){3}")
_VERSION_WORD = re.compile(r"(?a)(?:version|release|ver|build|v)[ :=]*$")
#: Networks whose addresses are no one's in particular (see :class:`IpAddresses`).
_PRIVATE_NETWORKS = tuple(
    ipaddress.ip_network(network)
    for network in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)
_IPV6 = re.compile(r"(?a)[0-9A-Fa-f]{0,4}+(?::[0-9A-Fa-f]{0,4}+){2,8}+(?:\.[0-9]{1,3}+){0,3}+")


class PersonalData:
    """Every personal-data detector, with the two choices a policy makes."""

    def __init__(
        self,
        *,
        bare_card: BareCard,
        emails: bool,
        region: str,
        ip_addresses: IpAddresses,
        keep_public_addresses: bool = True,
    ) -> None:
        self.bare_card = bare_card
        self.emails = emails
        self.keep_public_addresses = keep_public_addresses
        self.region = region
        self.ip_addresses = ip_addresses

    def find(self, scan: Scan) -> Iterator[Hit]:
        """Every validated personal-data span of ``scan``, overlaps left to :func:`settle`."""
        text = scan.text
        shaped: list[Hit] = []
        # The numeric shapes are looked for only around runs of digits long
        # enough to hold one, so prose with a date and a count costs one scan.
        for run in _NUMBER_RUN.finditer(text):
            if not _DATE.fullmatch(run.group().rstrip(" .-/(")):
                lo, hi = max(0, run.start() - _LEAD), min(len(text), run.end() + _TAIL)
                shaped += self._numbers(scan, lo, hi, bare=run.group().rstrip().isdigit())
        for found in _LETTERS_THEN_DIGIT.finditer(text):
            if scan.starts_word(found.start()):
                shaped += _letter_led(scan, found.start())
        yield from shaped
        if "+" in text:
            yield from _e164(scan)
        taken = [(hit.start, hit.end) for hit in shaped]
        for start, end in phone_numbers(scan, self.region, taken):
            yield _hit(start, end, "phone")
        for start, end, kind in (*labelled(scan), *dates_of_birth(scan)):
            yield _hit(start, end, kind)
        if self.emails and "@" in text:
            yield from _emails(scan, keep_public=self.keep_public_addresses)
        if self.ip_addresses is IpAddresses.KEEP:
            return
        if text.count(".") >= 3:
            yield from self._ipv4(scan)
        if "::" in text or text.count(":") >= 7:
            yield from self._ipv6(scan)

    def _numbers(self, scan: Scan, lo: int, hi: int, *, bare: bool) -> Iterator[Hit]:
        """The numeric shapes between ``lo`` and ``hi`` (one run of digits and its edges).

        A ``bare`` run (digits only) holds no formatted shape but a DNI or NIE.
        """
        text = scan.text
        for match in _BARE_RUN.finditer(text, lo, hi):
            start, end = match.span()
            if scan.starts_word(start) and scan.ends_word(end) and not _decimal(text, start, end):
                yield from self._bare(scan, start, end)
        for pattern, kind, valid in _BARE_SHAPES if bare else _FORMATTED:
            at = lo
            while found := pattern.search(text, at, hi):
                if _whole(scan, found) and not _groups_go_on(text, found) and valid(found):
                    yield _hit(found.start(), found.end(), kind)
                    at = found.end()
                else:  # a shape that fails its gate may hide one starting inside it
                    at = found.start() + 1

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

    def _ipv4(self, scan: Scan) -> Iterator[Hit]:
        """IPv4 addresses in dotted quads, not a version (``v1.2.3.4``) nor a network (``/24``)."""
        text = scan.text
        for found in _IPV4.finditer(text):
            start, end = found.span()
            if not _whole(scan, found) or text[start - 1 : start] in {".", "v", "V"}:
                continue
            if text[end : end + 2].rstrip("0123456789") in {".", "/"} and end + 1 < len(text):
                continue  # a longer dotted number, or a network's prefix length
            if _VERSION_WORD.search(scan.lower[max(0, start - 12) : start]):
                continue
            if dotted_number(text, scan.lower, start):
                continue
            try:
                address = ipaddress.IPv4Address(found.group())
            except ValueError:
                continue
            if self._personal_address(address, scan, start):
                yield _hit(start, end, "ip")

    def _personal_address(
        self, address: ipaddress.IPv4Address | ipaddress.IPv6Address, scan: Scan, start: int
    ) -> bool:
        if address.is_loopback or address.is_unspecified:
            return False
        if self.ip_addresses is IpAddresses.ALL:
            return True
        if nobodys_address(address, scan.lower, start):
            return False
        if address.is_multicast or (address.version == 4 and str(address).startswith("255.")):
            return False
        return not any(address in network for network in _PRIVATE_NETWORKS)

    def _ipv6(self, scan: Scan) -> Iterator[Hit]:
        """IPv6 addresses of at least three groups (so ``a::b`` in code is not one)."""
        for found in _IPV6.finditer(scan.text):
            candidate = found.group()
            start, end = found.span()
            longer = scan.text[end : end + 1] == ":" and not scan.ends_word(end + 1)
            if not _whole(scan, found) or longer or _decimal(scan.text, start, end):
                continue  # part of something longer: more groups, a dotted tail
            try:
                address = ipaddress.IPv6Address(candidate)
            except ValueError:
                continue
            # An IPv4 tail (``::ffff:192.0.2.1``) stands for two groups.
            groups = sum(bool(group) for group in candidate.split(":")) + ("." in candidate)
            if groups >= 3 and self._personal_address(address, scan, start):
                yield _hit(start, end, "ip")


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


def _groups_go_on(text: str, found: re.Match[str]) -> bool:
    """Whether a grouped number carries on past ``found`` in more groups of digits.

    A card cut out of a longer grouped number (a 22-digit parcel number written
    in fours) is part of that number, as a card inside a longer run is.
    """
    start, end = found.span()
    after = text[end : end + 3]
    before = text[max(0, start - 2) : start]
    go_on = len(after) >= 3 and after[0] in " -" and after[1:].isdigit()
    came = len(before) == 2 and before[1] in " -" and before[0] in DIGITS
    return go_on or came


def _hit(start: int, end: int, kind: str) -> Hit:
    return Hit(start, end, _TOKENS[kind], kind, (PII_PASS, _RANK[kind]))


def _whole(scan: Scan, found: re.Match[str]) -> bool:
    """Whether a match is not part of a longer word or number."""
    return scan.starts_word(found.start()) and scan.ends_word(found.end())


def _e164(scan: Scan) -> Iterator[Hit]:
    """E.164 phone numbers: ``+`` and 7-15 digits, in groups."""
    for found in _E164.finditer(scan.text):
        digits = len(_NON_DIGITS.sub("", found.group()))
        if 7 <= digits <= 15 and _whole(scan, found):
            yield _hit(found.start(), found.end(), "phone")


def _letter_led(scan: Scan, start: int) -> Iterator[Hit]:
    """An IBAN, UK NINO, Mexican RFC or Indian PAN starting at ``start``, if one does."""
    text = scan.text
    found = _IBAN.match(text, start)
    if found:
        span = _iban_span(text, found)
        if span and scan.ends_word(span[1]):
            yield _hit(*span, "iban")
    for pattern, kind, valid in _LETTER_LED:
        found = pattern.match(text, start)
        if found and scan.ends_word(found.end()) and valid(found):
            yield _hit(found.start(), found.end(), kind)


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


def _emails(scan: Scan, *, keep_public: bool) -> Iterator[Hit]:
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
            at = domain.end()
            if keep_public and (role_mailbox(text[start:sign]) or in_notice(scan.lower, start)):
                continue
            yield _hit(start, domain.end(), "email")
            at = domain.end()
