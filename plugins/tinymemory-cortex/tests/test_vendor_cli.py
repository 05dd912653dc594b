"""The vendor's command line, ``cortexdb-cli`` 0.6.0, drives the double through every command.

The CLI is a plain ``httpx`` client of the Direct wire (``cortexdb_cli/client.py``:
``Authorization: Bearer`` and ``X-Cortex-Actor`` on every request). Each
command whose route the double serves is run as a subprocess against the
double on loopback, in ``--json`` mode, and judged on its exit status, what
it printed and what the double holds afterwards. The commands on routes the
engine never calls are run too: the double refuses them as an unknown route
(404), and docs/engines/cortexdb.md lists them with the reason. The one step
that fails through a client bug (``experience bulk FILE``) is asserted as
that bug, with the evidence in the docs.

A newer CLI: re-read ``cortexdb_cli/commands/*.py`` (every ``client.get``/
``post``/``put``/``delete``) and update the table below and the docs. The
pin lives in the plugin's ``test`` extra.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tinymemory_cortex.testing import CortexDouble, DoubleServer

TOKEN = "cli-judge-key-0001"
ACTOR = "user:judge"
SCOPE = "user:judge/app:notes"
#: Routes of the CLI that the engine never calls, by command (docs/engines/cortexdb.md).
OUTSIDE = {
    ("admin", "layers"): "v1/admin/layers/stats",
    ("admin", "retention", "show"): "v1/admin/retention",
    ("admin", "wal", "status"): "v1/admin/wal",
    ("audit", "chain"): "v1/audit/chain",
    ("beliefs", "list"): "v1/beliefs",
    ("beliefs", "build"): "v1/beliefs/build",
    ("compose", "refunds"): "v1/compose",
    ("export",): "v1/export",
    ("conflicts", "list"): "v1/conflicts",
    ("forget", "--memory-id", "evt_1", "--preview"): "v1/forget/preview",
}


class Cli:
    """Runs ``cortexdb --json ...`` against one double, in a home of its own."""

    def __init__(self, server: DoubleServer, home: Path) -> None:
        self.server, self.home = server, home
        self.env = {
            **os.environ,
            "CORTEXDB_API_KEY": TOKEN,
            "CORTEXDB_ENDPOINT": server.url,
            "CORTEXDB_ACTOR": ACTOR,
            "CORTEXDB_SCOPE": SCOPE,
            "CORTEXDB_HOME": str(home),
            "NO_COLOR": "1",
        }

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", "from cortexdb_cli.main import cli; cli()", "--json"]
        return subprocess.run(
            [*command, *args],
            env=self.env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=120,
            check=False,
        )

    def ok(self, *args: str) -> Any:
        """The JSON a command printed, which must have exited 0."""
        done = self.run(*args)
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
        return json.loads(done.stdout)

    def write(self, text: str, **context: Any) -> str:
        body = {
            "scope": SCOPE,
            "modality": "observation",
            "content": {"kind": "message", "role": "user", "text": text},
            "context": context,
        }
        return self.server.double.write(TOKEN, body)

    def held(self) -> list[str]:
        tenant = self.server.double.tenants.get(TOKEN)
        if tenant is None:
            return []
        return [event.body["content"]["text"] for event in tenant.logs.get(SCOPE, [])]


@pytest.fixture
def cli(tmp_path: Path) -> Iterator[Cli]:
    with DoubleServer(CortexDouble({TOKEN: ACTOR}, require_actor=True)) as server:
        yield Cli(server, tmp_path)


# --- who and whether -------------------------------------------------------------------


def test_whoami_and_admin_health_name_the_caller(cli: Cli) -> None:
    assert cli.ok("auth", "whoami")["caller"] == ACTOR
    assert cli.ok("admin", "health")["caller"] == ACTOR


@pytest.mark.parametrize(
    ("command", "stages"),
    [
        (("preflight",), {"endpoint_reachable"}),
        (("doctor",), {"endpoint_reachable", "server_ready", "authenticated"}),
        (("apply", "--no-signup"), {"server_ready", "authenticated", "first_value"}),
        (("verify",), {"authenticated", "first_value"}),
    ],
    ids=" ".join,
)
def test_the_onboarding_checks_pass_every_stage_they_run_against_the_service(
    cli: Cli, command: tuple[str, ...], stages: set[str]
) -> None:
    # They probe GET v1/admin/health without a bearer and v1/admin/ready, ask whoami,
    # and (apply, verify) write a marker under `verify:cortexdb-cli-<run>`, recall it
    # and forget it with `redact_events`.
    report = cli.ok(*command)
    states = {stage["id"]: stage["state"] for stage in report["stages"]}
    assert report["ok"] is True, states
    assert {stage for stage, state in states.items() if state == "pass"} >= stages, states
    if "first_value" in stages:
        assert cli.server.double.count("v1/forget") == 1
        assert all(not log for log in cli.server.double.tenants[TOKEN].logs.values())


# --- writes ------------------------------------------------------------------------------


def test_experience_and_remember_write_one_event_each(cli: Cli) -> None:
    # Options go before the text: the `experience` group takes its text as an argument.
    first = cli.ok("experience", "--tags", "topic:refunds", "--wait", "indexed", "refunds: 30 days")
    assert first["replayed_from_idempotency"] is False
    again = cli.ok("experience", "--tags", "topic:refunds", "--wait", "indexed", "refunds: 30 days")
    assert again == {**first, "replayed_from_idempotency": True}  # its key is content-derived
    cli.ok("remember", "prefers short answers")
    assert cli.held() == ["refunds: 30 days", "prefers short answers"]
    labels = cli.server.double.tenants[TOKEN].logs[SCOPE][0].body["context"]["labels"]
    assert labels == ["topic:refunds"]


def test_import_of_a_json_file_writes_each_record(cli: Cli) -> None:
    records = cli.home / "records.json"
    records.write_text(json.dumps([{"content": "imported one"}, {"content": "imported two"}]))
    assert cli.ok("import", str(records)) == {"imported": 2, "errors": 0}
    assert sorted(cli.held()) == ["imported one", "imported two"]


def test_experience_bulk_is_unreachable_through_a_client_bug(cli: Cli) -> None:
    # cortexdb-cli 0.6 commands/experience.py: `experience` is a click group with an
    # optional CONTENT argument, so `bulk` is taken as CONTENT and the file as a command.
    lines = cli.home / "events.jsonl"
    lines.write_text(json.dumps({"scope": SCOPE, "content": {"text": "x"}}) + "\n")
    done = cli.run("experience", "bulk", str(lines))
    assert done.returncode == 2
    assert "No such command" in done.stderr
    assert cli.server.double.count("v1/experience/bulk") == 0


# --- reads -------------------------------------------------------------------------------


def test_recall_and_search_find_what_was_written_with_a_context_block(cli: Cli) -> None:
    wanted = cli.write("the refund window is 30 days")
    cli.write("the office opens at nine")
    pack = cli.ok("recall", "refund")
    assert [event["id"] for event in pack["layers"]["events"]] == [wanted]
    assert pack["context_block"].endswith(" UTC] [user] the refund window is 30 days")
    granular = cli.ok("recall", "refund", "--view", "granular", "--include", "events")
    assert [event["id"] for event in granular["layers"]["events"]] == [wanted]
    beliefs_only = cli.ok("recall", "refund", "--include", "beliefs")
    assert beliefs_only["layers"] == {"beliefs": []}
    assert [hit["id"] for hit in cli.ok("search", "refund")["layers"]["events"]] == [wanted]


def test_a_label_filter_given_once_is_one_label(cli: Cli) -> None:
    tagged = cli.write("refund tagged", labels=["topic:refunds"])
    cli.write("refund untagged", labels=["topic:other"])
    pack = cli.ok("recall", "refund", "--filter", "labels=topic:refunds")
    assert [event["id"] for event in pack["layers"]["events"]] == [tagged]
    both = cli.ok(
        "recall", "refund", "--filter", "labels=topic:refunds", "--filter", "labels=topic:other"
    )
    assert len(both["layers"]["events"]) == 2


def test_answer_recalls_for_itself_without_a_preview_pack(cli: Cli) -> None:
    cli.write("the refund window is 30 days")
    answered = cli.ok("answer", "how long is the refund window?")
    assert "30 days" in answered["answer"]


def test_an_event_is_read_by_its_id(cli: Cli) -> None:
    event_id = cli.write("read me back")
    assert cli.ok("episodes", "get", event_id)["content"]["text"] == "read me back"


# --- scopes --------------------------------------------------------------------------------


def test_scopes_list_register_and_members(cli: Cli) -> None:
    cli.write("somewhere")
    assert cli.ok("scopes", "list")["items"] == [{"path": SCOPE}]
    assert cli.ok("scopes", "list", "--prefix", "user:judge")["items"] == [{"path": SCOPE}]
    cli.ok("scopes", "register", "user:judge/app:more")
    members = cli.ok("scopes", "members", "user:judge/app:more")["members"]
    assert members == [{"actor": ACTOR, "role": "owner"}]


# --- forgetting ------------------------------------------------------------------------------


def test_forget_by_id_with_each_cascade(cli: Cli) -> None:
    kept = cli.write("derived only: the event stays")
    gone = cli.write("redacted: the event goes")
    cli.ok("forget", "--memory-id", kept, "--reason", "judge", "--yes")
    cli.ok("forget", "-i", gone, "-r", "judge", "--cascade", "redact_events", "--yes")
    assert cli.held() == ["derived only: the event stays"]


def test_forget_by_subject_or_query_is_a_selector_not_an_empty_one(cli: Cli) -> None:
    about = {"id": "user:alice", "type": "user"}
    body = {
        "scope": SCOPE,
        "modality": "observation",
        "content": {"kind": "message", "role": "user", "text": "alice likes tea"},
        "subject": about,
    }
    cli.server.double.write(TOKEN, body)
    cli.write("bob likes coffee")
    cli.ok("forget", "--query", "tea", "--reason", "judge", "--yes")  # about_subject "tea"
    assert len(cli.held()) == 2
    done = cli.ok(
        "forget", "--subject", "user:alice", "-r", "judge", "--cascade", "redact_events", "--yes"
    )
    assert done["deleted"] == {"events": 1}
    assert cli.held() == ["bob likes coffee"]


# --- what the engine never calls ---------------------------------------------------------------


@pytest.mark.parametrize("command", sorted(OUTSIDE), ids=" ".join)
def test_commands_on_routes_outside_the_engines_use_are_refused_as_unknown(
    cli: Cli, command: tuple[str, ...]
) -> None:
    done = cli.run(*command, *(() if command[0] != "beliefs" else ("--scope", SCOPE)))
    assert done.returncode != 0
    assert "404" in done.stdout + done.stderr
    assert cli.server.double.count(OUTSIDE[command]) == 1
