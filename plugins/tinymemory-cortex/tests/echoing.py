"""A server that quotes back what it is told to, and what an engine then shows of it."""

from __future__ import annotations

import json
import logging

import pytest

from tinymemory import EngineHealth, ListRequest, TinyMemoryError
from tinymemory_cortex import CortexEngine
from tinymemory_cortex.connection import Reply, Request


class Echoing:
    """A server that answers every request with ``status`` and a body quoting ``echo``.

    ``dialect``: ``cortexdb`` (CortexDB's error JSON), ``hosted`` (``{success:
    false, error, errorCode}``) or ``text`` (the echo as the whole body).
    """

    def __init__(self, status: int, echo: str, dialect: str) -> None:
        self.status, self.echo, self.dialect = status, echo, dialect

    def exchange(self, request: Request) -> Reply:
        if self.dialect == "cortexdb":
            payload = json.dumps({"error_code": "INVALID_BODY", "message": self.echo}).encode()
        elif self.dialect == "hosted":
            payload = json.dumps({"success": False, "error": self.echo, "errorCode": "X"}).encode()
        else:
            payload = self.echo.encode()
        return Reply(self.status, {"retry-after": "0"}, payload)

    def close(self) -> None:
        return None


def failing_list(engine: CortexEngine) -> tuple[TinyMemoryError, EngineHealth, list[str]]:
    """A listing that fails, the health after it, and the engine's log lines meanwhile."""
    engine.transport.pacer = None
    logger = logging.getLogger("tinymemory_cortex")
    records: list[logging.LogRecord] = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append  # type: ignore[method-assign]
    logger.addHandler(handler)
    try:
        with engine, pytest.raises(TinyMemoryError) as raised:
            engine.list(ListRequest())
        health = engine.health()
    finally:
        logger.removeHandler(handler)
    return raised.value, health, [record.getMessage() for record in records]
