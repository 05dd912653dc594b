"""Running ``tinymemory mcp`` as a subprocess and driving it with the MCP SDK's own client.

Every test gets a home of its own (``HOME`` and the XDG folders in a temp
folder), so the default engine, ``sqlite``, keeps its file there and a later
``tinymemory`` process in the same home finds what the server stored.
"""

from __future__ import annotations

import json
import select
import subprocess
import sysconfig
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

import tinymemory as tm
from tinymemory.plugin import to_json
from tinymemory.testing import Sandbox

#: The console script the plugin's command is reached through, as a host starts it.
TINYMEMORY = str(Path(sysconfig.get_path("scripts")) / "tinymemory")
REPO = Path(__file__).resolve().parents[3]


class Home:
    """A user's home in a temp folder (a sandbox's): the environment to run ``tinymemory`` in."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.env = Sandbox(root).env

    def run(self, *args: str, extra: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        """``tinymemory ARGS`` in another process, in this home."""
        return subprocess.run(
            [TINYMEMORY, *args],
            env={**self.env, **(extra or {})},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def json(self, *args: str, extra: dict[str, str] | None = None) -> Any:
        """``tinymemory ARGS --json``, which must succeed, read as JSON."""
        done = self.run(*args, "--json", extra=extra)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def engine(self) -> tm.MemoryEngine:
        """The default engine of this home, opened in this process on the file the server uses."""
        path = Path(self.env["XDG_DATA_HOME"]) / "tinymemory" / "memory.db"
        return tm.build_engine("sqlite", tm.EngineSettings(options={"path": str(path)}))

    def exported(self) -> list[str]:
        """Every stored item's id and canonical JSON: the whole memory's state, sorted."""
        found: list[str] = []
        cursor = None
        with self.engine() as engine:
            while True:
                page = engine.export(tm.ListRequest(limit=100, cursor=cursor))
                found.extend(f"{entry.id} {to_json(entry.item)}" for entry in page.items)
                cursor = page.next_cursor
                if cursor is None:
                    return sorted(found)

    def seed(self, *learnings: tuple[str, str | None, str | None]) -> list[str]:
        """Store ``(text, namespace, workspace)`` learnings in this home's memory; their ids.

        Stored in this process, on the file the default engine uses here, so
        seeding costs no process of its own.
        """
        with self.engine() as engine:
            return [
                engine.store(
                    tm.Learning(
                        text=text,
                        meta=tm.MemoryMeta(namespace=namespace or "root", workspace=workspace),
                    )
                ).id
                for text, namespace, workspace in learnings
            ]

    def params(self, *args: str, extra: dict[str, str] | None = None) -> StdioServerParameters:
        """How a host starts ``tinymemory mcp ARGS`` in this home."""
        return StdioServerParameters(
            command=TINYMEMORY, args=["mcp", *args], env={**self.env, **(extra or {})}
        )

    @asynccontextmanager
    async def session(
        self, *args: str, mode: str = "auto", extra: dict[str, str] | None = None
    ) -> AsyncIterator[Client]:
        """An MCP client session with ``tinymemory mcp ARGS``; the server's log goes to a file.

        ``mode`` is the SDK's: ``auto`` negotiates the newest protocol,
        ``legacy`` the initialize handshake older hosts speak.
        """
        with (self.root / "server.log").open("a", encoding="utf-8") as log:
            transport = stdio_client(self.params(*args, extra=extra), errlog=log)
            async with Client(transport, mode=mode) as client:
                yield client

    def server_log(self) -> str:
        path = self.root / "server.log"
        return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home(tmp_path)


def run_async(scenario: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run one scenario in an event loop of its own (the tests stay synchronous)."""
    return anyio.run(scenario)


def result_text(result: Any) -> str:
    """A tool result's one text block."""
    assert len(result.content) == 1
    return str(result.content[0].text)


def result_json(result: Any) -> Any:
    """A successful tool result, read back from its text (and equal to its structured content)."""
    assert result.is_error is False, result_text(result)
    value = json.loads(result_text(result))
    assert result.structured_content == value
    return value


#: How long a reply may take on the wire (a host's own timeout is longer).
REPLY_SECONDS = 10


class Wire:
    """``tinymemory mcp`` in a subprocess, spoken to in raw bytes."""

    def __init__(self, home: Home) -> None:
        self.process = subprocess.Popen(
            [TINYMEMORY, "mcp"],
            env=home.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            bufsize=0,  # unbuffered, so select() sees every reply not yet read
        )
        self.next_id = 100

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode())
        return self.reply()

    def reply(self) -> dict[str, Any]:
        """The next line the server writes, an object, which must come within ten seconds."""
        return dict(self.answer())

    def answer(self) -> Any:
        """The next line the server writes (an object or an array), within ten seconds."""
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], REPLY_SECONDS)
        assert ready, f"no reply within {REPLY_SECONDS} s"
        line = self.process.stdout.readline()
        assert line, "the server closed stdout"
        return json.loads(line)

    def unanswered(self, line: bytes) -> None:
        """Send ``line``, which must get no answer: the next line out answers a ping sent after it.

        The server answers lines in the order it reads them, so no wait is needed.
        """
        self.send(line)
        pong = self.request("ping")
        assert pong == {"jsonrpc": "2.0", "id": self.next_id, "result": {}}, pong

    def close(self) -> str:
        """Close the server's stdin and wait for it to stop; its log."""
        _, stderr = self.process.communicate(timeout=30)
        return stderr.decode()


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Wire]:
    talking = Wire(Home(tmp_path_factory.mktemp("home")))
    try:
        answer = talking.request(
            "initialize",
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        )
        assert answer["result"]["serverInfo"]["name"] == "tinymemory"
        talking.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        yield talking
        log = talking.close()  # the end of its input stops the server
        assert talking.process.returncode == 0, log
        assert "Traceback" not in log
    finally:
        if talking.process.poll() is None:
            talking.process.kill()
            talking.process.communicate()
