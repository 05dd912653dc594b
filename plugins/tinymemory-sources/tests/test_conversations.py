"""The ``conversations`` reader: JSON threads, roles mapped, timestamps read per the contract."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

import tinymemory as tm
from tinymemory.plugin import SourceSkip
from tinymemory_sources.conversations import message_time


def thread(folder: Path, name: str, data: object) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_thread_becomes_a_conversation(tmp_path: Path) -> None:
    thread(
        tmp_path,
        "t-1",
        {
            "title": "Launch",
            "messages": [
                {
                    "role": "Human",
                    "content": "When is the launch?",
                    "created_at": "2026-03-01T10:00:00Z",
                },
                {"role": "bot", "content": "Friday.", "timestamp": 1772359260},
                {"role": "developer", "content": "be brief", "at": 1772359320000},
                {"role": "function", "content": "{}"},
                {"role": "narrator", "content": "dropped"},
                {"role": "user", "content": "   "},
            ],
        },
    )
    (item,) = tm.read("conversations", options={"path": str(tmp_path), "workspace": "acme"})
    assert isinstance(item, tm.Conversation)
    assert [turn.role for turn in item.turns] == [
        tm.Role.USER, tm.Role.ASSISTANT, tm.Role.SYSTEM, tm.Role.TOOL
    ]  # fmt: skip
    assert item.turns[0].at == datetime(2026, 3, 1, 10, 0, tzinfo=UTC)
    assert item.turns[1].at == datetime(2026, 3, 1, 10, 1, tzinfo=UTC)
    assert item.turns[2].at == datetime(2026, 3, 1, 10, 2, tzinfo=UTC)
    meta = item.meta
    assert (meta.thread_id, meta.turns, meta.workspace) == ("t-1", tm.TurnRange(0, 3), "acme")
    assert meta.observed_at == datetime(2026, 3, 1, 10, 2, tzinfo=UTC)  # the last stamped turn
    assert meta.source == tm.SourceRef(kind=tm.SourceKind.CONVERSATION, id="t-1")


def test_without_timestamps_the_file_time_is_used(tmp_path: Path) -> None:
    path = thread(tmp_path, "plain", {"messages": [{"role": "user", "content": "hi"}]})
    os.utime(path, (1_700_000_000, 1_700_000_000))
    (item,) = tm.read("conversations", options={"path": str(path)})
    assert item.meta.observed_at == datetime.fromtimestamp(1_700_000_000, UTC)


def test_bad_threads_are_skips_naming_why(tmp_path: Path) -> None:
    thread(tmp_path, "empty", {"messages": [{"role": "narrator", "content": "x"}]})
    thread(tmp_path, "shape", ["not", "a", "thread"])
    thread(tmp_path, "stamp", {"messages": [{"role": "user", "content": "x", "at": "yesterday"}]})
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    found = list(tm.read("conversations", options={"path": str(tmp_path)}))
    reasons = {Path(skip.what).name: skip.reason for skip in found if isinstance(skip, SourceSkip)}
    assert reasons["empty.json"] == "the thread has no turns with content"
    assert reasons["shape.json"] == "a thread is an object with a `messages` list"
    assert reasons["stamp.json"] == "message 0: timestamp `yesterday` is not RFC 3339"
    assert reasons["broken.json"].startswith("not a JSON thread")
    assert len(found) == 4


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, datetime(1970, 1, 1, tzinfo=UTC)),
        (99_999_999_999, datetime.fromtimestamp(99_999_999_999, UTC)),  # below 10^12: seconds
        (10**12, datetime.fromtimestamp(10**9, UTC)),  # 10^12 and above: milliseconds
        (-(10**12), datetime.fromtimestamp(-(10**9), UTC)),
        ("2026-03-01T12:00:00+02:00", datetime(2026, 3, 1, 10, 0, tzinfo=UTC)),
    ],
)
def test_timestamps(value: object, expected: datetime) -> None:
    assert message_time(value) == expected


@pytest.mark.parametrize("value", [True, "2026-03-01T10:00:00", [1], 10**20])
def test_bad_timestamps(value: object) -> None:
    with pytest.raises(tm.InvalidRequest):
        message_time(value)
