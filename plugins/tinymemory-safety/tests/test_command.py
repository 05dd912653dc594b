"""``tinymemory scrub``: a text as the installed scrubber would store it, nothing stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from shared_engine import SharedEnginePlugin

from tinymemory.testing import Cli
from tinymemory_safety.commands import scrub_command

TEXT = "deploy key ghp_abcdefghijklmnopqrstuvwxyz0123456789, card 4111 1111 1111 1111"
SCRUBBED = "deploy key [REDACTED], card [REDACTED_PII_CREDIT_CARD]"


def test_the_command_is_registered_and_stores_nothing(
    installed: SharedEnginePlugin, cli: Cli
) -> None:
    result = cli.invoke("scrub", TEXT)
    assert result.exit_code == 0
    assert result.stdout == SCRUBBED + "\n"
    assert result.stderr == "2 redactions: credit_card=1, github=1\n"
    assert installed.held() == []


def test_stdin_and_a_file_are_scrubbed_as_given(tmp_path: Path) -> None:
    piped = CliRunner().invoke(scrub_command, ["-"], input=f"{TEXT}\nsecond line\n")
    assert piped.exit_code == 0, piped.output
    assert piped.stdout == f"{SCRUBBED}\nsecond line\n"
    file = tmp_path / "notes.txt"
    file.write_text("SSN 078-05-1120", encoding="utf-8")
    read = CliRunner().invoke(scrub_command, ["--file", str(file), "--json"])
    assert read.exit_code == 0, read.output
    assert json.loads(read.stdout) == {
        "text": "SSN [REDACTED_PII_SSN]",
        "redactions": {"ssn": 1},
        "total": 1,
    }


def test_the_environment_policy_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TINYMEMORY_SAFETY_EMAILS", "keep")
    result = CliRunner().invoke(scrub_command, ["write ops@example.com"])
    assert result.stdout == "write ops@example.com\n"
    monkeypatch.setenv("TINYMEMORY_SAFETY_EMAILS", "maybe")
    result = CliRunner().invoke(scrub_command, ["write ops@example.com"])
    assert result.exit_code != 0
    assert "TINYMEMORY_SAFETY_EMAILS must be" in str(result.exception)


@pytest.mark.parametrize("arguments", [[], ["text", "--file", "x"]])
def test_text_or_a_file_one_of_them(arguments: list[str], tmp_path: Path) -> None:
    if "--file" in arguments:
        (tmp_path / "x").write_text("x", encoding="utf-8")
        arguments = ["text", "--file", str(tmp_path / "x")]
    result = CliRunner().invoke(scrub_command, arguments)
    assert result.exit_code == 2
    assert "pass TEXT (- for stdin) or --file, one of them" in result.output


def test_a_file_that_is_not_text_is_a_usage_error(tmp_path: Path) -> None:
    file = tmp_path / "blob.bin"
    file.write_bytes(b"\xff\xfe\x00")
    result = CliRunner().invoke(scrub_command, ["--file", str(file)])
    assert result.exit_code == 2
    assert "as UTF-8 text" in result.output
