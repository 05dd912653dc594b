"""Round three's rules, each at its edge: records, encodings, wraps, regions, look-alikes.

The generated corpus (``scrub-cases-classes.json``) holds the classes; these
are the fixed cases that pin each rule's boundary, and the pieces (folding's
map back, the regions a text points to, stdnum's labels) on their own.
"""

from __future__ import annotations

import base64
import ipaddress
import re

import pytest
from stdnum.de import idnr
from stdnum.ro import cnp

import tinymemory as tm
from tinymemory_safety import PUBLIC_ADDRESSES_VARIABLE, Policy, SafetyScrubber, installed_policy
from tinymemory_safety.credentials import Scan
from tinymemory_safety.folding import ASCII_LOWER, fold, wrap_breaks
from tinymemory_safety.identifiers import (
    _DOB_LABEL,
    DOB_PIECES,
    _alternatives,
    inflected,
    stdnum_labels,
)
from tinymemory_safety.lookalikes import (
    dotted_number,
    in_notice,
    nobodys_address,
    placeholder_value,
    role_mailbox,
)
from tinymemory_safety.regions import place_regions, text_regions

SCRUB = SafetyScrubber().scrub_text
TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def scan(text: str) -> Scan:
    return Scan(text, text.translate(ASCII_LOWER))


# --- folding: one layer undone, mapped back ---------------------------------------------------


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{\\"password\\":\\"x\\"}', '"password"'),  # escaped once
        ('{\\\\\\"password\\\\\\":1}', '"password"'),  # escaped twice
        ("next=%2Fcb%3Ftoken%3Dabc", "?token=abc"),
        ("50% of the 100%", "50% of the 100%"),  # no %XX: as it was
    ],
)
def test_folding_undoes_one_layer_and_maps_each_character_back(text: str, found: str) -> None:
    folded = fold(text)
    at = folded.text.index(found)
    start, end = folded.original_span(at, at + len(found))
    assert fold(text[start:end]).text == found


def test_a_wrapped_token_is_joined_and_its_span_covers_the_line_break() -> None:
    text = "> Here is the new deploy token: " + TOKEN[:20] + "\n> " + TOKEN[20:] + "\n> thanks"
    breaks = wrap_breaks(text)
    assert len(breaks) == 1
    folded = fold(text, breaks)
    at = folded.text.index(TOKEN)
    assert text[slice(*folded.original_span(at, at + len(TOKEN)))] == (
        TOKEN[:20] + "\n> " + TOKEN[20:]
    )


def test_an_original_index_maps_into_the_folded_text() -> None:
    text = "a%2Fb\u200bc"
    folded = fold(text)
    assert folded.text == "a/bc"
    assert [folded.folded_index(at) for at in range(len(text) + 1)] == [0, 1, 1, 1, 2, 3, 3, 4]


@pytest.mark.parametrize("escape", ["%21", "%2F", "%3D", "%2B"])
def test_a_token_whose_format_carries_percent_escapes_is_read_as_written(escape: str) -> None:
    # Twitter's app-only bearer tokens are URL-encoded: folding would decode and cut them.
    token = "A" * 21 + "000000000000" + escape + "000000000000001"
    scrubbed = SCRUB(f"the token {token} was leaked")
    assert scrubbed.text == "the token [REDACTED] was leaked"


@pytest.mark.parametrize("width", [64, 72, 76, 80, 100])
@pytest.mark.parametrize("prefix", ["", "> ", "    ", "> > "])
def test_a_hard_wrapped_token_is_redacted_whole_at_any_column(width: int, prefix: str) -> None:
    line = "export API_TOKEN=" + TOKEN + TOKEN[4:]
    room = width - len(prefix)
    wrapped = "\n".join(prefix + line[at : at + room] for at in range(0, len(line), room))
    scrubbed = SCRUB(f"{prefix}hi\n{wrapped}\n{prefix}bye").text
    assert TOKEN[-8:] not in scrubbed
    assert TOKEN[4:12] not in scrubbed
    assert scrubbed.endswith(f"{prefix}bye")


@pytest.mark.parametrize(
    ("number", "kind"),
    [("NL91ABNA0417164300", "IBAN"), ("FR1420041010050500013M02606", "IBAN"),
     ("5555555555554444", "CREDIT_CARD")],
)  # fmt: skip
@pytest.mark.parametrize("width", [60, 72, 80])
def test_a_compact_iban_or_card_cut_by_a_hard_wrap_is_redacted_whole(
    number: str, kind: str, width: int
) -> None:
    lead = ("wire the refund to the account on file " * 3)[: width - len(number) // 2 - 1]
    line = f"{lead} {number} thanks"
    wrapped = "\n".join(line[at : at + width] for at in range(0, len(line), width))
    assert number not in wrapped  # the wrap cuts the number in two
    scrubbed = SCRUB(wrapped).text
    assert f"[REDACTED_PII_{kind}]" in scrubbed
    assert not any(char.isdigit() for char in scrubbed)


def test_wrapped_prose_and_two_tokens_on_their_own_full_lines_stay_apart() -> None:
    prose = "deploy the release after review and merge the branch when checks pass"
    text = f"{prose}\n{prose}\n{prose}"
    assert wrap_breaks(text) == []
    assert SCRUB(text).text == text
    other = "ghp_" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
    both = f"tokens, one a line, as listed: {TOKEN}\ntokens, one a line, as listed: {other}"
    scrubbed = SCRUB(both).text
    assert TOKEN not in scrubbed
    assert other not in scrubbed


# --- records -----------------------------------------------------------------------------------


def test_a_column_its_header_names_is_redacted_in_every_row() -> None:
    text = (
        "User name,Access key ID,Secret access key\n"
        "ada,AKIAIOSFODNN7ABCDEFG,wJalrXUtnFEMI/K7MDENG/bPxRfiCYabcdefghij\n"
        "bob,AKIAIOSFODNN7ABCDEFH,Zq8rXUtnFEMI/K7MDENG/bPxRfiCYabcdefghij\n"
    )
    scrubbed = SCRUB(text).text
    assert "wJalrXUtnFEMI" not in scrubbed
    assert "Zq8rXUtnFEMI" not in scrubbed
    assert scrubbed.startswith("User name,Access key ID,Secret access key\nada,")


@pytest.mark.parametrize(
    "text",
    [
        "name,commit,created\nrelease,3f2a9c1d4e5b6a7f8091a2b3c4d5e6f708192a3b,2024-05-01\n",
        # A sentence with a secret word and commas is no header.
        "keep the token safe, rotate it, and tell ops.\nada,bob,wJalrXUtnFEMI8K7MDENG\n",
        "service,token\nbilling,see the vault for it\n",  # a note, not a secret
    ],
)
def test_tables_without_a_secret_column_stay(text: str) -> None:
    assert SCRUB(text).text == text


def test_a_kubernetes_secret_loses_its_data_and_a_config_map_keeps_it() -> None:
    value = base64.b64encode(b"postgres://db.internal/prod").decode()
    secret = f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  url: {value}\n"
    config = secret.replace("kind: Secret", "kind: ConfigMap")
    assert value not in SCRUB(secret).text
    assert SCRUB(config).text == config
    two = f"{config}---\n{secret}"
    scrubbed = SCRUB(two).text
    assert scrubbed.count(value) == 1
    assert scrubbed.startswith(config)


def test_base64_of_user_and_password_is_redacted_anywhere_and_other_base64_stays() -> None:
    for secret in (b"deploy:hunter2pass", b"postgres://app:Xk9pQ2z@db/prod"):
        credentials = base64.b64encode(secret).decode()
        assert credentials not in SCRUB(f"upstream auth {credentials} accepted").text
    for public in (b"just some bytes here", b"postgres://db.internal/prod"):
        plain = base64.b64encode(public).decode()
        assert SCRUB(f"payload {plain} accepted").text == f"payload {plain} accepted"


# --- regions -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "region"),
    [
        ("Sie erreichen mich unter 030 123456, am besten nachmittags.", "DE"),
        ("Le bureau de Paris, France : 01 23 45 67 89.", "FR"),
        ("ご不明な点は 03-1234-5678 までお問い合わせください。", "JP"),
        ("Звоните нам по номеру 8 (912) 345-67-89.", "RU"),
        ("our office, dial +49 then 030 123456", "DE"),
    ],
)
def test_the_text_points_to_its_region_and_its_national_number_goes(text: str, region: str) -> None:
    at = len(text) // 2
    found = text_regions(scan(text), at) + place_regions(scan(text), at, at)
    assert region in found
    assert "[REDACTED_PII_PHONE]" in SCRUB(text).text


def test_english_prose_points_to_no_other_language() -> None:
    text = "I am in the office on Monday and it is fine, so we meet at noon as planned."
    assert text_regions(scan(text), 10) == ()


def test_labels_come_from_stdnum_in_the_numbers_own_language() -> None:
    assert "steuerliche identifikationsnummer" in stdnum_labels(idnr)
    assert not any("german" in label for label in stdnum_labels(idnr))
    # "Cod Numeric Personal" is Romanian though "personal" is an English word too; the
    # gloss, "Romanian Numerical Personal Code", is left out.
    assert stdnum_labels(cnp) == ("cnp", "cod numeric personal")
    number = "26479182255"
    assert idnr.is_valid(number)
    scrubbed = SCRUB(f"Steuerliche Identifikationsnummer ein: {number}.").text
    assert scrubbed == "Steuerliche Identifikationsnummer ein: [REDACTED_PII_STEUER_ID]."


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("cod numeric personal", "codul numeric personal"),  # the article as a suffix
        ("cod numeric personal", "codului numeric personal"),  # genitive
        ("steuerliche identifikationsnummer", "steuerlichen identifikationsnummer"),
        ("rodné číslo", "rodného čísla"),  # the ending replaced, not added
        ("burgerservicenummer", "burgerservicenummers"),
        ("asmens kodas", "asmens kodo"),
        ("Единен граждански номер", "единния граждански номер"),  # either case, any script
    ],
)
def test_a_label_is_known_in_its_inflected_forms(name: str, written: str) -> None:
    assert re.fullmatch(inflected(name), written)


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("pesel", "pesos"),  # an acronym stays as written
        ("cod numeric personal", "cod numeric"),  # every word is needed
        ("burgerservicenummer", "burgerservice"),  # the stem is all but the last syllable
        ("isikukood", "isikukoodiandmebaas"),  # an ending is a few letters, not a word
    ],
)
def test_an_inflected_label_is_still_the_label(name: str, written: str) -> None:
    assert not re.fullmatch(inflected(name), written)


def test_a_declined_label_finds_its_number() -> None:
    number = "1550212114491"
    assert cnp.is_valid(number)
    text = f"Verificați codul numeric personal {number} înainte de trimitere."
    assert SCRUB(text).text.count("[REDACTED_PII_CNP_RO]") == 1


# --- look-alikes -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "stand_in"),
    [
        ("sk-ant-...", True),
        ("sk_live_\u2026", True),
        ("ghp_" + "X" * 36, True),
        ("AKIA" + "X" * 16, True),
        ("SG.xxxxx.yyyyy", True),
        ("sk-ant-api03-AbCdEf12...", False),  # a real prefix of a token: leaked, not elided
        ("hunter2pass", False),
        ("red_fox_jumps", False),
    ],
)
def test_placeholders(value: str, stand_in: bool) -> None:
    assert placeholder_value(value) is stand_in


@pytest.mark.parametrize(
    ("text", "dotted"),
    [
        ("Chrome/124.0.0.0 Safari", True),
        ("## [2.14.0.1] - 2024-05-02", True),
        ("keyUsage 2.5.29.15", True),
        ("see section 4.2.1.3", True),
        ("connected from 81.2.69.160", False),
        ("login from ip 2.5.29.15", False),
    ],
)
def test_dotted_numbers_that_are_no_address(text: str, dotted: bool) -> None:
    start = next(at for at, char in enumerate(text) if char.isdigit())
    assert dotted_number(text, text.lower(), start) is dotted


def test_link_local_is_nobodys_and_a_documentation_address_is_someones_only_when_given() -> None:
    link_local = ipaddress.ip_address("169.254.169.254")
    assert nobodys_address(link_local, "metadata at ", 12)
    example = ipaddress.ip_address("192.0.2.7")
    assert nobodys_address(example, "docs use ", 9)
    assert not nobodys_address(example, "the customer connected from ", 28)
    assert not nobodys_address(ipaddress.ip_address("81.2.69.160"), "docs use ", 9)


def test_role_mailboxes_and_notices_stay_and_a_policy_turns_that_off() -> None:
    assert role_mailbox("security")
    assert role_mailbox("no-reply+github")
    assert role_mailbox("abuse")
    assert not role_mailbox("jane.doe")
    assert not role_mailbox("securityjane")
    notice = "copyright (c) 2019 jane doe <jane@doe.dev>"
    assert in_notice(notice, notice.index("jane@"))
    assert not in_notice("write to jane@doe.dev", 9)
    text = "Report issues to security@example.org. Copyright 2020 Jane <jane@doe.dev>"
    assert SCRUB(text).text == text
    strict = SafetyScrubber(Policy(keep_public_addresses=False)).scrub_text(text).text
    assert strict.count("[REDACTED_PII_EMAIL]") == 2
    assert SCRUB("write to jane@doe.dev").text == "write to [REDACTED_PII_EMAIL]"


def test_the_public_addresses_setting_is_read_from_the_file_and_the_environment() -> None:
    assert installed_policy({}, {}).keep_public_addresses is True
    assert installed_policy({"keep_public_addresses": False}, {}).keep_public_addresses is False
    assert not installed_policy({}, {PUBLIC_ADDRESSES_VARIABLE: "redact"}).keep_public_addresses
    with pytest.raises(tm.ConfigError, match=PUBLIC_ADDRESSES_VARIABLE):
        installed_policy({}, {PUBLIC_ADDRESSES_VARIABLE: "maybe"})
    with pytest.raises(tm.ConfigError, match="keep_public_addresses"):
        installed_policy({"keep_public_addresses": "yes"}, {})


def test_a_card_inside_a_longer_grouped_number_stays_and_a_card_alone_goes() -> None:
    tracking = "9400 1000 0000 0000 0000 00"
    assert SCRUB(f"tracking: {tracking}").text == f"tracking: {tracking}"
    assert SCRUB("card 4111 1111 1111 1111.").text == "card [REDACTED_PII_CREDIT_CARD]."


def test_wrapped_tokens_far_apart_in_a_long_text_are_each_redacted_whole() -> None:
    prose = "deploy the release after review and merge the branch when checks pass"
    other = "glpat-" + "Qw7Er9Ty1Ui3Op5As7Df"
    wrapped = [
        f"> deploy token for the staging cluster is {TOKEN[:30]}\n> {TOKEN[30:]} ok",
        f"> the gitlab token for the mirror job is {other[:10]}\n> {other[10:]} ok",
    ]
    text = "\n".join([*[prose] * 30, wrapped[0], *[prose] * 30, wrapped[1], prose])
    scrubbed = SCRUB(text).text
    for piece in (TOKEN[:30], TOKEN[30:], other[:10], other[10:]):
        assert piece not in scrubbed
    assert scrubbed.count(prose) == 61


# --- the birth-label pre-check --------------------------------------------------------------

#: Every form each branch of the birth label takes (a branch with optional parts, each way).
BIRTH_LABELS = [
    "date of birth", "birthdate", "birth date", "dob", "d.o.b", "d.o.b.", "d.ob", "do.b",
    "born", "born on", "birthday", "geburtsdatum", "geboren", "geboren am", "ne le",
    "nee le", "né le", "née le", "date de naissance", "fecha de nacimiento",
    "data de nascimento", "data di nascita", "生年月日", "出生日期",
]  # fmt: skip


def test_every_birth_label_holds_a_piece_the_pre_check_looks_for() -> None:
    branches = _alternatives(_DOB_LABEL.pattern.removeprefix("(?a)"))
    for branch in branches:  # each branch has its forms listed
        assert any(re.fullmatch(branch, form) for form in BIRTH_LABELS), branch
    for form in BIRTH_LABELS:
        assert _DOB_LABEL.fullmatch(form), form
        assert any(piece in form for piece in DOB_PIECES), form


# --- round three, third draw's classes --------------------------------------------------------


@pytest.mark.parametrize("prefix", ["// ", "# ", "-- ", "; ", " * ", "\t", "> "])
def test_a_token_wrapped_under_any_repeated_line_prefix_is_redacted_whole(prefix: str) -> None:
    line = "Credentials below: " + TOKEN + TOKEN[4:]
    room = 60 - len(prefix)
    wrapped = "\n".join(prefix + line[at : at + room] for at in range(0, len(line), room))
    scrubbed = SCRUB(f"{prefix}Hi team,\n{wrapped}\n{prefix}Thanks, Ada\n").text
    assert TOKEN[-8:] not in scrubbed
    assert TOKEN[4:12] not in scrubbed
    assert scrubbed.endswith(f"{prefix}Thanks, Ada\n")  # the line after stays


def test_lines_under_different_prefixes_are_not_joined() -> None:
    text = "# a comment line long enough to be a wrapped line: " + TOKEN + "\n// 1234abcdEFGH5678"
    assert wrap_breaks(text) == []


@pytest.mark.parametrize(
    "header",
    ["Passwort", "Kennwort", "Mot de passe", "Contraseña", "Hasło", "Şifre", "Lösenord",
     "Jelszó", "Salasana", "Heslo", "Пароль", "Datenbankpasswort", "API-Schlüssel"],
)  # fmt: skip
def test_a_header_naming_a_secret_in_its_own_language_names_the_column(header: str) -> None:
    secret = "KezCf288#wreNph"
    text = f"Dienst;Benutzer;{header};Kommentar\nBuchhaltung;ada;{secret};neu\n"
    assert secret not in SCRUB(text).text


@pytest.mark.parametrize("header", ["Benutzer", "Kommentar", "Secretary", "Märkus", "Kennung"])
def test_a_header_naming_no_secret_in_any_language_keeps_its_column(header: str) -> None:
    text = f"Dienst;{header};Notiz\nBuchhaltung;Xy7kQ2mZ9pLw;neu\n"
    assert SCRUB(text).text == text


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ('<add key="ApiSecret" value="CDJuJOpG1JTUSoVhlpL4FYwIMKSZ" />', "CDJuJOpG1JTUSoVhlpL4"),
        ('<param name="password" value="Xy7#kLmn02qq"/>', "Xy7#kLmn02qq"),
        ('<entry key="db.password" type="string" value="Qw3rTy9uI0pZ"/>', "Qw3rTy9uI0pZ"),
        ('<setting name="ApiSecret"><value>kd83KDm2mzZ0qpQ</value></setting>', "kd83KDm2mzZ0qpQ"),
    ],
)
def test_an_attribute_pair_naming_a_secret_loses_its_value_and_keeps_its_name(
    text: str, secret: str
) -> None:
    scrubbed = SCRUB(text).text
    assert secret not in scrubbed
    assert scrubbed.count("[REDACTED]") == 1
    assert ('key="' in text) <= ('key="' in scrubbed)


@pytest.mark.parametrize(
    "text",
    ['<add key="LogLevel" value="Verbose2" />', '<property name="db.user" value="admin42"/>'],
)
def test_an_attribute_pair_naming_no_secret_stays(text: str) -> None:
    assert SCRUB(text).text == text


@pytest.mark.parametrize(
    ("value", "stand_in"),
    [
        ("changeme-in-production", True),
        ("CHANGE_ME", True),
        ("ChangeMeLater", True),
        ("your-api-key-here", True),
        ("YOUR_TOKEN_HERE", True),
        ("replace-with-real-key", True),
        ("dummy_secret", True),
        ("TODO", True),
        ("correct-horse-battery-staple", False),  # words, but none asks for a value
        ("mastodon", False),  # ``todo`` inside a word is no marker
        ("changeme123x", False),  # a digit: a value someone chose
    ],
)
def test_placeholders_written_in_words(value: str, stand_in: bool) -> None:
    assert placeholder_value(value) is stand_in


@pytest.mark.parametrize(
    ("text", "region"),
    [
        ("İstanbul ofisimiz: (0212) 345 67 89.", "TR"),  # a city, its İ lowered
        ("Budapesti iroda: 06 20 123 4567.", "HU"),  # a city with an ending
        ("Elérhet minket a 06 20 123 4567 számon hétköznap.", "HU"),  # letters together
    ],
)
def test_a_city_or_the_letters_point_to_the_region(text: str, region: str) -> None:
    at = len(text) // 2
    found = text_regions(scan(text), at) + place_regions(scan(text), at, at)
    assert region in found
    assert "[REDACTED_PII_PHONE]" in SCRUB(text).text


@pytest.mark.parametrize(
    "text",
    [
        "Lütfen T.C. kimlik numaran\u0131z 78853540066 olarak girin.",  # a possessive between
        "Vinsamlegast sláðu inn kennitölu 1108791809 hér.",  # the stem's vowel changed
        "Oplys venligst CPR-nummeret 270471-6097 ved henvendelse.",  # our own label, inflected
    ],
)
def test_an_id_label_in_other_forms_finds_its_number(text: str) -> None:
    assert "[REDACTED_PII_" in SCRUB(text).text


def test_a_label_with_a_long_word_after_it_still_needs_a_valid_number() -> None:
    text = "Lütfen T.C. kimlik numaran\u0131z 78853540067 olarak girin."  # check digit off
    assert SCRUB(text).text == text
