"""The validity gates of personal data: check digits, check letters and reserved ranges.

Each function takes the candidate's characters with separators already removed
and says whether they can be a real number of that kind. The check digits
are ``python-stdnum``'s; what stdnum does not hold (the US SSN's never-issued
ranges without its list of published numbers, the UK NINO's prefixes, dates,
card networks' IIN ranges) is written here. A shape without its
gate would redact dates, order numbers and hashes; these gates are what let
the scrubber leave them alone.
"""

from __future__ import annotations

import datetime
from types import ModuleType

from stdnum import iban as stdnum_iban
from stdnum import luhn as stdnum_luhn
from stdnum.ar import cuit as ar_cuit
from stdnum.br import cnpj as br_cnpj
from stdnum.br import cpf as br_cpf
from stdnum.es import dni as es_dni
from stdnum.es import nie as es_nie
from stdnum.in_ import aadhaar as in_aadhaar
from stdnum.jp import in_ as jp_in

#: The type prefixes a CUIT/CUIL opens with (people, then companies).
_CUIT_TYPES = frozenset({"20", "23", "24", "27", "30", "33", "34"})


def stdnum_valid(module: ModuleType, number: str) -> bool:
    """Whether ``module`` (a python-stdnum number module) says ``number`` is valid.

    A few modules look a number's parts up in stdnum's own tables and raise
    ``KeyError`` where an entry lacks a field (``cn.ric`` on a birth place with
    no county) instead of their ``ValidationError``: stdnum cannot vouch for
    such a number, so it is not one.
    """
    try:
        return bool(module.is_valid(number))
    except KeyError:
        return False


def luhn(digits: str) -> bool:
    """The Luhn (mod-10) check of payment card numbers (ASCII digits)."""
    return bool(stdnum_luhn.is_valid(digits))


def iban_mod97(iban: str) -> bool:
    """An IBAN (no spaces) of a country that issues them, at its length, whose mod-97 is 1."""
    return bool(stdnum_iban.is_valid(iban))


def cpf(digits: str) -> bool:
    """Brazil's CPF: 11 digits, two mod-11 check digits, not one digit repeated."""
    return len(digits) == 11 and len(set(digits)) > 1 and bool(br_cpf.is_valid(digits))


def cnpj(digits: str) -> bool:
    """Brazil's CNPJ: 14 digits, two mod-11 check digits, not one digit repeated."""
    return len(digits) == 14 and len(set(digits)) > 1 and bool(br_cnpj.is_valid(digits))


def cuit(digits: str) -> bool:
    """Argentina's CUIT/CUIL: 11 digits, a known type prefix, the mod-11 check digit."""
    return digits[:2] in _CUIT_TYPES and bool(ar_cuit.is_valid(digits))


def aadhaar(digits: str) -> bool:
    """India's Aadhaar: 12 digits, the first 2-9, the Verhoeff check digit."""
    return len(digits) == 12 and bool(in_aadhaar.is_valid(digits))


def dni(number: str) -> bool:
    """Spain's DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits, a letter): the letter."""
    if len(number) != 9:
        return False
    return bool((es_nie if number[0] in "XYZ" else es_dni).is_valid(number))


def ssn(area: str, group: str, serial: str) -> bool:
    """A US SSN outside the ranges never issued: area 000, 666, 900-999; group 00; serial 0000."""
    return area not in {"000", "666"} and area[0] != "9" and group != "00" and serial != "0000"


#: Prefixes HMRC never issues (administrative or temporary numbers).
_NINO_RESERVED = {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}


def nino(prefix: str) -> bool:
    """A UK National Insurance number prefix HMRC issues: the letter rules and reserved pairs."""
    first, second = prefix[0], prefix[1]
    return first not in "DFIQUV" and second not in "DFIOQUV" and prefix not in _NINO_RESERVED


def my_number(digits: str) -> bool:
    """Japan's My Number: 12 digits, the last a check digit over the other eleven."""
    return len(digits) == 12 and bool(jp_in.is_valid(digits))


def date_yymmdd(text: str) -> bool:
    """Whether six digits are a calendar date (any century), as RFC and RRN numbers begin."""
    month, day = int(text[2:4]), int(text[4:6])
    try:
        # 2000 is a leap year, so 29 February is accepted for every YY.
        datetime.date(2000, month, day)
    except ValueError:
        return False
    return True


#: Each country's IBAN length (ISO 13616 registry); a code not here issues no IBAN.
IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
    "BH": 22, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22,
    "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FO": 18, "FR": 27,
    "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28,
    "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
    "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24,
    "ME": 22, "MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24,
    "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31,
    "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28, "TL": 23, "TN": 24,
    "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}  # fmt: skip


def card_network_length(digits: str) -> bool:
    """Whether a card number starts with a real network's IIN and has a length it issues."""
    length = len(digits)
    two, four, six = int(digits[:2]), int(digits[:4]), int(digits[:6])
    return (
        (digits[0] == "4" and length in (13, 16, 19))  # Visa
        or ((51 <= two <= 55 or 2221 <= four <= 2720) and length == 16)  # Mastercard
        or (two in (34, 37) and length == 15)  # American Express
        or ((four == 6011 or 644 <= int(digits[:3]) <= 649 or two == 65) and length >= 16)
        or (622126 <= six <= 622925 and length >= 16)  # Discover / UnionPay co-brand
        or ((two in (36, 38, 39) or 300 <= int(digits[:3]) <= 305) and length >= 14)  # Diners
        or (3528 <= four <= 3589 and length >= 16)  # JCB
        or (two == 62 and length >= 16)  # UnionPay
        or (2200 <= four <= 2204 and length >= 16)  # Mir
        or ((two == 50 or 56 <= two <= 69) and length >= 13)  # Maestro
    )
