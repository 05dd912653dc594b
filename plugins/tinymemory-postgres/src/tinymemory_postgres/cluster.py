"""A throwaway PostgreSQL cluster for tests: initdb in a temporary folder, stopped at the end.

The server listens on a Unix socket in its folder (trusted, no password) and
on 127.0.0.1 at a free port (password required), never on another address.
initdb refuses to run as root, so as root the server runs as the
unprivileged ``postgres`` user (``runuser``), as CI needs.

``python -m tinymemory_postgres.cluster COMMAND...`` starts one, runs the
command with :data:`TEST_CONNINFO_VARIABLE` set to its connection string
(which the engine's ``test_settings`` read) and stops it afterwards: the
``conformance-postgres`` tox env runs the suite that way.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from tinymemory import ConfigError

#: The connection string of a throwaway server, for ``test_settings``.
TEST_CONNINFO_VARIABLE = "TINYMEMORY_POSTGRES_TEST_CONNINFO"
#: Where PostgreSQL's programs are, when not under ``/usr/lib/postgresql/<version>/bin``.
BIN_VARIABLE = "TINYMEMORY_POSTGRES_BIN"
#: The password of the cluster's superuser over TCP (a throwaway, loopback-only server).
PASSWORD = "throwaway-secret"
USER = "postgres"


def bin_directory() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl``; ``ConfigError`` when none is installed."""
    named = os.environ.get(BIN_VARIABLE)
    if named:
        return Path(named)
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    if not found:
        raise ConfigError(
            f"PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb; set {BIN_VARIABLE})"
        )
    return found[-1].parent


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ThrowawayCluster:
    """A PostgreSQL server of its own in a temporary folder; :meth:`stop` removes it all."""

    def __init__(self, bin: Path | None = None) -> None:
        """A new cluster of the server programs in ``bin`` (:func:`bin_directory` by default)."""
        self.bin = bin or bin_directory()
        self.folder = Path(tempfile.mkdtemp(prefix="tinymemory-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self._as_root = os.geteuid() == 0
        if self._as_root:
            account = pwd.getpwnam(USER)
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        self._run(
            "initdb",
            "--no-sync",
            "-U",
            USER,
            "-A",
            "trust",
            "--auth-host=scram-sha-256",
            "--pwfile",
            str(self._password_file()),
            "-D",
            str(self.data),
        )
        self._configure()
        self.start()

    @property
    def socket_conninfo(self) -> str:
        """The libpq connection string over the Unix socket (trusted: no password)."""
        return f"host={self.folder} port={self.port} user={USER} dbname=postgres"

    @property
    def tcp_parts(self) -> dict[str, object]:
        """Host, port, user and database over 127.0.0.1, where the password is required."""
        return {"host": "127.0.0.1", "port": self.port, "user": USER, "dbname": "postgres"}

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        """Stop (dropping every connection) and start again on the same port."""
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-l",
            str(self.folder / "log"),
            "-m",
            "fast",
            "-w",
            "restart",
        )

    def remove(self) -> None:
        """Stop the server if it runs and remove its folder."""
        if (self.data / "postmaster.pid").exists():
            self.stop("immediate")
        shutil.rmtree(self.folder, ignore_errors=True)

    def _password_file(self) -> Path:
        path = self.folder / "password"
        path.write_text(PASSWORD + "\n", encoding="utf-8")
        if self._as_root:
            account = pwd.getpwnam(USER)
            os.chown(path, account.pw_uid, account.pw_gid)
        return path

    def _configure(self) -> None:
        settings = (
            "listen_addresses = '127.0.0.1'\n"
            f"port = {self.port}\n"
            f"unix_socket_directories = '{self.folder}'\n"
            "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
            "max_connections = 100\nshared_buffers = 64MB\n"
        )
        with (self.data / "postgresql.conf").open("a", encoding="utf-8") as conf:
            conf.write(settings)

    def _run(self, program: str, *args: str) -> None:
        command = [str(self.bin / program), *args]
        if self._as_root:
            command = ["runuser", "-u", USER, "--", *command]
        result = subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)
        if result.returncode != 0:
            raise ConfigError(f"{program} failed: {result.stderr.strip() or result.stdout.strip()}")


def main(argv: list[str]) -> int:
    """Run ``argv`` with a throwaway server's connection string in the environment."""
    if not argv:
        print("usage: python -m tinymemory_postgres.cluster COMMAND...", file=sys.stderr)
        return 2
    cluster = ThrowawayCluster()
    try:
        env = {**os.environ, TEST_CONNINFO_VARIABLE: cluster.socket_conninfo}
        return subprocess.run(argv, env=env, check=False).returncode
    finally:
        cluster.remove()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
