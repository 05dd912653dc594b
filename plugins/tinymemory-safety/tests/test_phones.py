"""Phone numbers of every region, with libphonenumber's own example numbers as the oracle.

For each region it knows, libphonenumber gives an example mobile and fixed-line
number. Written internationally (``+44 7400 123456``, E.164) each must be
redacted with no word around it; written nationally, after "call me on",
each of seven digits or more must be (the default region is the US, so the
phone word is what vouches for the others). Shorter national numbers (small
territories' five-digit ones) stay: seven digits is the floor of the class.
"""

from __future__ import annotations

import phonenumbers
import pytest

from tinymemory_safety import Policy, SafetyScrubber

SCRUBBER = SafetyScrubber()
KINDS = (phonenumbers.PhoneNumberType.MOBILE, phonenumbers.PhoneNumberType.FIXED_LINE)
EXAMPLES = [
    (region, number)
    for region in sorted(phonenumbers.SUPPORTED_REGIONS)
    for kind in KINDS
    if (number := phonenumbers.example_number_for_type(region, kind)) is not None
]


def redacted(text: str, written: str, scrubber: SafetyScrubber = SCRUBBER) -> bool:
    out = scrubber.scrub_text(text).text
    return written not in out and "[REDACTED_PII_PHONE]" in out


def test_every_region_is_covered() -> None:
    assert len({region for region, _ in EXAMPLES}) >= 240


@pytest.mark.parametrize(
    "form", [phonenumbers.PhoneNumberFormat.INTERNATIONAL, phonenumbers.PhoneNumberFormat.E164]
)
def test_every_international_number_is_redacted_alone(form: int) -> None:
    missed = []
    for region, number in EXAMPLES:
        written = phonenumbers.format_number(number, form)
        if not redacted(f"ref {written} ok", written):
            missed.append((region, written))
    assert missed == []


def test_every_national_number_after_a_phone_word_is_redacted() -> None:
    missed = []
    for region, number in EXAMPLES:
        written = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
        if sum(char.isdigit() for char in written) < 7:
            continue
        if not redacted(f"call me on {written} today", written):
            missed.append((region, written))
    assert missed == []


@pytest.mark.parametrize("region", ["GB", "DE", "FR", "IN", "AU", "JP", "BR"])
def test_national_numbers_of_the_default_region_need_no_phone_word(region: str) -> None:
    scrubber = SafetyScrubber(Policy(default_region=region))
    for kind in KINDS:
        number = phonenumbers.example_number_for_type(region, kind)
        assert number is not None
        written = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
        assert redacted(f"ref {written} ok", written, scrubber), written
