"""docs/conformance.md's table of mutation survivors, held to the tests it names.

An equivalent survivor is left out of the mutation score only when its row names
the test that shows no engine call tells it from the original
(``tests/mutation/run.py``); a row naming a test that does not exist would
silently count as unbacked, so it fails here instead.
"""

from __future__ import annotations

import fnmatch
import importlib.util
from pathlib import Path
from types import ModuleType

RUN = Path(__file__).resolve().parent / "mutation" / "run.py"


def _run_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutation_run", RUN)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_named_test_exists() -> None:
    run = _run_module()
    named = {test for _, test in run.classified().values() if test}
    assert named, "no row of the survivors' table names a test"
    assert sorted(test for test in named if not run.test_exists(test)) == []


def test_test_exists_refuses_what_is_not_a_test() -> None:
    """The fixed decoys: a missing file, a missing function, no function named."""
    run = _run_module()
    assert run.test_exists("tests/test_mutation_table.py::test_every_named_test_exists")
    assert not run.test_exists("tests/test_mutation_table.py::test_no_such_test")
    assert not run.test_exists("tests/no_such_file.py::test_every_named_test_exists")
    assert not run.test_exists("tests/test_mutation_table.py")


def test_every_row_names_a_mutated_function() -> None:
    """A row whose mutant no target matches is left over from code that is gone."""
    run = _run_module()
    stray = [
        name
        for name in run.classified()
        if not any(fnmatch.fnmatchcase(name, target) for target in run.TARGETS)
    ]
    assert stray == []
