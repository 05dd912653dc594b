"""``tinymemory ui`` as a person runs it: a process serving HTTP on 127.0.0.1, spoken to with
``requests``, stopped by SIGTERM or SIGINT."""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from app_support import BUDGET, QUESTION

from tinymemory.testing import Sandbox

URL = re.compile(r"http://127\.0\.0\.1:(\d+)/\?token=([A-Za-z0-9_-]+)")
TINYMEMORY = str(Path(sys.executable).parent / "tinymemory")


class Served:
    """A running ``tinymemory ui`` and the line it printed."""

    def __init__(self, process: subprocess.Popen[str], line: str) -> None:
        self.process = process
        self.line = line
        found = URL.search(line)
        assert found is not None, line
        self.url, self.port, self.token = found.group(0), int(found.group(1)), found.group(2)

    def stop(self, signum: int = signal.SIGTERM) -> tuple[int, str, str]:
        """Send ``signum``; the exit status and the rest of stdout and stderr."""
        self.process.send_signal(signum)
        out, err = self.process.communicate(timeout=20)
        return self.process.returncode, out, err


def serve(sandbox: Sandbox, *args: str) -> Served:
    process = subprocess.Popen(
        [TINYMEMORY, "ui", *args],
        env=sandbox.env,
        cwd=sandbox.folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline() if process.stdout else ""
    if not line:
        process.kill()
        raise AssertionError(f"no URL line; stderr: {process.communicate()[1]}")
    return Served(process, line)


@pytest.fixture
def ui_home(ui_notes_file: Path, tmp_path: Path) -> Sandbox:
    """A home whose default engine holds the README's notes."""
    sandbox = Sandbox(tmp_path / "home")
    data = sandbox.data_home / "tinymemory"
    data.mkdir(parents=True)
    shutil.copyfile(ui_notes_file, data / "memory.db")
    return sandbox


@pytest.fixture
def ui_served(ui_home: Sandbox) -> Iterator[Served]:
    served = serve(ui_home)
    yield served
    if served.process.poll() is None:
        served.process.kill()
        served.process.communicate()


def test_the_command_serves_the_notes_behind_its_token(ui_served: Served) -> None:
    assert ui_served.line == (f"tinymemory ui: serving sqlite at {ui_served.url} (read-only)\n")
    base = f"http://127.0.0.1:{ui_served.port}"
    assert requests.get(f"{base}/", timeout=10).status_code == 403
    assert requests.get(f"{base}/?token=wrong", timeout=10).status_code == 403
    session = requests.Session()
    first = session.get(ui_served.url, timeout=10)
    assert first.status_code == 200
    assert first.url == f"{base}/"
    assert 'id="search-form"' in first.text
    answer = session.get(f"{base}/search", params={"q": QUESTION}, timeout=10)
    assert BUDGET in answer.text
    assert 'class="citation"' in answer.text
    rebound = session.get(
        f"{base}/", headers={"Host": f"evil.example:{ui_served.port}"}, timeout=10
    )
    assert rebound.status_code == 403
    assert session.get(f"{base}/erase", timeout=10).status_code == 403  # read-only
    status, out, err = ui_served.stop()
    assert status == 0
    assert ui_served.token not in out + err  # printed once, in the URL line, and never logged


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_stops_it_cleanly(ui_home: Sandbox, signum: int) -> None:
    served = serve(ui_home, "--write")
    assert served.line.endswith(" (read-write)\n")
    assert requests.get(served.url, timeout=10).status_code == 200
    status, _, err = served.stop(signum)
    assert status == 0, err
    with pytest.raises(requests.ConnectionError):
        requests.get(served.url, timeout=5)


def test_a_port_in_use_is_a_usage_error(ui_home: Sandbox) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [TINYMEMORY, "ui", "--port", str(port)],
            env=ui_home.env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert done.returncode == 2
    assert f"127.0.0.1:{port}" in done.stderr
    assert done.stdout == ""


def test_an_unknown_engine_is_refused_before_serving(ui_home: Sandbox) -> None:
    done = subprocess.run(
        [TINYMEMORY, "ui", "--engine", "nope"],
        env=ui_home.env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode != 0
    assert "nope" in done.stderr
    assert done.stdout == ""


def test_read_only_on_an_empty_memory_creates_no_file(tmp_path: Path) -> None:
    sandbox = Sandbox(tmp_path)
    served = serve(sandbox)
    session = requests.Session()
    assert session.get(served.url, timeout=10).status_code == 200
    assert (
        "No items"
        in session.get(served.url.split("?")[0] + "search?kind=learning", timeout=10).text
    )
    assert served.stop()[0] == 0
    assert not (sandbox.data_home / "tinymemory" / "memory.db").exists()
