"""Mutation testing of the conformance suite: does it kill what it should?

``tox -e mutation`` runs this script. It lays out a folder for mutmut (the
core, the sqlite and postgres plugins and a copy of the reference engine under
``src/``, and ``conformance_of_<engine>.py``, the conformance suite alone
against each engine, as the only tests), runs mutmut over :data:`TARGETS`
under a throwaway PostgreSQL server, then prints two scores: mutants killed
out of all mutants, and out of all mutants less the equivalent ones that
docs/conformance.md backs with a test of their class (:data:`WITNESSED`).
Every survivor must be listed there (equivalent, ranking-only or not
checked); the script exits 1 when one is not, or when the second score is
under :data:`FLOOR`.

mutmut rather than cosmic-ray: mutmut 3 forks each mutant from a process that
has already imported everything and collected the tests, and switches the
mutant on inside the function (a trampoline), so a mutant costs one run of
the suite and no interpreter start or file rewrite; cosmic-ray rewrites the
module on disk and starts the test command anew for every mutant, several
times slower for a suite whose fixed checks take about three seconds.

Each engine is run in a folder of its own (``FOLDER/<engine>``), against the mutants of
its own targets (:data:`ENGINE_TARGETS`). A full run is about 2,500 mutants, half an
hour or more on a busy 2-core machine, so by default each engine runs a fixed-seed
random sample of :data:`SAMPLE` of its mutants (all of them when it has fewer), and the
scores are printed with the sample's size, the seed and a 95 % Wilson interval:
``--sample 0`` runs every mutant.

Usage: ``python tests/mutation/run.py [FOLDER] [--children N] [--engine E]... [--only
GLOB]... [--sample N] [--seed S] [--score-only]`` (FOLDER: where to lay out the run, a new
temporary folder by default; kept, so that ``mutmut show NAME`` can be run in
``FOLDER/<engine>`` afterwards).
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import importlib.util
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

#: The methods of the sqlite and postgres engines that decide what a read returns.
_SQL_READS = (
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
#: What is mutated: mutmut's mutant names, by module, class and function. The code that
#: decides what a read returns: the core's retrieval kit (cursors, SQL of filters, reaches,
#: erase and explore, paging, items and hits), the sqlite and postgres engines' dialects,
#: item rows and read, forget and erase methods, the reference engine's (a copy of it),
#: and the core's helpers they call. Rankings (the kit's ``_ranking``, sqlite's
#: ``ranking``, ``keyword``, ``vectors``, postgres' ``ranking``) are left out: the suite
#: checks which items a ranked read may return, not their order. Keep it one list: when
#: the modules move, only these lines need to follow them.
TARGETS = (
    "tinymemory._cursors.*",
    "tinymemory.retrieval._sql.*",
    "tinymemory.retrieval._paging.*",
    "tinymemory.retrieval._hits.*",
    "tinymemory_sqlite.dialect.*",
    "tinymemory_sqlite.item_rows.*",
    *(f"tinymemory_sqlite.engine.xǁSqliteEngineǁ{method}__mutmut_*" for method in _SQL_READS),
    "tinymemory._engine.xǁMemoryEngineǁ*",
    "tinymemory._engine.x_build_explore_page__mutmut_*",
    "tinymemory._item_json.*",
    # The timestamps engines read and write (not the whole-second form, which only tool
    # results and context.md write).
    *(
        f"tinymemory._timestamps.x_{name}__mutmut_*"
        for name in ("to_utc", "_in_utc", "optional_utc", "format_timestamp", "_whole_seconds")
    ),
    "tinymemory._timestamps.x_parse_timestamp__mutmut_*",
    # The reference engine: a copy of tinymemory/reference.py under its own name (see
    # lay_out), so that the suite's oracle, which compares with tinymemory.reference, is not
    # mutated with it. Its ranking (_words, _trigram_vector, _cosine, _scorer) is left out.
    *(
        f"reference_under_test.xǁ{name}__mutmut_*"
        for name in (
            "_Positionsǁ*",
            "ReferenceEngineǁ_admitted",
            "ReferenceEngineǁhandle_store",
            "ReferenceEngineǁhandle_store_many",
            "ReferenceEngineǁ_listed",
            "ReferenceEngineǁhandle_list",
            "ReferenceEngineǁ_ranked",
            "ReferenceEngineǁhandle_fetch",
            "ReferenceEngineǁhandle_forget",
            "ReferenceEngineǁhandle_get",
            "ReferenceEngineǁhandle_export",
            "ReferenceEngineǁhandle_erase",
        )
    ),
    # The postgres engine's read code: the same methods as sqlite's, its dialect and rows.
    "tinymemory_postgres.dialect.*",
    "tinymemory_postgres.item_rows.*",
    *(f"tinymemory_postgres.engine.xǁPostgresEngineǁ{method}__mutmut_*" for method in _SQL_READS),
)
#: Which engine's suite judges which targets: the core's helpers and the sqlite engine's
#: code run against sqlite, the postgres engine's against postgres, the reference
#: engine's copy against itself.
ENGINE_TARGETS = {
    "sqlite": tuple(t for t in TARGETS if t.startswith(("tinymemory.", "tinymemory_sqlite."))),
    "postgres": tuple(t for t in TARGETS if t.startswith("tinymemory_postgres.")),
    "reference": tuple(t for t in TARGETS if t.startswith("reference_under_test.")),
}
#: How many mutants of each engine a run samples by default, and with which seed. 200 gives
#: a 95 % interval of about ±4 points around a score near 90 %, in about ten minutes an engine.
SAMPLE = 200
SEED = 44
#: Where each module's source is, relative to this checkout.
SOURCES = {
    "tinymemory": ROOT / "tinymemory",
    "tinymemory_sqlite": ROOT / "plugins" / "tinymemory-sqlite" / "src" / "tinymemory_sqlite",
    "tinymemory_postgres": ROOT / "plugins" / "tinymemory-postgres" / "src" / "tinymemory_postgres",
}
#: The reference engine's copy that is mutated (the original stays the suite's oracle).
REFERENCE_COPY = "reference_under_test"
#: The engines the suite runs against, each through this folder's conformance_of_<engine>.py.
ENGINES = ("sqlite", "postgres", "reference")
#: The least share of non-equivalent mutants the suite must kill.
FLOOR = 0.90
#: The page whose table classifies every survivor.
SURVIVORS_PAGE = ROOT / "docs" / "conformance.md"
#: What mutmut reports as a kill: the suite failed, or ran past its time (an endless read).
KILLED = {"killed", "timeout"}
#: What mutmut reports for a mutant it has not run yet.
NOT_RUN = "not checked"


def _modules() -> list[str]:
    """The modules :data:`TARGETS` names."""
    return sorted({target.split(".x", 1)[0].removesuffix(".*") for target in TARGETS})


def lay_out(folder: Path, engines: list[str]) -> None:
    """The folder mutmut runs in: sources under ``src/``, the suite against ``engines``."""
    ignored = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package, source in SOURCES.items():
        shutil.copytree(source, folder / "src" / package, ignore=ignored, dirs_exist_ok=True)
    shutil.copy(ROOT / "tinymemory" / "reference.py", folder / "src" / f"{REFERENCE_COPY}.py")
    (folder / "tests").mkdir(exist_ok=True)
    for engine in engines:
        test = f"conformance_of_{engine}.py"
        shutil.copy(HERE / test, folder / "tests" / f"test_{test}")
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


def classified() -> dict[str, tuple[str, str]]:
    """The survivors docs/conformance.md classifies: mutant name to class and backing test.

    The test is the row's last cell, ``path::test_name`` (empty when the row names none).
    """
    rows = re.findall(
        r"^\| `([^`]+__mutmut_\d+)` \| (equivalent|ranking-only|not checked) \|[^|\n]*\|"
        r"(?: `([^`]+)` \|)?",
        SURVIVORS_PAGE.read_text(encoding="utf-8"),
        re.M,
    )
    return {name: (kind, test) for name, kind, test in rows}


def test_exists(test: str) -> bool:
    """Whether ``path::name`` names a test function of this checkout (at any depth)."""
    path, _, name = test.partition("::")
    file = ROOT / path
    if not name or not file.is_file():
        return False
    tree = ast.parse(file.read_text(encoding="utf-8"))
    return any(
        isinstance(node, ast.FunctionDef) and node.name == name.rpartition("::")[2]
        for node in ast.walk(tree)
    )


#: A Python string literal on a line of a mutant's diff.
_STRING = re.compile(r'[bf]?"((?:[^"\\]|\\.)*)"')


def _changed_lines(folder: Path, name: str) -> list[tuple[str, str]]:
    """The lines ``name`` changes, before and after; empty when it adds or drops lines."""
    shown = subprocess.run(
        [sys.executable, "-m", "mutmut", "show", name],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.splitlines()
    before = [line[1:] for line in shown if line.startswith("-") and not line.startswith("---")]
    after = [line[1:] for line in shown if line.startswith("+") and not line.startswith("+++")]
    if not before or len(before) != len(after):
        return []
    return list(zip(before, after, strict=True))


def _changed_strings(lines: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The string literals ``lines`` change, before and after; empty when they change more."""
    changed = []
    for old, new in lines:
        if _STRING.sub('""', old) != _STRING.sub('""', new):
            return []
        pairs = zip(_STRING.findall(old), _STRING.findall(new), strict=False)
        changed += [(a, b) for a, b in pairs if a != b]
    return changed


def _strings(check: Callable[[str, str], bool]) -> Callable[[list[tuple[str, str]]], bool]:
    """A class of mutants that change string literals only, each as ``check`` allows."""

    def of_class(lines: list[tuple[str, str]]) -> bool:
        changed = _changed_strings(lines)
        return bool(changed) and all(check(before, after) for before, after in changed)

    return of_class


#: A keyword only SQL holds: a string holding one is (a part of) a statement, not a message.
_SQL_KEYWORD = re.compile(
    r"\b(SELECT|INSERT|DELETE|UPDATE|FROM|WHERE|JOIN|WITH|OVERRIDING|CONFLICT|UNNEST|RETURNING"
    r"|UNION ALL|ORDER BY|GROUP BY|LIMIT %s|SET \w+ = |nextval\()",
    re.I,
)


#: A column named with its table's alias (``i.file_path``), or an assignment between such
#: columns: a part of a statement too.
_SQL_COLUMN = re.compile(r"[a-z]\.[a-z_]+|[a-z_]+ = [a-z_]+\.[a-z_]+ [+-] [a-z_]+\.[a-z_]+")


def _sql_case(test: str) -> Callable[[str, str], bool]:
    """Whether ``after`` is SQL ``before`` in one case, as ``test``'s module's ``recased``
    spells it (outside the literals and parameters it keeps)."""

    def check(before: str, after: str) -> bool:
        spec = importlib.util.spec_from_file_location("sql_case", ROOT / test.split("::")[0])
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sql = _SQL_KEYWORD.search(before) or _SQL_COLUMN.fullmatch(before)
        return sql is not None and after in (
            module.recased(before, str.lower),
            module.recased(before, str.upper),
        )

    return check


def _strict_loosened(lines: list[tuple[str, str]]) -> bool:
    """Whether each line only loosens a ``zip``'s ``strict=True`` (false, none or dropped)."""

    def loosened(before: str, after: str) -> bool:
        old, new = re.sub(r"\s+", "", before), re.sub(r"\s+", "", after)
        if "zip(" not in old or "strict=True" not in old:
            return False
        return new in {
            old.replace("strict=True", "strict=False"),
            old.replace("strict=True", "strict=None"),
            old.replace(",strict=True", ""),
            old.replace("strict=True", ""),
        }

    return bool(lines) and all(loosened(before, after) for before, after in lines)


def _label_dropped(lines: list[tuple[str, str]]) -> bool:
    """Whether the one line changed only drops a read's label (``"list"``, ``"fetch"``) from
    the parts a cursor is bound to (``_Positions(...)``, ``read_key(...)``)."""
    if len(lines) != 1:
        return False
    before, after = (re.sub(r"\s+", "", line) for line in lines[0])
    if "_Positions(" not in before and "read_key(" not in before:
        return False
    return any(
        after in (before.replace(f',"{label}"', ","), before.replace(f'"{label}",', ""))
        for label in ("list", "fetch")
    )


def _seq_gapped(lines: list[tuple[str, str]]) -> bool:
    """Whether the one line changed only counts ``_last_seq`` on by more than one."""
    if len(lines) != 1:
        return False
    before, after = (re.sub(r"\s+", "", line) for line in lines[0])
    step = re.fullmatch(r"self\._last_seq\+=(\d+)", after)
    return before == "self._last_seq+=1" and step is not None and int(step.group(1)) > 1


#: The tests that back a class of equivalents: SQL in another case (sqlite's, postgres'),
#: a ``zip``'s ``strict=True`` loosened where its sides always have one length, a codec's or
#: digest's name in capitals, the reference engine's read labels spelt otherwise (or list's
#: dropped), and gaps in its ``seq``.
SQL_CASE_TEST = "plugins/tinymemory-sqlite/tests/test_sql_case.py::test_sql_case_is_not_observable"
PG_SQL_CASE_TEST = (
    "plugins/tinymemory-postgres/tests/test_sql_case.py::test_sql_case_is_not_observable"
)
PG_ZIP_TEST = (
    "plugins/tinymemory-postgres/tests/test_zip_lengths.py::test_zip_sides_have_one_length"
)
ZIP_TEST = "plugins/tinymemory-sqlite/tests/test_zip_lengths.py::test_zip_sides_have_one_length"
CORE_ZIP_TEST = "tests/test_core_zip_lengths.py::test_zip_sides_have_one_length"
CODEC_TEST = "tests/test_codec_names.py::test_codec_name_in_capitals_is_the_same_codec"
DIGEST_TEST = "tests/test_codec_names.py::test_digest_name_in_capitals_is_the_same_digest"
LABEL_TEST = "tests/test_reference_cursor_labels.py::test_label_spelling_is_not_observable"
KIT_LABEL_TEST = "tests/test_kit_cursor_labels.py::test_label_spelling_is_not_observable"
SEQ_TEST = "tests/test_reference_seq_gaps.py::test_gaps_in_seq_give_the_same_pages"
SURROGATE_TEST = "tests/test_limits.py::test_strings_an_engine_cannot_encode_are_refused"

#: For each backing test, the mutants it may back (globs) and what such a mutant must
#: change: its class, checked on the mutant's own diff, so that a row left over from older
#: code (mutant numbers move when a function changes) is not backed by a test of another
#: class or of another engine.
WITNESSED: dict[str, tuple[tuple[str, ...], Callable[[list[tuple[str, str]]], bool]]] = {
    SQL_CASE_TEST: (("tinymemory.*", "tinymemory_sqlite.*"), _strings(_sql_case(SQL_CASE_TEST))),
    PG_SQL_CASE_TEST: (("tinymemory_postgres.*",), _strings(_sql_case(PG_SQL_CASE_TEST))),
    PG_ZIP_TEST: (("tinymemory_postgres.item_rows.*",), _strict_loosened),
    ZIP_TEST: (("tinymemory_sqlite.item_rows.*",), _strict_loosened),
    CORE_ZIP_TEST: (("tinymemory._cursors.*", "tinymemory._item_json.*"), _strict_loosened),
    CODEC_TEST: (
        ("tinymemory*",),
        _strings(lambda a, b: a in ("utf-8", "ascii") and b == a.upper()),
    ),
    DIGEST_TEST: (("tinymemory*",), _strings(lambda a, b: a == "sha256" and b == a.upper())),
    LABEL_TEST: (
        (f"{REFERENCE_COPY}.*",),
        lambda lines: (
            _strings(lambda a, b: a in ("list", "fetch") and b in (a.upper(), f"XX{a}XX"))(lines)
            or _label_dropped(lines)
        ),
    ),
    # A read's parts come from requests, which refuse a lone surrogate when made: the
    # error handler of read_key's encoding never runs for an engine's read.
    SURROGATE_TEST: (
        ("tinymemory._cursors.x_read_key__*",),
        _strings(lambda a, b: a == "surrogatepass"),
    ),
    KIT_LABEL_TEST: (
        ("tinymemory.retrieval._paging.*",),
        lambda lines: (
            _strings(lambda a, b: a in ("list", "fetch") and b in (a.upper(), f"XX{a}XX"))(lines)
            or _label_dropped(lines)
        ),
    ),
    SEQ_TEST: ((f"{REFERENCE_COPY}.xǁReferenceEngineǁhandle_store__*",), _seq_gapped),
}


def witnessed(folder: Path, name: str, test: str) -> bool:
    """Whether ``test`` exists and ``name`` is a mutant of the class ``test`` shows equivalent."""
    if not test_exists(test) or test not in WITNESSED:
        return False
    mutants, of_class = WITNESSED[test]
    if not any(fnmatch.fnmatchcase(name, glob) for glob in mutants):
        return False
    return of_class(_changed_lines(folder, name))


def wilson(killed: int, counted: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson interval of a share ``killed / counted`` measured on a sample."""
    if not counted:
        return 0.0, 1.0
    share = killed / counted
    middle = (share + z * z / (2 * counted)) / (1 + z * z / counted)
    spread = z * math.sqrt(share * (1 - share) / counted + z * z / (4 * counted * counted))
    return max(0.0, middle - spread / (1 + z * z / counted)), min(
        1.0, middle + spread / (1 + z * z / counted)
    )


def sampled(names: list[str], size: int, seed: int) -> list[str]:
    """``size`` of ``names`` drawn with ``seed`` (all of them when ``size`` is 0 or more)."""
    ordered = sorted(names)
    if size <= 0 or size >= len(ordered):
        return ordered
    return sorted(random.Random(seed).sample(ordered, size))


def score(folder: Path, found: dict[str, str], population: int | None = None) -> int:
    """Print both scores and the survivors; 1 when under the floor, a survivor unlisted or a
    mutant not run (a run stopped early is scored over what ran, and says so).

    A survivor is left out of the non-equivalent score only when its row is ``equivalent``
    and names a test that exists (the test that shows no engine call tells it apart) and
    whose class the mutant's diff is of (:data:`WITNESSED`); an equivalent row without one
    counts against the score, as a survivor.
    """
    unrun = sorted(name for name, status in found.items() if status == NOT_RUN)
    if unrun:
        print(f"NOT RUN: {len(unrun)} of {len(found)} mutants (the run was stopped early);")
        print("the scores below are over the mutants that ran only")
        found = {name: status for name, status in found.items() if status != NOT_RUN}
    known = classified()
    killed = [name for name, status in found.items() if status in KILLED]
    survivors = sorted(name for name, status in found.items() if status not in KILLED)
    backed = [
        name
        for name in survivors
        if known.get(name, ("", ""))[0] == "equivalent" and witnessed(folder, name, known[name][1])
    ]
    for name in survivors:
        kind, test = known.get(name, ("NOT LISTED in docs/conformance.md", ""))
        shown = f"{kind}, {test}" if test else kind
        if kind == "equivalent" and name not in backed:
            shown += ", NOT BACKED by a test of its class: counted against the score"
        print(f"  survived: {name} ({shown})")
    counted = len(found) - len(backed)
    rate = len(killed) / counted if counted else 0.0
    overall = len(killed) / len(found) if found else 0.0
    print(
        f"mutants: {len(found)}, killed {len(killed)}, survived {len(survivors)} "
        f"(equivalent with a test {len(backed)})"
    )
    print(f"score over all mutants: {len(killed)}/{len(found)} = {overall:.1%}")
    print(f"score over non-equivalent mutants: {len(killed)}/{counted} = {rate:.1%}")
    if population is not None and population > len(found):
        low, high = wilson(len(killed), counted)
        print(
            f"a sample of {len(found)} of {population} mutants: 95 % interval of the "
            f"non-equivalent score {low:.1%} to {high:.1%}"
        )
    unlisted = [name for name in survivors if name not in known]
    if unlisted:
        print(f"{len(unlisted)} survivors are not listed in docs/conformance.md")
    return 0 if rate >= FLOOR and not unlisted and not unrun else 1


def _mutmut(folder: Path, *names: str, children: int, quiet: bool = False) -> None:
    """``mutmut run`` of ``names`` in ``folder``, under a throwaway PostgreSQL server."""
    subprocess.run(
        [
            *(sys.executable, "-m", "tinymemory_postgres.cluster"),
            *(sys.executable, "-m", "mutmut", "run", "--max-children", str(children)),
            *names,
        ],
        cwd=folder,
        check=False,
        capture_output=quiet,
    )


def run_engine(folder: Path, engine: str, only: list[str], options: argparse.Namespace) -> int:
    """Lay out, sample, run and score one engine's mutants; 1 when it fails the floor."""
    targets = (
        [glob for glob in only if _matches_engine(glob, engine)]
        if only
        else list(ENGINE_TARGETS[engine])
    )
    if not targets:
        return 0
    print(f"== {engine}: mutation run in {folder}", flush=True)
    if not options.score_only:
        folder.mkdir(parents=True, exist_ok=True)
        lay_out(folder, [engine])
        # A filter that names no mutant: mutmut writes every mutant and stops before running one.
        _mutmut(folder, "no-such-mutant", children=options.children, quiet=True)
    population = statuses(folder, targets)
    if not population:
        print(f"{engine}: no mutant matches {targets}")
        return 1
    chosen = sampled(list(population), options.sample, options.seed)
    print(
        f"{engine}: {len(chosen)} of {len(population)} mutants"
        + (f" (a random sample, seed {options.seed})" if len(chosen) < len(population) else ""),
        flush=True,
    )
    if not options.score_only and chosen:
        _mutmut(folder, *chosen, children=options.children)
    found = statuses(folder, targets)
    return score(folder, {name: found[name] for name in chosen}, len(population))


def _matches_engine(glob: str, engine: str) -> bool:
    """Whether the mutant glob ``glob`` names a module of ``engine``'s targets."""
    modules = {target.split(".x", 1)[0].removesuffix(".*") for target in ENGINE_TARGETS[engine]}
    return any(glob.startswith(module) for module in modules)


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
    parser.add_argument(
        "--engine",
        action="append",
        choices=ENGINES,
        help="run the suite against only this engine (all by default; for a bounded run)",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=SAMPLE,
        help=f"mutants drawn from each engine's (default {SAMPLE}; 0: every mutant)",
    )
    parser.add_argument("--seed", type=int, default=SEED, help=f"the sample's seed ({SEED})")
    parser.add_argument(
        "--score-only",
        action="store_true",
        help="score the results already in FOLDER (after editing the table), running nothing",
    )
    options = parser.parse_args()
    folder = options.folder or Path(tempfile.mkdtemp(prefix="tinymemory-mutation-"))
    if not options.score_only:
        os.nice(10)  # a long run on a shared machine: everything else comes first
    failed = 0
    for engine in options.engine or list(ENGINES):
        failed |= run_engine(folder / engine, engine, options.only, options)
    return failed


if __name__ == "__main__":
    sys.exit(main())
