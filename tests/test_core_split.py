"""The core suite runs in parts that `tox p` runs side by side: each test in exactly one part.

tox.ini's ``core*`` environments each run ``pytest`` over a group of tests/ files (``core``
runs what the others leave, so a new file lands there). Each part's selection is what pytest
itself collects with the part's arguments, compared with the whole collection of tests/.
"""

from __future__ import annotations

import configparser
import shlex
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from doc_examples import ROOT


def core_parts() -> dict[str, list[str]]:
    """Each ``core*`` environment of tox.ini and the arguments its pytest command gives."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    parts = {}
    for section in parser.sections():
        name = section.removeprefix("testenv:")
        if section.startswith("testenv:") and (name == "core" or name.startswith("core-")):
            (command,) = parser[section]["commands"].strip().splitlines()
            program, *arguments = shlex.split(command.replace("{posargs}", ""))
            assert program == "pytest", section
            parts[name] = arguments
    return parts


def collected(arguments: list[str]) -> list[str]:
    """The test ids pytest collects from the repository's root with these arguments."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--collect-only",
            "-q",
            *arguments,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_every_core_test_runs_in_exactly_one_part_that_tox_p_runs() -> None:
    parts = core_parts()
    assert len(parts) > 1
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(ROOT / "tox.ini", encoding="utf-8")
    listed = parser["tox"]["env_list"].replace("\n", ",").split(",")
    assert set(parts) <= {name.strip() for name in listed}
    with ThreadPoolExecutor() as pool:
        whole, *selections = pool.map(collected, [[], *parts.values()])
    assert len(whole) > 1000  # the collection itself worked
    counts = Counter(test for selection in selections for test in selection)
    assert sorted(test for test, count in counts.items() if count > 1) == []
    assert set(counts) == set(whole)
    assert all(selections)
