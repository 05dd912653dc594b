"""``tinymemory new-plugin NAME``: write the engine plugin package an author starts from.

The package, ``tinymemory-NAME/``, is rendered from the ``*.tmpl`` files of
``plugin_template/`` (package data of the core): a small dictionary-backed
engine that passes the whole conformance suite, the entry point naming its
hook, a conformance test, a README and a tox.ini. The tox.ini installs
tinymemory from the folder the running one was installed from, so it works
before any release.
"""

from __future__ import annotations

import json
import re
import shutil
import string
import tempfile
from collections.abc import Iterator
from importlib import metadata, resources
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlparse

import click

from tinymemory._errors import InvalidRequest
from tinymemory._registry import list_engines

#: A plugin name: lowercase letters and digits in words joined by single hyphens.
NAME = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
MAX_NAME = 20
#: The folder name standing for the import name in the template's paths.
PACKAGE_FOLDER = "PACKAGE"


def plugin_names(name: str) -> dict[str, str]:
    """What the template fills in for the plugin ``name``; ``InvalidRequest`` for a bad one.

    ``name`` is the engine id and the entry point's name; the distribution is
    ``tinymemory-NAME`` and the import name ``tinymemory_NAME`` (hyphens as
    underscores). A name an installed engine already has is refused: both
    would offer one engine id.
    """
    if len(name) > MAX_NAME or not NAME.fullmatch(name):
        raise InvalidRequest(
            f"`{name}` is not a plugin name: use lowercase letters, digits and single "
            f"hyphens, starting with a letter, at most {MAX_NAME} characters "
            "(e.g. `myengine`, `team-notes`)"
        )
    if name in {descriptor.id for descriptor in list_engines()}:
        raise InvalidRequest(f"an installed engine is already called `{name}`: choose another name")
    return {
        "name": name,
        "label": name.replace("-", " ").capitalize(),
        "distribution": f"tinymemory-{name}",
        "package": f"tinymemory_{name.replace('-', '_')}",
        "class_name": "".join(part.capitalize() for part in name.split("-")) + "Engine",
        "tinymemory_version": metadata.version("tinymemory"),
        "tinymemory_requirement": tinymemory_requirement(_direct_url()),
    }


def tinymemory_requirement(direct_url: str | None) -> str:
    """The requirement the plugin's tox.ini installs tinymemory by.

    ``direct_url`` is the PEP 610 ``direct_url.json`` of the installed
    tinymemory. Installed from a local folder (``pip install .`` or ``-e .``
    in a checkout), that folder, so the plugin's tests run before any release;
    otherwise (a release, or a wheel since removed) the package index's.
    """
    try:
        data = json.loads(direct_url) if direct_url else {}
    except ValueError:  # not pip's writing: nothing to go by
        data = {}
    url = data.get("url", "")
    if (
        "dir_info" in data
        and url.startswith("file://")
        and Path(unquote(urlparse(url).path)).is_dir()
    ):
        return f"tinymemory[conformance] @ {url}"
    return "tinymemory[conformance]"


def _direct_url() -> str | None:
    return metadata.distribution("tinymemory").read_text("direct_url.json")


def render(names: dict[str, str]) -> dict[PurePosixPath, str]:
    """Every file of the package, by its path inside ``tinymemory-NAME/``."""
    files = {}
    for parts, source in _template_files(
        resources.files("tinymemory") / "_cli" / "plugin_template"
    ):
        path = [names["package"] if part == PACKAGE_FOLDER else part for part in parts]
        path[-1] = path[-1].removesuffix(".tmpl")
        if path[-1] == "gitignore":  # package data leaves dot files out
            path[-1] = ".gitignore"
        text = source.read_text(encoding="utf-8")
        files[PurePosixPath(*path)] = string.Template(text).substitute(names)
    return files


def _template_files(folder: Traversable) -> Iterator[tuple[list[str], Traversable]]:
    for entry in sorted(folder.iterdir(), key=lambda entry: entry.name):
        if entry.is_dir():
            for parts, source in _template_files(entry):
                yield [entry.name, *parts], source
        elif entry.name.endswith(".tmpl"):
            yield [entry.name], entry


def write_plugin(names: dict[str, str], parent: Path) -> tuple[Path, list[PurePosixPath]]:
    """Write ``parent/tinymemory-NAME/`` (``names`` from :func:`plugin_names`).

    Returns the folder and the files written in it. Refused with
    ``InvalidRequest``, before anything is written, for a ``parent`` that is
    not a folder or a ``tinymemory-NAME`` that exists and is not an empty
    folder (nothing is ever overwritten). The package is written aside and
    renamed into place once complete.
    """
    if not parent.is_dir():
        raise InvalidRequest(f"{parent} is not a folder")
    target = parent / names["distribution"]
    if target.exists() and not (target.is_dir() and not any(target.iterdir())):
        raise InvalidRequest(f"{target} already exists: nothing written (remove it, or use --dir)")
    files = render(names)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=parent))
    try:
        built = staging / target.name
        for relative, text in files.items():
            path = built.joinpath(*relative.parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        built.rename(target)
    finally:
        shutil.rmtree(staging)
    return target, sorted(files)


@click.command("new-plugin")
@click.argument("name")
@click.option(
    "--dir",
    "parent",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path(),
    show_default=True,
    help="The folder to write tinymemory-NAME/ in.",
)
def new_plugin_command(name: str, parent: Path) -> None:
    """Write tinymemory-NAME/, an engine plugin that passes the conformance suite.

    NAME is the engine's id (lowercase letters, digits and hyphens). The
    package holds a dictionary-backed engine, its entry point, a conformance
    test and a tox.ini that installs tinymemory from where this one came
    from. An existing tinymemory-NAME that is not an empty folder is refused.
    """
    names = plugin_names(name)
    target, written = write_plugin(names, parent)
    click.echo(f"wrote {target}/, the engine plugin `{name}`:")
    for path in written:
        click.echo(f"  {path}")
    click.echo(f"its tox.ini installs {names['tinymemory_requirement']}")
    click.echo("next:")
    click.echo(f"  cd {target}")
    click.echo("  pip install tox   # once, when `tox` is not installed yet")
    click.echo("  tox               # its tests and the whole conformance suite, in a fresh venv")
    click.echo(f"  pip install -e .  # then `tinymemory engines` lists `{name}`")
