"""The regions a text points to: its script, its language, a country named or dialled in it.

A number written nationally (``030 123456``, ``01 23 45 67 89``,
``8 (912) 345-67-89``) means nothing without its region. Beyond the
policy's default region, the text around it says which:

- **a country's name**, in any of the languages libphonenumber's own
  locale data names it in (``Deutschland``, ``Allemagne``, ``Niemcy``…);
- **a calling code** written near it (``+49``, ``0033``);
- **its script**: kana is Japan's, Hangul Korea's, Cyrillic the countries
  that write it, and so on;
- **its language**, told by its commonest function words (a dozen or more
  a language, the words any stop-word list opens with, not words of any
  one sentence), and the regions where that language is the national one;
- when none of that places a number, **its language as a language
  identifier tells it** (``py3langid``, a naive Bayes model over byte n-grams
  of 142 languages, shipped with the package), and the regions where CLDR
  (through ``babel``) says that language is official.

Only a window of the text around the number is read (about :data:`WINDOW`
characters each side), so a long document costs what its numbers cost.
"""

from __future__ import annotations

import functools
import re
import unicodedata
import zoneinfo
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import phonenumbers

from tinymemory_safety.credentials import Scan

#: How far on each side of a number the text is read for its regions.
WINDOW = 240

#: Scripts and the regions that write them (a number in a window of that script).
_SCRIPTS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern), regions)
    for pattern, regions in (
        ("[\u3040-\u30ff]", ("JP",)),
        ("[\uac00-\ud7af\u1100-\u11ff]", ("KR",)),
        ("[\u0400-\u04ff]", ("RU", "UA", "BY", "KZ", "BG", "RS")),
        ("[\u0370-\u03ff]", ("GR", "CY")),
        ("[\u0590-\u05ff]", ("IL",)),
        ("[\u0e00-\u0e7f]", ("TH",)),
        ("[\u0600-\u06ff]", ("SA", "AE", "EG", "MA", "IR")),
        ("[\u0900-\u097f]", ("IN",)),
        ("[\u4e00-\u9fff]", ("CN", "TW", "HK", "JP")),
    )
)
#: Function words English shares with them: they tell no other language apart.
_ENGLISH = frozenset(
    [
        "a",
        "i",
        "o",
        "u",
        "an",
        "as",
        "at",
        "be",
        "by",
        "do",
        "he",
        "if",
        "in",
        "is",
        "it",
        "me",
        "my",
        "no",
        "of",
        "on",
        "or",
        "so",
        "to",
        "up",
        "us",
        "we",
        "am",
        "den",
        "die",
        "hat",
        "man",
        "men",
        "over",
        "ten",
        "till",
        "van",
        "var",
        "war",
        "will",
        "also",
        "dit",
        "han",
        "ja",
        "de",
        "en",
    ]
)
#: Each language's commonest function words, and the regions where it is national.
_LANGUAGES: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = tuple(
    (frozenset(words.split()) - _ENGLISH, regions)
    for words, regions in (
        ("der die und den von zu das mit sich des auf für ist im dem nicht ein eine als auch "
         "werden aus hat dass sie nach wird bei einer um sind noch wie über einen zum war "
         "haben nur oder aber vor zur bis mehr durch ich mich uns unser wir ihr ihre unter "
         "sich kann können bitte", ("DE", "AT", "CH")),
        ("la le et les des du un une est pour que qui dans par pas sur au avec il elle nous "
         "vous ce plus ne se sont votre vos notre", ("FR", "BE", "CH", "LU")),
        ("el que los se del las por con una su para es al lo como más pero sus le ya este "
         "porque esta entre cuando muy sin sobre también me hasta usted la al puede nos",
         ("ES", "MX", "AR", "CO", "CL", "PE")),
        ("il di che per un è non una sono del si con da della al lo mi ti ci gli ma come "
         "anche più questo tutti tutto alla nel ci sei ho hai", ("IT", "CH")),
        ("o que do da em um para é com não uma os no se na por mais as dos como mas ao ele "
         "das você seu sua ou pelo pela pode também está", ("PT", "BR")),
        ("de en van het een in is dat op te zijn met voor niet aan er om ook als bij of u "
         "uw ons onze wij ik je", ("NL", "BE")),
        ("i w na z do się nie że to jest o jak po co ale od za tak dla pod przez", ("PL",)),
        ("och i att det som en på är av för med till den har de inte om ett men var jag du "
         "mig vi", ("SE",)),
        ("og i at det en den til er som på de med han af for ikke der var mig jeg dit vi har",
         ("DK",)),
        ("og i det som en på er til å av for med ikke jeg meg vi har", ("NO",)),
        ("ja on ei se että hän oli ovat mutta kun niin tai myös", ("FI",)),
        ("ve bir bu için ile da de değil çok ama daha gibi olarak bize biz siz size sizi "
         "bizi ben sen", ("TR",)),
        ("az és hogy nem egy van meg ez csak már mint volt vagy ki el ha fel még azt ezt "
         "sem pedig lesz kell minket önt önök itt ott", ("HU",)),
        ("je se na že jsem jsme jste ale jak tak pro od po jako které který která nebo jsou "
         "mě nás vás", ("CZ",)),
        ("je sa na že som sme ste ale ako tak pre od po ktoré ktorý ktorá alebo sú ma nás "
         "vás", ("SK",)),
        ("și în de la cu pe un nu să ce se din care este mai sau pentru ne vă ați", ("RO",)),
        ("i je u da se na za od su kao ali ili što iz biti sam smo ste nas vas",
         ("HR", "RS", "BA", "ME", "SI")),
        ("ja on ei ole et se mis kui aga või ka oma meie teie", ("EE",)),
        ("un ir ar no uz par kas bet vai tas ka mēs jūs", ("LV",)),
        ("ir kad su iš į ne bet tai kaip mes jūs yra", ("LT",)),
    )
)  # fmt: skip
#: Letters one language (or a few) alone writes among the Latin ones.
_LETTERS: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = tuple(
    (frozenset(letters), regions)
    for letters, regions in (
        ("ß", ("DE", "AT", "CH")),
        ("ñ", ("ES", "MX", "AR", "CO", "CL", "PE")),
        ("ãõ", ("PT", "BR")),
        ("łąęśźżń", ("PL",)),
        ("øæ", ("DK", "NO")),
        ("å", ("SE", "DK", "NO", "FI")),
        ("őű", ("HU",)),
        ("ğış\u0307", ("TR",)),  # ``\u0307``: the dot ``İ`` keeps when lowered
        ("řůěť", ("CZ",)),
        ("ľĺŕô", ("SK",)),
        ("ășțâ", ("RO",)),
        ("đ", ("HR", "RS", "BA", "ME")),
        ("þð", ("IS",)),
        ("āēīūģķļņ", ("LV",)),
        ("ėįų", ("LT",)),
        ("ħġ", ("MT",)),
    )
)
#: Letters no one language writes alone, but only some write together: a window with
#: a letter of each group is of those languages (an acute vowel beside ``ö``/``ü``:
#: Hungarian, Icelandic; ``õ`` beside ``ä``: Estonian).
_LETTER_PAIRS: tuple[tuple[frozenset[str], frozenset[str], tuple[str, ...]], ...] = tuple(
    (frozenset(first), frozenset(second), regions)
    for first, second, regions in (
        ("áéíóú", "öü", ("HU", "IS")),
        ("õ", "äü", ("EE",)),
        ("ç", "ğışü", ("TR",)),
    )
)
#: A language is the text's when this many of its words are among the window's.
_LANGUAGE_WORDS = 2
_WORDS = re.compile(r"[^\W\d_]+")
#: The same words in ASCII text, which ``re`` finds twice as fast as by Unicode class.
_ASCII_WORDS = re.compile(r"[a-z]+")
_CALLING_CODE = re.compile(r"(?a)(?:\+|\b00)([1-9]\d{0,2})\b")


@functools.cache
def _country_names() -> dict[str, tuple[tuple[str, str], ...]]:
    """Every country name libphonenumber knows, lowered, by its first word: (name, region)."""
    from phonenumbers.geodata.locale import LOCALE_DATA  # a large table: read when needed

    index: dict[str, list[tuple[str, str]]] = {}
    for region, names in LOCALE_DATA.items():
        for name in {name.lower() for name in names.values() if not name.startswith("*")}:
            words = _WORDS.findall(name)
            if words and len(name) >= 4:
                index.setdefault(words[0], []).append((name, region))
    return {word: tuple(names) for word, names in index.items()}


#: Digits after the calling code of the areas whose names are read (``+36 1`` Budapest,
#: ``+90 212`` Istanbul, ``+1 201`` New Jersey): areas, not towns.
_AREA_DIGITS = 3
#: The shortest city or area name read (``Roma``, ``Oslo``).
_CITY_NAME = 4
#: The shortest stem of a name read with an ending after it (``Budapest-i``, ``Split-u``,
#: ``Kosic-iach``): the name without its last vowels.
_CITY_STEM = 5
#: The most letters such an ending has (Slovak's locative plural ``-iach``).
_CITY_ENDING = 4


def fold(word: str) -> str:
    """``word`` lowered and without its accents (``Košiciach``: ``kosiciach``), as the place
    names are indexed: the data writes many in English or in ASCII alone (``Kosice``)."""
    if word.isascii():
        return word
    return "".join(
        char for char in unicodedata.normalize("NFKD", word) if not unicodedata.combining(char)
    )


def _city_stem(name: str) -> str:
    """``name`` without its last vowels: what its inflected forms open with."""
    return name.rstrip("aeiouy")


@functools.cache
def _city_names() -> dict[str, tuple[tuple[str, str], ...]]:
    """Cities and areas libphonenumber's geocoding data names: (name, region) by key.

    The areas of a calling code and up to :data:`_AREA_DIGITS` more digits, in
    every language the data writes them in, lowered and folded (:func:`fold`),
    without what a parenthesis or a comma adds (``Istanbul (Europe)``, ``Austin,
    TX``). A one-word name is keyed by its stem (:func:`_city_stem`), so its
    inflected forms find it; each part of a hyphenated name is a name too
    (``Split-Dalmatia``: ``Split``, ``Dalmatia``); a name of several words is
    keyed by its first word and must be written whole.
    """
    from phonenumbers.geodata import GEOCODE_DATA  # a large table: read when needed

    regions: dict[str, str] = {}
    index: dict[str, set[tuple[str, str]]] = {}
    for prefix, names in GEOCODE_DATA.items():
        code = next((prefix[:n] for n in (1, 2, 3) if prefix[:n] in regions), None)
        if code is None:
            for n in (1, 2, 3):
                found = phonenumbers.region_codes_for_country_code(int(prefix[:n]))
                if found:
                    code = prefix[:n]
                    regions[code] = found[0]
                    break
        if code is None or len(prefix) - len(code) > _AREA_DIGITS or regions[code] == "001":
            continue
        for name in names.values():
            _index_place(index, name, regions[code])
    for name, region in _zone_cities():
        _index_place(index, name, region)
    return {word: tuple(sorted(names)) for word, names in index.items()}


def _zone_cities() -> Iterator[tuple[str, str]]:
    """Each country's principal cities as the time-zone database names its zones
    (``Europe/Helsinki``, ``America/Buenos_Aires``): a capital or the largest city of
    every region, so a region never rests on libphonenumber's geocoding data alone
    (Denmark has none). Zones of a sub-area (``America/Indiana/Knox``) are towns, left
    out. Read from the system's ``zone.tab`` where :data:`zoneinfo.TZPATH` finds one.
    """
    for directory in zoneinfo.TZPATH:
        path = Path(directory) / "zone.tab"
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            fields = line.split("\t")
            if line.startswith("#") or len(fields) < 3:
                continue
            parts = fields[2].split("/")
            if len(parts) == 2 and fields[0] in phonenumbers.SUPPORTED_REGIONS:
                yield parts[1].replace("_", " "), fields[0]
        return


def _index_place(index: dict[str, set[tuple[str, str]]], name: str, region: str) -> None:
    """Key ``name`` (a city or area of ``region``) as :func:`_city_names` describes."""
    name = fold(name.split(" (")[0].split(",")[0].lower().replace("\u0307", "").strip())
    words = _WORDS.findall(name)
    parts = [word for word in name.split("-") if _WORDS.fullmatch(word)]
    if len(words) == 1 or len(parts) == len(words):
        for word in words:
            if len(word) >= _CITY_NAME:
                index.setdefault(word, set()).add((word, region))
            if len(_city_stem(word)) >= _CITY_STEM:
                index.setdefault(_city_stem(word), set()).add((word, region))
    elif words and len(words[0]) >= _CITY_NAME:
        index.setdefault(words[0], set()).add((" ".join(words), region))


def text_regions(scan: Scan, at: int) -> tuple[str, ...]:
    """The regions the text around ``at`` points to, by name, calling code, script, language.

    The text is read in blocks of :data:`WINDOW` characters: the block of ``at``
    and one on each side, each reading kept on ``scan``, so a text full of
    numbers is read about three times, not once a number.
    """
    block = at // WINDOW
    if block not in scan.regions:
        scan.regions[block] = _regions(
            scan.text[max(0, (block - 1) * WINDOW) : (block + 2) * WINDOW]
        )
    return scan.regions[block]


#: How far before and after a number the words naming a city or area are read: a
#: place a number belongs to is named beside it ("Kontoret i Aarhus: 32 12 34 56", "Our
#: Cork office can be reached on ..."), and the text's other evidence is read wider.
PLACE_BEFORE = 120
PLACE_AFTER = 60


def place_regions(scan: Scan, start: int, end: int) -> tuple[str, ...]:
    """The regions of the cities and areas named beside the number at ``start:end``.

    Asked only when the text's wider evidence (:func:`text_regions`) has not
    placed the number, so the place names are read only near the few numbers
    that need them.
    """
    near = scan.text[max(0, start - PLACE_BEFORE) : end + PLACE_AFTER].lower()
    words = (_ASCII_WORDS if near.isascii() else _WORDS).findall(near.replace("\u0307", ""))
    return tuple(dict.fromkeys(_cities(words)))


#: The statuses under which CLDR's territory data makes a language a region's own: not
#: ``official_regional`` (German in Denmark's south, Spanish in New Mexico).
_NATIONAL = frozenset({"official", "de_facto_official"})


def language_regions(scan: Scan, at: int) -> tuple[tuple[str, ...], ...]:
    """The regions where each language the text around ``at`` may be in is official.

    The languages are told by ``py3langid`` over the same blocks as
    :func:`text_regions` (each reading kept on ``scan``): the likeliest, and
    every other at least half as likely (the model cannot tell Malay from
    Indonesian, or Danish from Swedish, on a sentence). Its model is loaded
    the first time a number needs it, so a text that never reaches here costs
    nothing. Asked last, for a number nothing else has placed. A block that
    reads as English by its function words (:data:`_ENGLISH_WORDS`) is English
    without asking the model.
    """
    block = at // WINDOW
    if block not in scan.languages:
        window = scan.text[max(0, (block - 1) * WINDOW) : (block + 2) * WINDOW]
        words = set(_ASCII_WORDS.findall(window.lower()))
        english = len(words & _ENGLISH_WORDS) >= _LANGUAGE_WORDS + 1
        # A language is read from words: a text of fewer words than English is told by
        # (numbers, a label) is in no language the model could tell.
        told = english or len(_WORDS.findall(window)) >= _LANGUAGE_WORDS + 1
        spoken = _spoken_in()
        scan.languages[block] = tuple(
            spoken[language]
            for language in (("en",) if english else _languages(window) if told else ())
            if language in spoken
        )
    return scan.languages[block]


#: English's commonest function words no other language writes as words of its own:
#: a text with three of them is English (the model is asked about every other text).
_ENGLISH_WORDS = frozenset(
    [
        "the",
        "and",
        "that",
        "for",
        "with",
        "this",
        "are",
        "have",
        "not",
        "from",
        "was",
        "were",
        "which",
        "you",
        "your",
        "our",
        "will",
        "would",
        "can",
        "could",
        "should",
        "been",
        "has",
        "had",
        "they",
        "their",
        "there",
        "what",
        "when",
        "where",
        "who",
    ]
)


#: A language is among a text's when the model finds it at least this share as likely
#: as the likeliest.
_LIKELY = 0.5


def _languages(text: str) -> list[str]:
    """The languages ``py3langid`` finds ``text`` may be written in, likeliest first, as
    CLDR codes (its ``tl`` is CLDR's ``fil``: babel's aliases)."""
    from babel.core import get_global

    ranked = _identifier().rank(text)
    best = float(ranked[0][1])
    aliases = get_global("language_aliases")
    return [
        aliases.get(language) or language
        for language, probability in ranked
        if float(probability) >= _LIKELY * best
    ]


@functools.cache
def _identifier() -> Any:
    """``py3langid``'s model, its scores normalised to probabilities (loaded once)."""
    from py3langid import langid  # type: ignore[import-untyped]  # numpy and a model

    return langid.LanguageIdentifier.from_model_file(langid.MODEL_FILE, norm_probs=True)


@functools.cache
def _spoken_in() -> dict[str, tuple[str, ...]]:
    """Each language (ISO 639 code, without its script) and the regions where CLDR
    says it is official, as libphonenumber names them."""
    from babel.core import get_global

    regions: dict[str, list[str]] = {}
    for region, languages in get_global("territory_languages").items():
        if region not in phonenumbers.SUPPORTED_REGIONS:
            continue
        for language, info in languages.items():
            if info.get("official_status") in _NATIONAL:
                regions.setdefault(language.split("_")[0], []).append(region)
    return {language: tuple(dict.fromkeys(found)) for language, found in regions.items()}


def _regions(window: str) -> tuple[str, ...]:
    lowered = window.lower()
    lower = lowered.replace("\u0307", "") if "\u0307" in lowered else lowered
    regions: list[str] = []
    if "+" in window or "00" in window:
        for found in _CALLING_CODE.finditer(window):
            regions += phonenumbers.region_codes_for_country_code(int(found.group(1)))
    words = (_ASCII_WORDS if lower.isascii() else _WORDS).findall(lower)
    names = _country_names()
    for index in [index for index, word in enumerate(words) if word in names]:
        word = words[index]
        for name, region in names[word]:
            if name == word or name in " ".join(words[index : index + 4]):
                regions.append(region)
    if not window.isascii():
        for script, scripts_regions in _SCRIPTS:
            if script.search(window):
                regions += scripts_regions
    if not window.isascii():
        letters = set(lowered)
        for alphabet, letter_regions in _LETTERS:
            if not alphabet.isdisjoint(letters):
                regions += letter_regions
        for first, second, pair_regions in _LETTER_PAIRS:
            if not first.isdisjoint(letters) and not second.isdisjoint(letters):
                regions += pair_regions
    seen = set(words)
    for function_words, language_regions in _LANGUAGES:
        if len(function_words & seen) >= _LANGUAGE_WORDS:
            regions += language_regions
    return tuple(dict.fromkeys(region for region in regions if region != "001"))


@functools.cache
def _city_openings() -> frozenset[str]:
    """The first :data:`_CITY_NAME` letters of every key of :func:`_city_names`: a word
    opening otherwise names no place, and costs one set lookup, not one per ending."""
    return frozenset(key[:_CITY_NAME] for key in _city_names())


def _cities(words: list[str]) -> list[str]:
    """The regions of the cities and areas named among ``words``, maybe with an ending."""
    cities = _city_names()
    openings = _city_openings()
    regions = []
    for word in set(words):
        if len(word) < _CITY_NAME:
            continue
        folded = word if word.isascii() else fold(word)
        if folded[:_CITY_NAME] not in openings:
            continue
        for cut in range(min(_CITY_ENDING, len(folded) - _CITY_NAME) + 1):
            head = folded[: len(folded) - cut]
            names = cities.get(head)
            if names is None:
                continue
            for name, region in names:
                if " " in name:
                    if not cut:
                        at = words.index(word)
                        if name in fold(" ".join(words[at : at + 4])):
                            regions.append(region)
                elif name == folded or (len(head) >= _CITY_STEM and head == _city_stem(name)):
                    regions.append(region)
    return regions
