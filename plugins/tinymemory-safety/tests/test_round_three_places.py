"""The sixth session's classes: places folded and inflected, principal cities, label forms
(initials in their own script, a compound word alone, names from stdnum's description), and
tokens of a vendor the catalogue does not know."""

# ruff: noqa: RUF001  (labels in their own scripts are data)
from __future__ import annotations

import random
import string

import phonenumbers
import pytest
from stdnum.be import nn as be_nn
from stdnum.bg import egn
from stdnum.de import idnr
from stdnum.gr import amka

from tinymemory_safety import SafetyScrubber
from tinymemory_safety.identifiers import stdnum_labels
from tinymemory_safety.regions import fold


def _national(region: str) -> str:
    number = phonenumbers.example_number_for_type(region, phonenumbers.PhoneNumberType.MOBILE)
    assert number is not None
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)


def _scrubbed(text: str) -> str:
    return SafetyScrubber().scrub_text(text).text


def test_fold_drops_accents_and_keeps_ascii() -> None:
    assert fold("košiciach") == "kosiciach"
    assert fold("zagreb") == "zagreb"


@pytest.mark.parametrize(
    ("text", "region"),
    [
        ("Pobočka v Košiciach: {phone}", "SK"),  # geodata writes "Kosice": folded, inflected
        ("Ured u Zagrebu: {phone}", "HR"),  # an inflected city of the geodata
        ("Kontoret i Copenhagen: {phone}", "DK"),  # no geodata: the zone's city
        ("Toimisto Helsinki: {phone}", "FI"),
    ],
)
def test_a_place_named_beside_a_number_points_to_its_region(text: str, region: str) -> None:
    phone = _national(region)
    assert phone not in _scrubbed(text.format(phone=phone))


def test_a_place_far_from_a_number_does_not_place_it() -> None:
    phone = _national("DK")
    text = "Copenhagen. " + "The weather was fine and we walked along. " * 8 + f"Count {phone}."
    assert phone in _scrubbed(text)


def test_labels_gain_initials_in_their_script_a_compound_alone_and_described_names() -> None:
    assert "ΑΜΚΑ" in stdnum_labels(amka)
    assert "ЕГН" in stdnum_labels(egn)
    assert "identifikationsnummer" in stdnum_labels(idnr)
    assert "rijksregisternummer" in stdnum_labels(be_nn)
    # Latin names have no initials of their own invented for them.
    assert all(label != label.upper() or len(label) <= 5 for label in stdnum_labels(be_nn))


def _valid(module: object, body: str, tails: int) -> str:
    for tail in range(10**tails):
        value = body + str(tail).zfill(tails)
        if module.is_valid(value):  # type: ignore[attr-defined]
            return value
    raise AssertionError(body)


@pytest.mark.parametrize(
    ("template", "module", "body", "tails"),
    [
        ("Ο Α.Μ.Κ.Α. σας είναι {value}.", amka, "0101801234", 1),
        ("Ihre Identifikationsnummer: {value}", idnr, "3657426180", 1),
        ("Numéro de registre national {value}", be_nn, "850730033", 2),
    ],
)
def test_a_number_after_such_a_label_goes_and_a_wrong_check_digit_stays(
    template: str, module: object, body: str, tails: int
) -> None:
    value = _valid(module, body, tails)
    assert value not in _scrubbed(template.format(value=value))
    wrong = value[:-1] + str((int(value[-1]) + 1) % 10)
    if not module.is_valid(wrong):  # type: ignore[attr-defined]
        assert wrong in _scrubbed(template.format(value=wrong))


def test_a_token_of_an_unknown_vendor_goes_whole() -> None:
    rng = random.Random(3)
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(40))
    body = "aB3" + body
    for token in (f"acme_live_{body}", f"zz.sk.prod.{body}", f"tok-{body}"):
        out = _scrubbed(f"deploy with {token} today")
        assert body not in out
        assert "deploy with" in out


@pytest.mark.parametrize(
    "text",
    [
        "module.function_name_that_is_rather_long_indeed",
        "sha256-" + "a" * 10 + "B" * 10 + "1" * 12 + "+/==",
        "commit_" + "0123456789abcdef" * 3,
        "img_" + "AbcdefGhijklmnopQrstuvWxyzAbcdefGh",  # no digit: a name
    ],
)
def test_prefixed_look_alikes_stay(text: str) -> None:
    assert text in _scrubbed(f"see {text} here")
