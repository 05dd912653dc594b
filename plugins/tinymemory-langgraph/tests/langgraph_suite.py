"""Run LangGraph's own store tests against ``TinyMemoryStore``.

``python langgraph_suite.py --engine sqlite --work DIR`` downloads the sdist
of ``langgraph-checkpoint`` (:data:`VERSION`) from the package index into
``DIR`` (once), unpacks it, and runs its ``tests/test_store.py`` from the
unpacked folder under pytest with the plugin ``langgraph_swap`` (beside this
file), which puts a ``TinyMemoryStore`` on a fresh ``--engine`` in place of
``InMemoryStore``. The exit code is pytest's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
from pathlib import Path

from engines import NAMES

#: The langgraph-checkpoint release whose tests judge the store.
VERSION = "4.3.2"
HERE = Path(__file__).resolve().parent


def unpacked(work: Path) -> Path:
    """The unpacked sdist in ``work``, downloaded and unpacked on first use."""
    folder = work / f"langgraph_checkpoint-{VERSION}"
    if (folder / "tests" / "test_store.py").is_file():
        return folder
    work.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
    subprocess.run([*command, f"langgraph-checkpoint=={VERSION}", "-d", str(work)], check=True)
    with tarfile.open(work / f"langgraph_checkpoint-{VERSION}.tar.gz") as archive:
        archive.extractall(work, filter="data")
    return folder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--engine", choices=NAMES, required=True)
    parser.add_argument("--work", type=Path, required=True, help="where the sdist is kept")
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest")
    args = parser.parse_args(argv)
    folder = unpacked(args.work)
    env = dict(os.environ, TINYMEMORY_LANGGRAPH_ENGINE=args.engine)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "langgraph_swap"]
    # The sdist's own pytest options are kept but its addopts (-vv, --durations); the loop
    # scope is set so that pytest-asyncio does not warn of its coming default.
    command += ["-o", "addopts=", "-o", "asyncio_default_fixture_loop_scope=function"]
    command += ["tests/test_store.py", *args.pytest_args]
    return subprocess.run(command, cwd=folder, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
