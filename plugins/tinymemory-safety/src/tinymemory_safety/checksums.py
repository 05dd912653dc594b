"""The validity gates of personal data: check digits, check letters and reserved ranges.

Each function takes the candidate's characters with separators already removed
and says whether they can be a real number of that kind. A shape without its
gate would redact dates, order numbers and hashes; these gates are what let
the scrubber leave them alone.
"""

from __future__ import annotations

import datetime

#: Each digit doubled, its digits summed (Luhn's step), one character for one.
_DOUBLED = str.maketrans("0123456789", "0246813579")


def luhn(digits: str) -> bool:
    """The Luhn (mod-10) check of payment card numbers (ASCII digits)."""
    kept = digits[-1::-2].encode("ascii")
    doubled = digits[-2::-2].translate(_DOUBLED).encode("ascii")
    return (sum(kept) + sum(doubled) - 48 * len(digits)) % 10 == 0


def iban_mod97(iban: str) -> bool:
    """ISO 13616: the first four characters moved to the end, letters as 10..35, mod 97 is 1."""
    rearranged = iban[4:] + iban[:4]
    number = "".join(str(int(char, 36)) for char in rearranged)
    return int(number) % 97 == 1


def _mod11_digit(digits: str, weights: tuple[int, ...]) -> int:
    remainder = sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 11
    return 0 if remainder < 2 else 11 - remainder


def cpf(digits: str) -> bool:
    """Brazil's CPF: 11 digits, two mod-11 check digits, not one digit repeated."""
    if len(digits) != 11 or len(set(digits)) == 1:
        return False
    first = _mod11_digit(digits[:9], (10, 9, 8, 7, 6, 5, 4, 3, 2))
    second = _mod11_digit(digits[:10], (11, 10, 9, 8, 7, 6, 5, 4, 3, 2))
    return digits[9:] == f"{first}{second}"


def cnpj(digits: str) -> bool:
    """Brazil's CNPJ: 14 digits, two mod-11 check digits, not one digit repeated."""
    if len(digits) != 14 or len(set(digits)) == 1:
        return False
    first = _mod11_digit(digits[:12], (5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2))
    second = _mod11_digit(digits[:13], (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2))
    return digits[12:] == f"{first}{second}"


def cuit(digits: str) -> bool:
    """Argentina's CUIT/CUIL: 11 digits, a known type prefix, the mod-11 check digit."""
    if len(digits) != 11 or digits[:2] not in {"20", "23", "24", "27", "30", "33", "34"}:
        return False
    weights = (5, 4, 3, 2, 7, 6, 5, 4, 3, 2)
    check = 11 - sum(int(d) * w for d, w in zip(digits[:10], weights, strict=True)) % 11
    if check == 11:
        check = 0
    return check != 10 and int(digits[10]) == check


_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6),
    (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8),
    (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2),
    (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4),
    (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9),
    (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2),
    (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0),
    (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5),
    (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)


def aadhaar(digits: str) -> bool:
    """India's Aadhaar: 12 digits, the first 2-9, the Verhoeff check digit."""
    if len(digits) != 12 or digits[0] in "01":
        return False
    check = 0
    for index, char in enumerate(reversed(digits)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[index % 8][ord(char) - 48]]
    return check == 0


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni(number: str) -> bool:
    """Spain's DNI (8 digits and a letter) or NIE (X, Y or Z, 7 digits, a letter): the letter."""
    if len(number) != 9:
        return False
    head = number[:8]
    if head[0] in "XYZ":
        head = str("XYZ".index(head[0])) + head[1:]
    return head.isdigit() and _DNI_LETTERS[int(head) % 23] == number[8]


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
    if len(digits) != 12:
        return False
    body = digits[:11]
    total = 0
    for position, char in enumerate(reversed(body), start=1):
        weight = position + 1 if position <= 6 else position - 5
        total += int(char) * weight
    remainder = total % 11
    return int(digits[11]) == (0 if remainder <= 1 else 11 - remainder)


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
