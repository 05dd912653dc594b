"""A number placed by the text's language; national-id labels derived from stdnum's names.

Phone numbers written nationally in a text that names no place are read in
the regions where the text's language is official (py3langid tells the
language, CLDR through babel where it is spoken); the same languages' order
and invoice numbers, amounts, dates and versions stay. National-id labels
are stdnum's names in their forms (acronyms, a person's glossed name, Korean
short forms, no accents), each before a number that passes its validator,
never before one that fails it or before a date.
"""

# ruff: noqa: RUF001  (sentences in their own scripts are data)
from __future__ import annotations

import re
from types import ModuleType

import phonenumbers
import pytest
from stdnum.kr import rrn
from stdnum.lv import pvn
from stdnum.si import emso
from stdnum.ua import rntrc

from tinymemory_safety import Policy, SafetyScrubber
from tinymemory_safety.credentials import Scan
from tinymemory_safety.folding import ASCII_LOWER
from tinymemory_safety.identifiers import (
    _LABELLED,
    _PERSONAL_PART,
    personal_names,
    stdnum_labels,
)
from tinymemory_safety.regions import language_regions

SCRUB = SafetyScrubber().scrub_text


def scan(text: str) -> Scan:
    return Scan(text, text.translate(ASCII_LOWER))


@pytest.mark.parametrize(
    ("region", "number", "sentence"),
    [
        ("LT", "(8-5) 212 3456", "Jei turite klausimų, galite mums skambinti {} darbo dienomis."),
        ("SI", "041 555 123", "Za vse informacije smo vam na voljo na {} vsak delovni dan."),
        ("EE", "5551 2345", "Kui teil on küsimusi, helistage meile {} tööpäeviti."),
        ("UY", "099 123 456", "Por consultas podés llamarnos al {} de lunes a viernes, gracias."),
        ("FI", "040 1234567", "Jos sinulla on kysyttävää, soita meille {} arkipäivisin."),
        ("DK", "20 12 34 56", "Hvis du har spørgsmål, kan du ringe til os på {} på hverdage."),
    ],
)
def test_a_national_number_is_read_in_the_regions_of_the_texts_language(
    region: str, number: str, sentence: str
) -> None:
    assert phonenumbers.is_valid_number(phonenumbers.parse(number, region))
    text = sentence.format(number)
    assert SCRUB(text).text == sentence.format("[REDACTED_PII_PHONE]"), text


@pytest.mark.parametrize(
    "text",
    [
        "Užsakymo Nr. 312 34567 išsiųstas vakar.",  # a numero sign: an order
        "Naročilo št. 031 234 567 je bilo odposlano.",
        "Die Rechnung Nummer 83-36-95-17 ist bezahlt.",  # the noun "number", no phone word
        "La facture numéro 600-42-40-50 est réglée.",
        "Reikningur nr. 686 5208 er greiddur.",
        "Copyright 2020-2024 the authors. All rights reserved.",  # years, not Lesotho
        "Suma: 1 234,56 EUR, mokėti iki pirmadienio.",
        "Adresas: Laisvės al. 10, LT-44248 Kaunas.",
        "Päivitetty 23. 9. 2019, versio 14.9.17.10.",  # a version after its word
        "Ажурирано 26/12/2010, верзија 8.9.17.6.",
        "Atnaujinta 2006-11-22, versija 16.9.0.9.",
    ],
)
def test_numbers_in_the_same_languages_that_are_no_phone_stay(text: str) -> None:
    assert SCRUB(text).text == text


def test_the_language_names_the_regions_where_it_is_official() -> None:
    lithuanian = "Galite mums skambinti darbo dienomis, jei turite klausimų apie užsakymą."
    assert ("LT",) in language_regions(scan(lithuanian), 0)
    english = "You can reach the office during the week if you have questions about it."
    (regions,) = language_regions(scan(english), 0)
    assert {"US", "GB", "NZ"} <= set(regions)
    malay = "Sila hubungi kami pada waktu pejabat jika ada sebarang pertanyaan."
    found = {region for regions in language_regions(scan(malay), 0) for region in regions}
    assert {"MY", "ID"} <= found  # Malay and Indonesian: the model cannot tell them apart
    tagalog = "Maaari kayong makipag-ugnayan sa amin tuwing araw ng trabaho."
    assert any("PH" in regions for regions in language_regions(scan(tagalog), 0))  # tl: fil


def test_a_text_in_the_policys_own_language_is_read_in_the_policys_region_only() -> None:
    # 21 234 567 is valid in Lesotho (English is official there), not in the US or GB.
    text = "Please find the reference 2123 4567 in the attached letter."
    assert SafetyScrubber().scrub_text(text).text == text
    assert SafetyScrubber(Policy(default_region="GB")).scrub_text(text).text == text


def test_stdnum_names_give_acronyms_glossed_names_short_forms_and_unaccented_forms() -> None:
    assert {"emŠo", "emso", "enotna maticna stevilka obcana"} <= set(stdnum_labels(emso))
    assert "주민번호" in stdnum_labels(rrn)  # 주민등록번호: first and last words
    assert personal_names(pvn) == ("personas kods",)
    assert "with chip" not in stdnum_labels(__import__("stdnum.be.eid").be.eid)


def _broken(value: str, valid: object) -> str:
    """``value`` with one digit changed so that ``valid`` fails it."""
    for at in range(len(value) - 1, -1, -1):
        if value[at].isdigit():
            for digit in "0123456789":
                changed = value[:at] + digit + value[at + 1 :]
                if not valid(changed):  # type: ignore[operator]
                    return changed
    raise AssertionError(value)


@pytest.mark.parametrize(
    ("template", "labels", "value", "valid"),
    [
        ("Prosimo, vpišite {} {} v obrazec.", ["EMŠO", "Emšo", "EMSO"], "0101006500006",
         emso.is_valid),
        ("고객의 {} {} 확인이 완료되었습니다.", ["주민번호", "주민등록번호"], "8112311234562",
         rrn.is_valid),
        ("Будь ласка, вкажіть {} {} у формі.",
         ["ідентифікаційний код", "ідентифікаційного коду", "РНОКПП"], "3463463460",
         rntrc.is_valid),
        ("Lūdzu, norādiet {} {} veidlapā.", ["personas kods", "personas kodu", "Personas koda"],
         "161175-19997", pvn.is_valid),
    ],
)  # fmt: skip
def test_an_id_label_takes_a_valid_number_and_leaves_a_broken_one_or_a_date(
    template: str, labels: list[str], value: str, valid: object
) -> None:
    assert valid(value)  # type: ignore[operator]
    broken = _broken(value, valid)
    for label in labels:
        text = template.format(label, value)
        assert value not in SCRUB(text).text, text
        for decoy in (broken, "12.03.1987"):
            text = template.format(label, decoy)
            assert SCRUB(text).text == text, text


def _examples(module: ModuleType) -> list[str]:
    """The numbers ``module``'s docstring validates (``>>> validate('…')`` with no error)."""
    found = re.findall(r">>> validate\('([^']+)'\)\n(?!Traceback)", module.__doc__ or "")
    return [number for number in found if module.is_valid(number)]


#: Every labelled number whose docstring holds a valid example, with its names.
_NAMED = [
    (module.__name__, name, _examples(module)[0])
    for _, module, _ in _LABELLED
    if _examples(module)
    for name in (
        personal_names(module) if module in dict(_PERSONAL_PART).values() else stdnum_labels(module)
    )
]


def test_most_labelled_numbers_have_an_example_to_check() -> None:
    assert len({module for module, _, _ in _NAMED}) >= 35


@pytest.mark.parametrize(("module", "name", "number"), _NAMED)
def test_every_name_stdnum_gives_a_number_reaches_its_own_example(
    module: str, name: str, number: str
) -> None:
    text = f"Please note the {name} {number} here."
    assert number not in SCRUB(text).text, (module, text)


@pytest.mark.parametrize(
    "text", ["2 100 100", "0 312 34567", "12 345 678\n98 765 43", "(2) 100 100"]
)
def test_digits_with_no_words_around_them_are_placed_by_no_language(text: str) -> None:
    # Found by the prose property: a language model asked about digits alone guesses one.
    assert SafetyScrubber().scrub_text(text).text == text
