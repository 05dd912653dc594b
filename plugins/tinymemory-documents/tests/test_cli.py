"""``tinymemory convert`` and ``tinymemory store --file``, as a user runs them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import OFFICE_SUITE, RunCommand
from fixture_files import encrypted_pdf


def test_convert_prints_the_markdown(tinymemory_command: RunCommand) -> None:
    result = tinymemory_command("convert", str(OFFICE_SUITE / "report.docx"))
    assert result.exit_code == 0, result.stderr
    # The document's own title heads it once (the body leaves out its opening heading).
    body = (OFFICE_SUITE / "report.docx.expected.md").read_text(encoding="utf-8")
    assert result.stdout == f"# Field report\n\n{body}"
    assert result.stdout.count("Field report") == 1


def test_convert_writes_the_markdown_to_a_file(
    tinymemory_command: RunCommand, tmp_path: Path
) -> None:
    out = tmp_path / "deck.md"
    result = tinymemory_command("convert", str(OFFICE_SUITE / "deck.pptx"), "-o", str(out))
    assert result.exit_code == 0, result.stderr
    body = (OFFICE_SUITE / "deck.pptx.expected.md").read_text(encoding="utf-8")
    expected = f"# Launch plan\n\n{body}"
    assert out.read_text(encoding="utf-8") == expected
    mime = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
    assert result.stdout == f"wrote {out}: {len(expected) - 1:,} characters of {mime}\n"


def test_convert_json_is_the_documents_json_form(tinymemory_command: RunCommand) -> None:
    result = tinymemory_command("convert", str(OFFICE_SUITE / "budget.xlsx"), "--json")
    assert result.exit_code == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["title"] == "Team budget"
    assert document["mime"].endswith("spreadsheetml.sheet")
    assert document["meta"]["file_path"] == str((OFFICE_SUITE / "budget.xlsx").resolve())
    assert "| Laptops | 2024-01-31 |" in json.dumps(document["body"])


def test_convert_of_a_refused_file_says_why_and_fails(
    tinymemory_command: RunCommand, tmp_path: Path
) -> None:
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(encrypted_pdf())
    result = tinymemory_command("convert", str(locked))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "tinymemory: invalid request: `locked.pdf` is an encrypted PDF; decrypt it first\n"
    )


def test_store_file_stores_the_converted_document(
    tinymemory_command: RunCommand, tmp_path: Path
) -> None:
    deck = tmp_path / "deck.pptx"
    shutil.copy(OFFICE_SUITE / "deck.pptx", deck)
    stored = tinymemory_command("store", "--file", str(deck), "--json")
    assert stored.exit_code == 0, stored.stderr
    receipt = json.loads(stored.stdout)
    found = tinymemory_command("fetch", "forty shops", "--json")
    assert found.exit_code == 0, found.stderr
    (hit,) = json.loads(found.stdout)["hits"]
    assert hit["id"] == receipt["id"]
    assert "Mention the survey of forty shops." in hit["text"]
