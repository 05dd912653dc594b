"""National identifiers, bank numbers and dates of birth, validated by ``python-stdnum``.

Two ways in. A shape distinctive enough to stand alone (Italy's codice
fiscale, Mexico's CURP, Belgium's national number, Switzerland's AHV,
Sweden's personnummer, Finland's HETU, France's NIR written in groups,
Chile's RUT, the US ITIN) is found anywhere and kept only when stdnum
validates it (its check digits, and its date where it holds one). A number
that could be anything (nine or eleven digits) is a national identifier
only after its label: "BSN 111222333", "NHS number: 943 476 5919",
"PESEL 44051401359"; the label picks the validators tried. A label is known
in the number's own language: besides this module's own, each number answers
to the names stdnum's docstring gives it (:func:`stdnum_labels`). Passport and
driving-licence numbers, bank accounts and dates of birth have no checksum
anyone publishes: their label alone makes them personal data.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Callable, Iterator
from types import ModuleType

from stdnum.ar import dni as ar_dni
from stdnum.at import vnr as at_vnr
from stdnum.au import tfn
from stdnum.be import nn as be_nn
from stdnum.bg import egn as bg_egn
from stdnum.ca import sin
from stdnum.ch import ssn as ch_ssn
from stdnum.cl import rut
from stdnum.cn import ric
from stdnum.cz import rc as cz_rc
from stdnum.de import idnr
from stdnum.dk import cpr
from stdnum.ee import ik as ee_ik
from stdnum.fi import hetu
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.gr import amka as gr_amka
from stdnum.hr import oib as hr_oib
from stdnum.ie import pps
from stdnum.il import idnr as il_idnr
from stdnum.is_ import kennitala as is_kennitala
from stdnum.it import codicefiscale
from stdnum.lt import asmens as lt_asmens
from stdnum.mx import curp
from stdnum.nl import bsn
from stdnum.no import fodselsnummer
from stdnum.pl import pesel
from stdnum.pt import cc as pt_cc
from stdnum.pt import nif as pt_nif
from stdnum.ro import cnp as ro_cnp
from stdnum.se import personnummer
from stdnum.tr import tckimlik
from stdnum.us import itin, rtn
from stdnum.za import idnr as za_idnr

from tinymemory_safety.checksums import stdnum_valid
from tinymemory_safety.credentials import Scan
from tinymemory_safety.folding import ASCII_LOWER

#: (class, stdnum module, label words of our own) for numbers found by their label; each
#: also answers to the names stdnum gives it in its own language (:func:`stdnum_labels`).
_OWN_LABELS: tuple[tuple[str, ModuleType, str], ...] = (
    ("nhs", nhs, r"nhs(?: number| no)?"),
    ("sin", sin, r"sin|social insurance(?: number)?|nas"),
    ("tfn", tfn, r"tfn|tax file number"),
    ("steuer_id", idnr, r"steuer-?id|steuer-?identifikationsnummer"),
    ("nir", nir, r"nir|insee|s[ée]curit[ée] sociale|num[ée]ro de s[ée]cu"),
    ("bsn", bsn, r"bsn|sofinummer"),
    ("personnummer", personnummer, r"personnummer|personnr"),
    ("fodselsnummer", fodselsnummer, r"f[øo]dselsnummer|personnummer"),
    ("pesel", pesel, r"pesel"),
    ("cpr", cpr, r"cpr(?:-nummer| number| nr)?"),
    ("hetu", hetu, r"hetu|henkil[öo]tunnus"),
    ("tc_kimlik", tckimlik, r"t\.?c\.? kimlik(?: no)?|kimlik(?: no| numaras\u0131)?"),
    ("il_id", il_idnr, r"teudat zehut|zehut|israeli id"),
    ("pps", pps, r"ppsn?(?: number| no)?"),
    ("za_id", za_idnr, r"south african id(?: number)?|sa id(?: number)?"),
    ("nif_pt", pt_nif, r"nif|contribuinte|n[úu]mero de contribuinte"),
    ("dni_ar", ar_dni, r"dni"),
    ("cn_ric", ric, r"身份证(?:号码?)?|resident identity card(?: number)?"),
    ("vnr_at", at_vnr, r"sozialversicherungsnummer|sv-nummer"),
    ("cnp_ro", ro_cnp, r"cnp"),
    ("egn_bg", bg_egn, r"egn"),
    ("isikukood_ee", ee_ik, r"isikukood"),
    ("asmens_kodas_lt", lt_asmens, r"asmens kodas"),
    ("rodne_cislo_cz", cz_rc, r"rodn[ée] [čc][íi]slo"),
    ("amka_gr", gr_amka, r"amka"),
    ("oib_hr", hr_oib, r"oib"),
    ("kennitala_is", is_kennitala, r"kennitala"),
    ("cc_pt", pt_cc, r"cart[ãa]o de cidad[ãa]o"),
    ("be_nn", be_nn, r"rrn"),
)
#: Words of stdnum's English glosses ("German personal tax number"): not a label.
_GLOSS_WORDS = frozenset(
    {"number", "numbers", "identifier", "identity", "identification", "code", "codes",
     "personal", "national", "tax", "citizen", "the", "birth", "social", "security", "patient",
     "individual", "individuals", "foreigner", "insurance", "public", "service", "resident",
     "card", "health"}
)  # fmt: skip
#: Endings of English demonyms ("Lithuanian", "Swedish", "Chinese"): a gloss too.
_DEMONYM = ("ian", "ish", "ese")
#: Short names that are English words: as labels they would fire on prose.
_NOT_LABELS = frozenset({"pin", "pan", "tin", "nit", "in", "id", "no", "cc", "ci", "nn", "ik"})


def stdnum_labels(module: ModuleType) -> tuple[str, ...]:
    """The names stdnum's docstring gives a number: its acronyms, and its native names.

    ``IdNr (Steuerliche Identifikationsnummer, German personal tax number).``
    gives ``idnr`` and ``steuerliche identifikationsnummer``; the English gloss
    is left out. Lowered as the detectors' text is (ASCII letters only).
    """
    paragraphs = (module.__doc__ or "").strip().split("\n\n")
    first = paragraphs[0].splitlines()[0].rstrip(".")
    head, _, inner = first.partition(" (")
    pieces = [*head.split(","), *inner.rstrip(")").split(",")]
    # The description names the number too, in parentheses: "(Rijksregisternummer,
    # Numéro de registre national, Nationalregisternummer)", "(AMKA or Arithmos ...)".
    # Only names are taken (a capital first): "(for individuals)" is a remark.
    described = " ".join(paragraphs[1].split()) if len(paragraphs) > 1 else ""
    for group in re.findall(r"\(([^()]*)\)", described):
        pieces += [
            piece
            for part in group.split(",")
            for piece in part.split(" or ")
            if _capital(piece.strip()[:1])
        ]
    # The description calls the number by its acronym ("The EMŠO is used ...", "The RRN
    # (...)"), and glosses a name in English before its own ("the personal code
    # (personas kods)"): a parenthesis of native words after a gloss word.
    pieces += [word for word in _THE_ACRONYM.findall(described) if word.isupper()]
    pieces += [
        group
        for gloss, group in _GLOSSED.findall(described)
        if gloss.lower() in _GLOSS_WORDS and _PROSE.isdisjoint(group.split())
    ]
    names = []
    for piece in pieces:
        name = piece.strip().strip("\"'“”").translate(ASCII_LOWER)
        words = name.replace(".", " ").split()
        if len(name) < 3 or name in _NOT_LABELS:
            continue
        if any(word.endswith(_DEMONYM) for word in words):
            continue
        if 2 * sum(word in _GLOSS_WORDS for word in words) >= len(words):
            continue  # mostly gloss words: "personal code"; "cod numeric personal" is a name
        if name[:1].isupper() and not inner:  # a heading that is all gloss
            continue
        names.append(name)
        names += _short_forms(words)
    # Written without its accents too, as ASCII keyboards leave it ("EMSO", "rodne cislo").
    names += [_unaccented(name) for name in names if _unaccented(name) != name]
    return tuple(dict.fromkeys(names))


#: An acronym the description names the number by: "The" and a word of capitals (any
#: alphabet, three or more letters).
_THE_ACRONYM = re.compile(r"\bThe ([^\W\d_a-z]{3,})(?![\w.])")
#: English words of a remark in parentheses ("(with chip)", "(for individuals)").
_PROSE = frozenset({"with", "for", "and", "the", "of", "in", "on", "to", "or", "by", "from"})
#: A person's number glossed in English, then its own name in parentheses.
_PERSONAL_GLOSS = re.compile(
    r"(personal (?:code|number|identity code)) \(((?:[^\W\d_A-Z]+ ?){1,3})\)"
)
#: A gloss word, then a parenthesis of one to three lower-case words: the name it glosses.
_GLOSSED = re.compile(r"(\w+) \(((?:[^\W\d_A-Z]+ ?){1,3})\)")


def _unaccented(name: str) -> str:
    """``name`` without its accents, when it is written in Latin letters (others as they are)."""
    if any(ord(char) >= _LATIN_END for char in name):
        return name
    return "".join(
        char for char in unicodedata.normalize("NFKD", name) if not unicodedata.combining(char)
    ).translate(ASCII_LOWER)


#: Where the Latin letters (with their accented forms) end.
_LATIN_END = 0x250


def _capital(letter: str) -> bool:
    """Whether ``letter`` opens a name: a capital, or a letter of a script without case."""
    return letter.isupper() or (letter.isalpha() and letter.lower() == letter.upper())


#: The fewest letters of an acronym made from a name's initials (Greek AMKA, Bulgarian EGN).
_INITIALS = 3
#: The fewest letters of a name's last word that is a label alone: a compound noun
#: (``Identifikationsnummer``, ``Sozialversicherungsnummer``), not a word of prose.
_COMPOUND = 12


#: Syllables of a Sino-Korean word: a Korean name of three or more such words is also
#: said by its first and last (``주민등록번호``, resident-registration-number: ``주민번호``).
_HANGUL_WORD = 2


def _hangul(word: str) -> bool:
    return all("\uac00" <= char <= "\ud7a3" for char in word)


def _short_forms(words: list[str]) -> list[str]:
    """What a name is also written as: a long Korean compound by its first and last words
    (:data:`_HANGUL_WORD`); a name of several words, its initials in its own script,
    when that is not Latin (Greek AMKA and Bulgarian EGN, in their own letters), and its
    last word alone when that is a compound noun (``Steuerliche Identifikationsnummer``:
    ``Identifikationsnummer``)."""
    forms = []
    if len(words) == 1 and len(words[0]) >= 3 * _HANGUL_WORD and _hangul(words[0]):
        forms.append(words[0][:_HANGUL_WORD] + words[0][-_HANGUL_WORD:])
    if len(words) >= _INITIALS and not any(char.isascii() for char in "".join(words)):
        initials = "".join(word[0] for word in words if word[:1].isalpha())
        if len(initials) == len(words) and initials.upper() != initials.lower():
            forms.append(initials.upper())
    if len(words) >= 2 and len(words[-1]) >= _COMPOUND and words[-1].isalpha():
        forms.append(words[-1])
    return forms


#: Vowels of the Latin, Greek and Cyrillic alphabets, as their letters without accents
#: (where a word's last syllable starts): Latin, dotless i, then Greek and Cyrillic.
_VOWELS = frozenset(
    "aeiouyæøœ\u0131\u03b1\u03b5\u03b7\u03b9\u03bf\u03c5\u03c9"
    "\u0430\u0435\u0451\u0438\u043e\u0443\u044b\u044d\u044e\u044f\u0456\u0457\u0454"
)
#: The most letters an inflection adds after a word's stem (case, number, article,
#: possessive: Romanian ``-ului``, Finnish ``-uksen``, Norwegian ``-et``).
_ENDING = 6
#: The longest one-word name read as an acronym, never inflected (``pesel``, ``svnr``).
_ACRONYM = 5
_LETTER = "[a-z\u00df-\u024f\u0370-\u03ff\u0400-\u04ff]"
#: Any vowel of the Latin alphabets, with or without accents, either case.
_ANY_VOWEL = (
    "[aeiouy\u00c0-\u00c6\u00c8-\u00cf\u00d2-\u00d6\u00d8-\u00dd\u00e0-\u00e6"
    "\u00e8-\u00ef\u00f2-\u00f6\u00f8-\u00fd\u00ff\u0150\u0151\u0170\u0171\u0131]"
)


def inflected(name: str) -> str:
    """A pattern of ``name`` as sentences write it: each word in any inflected form.

    A national id's name is declined, takes an article or a possessive as a
    suffix ("codul numeric personal", "fødselsnummeret", "rodného čísla"): each
    word is kept to its stem (its last syllable's vowel and what follows cut off,
    three letters at the least), then any ending of up to :data:`_ENDING` letters.
    A name of one word of :data:`_ACRONYM` letters or fewer (an acronym: PESEL,
    EGN), or with dots, words of two letters and words of a script without
    vowel letters (Hangul, Han) stay as written. Letters outside
    ASCII match either case, since the detectors' text is lowered in ASCII only.
    """
    words = name.split()
    if len(words) == 1 and name.isalpha() and not name.isascii() and name.isupper():
        return r"\.?".join(_either_case(char) for char in name) + r"\.?"  # A.M.K.A. in Greek
    if len(words) == 1 and (len(name) <= _ACRONYM or not name.isalpha() or _unvowelled(name)):
        return "".join(_either_case(char) for char in name)  # ``EMŠO``, ``Emšo``
    parts = []
    for word in words:
        if len(word) <= 2 or not word.isalpha() or _unvowelled(word):
            parts.append(re.escape(word))
        else:
            parts.append("".join(_stem(word)) + f"{_LETTER}{{0,{_ENDING}}}")
    return "[ -]".join(parts)


def _unvowelled(word: str) -> bool:
    """Whether ``word`` is of a script without the vowels :func:`_stem` cuts at (Hangul,
    Han, Arabic): it is matched as written."""
    return not any(map(_vowel, word))


def _stem(word: str) -> list[str]:
    """``word`` without its last vowel and what follows it (three letters at the least),
    as patterns of its letters; the stem's own last vowels are any Latin vowels, since an
    inflection may change them (Icelandic ``kennitala``/``kennitölu``, German and
    Hungarian umlauts, Finnish vowel harmony)."""
    end = len(word)
    while end and not _vowel(word[end - 1]):
        end -= 1
    while end and _vowel(word[end - 1]):
        end -= 1
    stem = word[:end] if end >= 3 else word[:3]
    letters = [_either_case(char) for char in stem]
    last = len(stem)
    while last and not _vowel(stem[last - 1]):
        last -= 1
    first = last
    while first and _vowel(stem[first - 1]):
        first -= 1
    if 0 < first < last and all(ord(char) < 0x250 for char in stem[first:last]):
        letters[first:last] = [_ANY_VOWEL + "{1,2}"]
    return letters


def _vowel(char: str) -> bool:
    return unicodedata.normalize("NFD", char.lower())[:1] in _VOWELS


def _either_case(char: str) -> str:
    lower, upper = char.lower(), char.upper()
    if char.isascii() or lower == upper or len(upper) != 1:
        return re.escape(lower)
    return f"[{lower}{upper}]"


#: stdnum's other numbers of a person (its heading names a person's, a citizen's, a
#: resident's or an individual's number, not a company's or only a tax office's), found
#: after the names stdnum gives them alone: (class, module).
_NAMED_BY_STDNUM: tuple[tuple[str, ModuleType], ...] = tuple(
    (name.replace(".", "_").rstrip("_"), importlib.import_module(f"stdnum.{name}"))
    for name in (
        "be.bis", "be.ssn", "bg.pnf", "ca.bc_phn", "ch.ssn", "cr.cpf", "cu.ni", "do.cedula",
        "ec.ci", "fi.veronumero", "id.nik", "in_.epic", "in_.vid", "jp.in_", "kr.rrn",
        "my.nric", "nl.onderwijsnummer", "pe.cui", "pk.cnic", "si.emso", "sk.rc", "ua.rntrc",
    )
)  # fmt: skip
#: (class, stdnum module, every label that names it, as a pattern).
#: Numbers stdnum holds for companies and persons alike (Latvia's VAT number is a person's
#: personal code): only the names its docstring glosses as a person's are their labels
#: (:func:`personal_names`), under their own class.
_PERSONAL_PART: tuple[tuple[str, ModuleType], ...] = (
    ("personas_kods_lv", importlib.import_module("stdnum.lv.pvn")),
)
#: Names people call a number by that stdnum's docstring does not give (Ukraine's
#: РНОКПП is still said by its former name, the identification code or number).
_SAID_NAMES: dict[str, tuple[str, ...]] = {
    "ua_rntrc": (
        "ідентифікаційний код",
        "ідентифікаційний номер",
        "ІПН",
    ),
}


def personal_names(module: ModuleType) -> tuple[str, ...]:
    """The names ``module``'s docstring glosses as a person's: "personal code (personas kods)"."""
    described = " ".join((module.__doc__ or "").split())
    return tuple(
        group.translate(ASCII_LOWER)
        for gloss, group in _PERSONAL_GLOSS.findall(described)
        if _PROSE.isdisjoint(group.split())
    )


_LABELLED: tuple[tuple[str, ModuleType, str], ...] = (
    tuple(
        (kind, module, "|".join([own, *(inflected(name) for name in stdnum_labels(module))]))
        for kind, module, own in _OWN_LABELS
    )
    + tuple(
        (
            kind,
            module,
            "|".join(
                inflected(name) for name in (*stdnum_labels(module), *_SAID_NAMES.get(kind, ()))
            ),
        )
        for kind, module in _NAMED_BY_STDNUM
        if stdnum_labels(module)
    )
    + tuple(
        (kind, module, "|".join(inflected(name) for name in personal_names(module)))
        for kind, module in _PERSONAL_PART
    )
)
#: Labels that name some national identifier without saying whose: every validator is tried.
_GENERIC_LABEL = (
    r"national id(?:entity)?(?: card)?(?: number| no)?|national identification number|"
    r"id(?:entity)? (?:card )?(?:number|no)|identification number|personal (?:id|identity|"
    r"identification|code|number)(?: number| code)?|citizen id|social security(?: number| no)?|"
    r"tax id(?:entification)?(?: number)?|tin"
)
#: Passports, driving licences and bank accounts: the label alone decides.
_LABEL_ONLY: tuple[tuple[str, str], ...] = (
    ("passport", r"passport(?: number| no| #)?|reisepass(?:nummer)?|passeport|pasaporte"),
    ("driver_license", r"driv(?:er'?s?|ing) licen[cs]e(?: number| no| #)?|dl(?: number| no| #)"),
    ("bank_account", r"bank account (?:number|no|#)|account (?:number|no|#)|acct(?: no| #)?|"
     r"kontonummer|"
     r"num[ée]ro de compte|n[úu]mero de cuenta|sort code"),
)  # fmt: skip
_ROUTING_LABEL = r"routing(?: number| no| #)?|aba(?: number| no| #)?"
_LABELS = re.compile(
    r"(?a)(?:"
    + "|".join(f"(?P<l{index}>{label})" for index, (_, _, label) in enumerate(_LABELLED))
    + f"|(?P<generic>{_GENERIC_LABEL})|(?P<routing>{_ROUTING_LABEL})|"
    + "|".join(f"(?P<o{index}>{label})" for index, (_, label) in enumerate(_LABEL_ONLY))
    # A label whose last word is a word (six letters or more, not an acronym) may be
    # inflected as written here too ("CPR-nummeret", "Sozialversicherungsnummern").
    + rf")(?:(?<={_LETTER}{{{_ACRONYM + 1}}}){_LETTER}{{1,{_ENDING}}})?(?![a-z])"
)

#: Each number's labels alone, as :data:`_LABELS` reads them: asked only where a label
#: was found, for the other numbers the same words may name.
_EACH_LABEL = tuple(
    re.compile(
        rf"(?a)(?:{label})(?:(?<={_LETTER}{{{_ACRONYM + 1}}}){_LETTER}{{1,{_ENDING}}})?(?![a-z])"
    )
    for _, _, label in _LABELLED
)


def _alternatives(pattern: str) -> list[str]:
    """The top-level alternatives of ``pattern`` (``|`` outside groups and classes)."""
    found: list[str] = []
    depth = 0
    current: list[str] = []
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            current.append(pattern[at : at + 2])
            at += 2
            continue
        if char == "[":
            close = pattern.index("]", at + 1)
            current.append(pattern[at : close + 1])
            at = close + 1
            continue
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "|" and depth == 0:
            found.append("".join(current))
            current = []
        else:
            current.append(char)
        at += 1
    found.append("".join(current))
    return found


def _by_first_letter(labels: list[str]) -> str:
    """One alternation of ``labels`` grouped by their first letter, in their order.

    ``re`` tries the alternatives of a branch one by one at every position; grouped,
    it tests one letter per group and enters only the group that letter opens (the
    label scan takes half the time).
    """
    groups: dict[str, list[str]] = {}
    rest: list[str] = []
    for label in labels:
        if label[:1].isalpha() and label[1:2] not in {"?", "*", "{", "+"}:
            groups.setdefault(label[0], []).append(label[1:])
        else:
            rest.append(label)
    parts = [f"{re.escape(first)}(?:{'|'.join(tails)})" for first, tails in groups.items()]
    return "(?:" + "|".join([*parts, *rest]) + ")"


def _openings(labels: list[str]) -> str:
    """A character class of every character ``labels`` may open with.

    A label opening with a letter opens with it; one opening with a class of
    letters with any of them; any other opening (an optional group)
    may be anything a word starts with.
    """
    chars: set[str] = set()
    for label in labels:
        if label[:1].isalpha() and label[1:2] not in {"?", "*", "{", "+"}:
            chars.add(label[0])
        elif label.startswith("[") and "-" not in label[1 : label.find("]")]:
            chars.update(label[1 : label.find("]")])
        else:
            return "[a-z\u0080-\uffff]"
    return "[" + "".join(re.escape(char) for char in sorted(chars)) + "]"


_LABEL_ALTERNATIVES = [
    alternative
    for label in (
        *(label for _, _, label in _LABELLED),
        _GENERIC_LABEL,
        _ROUTING_LABEL,
        *(label for _, label in _LABEL_ONLY),
    )
    for alternative in _alternatives(label)
]
#: Where a label may start: every label's alternatives, grouped by first letter, after
#: the character before it, which may not be a letter, digit or ``_``, and before one a
#: label opens with. That character is matched, not looked behind at, so ``re`` skips
#: the inside of words in its fast character-set scan; the one after is looked ahead
#: at, so the alternatives are tried only where one of them may open.
_LABEL_START = re.compile(
    r"(?a)[^a-z0-9_](?="
    + _openings(_LABEL_ALTERNATIVES)
    + ")"
    + _by_first_letter(_LABEL_ALTERNATIVES)
)
#: After a label: a few joining words ("is", "ein", "er", "no", any of four letters or
#: fewer, in any language), or the bracket the value is given in ("asmens kodą
#: (48012190516)"), then the value (a digit among its first characters).
_JOIN = re.compile(
    r"(?i)(?:[\s:#.=\-]|[(\[](?=\d)|\bnumber\b|\(\w+\)|\b[^\W\d_]{1,4}(?![\w-])){0,6}+"
)
_LONG_WORD = re.compile(r"[^\W\d_]{5,16}(?![\w-])")
_LABELLED_VALUE = re.compile(r"(?a)[A-Za-z]{0,3}\d[\dA-Za-z./ -]{3,24}+")
_FREE_VALUE = re.compile(r"(?a)[A-Za-z0-9][A-Za-z0-9-]{4,19}+")
_DATE = re.compile(
    r"(?ai)(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}[./-]\d{1,2}[./-]\d{1,2}"
    r"|\d{1,2}(?:st|nd|rd|th)?(?: of)? [a-zé]{3,9}\.?,? \d{4}"
    r"|[a-zé]{3,9}\.? \d{1,2}(?:st|nd|rd|th)?,? \d{4})"
)
_DOB_LABEL = re.compile(
    r"(?a)date of birth|birth ?date|d\.?o\.?b\.?|born(?: on)?|birthday|geburtsdatum|"
    r"geboren(?: am)?|n[ée]e? le|date de naissance|fecha de nacimiento|data de nascimento|"
    r"data di nascita|生年月日|出生日期"
)
_MONTHS = frozenset(
    {
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec",
        "january", "february", "march", "april", "june", "july", "august", "september", "october",
        "november", "december", "janvier", "février", "mars", "avril", "mai", "juin", "juillet",
        "août", "septembre", "octobre", "novembre", "décembre", "enero", "febrero", "marzo",
        "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre",
        "diciembre", "januar", "februar", "märz", "juni", "juli", "oktober", "dezember"
    }
)  # fmt: skip

Finder = Callable[[Scan], Iterator[tuple[int, int, str]]]


def labelled(scan: Scan) -> Iterator[tuple[int, int, str]]:
    """Identifiers, accounts and routing numbers after their label: (start, end, class)."""
    padded = " " + scan.lower  # a label may start the text
    search = 0
    while found := _LABEL_START.search(padded, search):
        search = found.end() - 1  # the next label's character before may be this one's last
        label = _LABELS.match(scan.lower, found.start())  # ``padded`` is one character ahead
        if label is None:
            continue
        name = label.lastgroup or ""
        readings = [(name, label.end())]
        if name.startswith("l"):
            # A name several numbers answer to ("personnummer": Sweden's, Norway's and
            # Denmark's; "RRN": Belgium's and Korea's; "cedula", "cedula de identidad"):
            # each number it may name is tried, the first found first.
            readings += [
                (f"l{index}", other.end())
                for index, pattern in enumerate(_EACH_LABEL)
                if f"l{index}" != name and (other := pattern.match(scan.lower, found.start()))
            ]
        for reading, end in readings:
            hits = _after(scan, end, reading)
            if hits:
                yield from hits
                break


def _after(scan: Scan, end: int, name: str) -> list[tuple[int, int, str]]:
    """The value after a label ending at ``end`` (its group ``name``), if it is one."""
    at = _JOIN.match(scan.text, end).end()  # type: ignore[union-attr]
    hits = list(_after_label(scan, at, name))
    if not hits and not name.startswith("o"):
        # One longer word may stand between a label and its number: a possessive
        # or a case of "number" (Turkish "kimlik numaran\u0131z", "CPR-nummeret"); the
        # number must still pass the label's validator.
        word = _LONG_WORD.match(scan.text, at)
        if word is not None:
            at = _JOIN.match(scan.text, word.end()).end()  # type: ignore[union-attr]
            hits = list(_after_label(scan, at, name))
    return hits


def _after_label(scan: Scan, at: int, name: str) -> Iterator[tuple[int, int, str]]:
    """The value at ``at`` that the label (its group ``name``) makes personal data, if any."""
    if name.startswith("o"):
        kind = _LABEL_ONLY[int(name[1:])][0]
        found = (_LABELLED_VALUE if kind == "bank_account" else _FREE_VALUE).match(scan.text, at)
        if found is not None:
            value = found.group().rstrip(" ./-")
            if sum(char.isdigit() for char in value) >= 4 and scan.ends_word(at + len(value)):
                yield at, at + len(value), kind
        return
    found = _LABELLED_VALUE.match(scan.text, at)
    if found is None:
        return
    if name == "routing":
        candidates: tuple[tuple[str, ModuleType], ...] = (("routing_number", rtn),)
    elif name == "generic":
        candidates = (
            *((kind, module) for kind, module, _ in _LABELLED[: len(_OWN_LABELS)]),
            ("itin", itin),
        )
    else:
        kind, module, _ = _LABELLED[int(name[1:])]
        candidates = ((kind, module),)
    yield from _validated(scan, at, found.group(), candidates)


def _validated(
    scan: Scan, at: int, value: str, candidates: tuple[tuple[str, ModuleType], ...]
) -> Iterator[tuple[int, int, str]]:
    """The longest prefix of ``value`` (cut at a separator) that one of ``candidates`` accepts."""
    cuts = [len(value)] + [
        index for index in range(len(value) - 1, 3, -1) if value[index] in " ./-"
    ]
    for cut in cuts:
        piece = value[:cut].rstrip(" ./-")
        if not scan.ends_word(at + len(piece)) or _DATE.fullmatch(piece):
            continue  # cut inside a word, or a date ("DNI 27.10.1998": a date, not a DNI)
        for kind, module in candidates:
            if stdnum_valid(module, piece):
                yield at, at + len(piece), kind
                return


#: Shapes distinctive enough to stand without a label: (class, pattern, stdnum module).
STANDALONE_NUMERIC: tuple[tuple[str, re.Pattern[str], ModuleType], ...] = (
    ("be_nn", re.compile(r"(?a)\d{2}\.\d{2}\.\d{2}-\d{3}\.\d{2}"), be_nn),
    ("ahv", re.compile(r"(?a)756\.\d{4}\.\d{4}\.\d{2}"), ch_ssn),
    ("personnummer", re.compile(r"(?a)(?:\d{2})?\d{6}[-+]\d{4}"), personnummer),
    ("hetu", re.compile(r"(?a)\d{6}[-+A-FU-Y]\d{3}[0-9A-Y]"), hetu),
    ("nir", re.compile(r"(?a)[12] \d{2} \d{2} (?:\d{2}|2[AB]) \d{3} \d{3} \d{2}"), nir),
    ("rut", re.compile(r"(?a)\d{1,2}\.\d{3}\.\d{3}-[\dkK]"), rut),
    ("itin", re.compile(r"(?a)9\d{2}-[5-9]\d-\d{4}"), itin),
    ("cn_ric", re.compile(r"(?a)\d{17}[\dXx]"), ric),
)
#: Letter-led shapes that stand alone.
STANDALONE_LETTERS: tuple[tuple[str, re.Pattern[str], ModuleType], ...] = (
    ("codice_fiscale", re.compile(r"(?a)[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]"), codicefiscale),
    ("curp", re.compile(r"(?a)[A-Z]{4}\d{6}[HMX][A-Z]{5}[A-Z\d]\d"), curp),
)


#: A piece of text every birth label holds (each branch of :data:`_DOB_LABEL` holds one):
#: a text with none has no label, and costs a few substring searches, not a scan.
DOB_PIECES = (
    "birth", "dob", "d.ob", "do.b", "d.o.b", "born", "geb", "e le", "é le",
    "naissance", "nacimiento", "nascimento", "nascita", "生年月日", "出生日期",
)  # fmt: skip


def dates_of_birth(scan: Scan) -> Iterator[tuple[int, int, str]]:
    """A date right after a birth label ("DOB: 14/03/1987", "born on 3 May 1990")."""
    if not any(piece in scan.lower for piece in DOB_PIECES):
        return
    for label in _DOB_LABEL.finditer(scan.lower):
        if not scan.starts_word(label.start()):
            continue
        at = _JOIN.match(scan.text, label.end()).end()  # type: ignore[union-attr]
        date = _DATE.match(scan.text, at)
        if date is None or not scan.ends_word(date.end()):
            continue
        words = re.findall(r"(?a)[^\W\d_]+", date.group().lower().replace("of", ""))
        if all(word in _MONTHS or word in {"st", "nd", "rd", "th"} for word in words):
            yield at, date.end(), "date_of_birth"


#: Every class this module finds, in the order they win a tie.
IDENTIFIER_CLASSES = tuple(
    dict.fromkeys(
        [kind for kind, _, _ in STANDALONE_NUMERIC]
        + [kind for kind, _, _ in STANDALONE_LETTERS]
        + [kind for kind, _, _ in _LABELLED]
        + ["itin", "routing_number"]
        + [kind for kind, _ in _LABEL_ONLY]
        + ["date_of_birth"]
    )
)
