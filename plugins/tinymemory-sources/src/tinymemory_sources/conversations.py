"""The ``conversations`` reader: JSON thread files as Conversation items.

A thread file is ``<id>.json`` shaped ``{"title": ..., "messages": [{"role",
"content", "created_at"}]}``. Roles map to the contract's four (user/human;
assistant/agent/ai/bot/model; system/developer; tool/function); a message of
another role or with blank content is dropped. A message's time is its
``created_at``, ``timestamp`` or ``at``: an RFC 3339 string or an epoch number
(milliseconds when its magnitude is at least 10^12, else seconds).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import tinymemory as tm
from tinymemory.plugin import ReaderContext, SourceSkip
from tinymemory_sources.reader_options import (
    MAX_FILE_BYTES,
    check_names,
    int_option,
    option_names,
    text_option,
)

MIB = 1024 * 1024

ROLES = {
    "user": "user", "human": "user",
    "assistant": "assistant", "agent": "assistant", "ai": "assistant", "bot": "assistant",
    "model": "assistant",
    "system": "system", "developer": "system",
    "tool": "tool", "function": "tool",
}  # fmt: skip
TIME_KEYS = ("created_at", "timestamp", "at")


def message_time(value: object) -> datetime | None:
    """A message's time from RFC 3339 text or epoch seconds (or ms); else ``InvalidRequest``."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise tm.InvalidRequest("a timestamp is not true or false")
    if isinstance(value, int | float):
        seconds = value / 1000 if abs(value) >= 10**12 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            raise tm.InvalidRequest(f"epoch timestamp {value} is out of range") from None
    if isinstance(value, str):
        try:
            moment = datetime.fromisoformat(value.strip())
        except ValueError:
            raise tm.InvalidRequest(f"timestamp `{value[:40]}` is not RFC 3339") from None
        if moment.tzinfo is None:
            raise tm.InvalidRequest(f"timestamp `{value[:40]}` has no UTC offset")
        return moment.astimezone(UTC)
    raise tm.InvalidRequest(f"a timestamp is text or a number, not {type(value).__name__}")


def thread_turns(data: object) -> list[tm.Turn]:
    """The turns of a parsed thread, roles mapped, blank and unknown-role messages dropped."""
    if not isinstance(data, Mapping) or not isinstance(data.get("messages"), list):
        raise tm.InvalidRequest("a thread is an object with a `messages` list")
    turns = []
    for number, message in enumerate(data["messages"]):
        if not isinstance(message, Mapping):
            raise tm.InvalidRequest(f"message {number} is not an object")
        role = ROLES.get(str(message.get("role", "")).strip().lower())
        content = message.get("content")
        if role is None or not isinstance(content, str) or not content.strip():
            continue
        stamp = next((message[key] for key in TIME_KEYS if message.get(key) is not None), None)
        try:
            at = message_time(stamp)
        except tm.InvalidRequest as error:
            raise tm.InvalidRequest(f"message {number}: {error.message}") from None
        turns.append(tm.Turn(role=role, text=content, at=at))
    return turns


def _thread_id(path: Path) -> str:
    thread_id = path.stem
    if thread_id in ("", ".", "..") or "/" in thread_id or "\\" in thread_id:
        raise tm.InvalidRequest(f"`{path.name}` is not a thread id")
    return thread_id


class ConversationsReader:
    """``conversations``: every ``*.json`` thread in the folder ``path``, or the one file ``path``.

    Options: ``path`` (required), ``workspace``, ``max_file_bytes`` (default
    10 MiB). Each thread is a Conversation with ``thread_id`` (the file's
    name without ``.json``), ``turns`` (0 to n-1) and ``observed_at`` (the
    last timestamped turn, else the file's mtime). A thread that cannot be
    read, or has no turns, is a skip naming why.
    """

    name = "conversations"
    source_option = "path"
    options = (MAX_FILE_BYTES,)
    OPTIONS = option_names(source_option, options, "workspace")

    def read(self, context: ReaderContext) -> Iterator[tm.StoreItem | SourceSkip]:
        """Yield each thread as a Conversation, or a skip saying why it cannot be."""
        options = context.options
        check_names(self.name, options, self.OPTIONS)
        given = str(text_option(self.name, options, "path", required=True))
        workspace = text_option(self.name, options, "workspace")
        cap = int_option(self.name, options, "max_file_bytes", 10 * MIB, 1, 1 << 40)
        path = Path(given).expanduser().resolve()
        if path.is_dir():
            files = sorted(
                entry for entry in path.glob("*.json") if entry.is_file() and not entry.is_symlink()
            )
        elif path.is_file():
            files = [path]
        else:
            raise tm.InvalidRequest(f"`{given}` is neither a thread file nor a folder of them")
        return (self._thread(file, workspace, cap) for file in files)

    def _thread(self, path: Path, workspace: str | None, cap: int) -> tm.StoreItem | SourceSkip:
        try:
            return self._conversation(path, workspace, cap)
        except tm.InvalidRequest as error:
            return SourceSkip(what=path.as_posix(), reason=error.message)

    def _conversation(self, path: Path, workspace: str | None, cap: int) -> tm.Conversation:
        thread_id = _thread_id(path)
        info = path.stat()
        if info.st_size > cap:
            raise tm.InvalidRequest(f"{info.st_size} bytes, over the cap of {cap}")
        try:
            data: Any = json.loads(path.read_bytes())
        except (ValueError, RecursionError) as error:
            raise tm.InvalidRequest(f"not a JSON thread: {error}") from None
        except OSError as error:
            raise tm.InvalidRequest(f"cannot be read ({error.strerror})") from None
        turns = thread_turns(data)
        if not turns:
            raise tm.InvalidRequest("the thread has no turns with content")
        stamped = [turn.at for turn in turns if turn.at is not None]
        observed = stamped[-1] if stamped else datetime.fromtimestamp(os.stat(path).st_mtime, UTC)
        meta = tm.MemoryMeta(
            workspace=workspace,
            file_path=path.as_posix(),
            thread_id=thread_id,
            turns=tm.TurnRange(0, len(turns) - 1),
            observed_at=observed,
            source=tm.SourceRef(kind=tm.SourceKind.CONVERSATION, id=thread_id),
        )
        return tm.Conversation(turns=turns, meta=meta)
