"""Testing a plugin as a third party would, against the installed core (as pytest's ``pytester``).

A plugin's tests import ``tinymemory``, its plugin API, the retrieval kit,
the conformance suite and this module, never a private core module, and
pass when ``pytest`` runs inside the plugin's own folder.

- :class:`Sandbox`: an isolated home, configuration and data folder (no
  configuration file, no ``TINYMEMORY_*`` choice from the environment), for
  the test's process (:meth:`Sandbox.enter`) or a child's (:attr:`Sandbox.env`);
- :func:`only_plugins` loads just the plugins named (built-ins included,
  as :data:`BUILTIN_PLUGINS` lists) and :func:`registered` registers a plugin
  object in-process for one block: what a user's ``TINYMEMORY_PLUGINS`` and an
  installed distribution would do;
- :class:`Cli` runs the ``tinymemory`` command: in-process (:meth:`Cli.invoke`,
  click's runner, the plugins' commands included) or as the installed
  command in a process of its own (:meth:`Cli.run`);
- :func:`examples`: a markdown page's examples with the output each shows,
  for tests that run a plugin's documentation as written;
- :func:`check_cursors_blind_to_siblings`: an engine's cursors, compared byte
  for byte while another namespace's contents change.

A ``conftest.py`` with ``pytest_plugins = ["tinymemory.testing"]`` gets the
fixtures ``tinymemory_sandbox`` (a sandbox entered for the test) and
``tinymemory_cli`` (the command in it). The module needs pytest (the core's
``test`` extra).
"""

from __future__ import annotations

import builtins
import io
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext, redirect_stderr, redirect_stdout
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import pytest

from tinymemory._engine import MemoryEngine
from tinymemory._errors import Unsupported
from tinymemory._items import Learning
from tinymemory._meta import MemoryMeta, MetaFilter
from tinymemory._namespace import Namespace, Reach
from tinymemory._operations import (
    EraseRequest,
    ExportPage,
    FetchMode,
    FetchPage,
    FetchRequest,
    ForgetTarget,
    ListPage,
    ListRequest,
)
from tinymemory._plugin_manager import (
    BUILTIN_PLUGINS,
    PLUGINS_VARIABLE,
    plugin_manager,
    reset_plugins,
)

__all__ = [
    "BUILTIN_PLUGINS",
    "Cli",
    "CliResult",
    "Example",
    "Sandbox",
    "ZipLengths",
    "check_cursors_blind_to_siblings",
    "examples",
    "only_plugins",
    "registered",
    "reset_plugins",
    "tinymemory_cli",
    "tinymemory_sandbox",
    "zip_lengths",
]

#: The variables a user's environment may choose memory with; a sandbox clears them.
CHOICE_VARIABLES = (
    "TINYMEMORY_CONFIG",
    "TINYMEMORY_ENGINE",
    "TINYMEMORY_ENDPOINT",
    "TINYMEMORY_API_KEY",
    PLUGINS_VARIABLE,
)


@attrs.frozen
class Sandbox:
    """An isolated home below ``folder``: ``home/``, ``config/`` and ``data/`` (none made
    until something writes there, as for a new user).

    ``extra`` adds variables (say, an engine's own path variable to clear: a
    value of None removes the variable).
    """

    folder: Path
    extra: Mapping[str, str | None] = attrs.field(factory=dict)

    @property
    def home(self) -> Path:
        return self.folder / "home"

    @property
    def config_home(self) -> Path:
        return self.folder / "config"

    @property
    def data_home(self) -> Path:
        return self.folder / "data"

    def changes(self) -> dict[str, str | None]:
        """Each variable the sandbox sets, or removes (None)."""
        changes: dict[str, str | None] = dict.fromkeys(CHOICE_VARIABLES)
        changes.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.config_home),
            XDG_DATA_HOME=str(self.data_home),
        )
        changes.update(self.extra)
        return changes

    @property
    def env(self) -> dict[str, str]:
        """This process's environment with the sandbox's changes: for a child process."""
        env = dict(os.environ)
        for name, value in self.changes().items():
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
        return env

    @property
    def entered(self) -> bool:
        """Whether this process is in the sandbox now (its home and folders are the sandbox's)."""
        folders = {"HOME": self.home, "XDG_CONFIG_HOME": self.config_home}
        folders["XDG_DATA_HOME"] = self.data_home
        return all(os.environ.get(name) == str(path) for name, path in folders.items())

    @contextmanager
    def enter(self) -> Iterator[Sandbox]:
        """The sandbox for this process, for the block; the environment and plugins restored."""
        saved = {name: os.environ.get(name) for name in self.changes()}
        _apply(self.changes())
        reset_plugins()
        try:
            yield self
        finally:
            _apply(saved)
            reset_plugins()


def _apply(changes: Mapping[str, str | None]) -> None:
    for name, value in changes.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@contextmanager
def only_plugins(*names: str) -> Iterator[None]:
    """Only the plugins ``names`` load in the block (the built-ins only when named)."""
    saved = os.environ.get(PLUGINS_VARIABLE)
    _apply({PLUGINS_VARIABLE: ",".join(names)})
    reset_plugins()
    try:
        yield
    finally:
        _apply({PLUGINS_VARIABLE: saved})
        reset_plugins()


@contextmanager
def registered(plugin: object, name: str) -> Iterator[None]:
    """``plugin`` (an object or module with ``@hookimpl`` functions) registered for the block,
    as an installed plugin of that name would be; the plugins are loaded again afterwards."""
    manager = plugin_manager()
    manager.register(plugin, name=name)
    try:
        yield
    finally:
        manager.unregister(name=name)
        reset_plugins()


@attrs.frozen
class CliResult:
    """What a command did: its exit code and what it printed."""

    exit_code: int
    stdout: str
    stderr: str


@attrs.frozen
class Cli:
    """The ``tinymemory`` command, run in ``sandbox`` from ``cwd`` (the sandbox folder)."""

    sandbox: Sandbox

    def invoke(self, *args: str, input: str = "") -> CliResult:
        """Run the command in this process, in the sandbox, as the console script runs it
        (the plugins' commands added, errors printed as ``tinymemory: ...``).

        In a sandbox entered already, the plugins loaded (and those registered) stay.
        """
        from tinymemory._cli.main import main

        stdout, stderr = io.StringIO(), io.StringIO()
        saved_stdin = sys.stdin
        # A text stream over bytes, as a console's: a command may read ``sys.stdin.buffer``.
        sys.stdin = io.TextIOWrapper(io.BytesIO(input.encode()), encoding="utf-8")
        try:
            place = nullcontext(self.sandbox) if self.sandbox.entered else self.sandbox.enter()
            with place, redirect_stdout(stdout), redirect_stderr(stderr):
                code = main(list(args))
        finally:
            sys.stdin = saved_stdin
        return CliResult(code, stdout.getvalue(), stderr.getvalue())

    def run(
        self,
        *args: str,
        input: str | None = None,
        timeout: float = 60,
        env: Mapping[str, str] | None = None,
    ) -> CliResult:
        """Run the installed ``tinymemory`` command in a process of its own, in the sandbox
        (``env``: the whole environment instead, say the sandbox's with a variable added)."""
        command = Path(sys.executable).parent / "tinymemory"
        completed = subprocess.run(
            [str(command), *args],
            env=dict(self.sandbox.env if env is None else env),
            cwd=self.sandbox.folder,
            input=input,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return CliResult(completed.returncode, completed.stdout, completed.stderr)


_FENCE = re.compile(r"```(\w*)\n(.*?)```", re.S)


@attrs.frozen
class Example:
    """One example of a page: its code and the output the page shows after it (or None)."""

    name: str
    code: str
    expected: str | None

    def run(self) -> str:
        """Run the code as a script of its own; what it printed."""
        output = io.StringIO()
        with redirect_stdout(output):
            exec(compile(self.code, self.name, "exec"), {"__name__": "docs"})
        return output.getvalue()


def examples(page: Path, language: str = "python") -> list[Example]:
    """The ``language`` blocks of a markdown page, each with the ```` ```text ```` block after it.

    A page's examples that need something not installed with the core (a
    plugin) are marked ```` ```py ````, and the plugin's tests run them with
    ``language="py"``.
    """
    blocks = _FENCE.findall(page.read_text(encoding="utf-8"))
    found: list[Example] = []
    for index, (written, body) in enumerate(blocks):
        if written != language:
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else ("", "")
        expected = following[1] if following[0] == "text" else None
        found.append(Example(f"{page.name}-{len(found) + 1}", body, expected))
    return found


@pytest.fixture
def tinymemory_sandbox(tmp_path: Path) -> Iterator[Sandbox]:
    """An isolated home, configuration and data folder for the test, plugins loaded anew."""
    with Sandbox(tmp_path / "sandbox").enter() as sandbox:
        yield sandbox


@pytest.fixture
def tinymemory_cli(tinymemory_sandbox: Sandbox) -> Cli:
    """The ``tinymemory`` command in the test's sandbox."""
    return Cli(tinymemory_sandbox)


def check_cursors_blind_to_siblings(engine: MemoryEngine) -> None:
    """Assert that ``engine``'s cursors say nothing of what a read does not admit.

    A caller confined to one namespace pages through its items (list, export
    when the engine exports, fetch in every declared mode) while a sibling
    namespace's contents vary: stores of 1 and 57 items that would match,
    forgets, an erase. Every cursor the caller is handed must stay the same,
    byte for byte. ``engine`` should be empty.
    """
    caller = Namespace.parse("team:acme/agent:caller")
    sibling = Namespace.parse("team:acme/agent:sibling")
    mine = MetaFilter(reach=Reach.exact(caller))

    def store(namespace: Namespace, texts: list[str]) -> list[str]:
        items = [Learning(text=text, meta=MemoryMeta(namespace=namespace)) for text in texts]
        return [receipt.id for receipt in engine.store_many(items)]

    def fetch(mode: FetchMode, cursor: str | None) -> FetchPage:
        request = FetchRequest(query="lantern", mode=mode, filter=mine, limit=1, cursor=cursor)
        return engine.fetch(request)

    def cursors() -> list[str | None]:
        found: list[str | None] = []
        pages: list[Callable[[str | None], ListPage | ExportPage | FetchPage]] = [
            lambda cursor: engine.list(ListRequest(filter=mine, limit=1, cursor=cursor))
        ]
        if exports:
            pages.append(
                lambda cursor: engine.export(ListRequest(filter=mine, limit=1, cursor=cursor))
            )
        pages += [partial(fetch, mode) for mode in engine.descriptor.fetch_modes]
        for page in pages:
            cursor = page(None).next_cursor
            found += [cursor, page(cursor).next_cursor if cursor else None]
        return found

    store(caller, [f"lantern number {n} of the caller" for n in range(3)])
    try:
        engine.export(ListRequest(filter=mine, limit=1))
        exports = True
    except Unsupported:
        exports = False
    before = cursors()
    assert all(cursor is not None for cursor in before[::2]), "each read has a second page"
    variations: list[tuple[str, Callable[[], object]]] = [
        ("one sibling item", lambda: store(sibling, ["a lantern of the sibling"])),
        ("57 more", lambda: store(sibling, [f"lantern {n} in the sibling" for n in range(57)])),
        ("some forgotten", lambda: engine.forget(ForgetTarget.by_ids(siblings()[:5]))),
        ("the sibling erased", lambda: engine.erase(EraseRequest(reach=Reach.exact(sibling)))),
        ("stored again", lambda: store(sibling, ["lantern", "lanterns", "lantern lantern"])),
    ]

    def siblings() -> list[str]:
        listed = engine.list(ListRequest(filter=MetaFilter(reach=Reach.exact(sibling))))
        return [hit.id for hit in listed.items]

    for what, vary in variations:
        vary()
        assert cursors() == before, f"a cursor changed after {what}"


class ZipLengths:
    """The side lengths of every ``zip`` call made in watched modules, by module name."""

    def __init__(self) -> None:
        self.calls: dict[str, list[tuple[int, ...]]] = {}

    def recorder(self, module: str) -> Callable[..., Iterator[tuple[Any, ...]]]:
        """A ``zip`` for ``module`` that reads every side, records their lengths and zips
        them without ``strict`` (so a call with uneven sides is recorded, not raised)."""
        calls = self.calls.setdefault(module, [])

        def recording(*sides: Iterable[Any], strict: bool = False) -> Iterator[tuple[Any, ...]]:
            read = [list(side) for side in sides]
            calls.append(tuple(len(side) for side in read))
            return builtins.zip(*read, strict=False)

        return recording

    def uneven(self) -> dict[str, list[tuple[int, ...]]]:
        """Per module, the calls whose sides had two or more lengths."""
        return {
            module: [lengths for lengths in calls if len(set(lengths)) > 1]
            for module, calls in self.calls.items()
        }


@contextmanager
def zip_lengths(*modules: ModuleType) -> Iterator[ZipLengths]:
    """Record the side lengths of every ``zip`` call in ``modules``, for a block.

    A witness that ``zip(..., strict=True)`` never fires there: a mutant that drops
    ``strict`` is equivalent when no call ever saw sides of two lengths. Each module's
    ``zip`` is put back (or removed again) when the block ends.
    """
    lengths = ZipLengths()
    saved = {module: vars(module).get("zip") for module in modules}
    for module in modules:
        vars(module)["zip"] = lengths.recorder(module.__name__)
    try:
        yield lengths
    finally:
        for module, before in saved.items():
            if before is None:
                del vars(module)["zip"]
            else:
                vars(module)["zip"] = before
