"""Arbitrary JSON at every memory tool, and arbitrary arguments at every command, over sqlite.

Only the contract's errors come out of a tool, and no command ends in a traceback.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import re
import sys
from collections.abc import Callable, Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory_sqlite import SqliteEngine


def _cursor(plain: str) -> str:
    return base64.urlsafe_b64encode(plain.encode("ascii")).decode("ascii").rstrip("=")


#: Values at the edges: integer widths, text no engine can encode, extreme timestamps.
EDGES = st.sampled_from(
    [
        0,
        1,
        50,
        2**32,
        2**63 - 1,
        2**63,
        2**64,
        -(2**63) - 1,
        "",
        "learning",
        "keyword",
        "vector",
        "hybrid",
        "user",
        "fact",
        "tag",
        "\ud800",
        "\u200b",
        "2025-01-01T00:00:00Z",
        "0001-01-01T00:00:00+05:00",
        "9999-12-31T23:59:59-05:00",
    ]
)
#: Cursors a model could craft: numbers past SQLite's integers, or at their very end.
CURSORS = st.sampled_from(
    [
        _cursor("tm1.l.9999999999999999999"),
        _cursor("tm1.l.9223372036854775808"),
        _cursor("tm1.l.9223372036854775807"),
        _cursor("tm1.r.9223372036854775808.1.abc"),
        _cursor("tm1.r.1.9999999999999999999.abc"),
    ]
)
SCALARS = (
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12) | EDGES | CURSORS
)


def _argument_names(schema: object) -> set[str]:
    """Every property name in a JSON Schema, at any depth."""
    if isinstance(schema, dict):
        names = set(schema.get("properties", {}))
        return names.union(*(_argument_names(value) for value in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_argument_names(value) for value in schema))
    return set()


#: Keys of nested objects: every argument name any tool takes (filters', items', turns'),
#: and one no tool takes.
with SqliteEngine(":memory:") as _engine:
    _SPECS = tm.MemoryTools(_engine).specs()
TOOL_NAMES = [spec.name for spec in _SPECS]
KEYS = st.sampled_from([*sorted(_argument_names([spec.parameters for spec in _SPECS])), "x"])
JSON = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(KEYS, children, max_size=4),
    max_leaves=14,
)


@pytest.fixture(scope="module")
def tools() -> Iterator[tm.MemoryTools]:
    with SqliteEngine(":memory:") as engine:
        engine.store_many([tm.Learning(text=f"fact {n} about tags") for n in range(5)])
        yield tm.MemoryTools(engine)


def _keys(tools: tm.MemoryTools, name: str) -> list[str]:
    """The tool's own argument names, so most draws get past the argument reader to the engine."""
    (spec,) = [spec for spec in tools.specs() if spec.name == name]
    return list(spec.parameters["properties"])


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(TOOL_NAMES), data=st.data(), as_text=st.booleans())
def test_arbitrary_json_at_every_tool_raises_only_contract_errors(
    tools: tm.MemoryTools, name: str, data: st.DataObject, as_text: bool
) -> None:
    edges = {"cursor": CURSORS}
    values = {key: edges.get(key, EDGES | JSON) for key in _keys(tools, name)}
    arguments = data.draw(st.fixed_dictionaries({}, optional=values))
    try:
        sent: object = json.dumps(arguments) if as_text else arguments
    except ValueError:
        sent = arguments
    try:
        result = tools.call(name, sent)  # type: ignore[arg-type]
    except tm.TinyMemoryError:
        return
    json.loads(result)


#: Command-line words at the edges: bytes that are not UTF-8 as a shell hands them over
#: (surrogate-escaped), integers past SQLite's, invisible text.
WORDS = [
    "-",
    "0",
    "50",
    str(2**63),
    str(2**64),
    "root",
    "agent:a",
    "learning",
    "keyword",
    "tag",
    "\udcff",
    "caf\udce9",
    "\u200b",
    "0001-01-01T00:00:00+05:00",
    "memory.jsonl",
    _cursor("tm1.l.9999999999999999999"),
]


def _console_script() -> Callable[[], None]:
    """The installed ``tinymemory`` command's entry point, run in this process."""
    (script,) = [ep for ep in entry_points(group="console_scripts") if ep.name == "tinymemory"]
    run: Callable[[], None] = script.load()
    return run


def _run(args: list[str]) -> tuple[object, str]:
    """The exit status and stdout of ``tinymemory ARGS``; anything but SystemExit propagates."""
    runner = CliRunner()
    argv = sys.argv
    sys.argv = ["tinymemory", *args]
    try:
        with runner.isolation(input=b"n\n") as (out, _, _), pytest.raises(SystemExit) as done:
            _console_script()()
    finally:
        sys.argv = argv
    return done.value.code, out.getvalue().decode(errors="replace")


@functools.cache
def _commands() -> dict[str, list[str]]:
    """Every command ``tinymemory --help`` lists (the plugin's too) and the options of each."""
    text = _run(["--help"])[1].partition("Commands:")[2]
    return {
        name: re.findall(r"(?<![\w-])(--?[a-zA-Z][\w-]*)", _run([name, "--help"])[1])
        for name in re.findall(r"^  ([a-z][\w-]*)  ", text, re.MULTILINE)
    }


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_arbitrary_arguments_to_every_command_never_end_in_a_traceback(
    data: st.DataObject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("TINYMEMORY_CONFIG", "TINYMEMORY_ENGINE", "TINYMEMORY_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    commands = _commands()
    assert {"store", "import", "export", "sqlite"} <= set(commands)
    # conformance is left out: a valid draw runs the whole suite, which is tested on its own;
    # so is ui (when tinymemory-ui is installed): a valid draw serves until it is stopped.
    name = data.draw(st.sampled_from(sorted(set(commands) - {"conformance", "ui"})))
    # Mostly the edge words, as option values and as arguments; sometimes any text.
    edge = st.sampled_from(WORDS)
    word = (
        edge
        | edge
        | edge
        | st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=8)
    )
    options = data.draw(st.lists(st.tuples(st.sampled_from(commands[name]), word), max_size=3))
    args = [name, *data.draw(st.lists(word, max_size=2)), *(w for pair in options for w in pair)]
    with contextlib.chdir(tmp_path):
        status, _ = _run(args)
    assert status in (0, 1, 2)
