"""The policy a host chooses: bare cards, emails, its own patterns; the counts it reads."""

from __future__ import annotations

import logging
import re

import pytest

import tinymemory as tm
from tinymemory_safety import (
    BareCard,
    HostPattern,
    IpAddresses,
    Policy,
    Redactions,
    SafetyScrubber,
    checksums,
    installed_policy,
)

VISA = "4000056655665556"  # Luhn-valid, Visa's IIN at an issued length
NO_NETWORK = "1000000000000008"  # Luhn-valid, no network issues it


def test_the_sample_numbers_are_what_the_tests_say() -> None:
    assert checksums.luhn(VISA)
    assert checksums.card_network_length(VISA)
    assert checksums.luhn(NO_NETWORK)
    assert not checksums.card_network_length(NO_NETWORK)


def test_luhn_only_redacts_every_luhn_valid_bare_run() -> None:
    scrubber = SafetyScrubber()
    assert scrubber.policy.bare_card is BareCard.LUHN_ONLY
    text = f"ids {VISA} and {NO_NETWORK}"
    assert scrubber.scrub_text(text).text == (
        "ids [REDACTED_PII_CREDIT_CARD] and [REDACTED_PII_CREDIT_CARD]"
    )


def test_corroborated_needs_a_network_or_a_card_word_for_bare_runs() -> None:
    scrubber = SafetyScrubber(Policy(bare_card="corroborated"))
    assert scrubber.policy.bare_card is BareCard.CORROBORATED
    assert scrubber.scrub_text(f"ids {VISA} and {NO_NETWORK}").text == (
        f"ids [REDACTED_PII_CREDIT_CARD] and {NO_NETWORK}"
    )
    assert scrubber.scrub_text(f"debit {NO_NETWORK}").text == "debit [REDACTED_PII_CREDIT_CARD]"
    far = "x" * 70
    assert scrubber.scrub_text(f"card {far} {NO_NETWORK}").text == f"card {far} {NO_NETWORK}"
    # A grouped number needs only Luhn, whatever the rule.
    assert scrubber.scrub_text("1000 0000 0000 0008").text == "[REDACTED_PII_CREDIT_CARD]"


def test_emails_can_be_kept() -> None:
    text = "write ops@example.com"
    assert SafetyScrubber().scrub_text(text).text == "write [REDACTED_PII_EMAIL]"
    assert SafetyScrubber(Policy(redact_emails=False)).scrub_text(text).text == text


def test_a_host_pattern_is_redacted_and_counted_under_its_name() -> None:
    employee = HostPattern("employee_id", r"EMP-\d{6}", token="[REDACTED_EMPLOYEE]")
    ticket = HostPattern("ticket_secret", re.compile(r"TKT-(?P<secret>[a-z0-9]{8})"))
    scrubber = SafetyScrubber(Policy(patterns=[employee, ticket]))
    result = scrubber.scrub_text("EMP-123456 filed TKT-ab12cd34 about ghp_abcdefghijklmnopqrst")
    assert result.text == "[REDACTED_EMPLOYEE] filed TKT-[REDACTED] about [REDACTED]"
    assert result.redactions.by_class == {"employee_id": 1, "github": 1, "ticket_secret": 1}
    assert result.redactions.secrets == 3
    assert scrubber.scrub_text(result.text).text == result.text


def test_built_in_secrets_win_over_a_host_pattern_they_overlap() -> None:
    broad = HostPattern("broad", r"ghp_\w+ and more")
    scrubber = SafetyScrubber(Policy(patterns=[broad]))
    result = scrubber.scrub_text("ghp_abcdefghijklmnopqrst and more")
    assert result.text == "[REDACTED] and more"
    assert result.redactions.by_class == {"github": 1}


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: HostPattern("Bad Name", "x"), "lowercase"),
        (lambda: HostPattern("github", "x"), "built-in class"),
        (lambda: HostPattern("empty", "a*"), "matches empty text"),
        (lambda: HostPattern("loop", r"\[REDACTED\]"), "matches its own token"),
        (lambda: HostPattern("broken", "(unclosed"), "does not compile"),
        (lambda: HostPattern("bytes", re.compile(rb"x")), "not bytes"),  # type: ignore[arg-type]
        (lambda: HostPattern("notoken", "x", token=""), "non-empty"),
        (lambda: Policy(bare_card="sometimes"), "luhn-only, corroborated"),
        (lambda: Policy(redact_emails="yes"), "true or false"),  # type: ignore[arg-type]
        (lambda: Policy(patterns=["x"]), "HostPattern values"),  # type: ignore[list-item]
        (lambda: Policy(patterns=[HostPattern("a", "x"), HostPattern("a", "y")]), "one name"),
        (lambda: Policy(patterns=[HostPattern("pii", r"_PII_")]), "matches the token"),
        (
            lambda: Policy(
                patterns=[
                    HostPattern("ping", "ping", token="<pong>"),
                    HostPattern("pong", "pong", token="<ping>"),
                ]
            ),
            "`ping` matches the token <ping>",
        ),
        (lambda: SafetyScrubber("strict"), "takes a tinymemory_safety.Policy"),  # type: ignore[arg-type]
    ],
)
def test_a_bad_policy_is_a_config_error(make: object, message: str) -> None:
    with pytest.raises(tm.ConfigError, match=re.escape(message)):
        make()  # type: ignore[operator]


def test_a_pattern_error_never_shows_the_pattern() -> None:
    with pytest.raises(tm.ConfigError) as caught:
        HostPattern("leaky", "hunter2(")
    assert "hunter2" not in str(caught.value)


def test_the_environment_policy() -> None:
    assert installed_policy({}, {}) == Policy()
    chosen = installed_policy(
        {}, {"TINYMEMORY_SAFETY_BARE_CARD": " Corroborated ", "TINYMEMORY_SAFETY_EMAILS": "keep"}
    )
    assert chosen == Policy(bare_card=BareCard.CORROBORATED, redact_emails=False)


def test_redactions_group_into_the_contracts_three_counters() -> None:
    text = (
        "-----BEGIN EC PRIVATE KEY-----\nabc\n-----END EC PRIVATE KEY-----\n"
        "Bearer abc123def SSN 078-05-1120 card 4111 1111 1111 1111"
    )
    counts = SafetyScrubber().scrub_text(text).redactions
    assert counts.by_class == {"bearer": 1, "credit_card": 1, "private_key": 1, "ssn": 1}
    assert (counts.private_keys, counts.secrets, counts.personal_data) == (1, 1, 2)
    assert counts.total == 4
    assert str(counts) == "bearer=1, credit_card=1, private_key=1, ssn=1"
    assert counts + Redactions.of(["ssn"]) == Redactions(
        {"bearer": 1, "credit_card": 1, "private_key": 1, "ssn": 2}
    )


def test_scrub_item_counts_every_field_and_scrub_adds_to_the_totals() -> None:
    scrubber = SafetyScrubber()
    item = tm.Learning(
        text="token ghp_abcdefghijklmnopqrst",
        evidence="SSN 078-05-1120",
        meta=tm.MemoryMeta(url="https://x.example/?access_token=abc123def456"),
    )
    result = scrubber.scrub_item(item)
    assert result.redactions.by_class == {"github": 1, "oauth_param": 1, "ssn": 1}
    assert scrubber.totals == Redactions()  # scrub_item only reports
    assert scrubber.scrub(item) == result.item
    assert scrubber.scrub(item) == result.item
    assert scrubber.totals.by_class == {"github": 2, "oauth_param": 2, "ssn": 2}
    assert scrubber.scrub(tm.Learning(text="nothing here")) == tm.Learning(text="nothing here")
    assert scrubber.totals.total == 6


def test_the_debug_log_counts_classes_and_never_holds_the_secret(
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "ghp_abcdefghijklmnopqrst"
    with caplog.at_level(logging.DEBUG, logger="tinymemory_safety"):
        SafetyScrubber().scrub(tm.Learning(text=f"token {secret} and 4111 1111 1111 1111"))
    assert [record.getMessage() for record in caplog.records] == [
        "scrubbed a learning: credit_card=1, github=1"
    ]
    assert secret not in caplog.text


def test_the_repr_shows_the_policy_but_never_a_pattern() -> None:
    scrubber = SafetyScrubber(Policy(patterns=[HostPattern("known", "hunter2")]))
    assert repr(scrubber) == (
        "SafetyScrubber(Policy(bare_card=<BareCard.LUHN_ONLY: 'luhn-only'>, redact_emails=True, "
        "default_region='US', ip_addresses=<IpAddresses.PUBLIC: 'public'>, "
        "patterns=(HostPattern(name='known', token='[REDACTED]'),), keep_public_addresses=True))"
    )
    assert SafetyScrubber.name == "safety"
    assert SafetyScrubber.priority == 100
    assert isinstance(scrubber, tm.Scrubber)


SETTINGS = {
    "bare_card": "corroborated",
    "redact_emails": False,
    "default_region": "gb",
    "ip_addresses": "all",
    "patterns": [{"name": "employee_id", "pattern": r"EMP-\d{6}", "token": "[REDACTED_EMP]"}],
}


def test_the_settings_table_chooses_every_field_and_the_environment_overrides_it() -> None:
    policy = installed_policy(SETTINGS, {})
    assert policy == Policy(
        bare_card=BareCard.CORROBORATED,
        redact_emails=False,
        default_region="GB",
        ip_addresses=IpAddresses.ALL,
        patterns=[HostPattern("employee_id", r"EMP-\d{6}", token="[REDACTED_EMP]")],
    )
    environ = {
        "TINYMEMORY_SAFETY_BARE_CARD": "luhn-only",
        "TINYMEMORY_SAFETY_EMAILS": "redact",
        "TINYMEMORY_SAFETY_REGION": "DE",
        "TINYMEMORY_SAFETY_IP_ADDRESSES": "keep",
    }
    overridden = installed_policy(SETTINGS, environ)
    assert (overridden.bare_card, overridden.redact_emails) == (BareCard.LUHN_ONLY, True)
    assert (overridden.default_region, overridden.ip_addresses) == ("DE", IpAddresses.KEEP)
    assert overridden.patterns == policy.patterns


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"bare_cards": "luhn-only"}, "`bare_cards`"),
        ({"bare_card": "sometimes"}, "bare_card"),
        ({"bare_card": 3}, "`bare_card`"),
        ({"redact_emails": "yes"}, "redact_emails"),
        ({"default_region": "Narnia"}, "default_region"),
        ({"default_region": 44}, "`default_region`"),
        ({"ip_addresses": "some"}, "ip_addresses"),
        ({"patterns": "EMP-\\d+"}, "`patterns`"),
        ({"patterns": [{"name": "x_id"}]}, "`patterns`"),
        ({"patterns": [{"name": "x_id", "pattern": "X", "colour": "red"}]}, "`colour`"),
        ({"patterns": [{"name": "x_id", "pattern": "hunter2("}]}, "does not compile"),
    ],
)
def test_a_bad_settings_key_or_value_is_a_config_error_naming_it(
    settings: dict[str, object], named: str
) -> None:
    with pytest.raises(tm.ConfigError, match=re.escape(named)) as caught:
        installed_policy(settings, {})
    assert "hunter2" not in str(caught.value)


def test_a_bad_environment_value_is_a_config_error_naming_the_variable() -> None:
    with pytest.raises(tm.ConfigError, match="TINYMEMORY_SAFETY_EMAILS"):
        installed_policy({}, {"TINYMEMORY_SAFETY_EMAILS": "sometimes"})
    with pytest.raises(tm.ConfigError, match="default_region"):
        installed_policy({}, {"TINYMEMORY_SAFETY_REGION": "XX"})


def test_the_default_region_reads_national_numbers() -> None:
    text = "office 020 7946 0958"
    assert SafetyScrubber().scrub_text(text).text == text  # not a US number, no phone word
    gb = SafetyScrubber(Policy(default_region="GB")).scrub_text(text)
    assert gb.text == "office [REDACTED_PII_PHONE]"


@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ("public", "from [REDACTED_PII_IP] via 10.0.0.1 and 127.0.0.1"),
        ("all", "from [REDACTED_PII_IP] via [REDACTED_PII_IP] and 127.0.0.1"),
        ("keep", "from 81.2.69.160 via 10.0.0.1 and 127.0.0.1"),
    ],
)
def test_the_ip_policy(choice: str, expected: str) -> None:
    text = "from 81.2.69.160 via 10.0.0.1 and 127.0.0.1"
    assert SafetyScrubber(Policy(ip_addresses=choice)).scrub_text(text).text == expected
