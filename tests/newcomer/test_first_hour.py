"""A newcomer's first hour, in fresh virtual environments, as the README tells it.

In a copy of this checkout (its tracked and unignored files, as a clone
holds), with a home folder of its own so the memory file starts empty,
bash runs the README's first console block as written: it creates .venv,
installs the core and the bundled plugins from the copy, ingests
docs/examples/notes, recalls an answer and writes context.md. Then that
install's `tinymemory new-plugin` writes a plugin, and the plugin's own
tox.ini builds it into another fresh environment, installing tinymemory from
the copy, and runs its conformance test.

Slow (every install is real): the `newcomer` tox env runs this folder, and
the core suite leaves it out (tests/conftest.py). Nothing of tinymemory is
imported here; everything runs as the user's commands would.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTES = "docs/examples/notes"
#: What docs/examples/notes/travel-policy.docx says, and the answer must hold.
BUDGET = "1,200 EUR"
#: An item id (a fingerprint): ids hash the files' absolute paths, so differ per copy.
ITEM_ID = re.compile(r"\b[0-9a-f]{40}\b")
CITATION = re.compile(r"\[\d+\] ")


def readme_console(holding: str = "") -> tuple[str, list[str]]:
    """The README's first console block holding ``holding``: its command (continuation lines
    kept) and the output shown, every line of the block after the command.
    """
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [block for block in re.findall(r"```console\n(.*?)```", readme, re.S)
              if holding in block]  # fmt: skip
    assert blocks, f"README.md has no console block holding {holding!r}"
    lines = blocks[0].splitlines()
    assert lines[0].startswith("$ "), lines[0]
    end = 1
    while lines[end - 1].endswith("\\"):
        end += 1
    return "\n".join([lines[0][2:], *lines[1:end]]), lines[end:]


def readme_main_job() -> tuple[str, list[str]]:
    """The README's first console block: the main job."""
    return readme_console()


class Newcomer:
    """The copy of the checkout, the home folder and the environment every command runs in."""

    def __init__(self, base: Path) -> None:
        self.clone = base / "clone"
        self.home = base / "home"
        self.home.mkdir()
        self.env = _user_environment(self.home)

    def run(self, *command: str | Path, cwd: Path | None = None) -> str:
        """Run ``command`` in the clone (or ``cwd``); its stdout, after asserting it succeeded."""
        done = subprocess.run(
            [str(part) for part in command],
            cwd=cwd or self.clone,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        return done.stdout

    def tinymemory(self, *arguments: str | Path) -> str:
        return self.run(self.clone / ".venv" / "bin" / "tinymemory", *arguments)


def _user_environment(home: Path) -> dict[str, str]:
    """This process's environment as a new user's shell would have it, homed at ``home``.

    Nothing of tox or of this virtual environment is passed on, nor any
    TinyMemory setting; pip keeps using the machine's cache.
    """
    pip_cache = os.environ.get("PIP_CACHE_DIR") or str(
        Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "pip"
    )
    ours = Path(sys.prefix) / "bin"
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("TOX_", "TINYMEMORY_", "XDG_"))
        and name not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}
    }
    env["PATH"] = os.pathsep.join(
        part for part in env.get("PATH", "").split(os.pathsep) if Path(part) != ours
    )
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local" / "state"),
        PIP_CACHE_DIR=pip_cache,
    )
    return env


def _copy_checkout(clone: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode("utf-8")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)


@pytest.fixture(scope="module")
def newcomer(tmp_path_factory: pytest.TempPathFactory) -> Newcomer:
    return Newcomer(tmp_path_factory.mktemp("newcomer"))


@pytest.fixture(scope="module")
def main_job(newcomer: Newcomer) -> str:
    """The README's main-job command run by bash in the copy; its stdout."""
    _copy_checkout(newcomer.clone)
    command, _ = readme_main_job()
    return newcomer.run("bash", "-c", command)


def test_the_main_job_prints_what_the_readme_shows(main_job: str, newcomer: Newcomer) -> None:
    """Item ids and the copy's own folder are the only parts that may differ (context.md's
    sources list names files relative to their common folder, so its size does not)."""
    _, shown = readme_main_job()

    def same(text: str) -> str:
        return ITEM_ID.sub("<id>", text)

    printed = same(main_job.replace(f"{newcomer.clone}/", ""))
    assert printed.splitlines() == [same(line) for line in shown], (
        f"the README's main job printed:\n{main_job}"
    )


def test_the_answer_holds_the_budget_and_cites_the_files_it_came_from(
    main_job: str, newcomer: Newcomer
) -> None:
    command, _ = readme_main_job()
    question = re.search(r'tinymemory recall "([^"]+)"', command)
    assert question, command
    printed = newcomer.tinymemory("recall", question.group(1))
    assert printed in main_job
    answer, _, cited = printed.partition("\n\n")
    assert BUDGET in answer
    citations = [line for line in cited.splitlines() if CITATION.match(line)]
    assert citations, printed
    files = sorted(path.name for path in (newcomer.clone / NOTES).iterdir())
    for line in citations:
        assert any(name in line for name in files), f"{line!r} names none of {files}"
    assert any("travel-policy.docx" in line for line in citations), printed


def test_the_office_files_are_read(main_job: str, newcomer: Newcomer) -> None:
    docx = newcomer.tinymemory("convert", f"{NOTES}/travel-policy.docx")
    assert f"The travel budget is {BUDGET} per trip" in docx
    pdf = newcomer.tinymemory("convert", f"{NOTES}/release-checklist.pdf")
    assert "Tag the release, build the wheels and publish the docs." in pdf


def test_context_md_is_written_from_a_fresh_memory(main_job: str, newcomer: Newcomer) -> None:
    context = (newcomer.clone / "context.md").read_text(encoding="utf-8")
    memory = newcomer.home / ".local" / "share" / "tinymemory" / "memory.db"
    assert memory.is_file()  # the new home's memory file, so nothing else was read
    # about-me.md, the one item cited: written in the first person, so the user's own;
    # each of its sentences under the brief it answers, none twice; the brief it does
    # not answer is left out, not filled with another note; the sources list ends the
    # document, and its [1] is about-me.md.
    headings = re.findall(r"^## (.+)$", context, re.M)
    assert headings == [
        "About the user",
        "Active work",
        "Preferences and standing instructions",
        "Sources",
    ], context
    for line in (
        "I like short answers with the code first, and I work in the mornings. [1]",
        "My current projects are the parser rewrite and the storage engine, in the acme "
        "workspace. [1]",
        "Standing instruction: always cite the source document. [1]",
    ):
        assert context.count(line) == 1, context
    (source,) = re.findall(r"^\[1\] (.+)$", context, re.M)
    assert re.fullmatch(r"about-me\.md \(`[0-9a-f]{8}`\)", source), context
    (cited,) = re.findall(r"^refs: \[(.*)\]$", context, re.M)
    listed = newcomer.tinymemory("list", "--json")
    about = [item["id"] for item in json.loads(listed)["items"] if "Ada Lovelace" in item["text"]]
    assert cited.split(", ") == about


def conformance_lines() -> list[str]:
    """The README's conformance lines: the console block that installs `.[conformance]`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for block in re.findall(r"```console\n(.*?)```", readme, re.S):
        if '.[conformance]"' in block:
            return [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    raise AssertionError("README.md shows no conformance lines")


def test_the_readme_conformance_lines_run_from_any_folder(
    main_job: str, newcomer: Newcomer, tmp_path: Path
) -> None:
    """In the README's .venv: the install from the clone, then pytest from an empty folder."""
    install, run = conformance_lines()
    venv = newcomer.clone / ".venv" / "bin"
    newcomer.run("bash", "-c", f". {venv}/activate && {install}")
    printed = newcomer.run("bash", "-c", f". {venv}/activate && cd {tmp_path} && {run}")
    summary = re.search(r"^(\d+) passed in ", printed, re.M)
    assert summary, printed
    assert int(summary.group(1)) > 20
    assert "failed" not in printed, printed
    assert "skipped" not in printed, printed


def test_the_readme_gets_a_plugins_command_working(main_job: str, newcomer: Newcomer) -> None:
    """`tinymemory mcp --help` first names the package to install; the README's line installs it."""
    done = subprocess.run(
        [newcomer.clone / ".venv" / "bin" / "tinymemory", "mcp", "--help"],
        cwd=newcomer.clone, env=newcomer.env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "`pip install plugins/tinymemory-mcp`" in done.stderr
    command, shown = readme_console("tinymemory mcp --help")
    printed = newcomer.run("bash", "-c", f". .venv/bin/activate && {command}")
    assert printed.splitlines()[: len(shown)] == shown, printed


def test_the_readme_web_view_answers_the_main_jobs_question(
    main_job: str, newcomer: Newcomer
) -> None:
    """The README's `tinymemory ui` line, in its .venv: the URL it prints opens the ingested
    notes, recall answers the main job's question, and its citations link to the items."""
    command, shown = readme_console("tinymemory ui")
    expected = re.escape(shown[0]).replace("38517", r"\d+").replace(r"\.\.\.", "[A-Za-z0-9_-]+")
    question = re.search(r'tinymemory recall "([^"]+)"', readme_main_job()[0])
    assert question
    served = subprocess.Popen(
        ["bash", "-c", f". .venv/bin/activate && {command}"],
        cwd=newcomer.clone, env=newcomer.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, start_new_session=True,
    )  # fmt: skip
    try:
        assert served.stdout is not None
        ready, _, _ = select.select([served.stdout], [], [], 900)
        line = served.stdout.readline() if ready else ""
        assert re.fullmatch(expected, line.rstrip("\n")), line
        url = line.split(" at ")[1].split()[0]
        browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        start = browser.open(url, timeout=60).read().decode()
        assert 'id="search-form"' in start
        base = url.split("?")[0]
        query = urllib.parse.urlencode({"q": question.group(1)})
        page = browser.open(f"{base}search?{query}", timeout=120).read().decode()
        assert BUDGET in page
        cited = re.findall(r'<a class="citation" href="/(items/[0-9a-f]{40})">', page)
        assert cited, page
        item = browser.open(base + cited[0], timeout=60).read().decode()
        assert "travel-policy.docx" in item
        assert BUDGET in item
    finally:
        os.killpg(served.pid, signal.SIGTERM)
        served.communicate(timeout=60)


@pytest.fixture(scope="module")
def plugin_run(
    main_job: str, newcomer: Newcomer, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, str]:
    """The README's ``tinymemory new-plugin`` line as written, in its ``.venv``: it installs
    tox and runs the plugin's tests. Returns the plugin's folder and the line's output.
    """
    parent = tmp_path_factory.mktemp("plugins")
    command, _ = readme_console("tinymemory new-plugin")
    name = re.search(r"new-plugin (\S+)", command)
    assert name, command
    newcomer.env["TINYMEMORY_CONFORMANCE_PROFILE"] = "ci"  # every check; fewer random examples
    try:
        venv = newcomer.clone / ".venv" / "bin" / "activate"
        run = newcomer.run("bash", "-c", f". {venv} && {command}", cwd=parent)
    finally:
        del newcomer.env["TINYMEMORY_CONFORMANCE_PROFILE"]
    assert f"installs tinymemory[conformance] @ {newcomer.clone.as_uri()}\n" in run
    return parent / f"tinymemory-{name.group(1)}", run


def test_a_new_plugin_passes_the_conformance_suite_in_its_own_tox_run(
    plugin_run: tuple[Path, str], newcomer: Newcomer
) -> None:
    plugin, run = plugin_run
    python = plugin / ".tox" / "tests" / "bin" / "python"
    names = newcomer.run(
        python, "-c", "from tinymemory.conformance import CHECK_NAMES; print(*CHECK_NAMES)"
    ).split()
    assert len(names) > 20, names
    summary = re.search(r"^=+ (.+) in [\d.]+s", run, re.M)
    assert summary, run
    # Every check of the suite, and the check of the entry point.
    assert summary.group(1) == f"{len(names) + 1} passed", run
    assert "tests: OK" in run, run


def test_the_new_plugin_is_lint_and_type_clean(
    plugin_run: tuple[Path, str], newcomer: Newcomer
) -> None:
    """Under this project's rules: it is what an author starts from."""
    plugin, _ = plugin_run
    rules = "E,F,W,I,B,UP,SIM,RUF,PT,N,ANN,C4,RET,PIE"
    newcomer.run(sys.executable, "-m", "ruff", "check", "--select", rules, ".", cwd=plugin)
    newcomer.run(sys.executable, "-m", "ruff", "format", "--check", ".", cwd=plugin)
    python = plugin / ".tox" / "tests" / "bin" / "python"  # the plugin, tinymemory and pytest
    mypy = [sys.executable, "-m", "mypy", "--strict", "--python-executable", python]
    newcomer.run(*mypy, "src", "tests", cwd=plugin)


#: Empty files of every kind a real folder holds: markers, licenses, notes, code, office files.
EMPTY = ("py.typed", "LICENSE", "empty.md", "empty.py", "empty.docx", "empty.pptx",
         "empty.xlsx", "empty.pdf", "empty.csv", "empty.html", "empty.txt")  # fmt: skip

#: Files made by the README's install (its pypdf), each refused by a converter.
REFUSED = """
import io, sys, zipfile
from pathlib import Path
from pypdf import PdfWriter
root = Path(sys.argv[1])
writer = PdfWriter()
writer.add_blank_page(612, 792)
writer.encrypt("secret")
out = io.BytesIO()
writer.write(out)
(root / "locked.pdf").write_bytes(out.getvalue())
package = io.BytesIO()
with zipfile.ZipFile(package, "w") as docx:
    docx.writestr("[Content_Types].xml", "<Types/>")
    docx.writestr("../../escape.xml", "<x/>")
(root / "hostile.docx").write_bytes(package.getvalue())
(root / "truncated.pptx").write_bytes(b"PK\\x03\\x04" + bytes(40))
latin1 = "Grüße aus Köln, schöne Straße, café naïve. " * 8
(root / "latin1.txt").write_bytes(latin1.encode("latin-1"))
(root / "blank.md").write_text("  \\n\\t\\n")
"""


def test_a_real_folder_is_ingested_with_every_skip_named(
    main_job: str, newcomer: Newcomer, tmp_path: Path
) -> None:
    """An installed package's source, empty files, refused office files, an encrypted PDF."""
    python = newcomer.clone / ".venv" / "bin" / "python"
    where = "import attrs, os; print(os.path.dirname(attrs.__file__))"
    package = Path(newcomer.run(python, "-c", where).strip())
    folder = tmp_path / "project"
    shutil.copytree(package, folder / "attrs", ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "empty").mkdir()
    for name in EMPTY:
        (folder / "empty" / name).write_bytes(b"")
    newcomer.run(python, "-c", REFUSED, folder)
    every = {str(path) for path in folder.rglob("*") if path.is_file()}
    sources = {str(path) for path in (folder / "attrs").rglob("*") if path.is_file()}
    # Latin-1 text is read in the encoding a detector names.
    readable = {name for name in sources if Path(name).read_bytes().strip()}
    readable.add(str(folder / "latin1.txt"))

    # A memory of its own, so the main job's answers stay as they were.
    own = {**newcomer.env, "XDG_DATA_HOME": str(tmp_path / "data")}
    tinymemory = newcomer.clone / ".venv" / "bin" / "tinymemory"
    done = subprocess.run([tinymemory, "ingest", folder, "--json"], env=own, cwd=tmp_path,
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert sorted(item["what"] for item in report["items"]) == sorted(every)
    stored = {item["what"] for item in report["items"] if item["status"] == "stored"}
    assert stored == readable
    skipped = {skip["what"]: skip["reason"] for skip in report["skipped"]}
    assert set(skipped) == every - readable
    assert "encrypted" in skipped[str(folder / "locked.pdf")]
    assert "unsafe name" in skipped[str(folder / "hostile.docx")]
    assert "not a readable zip package" in skipped[str(folder / "truncated.pptx")]
    assert (report["stored"], report["complete"]) == (len(readable), True)

    again = subprocess.run([tinymemory, "ingest", "project"], env=own, cwd=tmp_path,
                           capture_output=True, text=True, check=False)  # fmt: skip
    assert again.returncode == 0, again.stderr
    lines = again.stdout.splitlines()
    for name, reason in skipped.items():
        assert f"skipped   {Path(name).relative_to(tmp_path)}: {reason}" in lines
    assert lines[-1] == (
        f"ingested {len(readable)} items from project: 0 stored, {len(readable)} replayed, "
        f"{len(skipped)} skipped"
    )
