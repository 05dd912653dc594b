"""docs/conformance.md's rule table holds every rule of docs/contract.md to checks that exist."""

from __future__ import annotations

import re

from doc_examples import ROOT

from tinymemory.conformance import CHECK_NAMES

_RULE = re.compile(r"\[r:([a-z0-9-]+)\]")
_ROW = re.compile(r"^\| `([a-z0-9-]+)` \| (.+) \|$")
_NAME = re.compile(r"`([^`]+)`")


def contract_rules() -> list[str]:
    """Every rule id of the contract, in its order."""
    return _RULE.findall((ROOT / "docs" / "contract.md").read_text(encoding="utf-8"))


def rule_table() -> dict[str, list[str]]:
    """The rule table: each id and the checks it names."""
    page = (ROOT / "docs" / "conformance.md").read_text(encoding="utf-8")
    section = page[page.index("## The rule table") : page.index("### Checks per field type")]
    table: dict[str, list[str]] = {}
    for line in section.splitlines():
        row = _ROW.match(line)
        if row:
            assert row.group(1) not in table, f"`{row.group(1)}` has two rows"
            table[row.group(1)] = _NAME.findall(row.group(2))
    return table


def test_every_rule_has_an_id_once() -> None:
    rules = contract_rules()
    assert len(rules) > 70
    assert len(rules) == len(set(rules)), sorted({r for r in rules if rules.count(r) > 1})


def test_every_rule_of_the_contract_has_a_row_and_every_row_a_rule() -> None:
    table = rule_table()
    rules = contract_rules()
    assert [rule for rule in rules if rule not in table] == []
    assert [rule for rule in table if rule not in rules] == []
    assert list(table) == rules, "rows in the contract's order"


def test_every_row_names_checks_that_exist() -> None:
    for rule, checks in rule_table().items():
        assert checks, f"`{rule}` names no check"
        for check in checks:
            if "::" not in check:
                assert check in CHECK_NAMES, f"`{rule}` names `{check}`, no check of the suite"
                continue
            path, name = check.split("::")
            source = (ROOT / path).read_text(encoding="utf-8")
            assert re.search(rf"^def {name}\(", source, re.MULTILINE), f"`{rule}`: {check}"


def test_every_check_of_the_suite_names_a_rule() -> None:
    named = {check for checks in rule_table().values() for check in checks}
    assert [check for check in CHECK_NAMES if check not in named] == []
