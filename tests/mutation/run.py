"""Mutation testing of the conformance suite: does it kill what it should?

``tox -e mutation`` runs this script. It lays out a folder for mutmut (the
core and the sqlite plugin under ``src/``, and ``conformance_of_sqlite.py``,
the conformance suite alone against the sqlite engine, as the only test),
runs mutmut over :data:`TARGETS`, then prints the kill score: mutants killed
out of all mutants less those docs/conformance.md lists as equivalent. Every
survivor must be listed there (equivalent, ranking-only or not checked);
the script exits 1 when one is not, or when the score is under :data:`FLOOR`.

mutmut rather than cosmic-ray: mutmut 3 forks each mutant from a process that
has already imported everything and collected the tests, and switches the
mutant on inside the function (a trampoline), so a mutant costs one run of
the suite and no interpreter start or file rewrite; cosmic-ray rewrites the
module on disk and starts the test command anew for every mutant, several
times slower for a suite whose fixed checks take about three seconds.

Usage: ``python tests/mutation/run.py [FOLDER] [--children N]`` (FOLDER: where
to lay out the run, a new temporary folder by default; kept, so that
``mutmut show NAME`` can be run there afterwards).
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

#: What is mutated: mutmut's mutant names, by module, class and function. The code that
#: decides what a read returns: the core's retrieval kit (cursors, SQL of filters, reaches,
#: erase and explore, paging, items and hits), the sqlite engine's dialect, item rows and
#: read, forget and erase methods, and the core's helpers they call. Rankings (the kit's
#: ``_ranking``, sqlite's ``ranking``, ``keyword``, ``vectors``) are left out: the suite
#: checks which items a ranked read may return, not their order. Keep it one list: when
#: the modules move, only these lines need to follow them.
TARGETS = (
    "tinymemory._cursors.*",
    "tinymemory.retrieval._sql.*",
    "tinymemory.retrieval._paging.*",
    "tinymemory.retrieval._hits.*",
    "tinymemory_sqlite.dialect.*",
    "tinymemory_sqlite.item_rows.*",
    *(
        f"tinymemory_sqlite.engine.xǁSqliteEngineǁ{method}__mutmut_*"
        for method in (
            "_page",
            "handle_list",
            "handle_export",
            "handle_get",
            "handle_explore",
            "handle_forget",
            "handle_erase",
            "_delete",
            "handle_fetch",
        )
    ),
    "tinymemory._engine.xǁMemoryEngineǁ*",
    "tinymemory._engine.x_build_explore_page__mutmut_*",
    "tinymemory._item_json.*",
    "tinymemory._timestamps.*",
)
#: Where each module's source is, relative to this checkout.
SOURCES = {
    "tinymemory": ROOT / "tinymemory",
    "tinymemory_sqlite": ROOT / "plugins" / "tinymemory-sqlite" / "src" / "tinymemory_sqlite",
}
#: The least share of non-equivalent mutants the suite must kill.
FLOOR = 0.90
#: The page whose table classifies every survivor.
SURVIVORS_PAGE = ROOT / "docs" / "conformance.md"
#: What mutmut reports as a kill: the suite failed, or ran past its time (an endless read).
KILLED = {"killed", "timeout"}


def _modules() -> list[str]:
    """The modules :data:`TARGETS` names."""
    return sorted({target.split(".x", 1)[0].removesuffix(".*") for target in TARGETS})


def lay_out(folder: Path) -> None:
    """The folder mutmut runs in: sources under ``src/``, the suite as the only test."""
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package, source in SOURCES.items():
        shutil.copytree(source, folder / "src" / package, ignore=ignored, dirs_exist_ok=True)
    (folder / "tests").mkdir(exist_ok=True)
    shutil.copy(
        HERE / "conformance_of_sqlite.py", folder / "tests" / "test_conformance_of_sqlite.py"
    )
    files = "\n".join(f"    src/{module.replace('.', '/')}.py" for module in _modules())
    (folder / "setup.cfg").write_text(
        "[mutmut]\n"
        "source_paths = src\n"
        f"only_mutate =\n{files}\n"
        "pytest_add_cli_args_test_selection = tests/\n"
        "pytest_add_cli_args = -p no:cacheprovider\n"
        "use_git_change_detection = false\n",
        encoding="utf-8",
    )


def statuses(folder: Path, targets: list[str]) -> dict[str, str]:
    """Every mutant of ``targets``' status, as ``mutmut results --all true`` reports it."""
    done = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    )
    found = {}
    for line in done.stdout.splitlines():
        name, _, status = line.strip().rpartition(": ")
        if name and any(fnmatch.fnmatchcase(name, target) for target in targets):
            found[name] = status
    return found


def classified() -> dict[str, str]:
    """The survivors docs/conformance.md classifies: mutant name to class."""
    rows = re.findall(
        r"^\| `([^`]+__mutmut_\d+)` \| (equivalent|ranking-only|not checked) \|",
        SURVIVORS_PAGE.read_text(encoding="utf-8"),
        re.M,
    )
    return dict(rows)


def score(found: dict[str, str]) -> int:
    """Print the score and the survivors; 1 when under the floor or a survivor is unlisted."""
    known = classified()
    killed = [name for name, status in found.items() if status in KILLED]
    survivors = sorted(name for name, status in found.items() if status not in KILLED)
    equivalent = [name for name in survivors if known.get(name) == "equivalent"]
    counted = len(found) - len(equivalent)
    rate = len(killed) / counted if counted else 0.0
    print(f"mutants: {len(found)}, killed {len(killed)}, equivalent {len(equivalent)}")
    for name in survivors:
        print(f"  survived: {name} ({known.get(name, 'NOT LISTED in docs/conformance.md')})")
    print(f"kill score: {len(killed)}/{counted} non-equivalent mutants = {rate:.1%}")
    unlisted = [name for name in survivors if name not in known]
    if unlisted:
        print(f"{len(unlisted)} survivors are not listed in docs/conformance.md")
    return 0 if rate >= FLOOR and not unlisted else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path)
    parser.add_argument("--children", type=int, default=2, help="mutants run at once")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        help="run only the mutants matching this glob (a mutant's name, or a part of TARGETS)",
    )
    options = parser.parse_args()
    chosen = options.only or list(TARGETS)
    folder = options.folder or Path(tempfile.mkdtemp(prefix="tinymemory-mutation-"))
    folder.mkdir(parents=True, exist_ok=True)
    os.nice(10)  # a long run on a shared machine: everything else comes first
    lay_out(folder)
    print(f"mutation run in {folder}", flush=True)
    subprocess.run(
        [sys.executable, "-m", "mutmut", "run", "--max-children", str(options.children), *chosen],
        cwd=folder,
        check=False,
    )
    return score(statuses(folder, chosen))


if __name__ == "__main__":
    sys.exit(main())
