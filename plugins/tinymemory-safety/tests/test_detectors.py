"""Each detector at its edges: the shortest redacted value and the longest kept, the decoys."""

from __future__ import annotations

import pytest
from stdnum.cn import ric

from tinymemory_safety import SafetyScrubber, checksums

SCRUBBER = SafetyScrubber()
R = "[REDACTED]"


def scrubbed(text: str) -> str:
    return SCRUBBER.scrub_text(text).text


def classes(text: str) -> dict[str, int]:
    return dict(SCRUBBER.scrub_text(text).redactions.by_class)


# --- credential markers: the floors of the contract -----------------------------------------

MARKERS = [
    ("ring bearer", "ring bearer"),
    ("a bearer bond", "a bearer bond"),
    ("Bearer of bad news", "Bearer of bad news"),
    ("bearer abc1", f"bearer {R}"),  # a digit: 4 is enough
    ("bearer ab1", "bearer ab1"),
    ("bearer abcdefghijkl", f"bearer {R}"),  # a plain word after lowercase bearer: 12
    ("bearer abcdefghijk", "bearer abcdefghijk"),
    ("Bearer abcdef", f"Bearer {R}"),  # capitalised Bearer: 6
    ("Bearer abcde", "Bearer abcde"),
    ("bearer abc.de", f"bearer {R}"),  # not a plain word: 6
    ("bearer abc.d", "bearer abc.d"),
    ("a bearer instrument.", "a bearer instrument."),  # the full stop is the sentence's
    ("use Bearer abc123def.", f"use Bearer {R}."),
    ("Authorization: Bearer `tok3n`", f"Authorization: Bearer `{R}`"),
    ("Bearer    spaced123", f"Bearer    {R}"),
    ("Bearer abcd1234 efgh5678 and more", f"Bearer {R} and more"),
    ("Bearer abcd1234 efg and more", f"Bearer {R} efg and more"),
    ("Bearer abcd1234 efghijkl and more", f"Bearer {R} and more"),
    ("forbearer abc123", "forbearer abc123"),
    ("vault read /secret/prod-db", f"vault read /secret/{R}"),
    ("path /secret/ab", "path /secret/ab"),
    ("path /secret/abc1", f"path /secret/{R}"),
    ("path /SECRET/abc12345", "path /SECRET/abc12345"),  # exact, lowercase
]


@pytest.mark.parametrize(("text", "expected"), MARKERS)
def test_credential_markers(text: str, expected: str) -> None:
    assert scrubbed(text) == expected


# --- credential shapes -----------------------------------------------------------------------

SHAPES = [
    ("sk-abcdefghijklmnopqrst", R, "openai"),
    ("sk-abcdefghijklmnopqrs", None, None),  # 19 after the prefix
    ("task-abcdefghijklmnopqrstuvw", None, None),  # inside a word
    ("sk-proj-abcdefghijkl", R, "openai"),
    ("sk-ant-abcdefghijklmnop", R, "anthropic"),
    ("ghp_abcdefghijklmnopqrst", R, "github"),
    ("gho_abcdefghijklmnopqrs", None, None),
    ("github_pat_abcdefghij0123456789", R, "github"),
    ("glpat-abcdefghij012345", R, "gitlab"),
    ("xoxb-1234567890", R, "slack"),
    ("xoxb-123456789", None, None),
    ("sk_live_abcdefghij012345", R, "stripe"),
    ("rk_test_abcdefghij01234", None, None),
    ("AKIAABCDEFGHIJKLMNOP", R, "aws"),
    ("AKIAABCDEFGHIJKLMNOPQ", None, None),  # one too many: not a key id
    ("AKIAIOSFODNN7EXAMPLE", None, None),  # the documentation's example
    ("AIza" + "a" * 34 + "b", R, "google"),
    ("npm_abcdefghij0123456789", R, "npm"),
    ("SG.abcdefghij012345.abcdefghij012345", R, "sendgrid"),
    ("eyJhbGciOi.eyJzdWIiOiAx.c2lnbmF0dXJl", R, "jwt"),
    ("eyJhbGciOi.eyJzdWIi.c2ln", None, None),
    ("telegram 123456789:AA" + "b" * 33, f"telegram {R}", "telegram"),
    ("https://u:hunter2pass@db.example/x", f"https://u:{R}@db.example/x", "url_password"),
    ("https://u:${PASS}@db.example/x", None, None),
    (
        "https://example.com/cb?code=abc&access_token=ya29.a0AfH6SMB&state=x",
        f"https://example.com/cb?code=abc&{R}&state=x",
        "oauth_param",
    ),
    ("https://a.example/?code_verifier=dBjftJeZ4CVP", f"https://a.example/?{R}", "oauth_param"),
]


@pytest.mark.parametrize(("text", "expected", "kind"), SHAPES)
def test_credential_shapes(text: str, expected: str | None, kind: str | None) -> None:
    assert scrubbed(text) == (text if expected is None else expected)
    assert classes(text) == ({} if kind is None else {kind: 1})


ASSIGNMENTS = [
    ("api_key=abc123def", f"api_key={R}"),  # the key is kept
    ("API_KEY = 'zq9Xk2mPw8'", f"API_KEY = '{R}'"),
    ("apikey abc12345", f"apikey {R}"),
    ("api key rotation", "api key rotation"),  # after a bare space a value needs a digit
    ("api-key: required", "api-key: required"),
    ("api_key=xxxxxxxxxxxxxxxx", "api_key=xxxxxxxxxxxxxxxx"),  # one character repeated
    ("password=hunter2", R),  # the whole assignment goes
    ("password=hunter", "password=hunter"),
    ("PASSWORD: correcthorsebattery", R),
    ('note: password: "correct horse battery"', f"note: {R}"),
    ("secret_key=abc123def", R),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY", R),
    ("max_token=4096", "max_token=4096"),
    ("token: 2025-05-04", "token: 2025-05-04"),
    ("the token: error: retry", "the token: error: retry"),
    ("monkey: banana123 and turkey=abc12345", "monkey: banana123 and turkey=abc12345"),
    ("AccountKey=abc123def and accessToken: abc123def", f"{R} and {R}"),
    ("password=hunter2.", f"{R}."),
    ("password: 2025-05-04", R),  # a password may be all digits
    ("tokenizer=bert-base-uncased", "tokenizer=bert-base-uncased"),
    ("token: ${TOKEN}", "token: ${TOKEN}"),
    ("password: ****", "password: ****"),
    ("password=$DB_PASSWORD", "password=$DB_PASSWORD"),
    ("password: {{ vault_password }}", "password: {{ vault_password }}"),
    ("password: <changeme>", "password: <changeme>"),
]


@pytest.mark.parametrize(("text", "expected"), ASSIGNMENTS)
def test_assignments(text: str, expected: str) -> None:
    assert scrubbed(text) == expected


def test_a_private_key_block_goes_whole_and_the_prose_stays() -> None:
    text = (
        "deploy with\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----\nthen restart"
    )
    assert scrubbed(text) == "deploy with\n[REDACTED_PRIVATE_KEY]\nthen restart"
    pgp = "-----begin pgp private key block-----\nabc\n-----end pgp private key block-----"
    assert scrubbed(pgp) == "[REDACTED_PRIVATE_KEY]"


def test_a_key_block_cut_off_before_its_end_goes_to_the_end_of_its_body() -> None:
    text = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nb3BlbnNzaC1r\n\nthat was all"
    assert scrubbed(text) == "[REDACTED_PRIVATE_KEY]\n\nthat was all"
    headed = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\n\nMIIEowIBAAKC"
    assert scrubbed(headed) == "[REDACTED_PRIVATE_KEY]"


def test_a_public_key_and_a_certificate_stay() -> None:
    text = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----"
    assert scrubbed(text) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("token = os.environ['GITHUB_TOKEN']", None),
        ("password = DB_PASSWORD", None),  # a variable's name
        ("password = db_password", None),
        ('password = "correct_horse_battery"', "[REDACTED]"),  # quoted: a value
        ("password = settings.DB_PASSWORD", None),
        ("api_key = get_key()", None),
        ("password: ${DB_PASSWORD}", None),
        ("PASSWORD=changeme", None),
        ("public_key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0", None),
    ],
)
def test_names_code_and_templates_are_no_values(text: str, expected: str | None) -> None:
    assert scrubbed(text) == (text if expected is None else expected)


# --- personal data: shapes and their gates ---------------------------------------------------

PII = [
    ("key 4111 1111 1111 1111 end", "credit_card", "key [REDACTED_PII_CREDIT_CARD] end"),
    ("key 4111 1111 1111 1112 end", None, None),  # Luhn fails
    ("4111111111111111", "credit_card", "[REDACTED_PII_CREDIT_CARD]"),
    ("41111111111111111111", None, None),  # 20 digits: no card
    ("Amex 3782 822463 10005", "credit_card", "Amex [REDACTED_PII_CREDIT_CARD]"),
    ("ISBN 978-3-16-148410-0", None, None),  # 13 digits, but not grouped as a card
    ("IBAN DE89 3704 0044 0532 0130 00", "iban", "IBAN [REDACTED_PII_IBAN]"),
    ("IBAN DE89370400440532013000.", "iban", "IBAN [REDACTED_PII_IBAN]."),
    ("GB82 WEST 1234 5698 7654 33", None, None),  # mod-97 fails
    ("GB82WEST12345698765432 THANKS", "iban", "[REDACTED_PII_IBAN] THANKS"),
    ("CPF 111.444.777-35", "cpf", "CPF [REDACTED_PII_CPF]"),
    ("CPF 11144477735", "cpf", "CPF [REDACTED_PII_CPF]"),
    ("CPF 111.444.777-36", None, None),
    ("CPF 111.111.111-11", None, None),  # one digit repeated passes mod-11 but is void
    ("CNPJ 11.222.333/0001-81", "cnpj", "CNPJ [REDACTED_PII_CNPJ]"),
    ("CNPJ 11222333000181", "cnpj", "CNPJ [REDACTED_PII_CNPJ]"),
    ("CNPJ 11.222.333/0001-82", None, None),
    ("CUIT 20-12345678-6", "cuit", "CUIT [REDACTED_PII_CUIT]"),
    ("CUIT 20-12345678-5", None, None),
    ("Aadhaar 2341 2341 2346", "aadhaar", "Aadhaar [REDACTED_PII_AADHAAR]"),
    ("aadhaar: 499118665246", "aadhaar", "aadhaar: [REDACTED_PII_AADHAAR]"),
    ("order 499118665246", None, None),  # bare 12 digits need the keyword
    ("DNI 12345678Z", "dni", "DNI [REDACTED_PII_DNI]"),
    ("DNI 12345678A", None, None),
    ("NIE X1234567L", "dni", "NIE [REDACTED_PII_DNI]"),
    ("NIE X-1234567-L", "dni", "NIE [REDACTED_PII_DNI]"),
    ("SSN 078-05-1120", "ssn", "SSN [REDACTED_PII_SSN]"),
    ("SSN 900-12-3456", None, None),
    ("SSN 123-00-4567", None, None),
    ("SSN 123-45-0000", None, None),
    ("NINO AB 12 34 56 C", "nino", "NINO [REDACTED_PII_NINO]"),
    ("NINO AB123456C", "nino", "NINO [REDACTED_PII_NINO]"),
    ("QQ 12 34 56 C", None, None),  # HMRC's own example: Q is never issued first
    ("GB 12 34 56 A", None, None),  # a reserved prefix
    ("RRN 900101-1234567", "rrn", "RRN [REDACTED_PII_RRN]"),
    ("RRN 901301-1234567", None, None),  # month 13
    ("RFC GODE561231GR8", "rfc", "RFC [REDACTED_PII_RFC]"),
    ("RFC GODE561331GR8", None, None),
    ("PAN ABCPE1234F", "pan_in", "PAN [REDACTED_PII_PAN_IN]"),
    ("PAN ABCDE1234F", None, None),  # D is no holder type
    ("My Number 123456789018", "mynumber", "My Number [REDACTED_PII_MYNUMBER]"),
    ("my number 123456789017", None, None),  # check digit fails
    ("123456789018", None, None),  # no keyword
    ("+1 (415) 555-0132", "phone", "[REDACTED_PII_PHONE]"),
    ("call (415) 555-0132 now", "phone", "call [REDACTED_PII_PHONE] now"),
    ("call 415-555-0132", "phone", "call [REDACTED_PII_PHONE]"),
    ("order 4155550132", None, None),  # a bare run needs a phone word
    ("call 4155550132", "phone", "call [REDACTED_PII_PHONE]"),
    ("ref 115-555-0132", None, None),  # area code 1xx
    ("ref 415-155-0132", None, None),  # exchange 1xx
    ("call 415.555.0132", "phone", "call [REDACTED_PII_PHONE]"),
    ("sizes 200 300 4000", None, None),  # spaces alone: not a phone
    ("ref 415-555.0132", "phone", "ref [REDACTED_PII_PHONE]"),  # valid in the default region
    ("call me on 020 7946 0958", "phone", "call me on [REDACTED_PII_PHONE]"),  # GB, vouched
    ("mobile: 07700 900123", "phone", "mobile: [REDACTED_PII_PHONE]"),  # possible, vouched
    ("ref 07700 900123", None, None),  # not valid in the default region, no phone word
    ("meeting 2024-05-17 10:30", None, None),
    ("ip 81.2.69.160 logged in", "ip", "ip [REDACTED_PII_IP] logged in"),
    ("bind 127.0.0.1 and 10.0.0.7 and 192.168.1.20", None, None),  # private by policy
    ("version 1.2.3.4 and v2.3.4.5", None, None),
    ("net 81.2.69.0/24", None, None),
    ("+44 20 7946 0958", "phone", "[REDACTED_PII_PHONE]"),
    ("+123456", None, None),  # 6 digits
    ("+1234567", "phone", "[REDACTED_PII_PHONE]"),
    ("+1234567890123456", None, None),  # 16 digits
    ("mail ada@example.com.", "email", "mail [REDACTED_PII_EMAIL]."),
    ("git@github.com:acme/repo.git", None, None),
    ("@property and user@localhost", None, None),
    ("ip 2a00:1450:4001:82a::200e", "ip", "ip [REDACTED_PII_IP]"),
    ("link-local fe80::1ff:fe23:4567:890a on eth0", None, None),
    ("ip ::1, std::vector, a::b::c", None, None),
    ("mac 00:1a:2b:3c:4d:5e", None, None),
    ("pi 3.14159265358979", None, None),
]


@pytest.mark.parametrize(("text", "kind", "expected"), PII)
def test_personal_data(text: str, kind: str | None, expected: str | None) -> None:
    assert scrubbed(text) == (text if expected is None else expected)
    assert classes(text) == ({} if kind is None else {kind: 1})


def test_overlaps_go_to_the_earliest_then_the_longest() -> None:
    # 14 Luhn-valid digits that are also a valid bare CNPJ: the card wins the tie.
    assert checksums.luhn("11222333000181") is False
    number = next(
        f"{n:012d}" + str(a) + str(b)
        for n in range(10**11, 10**11 + 10**6)
        for a in range(10)
        for b in range(10)
        if checksums.cnpj(f"{n:012d}{a}{b}") and checksums.luhn(f"{n:012d}{a}{b}")
    )
    assert classes(f"id {number}") == {"credit_card": 1}
    # An IBAN holding a Luhn-valid run is one IBAN.
    assert classes("IBAN DE89 3704 0044 0532 0130 00") == {"iban": 1}


# --- folding: what the detectors see, what the caller gets back ------------------------------


def test_fullwidth_and_arabic_indic_digits_are_read_as_digits() -> None:
    fullwidth = " ".join(["\uff14\uff11\uff11\uff11"] + ["\uff11" * 4] * 3)
    assert scrubbed(f"pay {fullwidth} now") == "pay [REDACTED_PII_CREDIT_CARD] now"
    arabic = "\u0660\u0667\u0668-\u0660\u0665-\u0661\u0661\u0662\u0660"  # 078-05-1120
    assert scrubbed(f"ssn {arabic}") == "ssn [REDACTED_PII_SSN]"


def test_a_zero_width_space_does_not_hide_a_secret() -> None:
    assert scrubbed("token gh\u200bp_abcdefghijklmnopqrst here") == f"token {R} here"
    assert scrubbed("card 4111\u200b1111\u200b1111\u200b1111 ok") == (
        "card [REDACTED_PII_CREDIT_CARD] ok"
    )


def test_everything_outside_a_hit_comes_back_as_it_was() -> None:
    # Zero-width and fullwidth characters away from any secret are the caller's own.
    note = "\uff4e\uff4f\uff54\uff45\u200b: \uff15 apples"  # fullwidth "note", a zero-width space
    text = f"{note}, then Bearer abc123def\u200d and \uff0b more"
    assert scrubbed(text) == f"{note}, then Bearer {R}\u200d and \uff0b more"


# --- the gates themselves, on published example numbers --------------------------------------


def test_the_gates_accept_published_examples_and_refuse_one_digit_off() -> None:
    assert checksums.luhn("4111111111111111")
    assert not checksums.luhn("4111111111111112")
    assert checksums.iban_mod97("GB82WEST12345698765432")
    assert not checksums.iban_mod97("GB82WEST12345698765433")
    assert checksums.cpf("11144477735")
    assert not checksums.cpf("11144477734")
    assert checksums.cnpj("11222333000181")
    assert checksums.aadhaar("234123412346")
    assert not checksums.aadhaar("234123412347")
    assert checksums.dni("12345678Z")
    assert checksums.dni("X1234567L")
    assert not checksums.dni("X1234567T")
    assert checksums.my_number("123456789018")
    assert checksums.ssn("078", "05", "1120")
    assert not checksums.ssn("666", "05", "1120")
    assert checksums.nino("AB")
    assert not checksums.nino("QQ")
    assert checksums.card_network_length("4111111111111111")
    assert not checksums.card_network_length("1111111111111117")


def test_a_find_its_neighbour_kept_back_is_found_in_the_same_scrub() -> None:
    # The phone number touches the IBAN: it starts no word until the IBAN is a token.
    text = "Virement: FR1420041010050500013M02606+1 (415) 555-01320"
    once = scrubbed(text)
    assert once == "Virement: [REDACTED_PII_IBAN][REDACTED_PII_PHONE]"
    assert scrubbed(once) == once


def test_a_number_stdnum_cannot_look_up_is_no_crash() -> None:
    # An 18-digit number with cn.ric's check digit whose birth place has no county in
    # stdnum's table: cn.ric.is_valid raises KeyError on it, which crashed the scrub.
    number = "539041628507298225"
    with pytest.raises(KeyError):
        ric.is_valid(number)
    assert scrubbed(f"reference {number} on file") == f"reference {number} on file"
