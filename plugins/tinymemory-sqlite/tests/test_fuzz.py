"""Arbitrary JSON at every memory tool, and arbitrary arguments at every command, over sqlite.

Only the contract's errors come out of a tool, and no command ends in a traceback.
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tinymemory as tm
from tinymemory.cli import cli, main
from tinymemory.tool_schemas import TOOL_NAMES, tool_specs
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
_SPECS = tool_specs(tuple(tm.FetchMode), writes=True)
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


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_arbitrary_arguments_to_every_command_never_end_in_a_traceback(
    data: st.DataObject, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("TINYMEMORY_CONFIG", "TINYMEMORY_ENGINE", "TINYMEMORY_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    main(["sqlite"])  # registers the plugin's commands on the group
    # conformance is left out: a valid draw runs the whole suite, which is tested on its own.
    name = data.draw(st.sampled_from(sorted(set(cli.commands) - {"conformance"})))
    options = [opt for param in cli.commands[name].params for opt in param.opts]
    free = st.text(st.characters(exclude_characters="\x00"), max_size=8)
    args = [name, *data.draw(st.lists(st.sampled_from(WORDS + options) | free, max_size=6))]
    runner = CliRunner()
    with contextlib.chdir(tmp_path), runner.isolation(input=b"n\n"):
        status = main(args)  # anything but SystemExit or a contract error propagates
    assert status in (0, 1, 2)
