"""The seventh session's classes: any vendor's token by its random body, records that set a
credential (directives and name/value records), and role mailboxes by the words they hold."""

from __future__ import annotations

import random
import string
import uuid

import pytest

from tinymemory_safety import Policy, SafetyScrubber
from tinymemory_safety.lookalikes import role_mailbox
from tinymemory_safety.vendortokens import segment_bits, vendor_token

HEX = "0123456789abcdef"
ALNUM = string.ascii_letters + string.digits
RNG = random.Random(4517)


def _draw(alphabet: str, length: int) -> str:
    return "".join(RNG.choice(alphabet) for _ in range(length))


def _scrubbed(text: str) -> str:
    return SafetyScrubber().scrub_text(text).text


# --- vendor tokens -------------------------------------------------------------------------------

VENDOR_TOKENS = [
    "tskey-api-k" + _draw(ALNUM, 10) + "CNTRL-" + _draw(ALNUM, 33),  # Tailscale
    "sgp_" + _draw(HEX, 16) + "_" + _draw(HEX, 40),  # Sourcegraph
    "pat." + _draw(ALNUM, 22) + "." + _draw(HEX, 24) + "." + _draw(ALNUM, 20),  # Harness
    "st." + str(uuid.UUID(int=RNG.getrandbits(128))) + "." + _draw(HEX, 32) + "." + _draw(HEX, 32),
    "bkua_" + _draw(HEX, 40),  # Buildkite
    "zz_live_" + _draw(string.ascii_lowercase + string.digits, 40),
    "ACME-" + _draw(ALNUM, 12) + "-" + _draw(ALNUM, 30),
]


@pytest.mark.parametrize("token", VENDOR_TOKENS)
def test_a_vendor_token_goes_inline_after_a_key_and_wrapped(token: str) -> None:
    assert vendor_token(token)
    for text in (f"deploy with {token} today", f'client = Client(token="{token}")'):
        out = _scrubbed(text)
        assert token[-12:] not in out
        assert token[:12] not in out
    line = "copy this one: " + token
    wrapped = "\n".join("> " + line[at : at + 50] for at in range(0, len(line), 50))
    out = _scrubbed(f"> Hi team,\n{wrapped}\n> Thanks, Ada\n")
    pieces = [line[at : at + 50] for at in range(15, len(line), 50)]
    assert not any(piece[:8] in out for piece in pieces if len(piece) >= 8)


@pytest.mark.parametrize(
    "text",
    [
        "user_profile_settings_manager_v2_for_the_account_page",  # words
        "foo-bar-baz-utils-helpers-and-more-things-1.2.3",  # a package
        "sha256-" + "3f2a9c1b8e7d6f5a" * 4,  # a digest named
        "commit_" + "0123456789abcdef" * 3,
        "release-" + "9c1b8e7d6f5a3f2a" * 2 + "9c1b8e7d",  # a revision
        "order-" + str(uuid.UUID(int=12345678901234567890)),  # a UUID as an id: 128 bits
        "req_" + "3f2a9c1b8e7d6f5a" * 2,  # 32 hex: no more than a UUID
        "main." + "3f2a9c1b8e7d6f5a" * 3 + ".js",  # a file name with its content's hash
        "vendor-" + "3f2a9c1b8e7d6f5a" * 4 + ".tar.gz",
        "img_" + "AbcdefGhijklmnopQrstuvWxyzAbcdefGh",  # no digit: a name
        "numpy-1.26.4-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "pi_3MtwBwLkdIwHu7ix28a3tqPa",  # an API's object id: 24 characters
        "sk_live_" + "x" * 40,  # a placeholder
    ],
)
def test_a_look_alike_of_a_vendor_token_stays(text: str) -> None:
    assert text in _scrubbed(f"see {text} here")


def test_a_segment_is_random_when_it_changes_kind_as_a_draw_does() -> None:
    assert segment_bits("3f2a9c1b8e7d6f5a") == 16 * 4  # hex: four bits a character
    assert segment_bits("kpZNXYR2gQaCNTRL") > 90
    assert segment_bits("getUserProfileById2") == 0.0  # runs of whole words
    assert segment_bits("manylinux2014") == 0.0
    assert segment_bits("abcdefghijklmnop") == 0.0  # one kind: a word, not judged
    assert segment_bits("a1b2c3") == 0.0  # too short to judge


# --- records that set a credential ---------------------------------------------------------------

SECRET = "Vq3" + _draw(ALNUM, 25)


@pytest.mark.parametrize(
    ("record", "kept"),
    [
        ('proxy_set_header Authorization "Bearer {v}";', "proxy_set_header Authorization"),
        ("add_header X-Auth-Token {v};", "add_header X-Auth-Token"),
        ('  proxy_set_header AZURE_CLIENT_SECRET "{v}";', "AZURE_CLIENT_SECRET"),
        ('RequestHeader set Cookie "sid={v}"', "RequestHeader set Cookie"),
        ("Header always set X-Vault-Token {v}", "X-Vault-Token"),
        ('http-request set-header Authorization "Bearer\\ {v}"', '"Bearer\\ '),
        ("http-request add-header X-Api-Key {v}", "http-request add-header X-Api-Key"),
        ('  header_up Authorization "Basic {v}"', 'header_up Authorization "Basic '),
        ("ENV GITHUB_TOKEN {v}", "ENV GITHUB_TOKEN"),
        ('- header: {{key: "X-Api-Key", value: "{v}"}}', 'key: "X-Api-Key"'),
        (
            "request_headers_to_add:\n- header:\n    key: Proxy-Authorization\n"
            "    value: Basic {v}",
            "key: Proxy-Authorization",
        ),
        ("- name: X-Auth-Token\n  value: {v}", "name: X-Auth-Token"),
    ],
)
def test_a_record_setting_a_credential_loses_the_value_only(record: str, kept: str) -> None:
    out = _scrubbed(record.format(v=SECRET))
    assert SECRET not in out
    assert kept in out


@pytest.mark.parametrize(
    "text",
    [
        "proxy_set_header X-Forwarded-For $remote_addr;",
        "proxy_set_header Authorization $http_authorization;",
        "header_up Authorization {env.API_TOKEN}",
        'proxy_set_header Authorization "";',
        'add_header Cache-Control "no-store";',
        "RequestHeader unset Authorization",
        'proxy_set_header X-Api-Key "<your-api-key>";',
        f"- name: X-Request-Id\n  value: {SECRET}",  # no credential's name
        "Reset password notifications",  # prose: no directive, a word
        "Set the token expiry carefully",
    ],
)
def test_a_record_setting_no_credential_stays(text: str) -> None:
    assert _scrubbed(text) == text


# --- role mailboxes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "local",
    ["accessibility", "phishing", "security-reports", "data.protection", "customerservice",
     "bugbounty", "vulnerability-disclosure", "it-support", "trust-and-safety", "hr",
     "support-eu", "no-reply+github", "datenschutz", "info2024"],
)  # fmt: skip
def test_a_local_part_of_function_words_is_a_role(local: str) -> None:
    assert role_mailbox(local)


@pytest.mark.parametrize(
    "local",
    ["john", "j.smith", "maria.garcia", "jane.doe", "securityjane", "sales.mark", "grace",
     "bill", "andrea", "ofelia", "donald"],
)  # fmt: skip
def test_a_local_part_with_a_name_is_a_person(local: str) -> None:
    assert not role_mailbox(local)


def test_role_addresses_stay_people_go_and_the_policy_turns_it_off() -> None:
    text = "Report phishing to phishing@bank.example or write to maria.garcia@bank.example."
    out = _scrubbed(text)
    assert "phishing@bank.example" in out
    assert "maria.garcia" not in out
    strict = SafetyScrubber(Policy(keep_public_addresses=False)).scrub_text(text).text
    assert "phishing@bank.example" not in strict
