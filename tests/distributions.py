"""Installing a distribution for a test: a dist-info folder and its modules on ``sys.path``."""

from __future__ import annotations

from pathlib import Path


def make_distribution(
    root: Path,
    name: str,
    version: str,
    entry_points: dict[str, str],
    modules: dict[str, str],
    declared: dict[str, dict[str, str]] | None = None,
    summary: str | None = None,
) -> None:
    """An installed distribution: a dist-info folder and its modules, in ``root``.

    ``entry_points`` is the ``tinymemory`` group; ``declared`` other groups by
    name (``tinymemory.engines``: what the plugin declares it offers).
    """
    info = root / f"{name}-{version}.dist-info"
    info.mkdir()
    described = f"Summary: {summary}\n" if summary else ""
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n{described}", encoding="utf-8"
    )
    groups = {"tinymemory": entry_points, **(declared or {})}
    text = "".join(
        f"[{group}]\n" + "".join(f"{entry} = {target}\n" for entry, target in entries.items())
        for group, entries in groups.items()
    )
    (info / "entry_points.txt").write_text(text, encoding="utf-8")
    for module, source in modules.items():
        (root / f"{module}.py").write_text(source, encoding="utf-8")


#: A third-party plugin as a distribution ships it: two converters claiming the
#: same data, a reader, two scrubbers whose order matters, and an engine
#: ``shared`` whose every build stores into one reference engine (``STORED``),
#: so a test reads what any store path left there. It imports only
#: ``tinymemory`` and ``tinymemory.plugin``, as every plugin must.
INGESTING_PLUGIN = '''
"""Converters, a reader, scrubbers and a shared engine, from an installed distribution."""

import tinymemory as tm
from tinymemory.plugin import EngineFactory, EngineWrapper, hookimpl, map_texts

STORED = tm.ReferenceEngine()
DESCRIPTOR = tm.EngineDescriptor(
    id="shared",
    label="Shared",
    description="Every build stores into one reference engine.",
    fetch_modes=["keyword"],
)


class Convert:
    def __init__(self, name, priority):
        self.name = name
        self.priority = priority

    def sniff(self, data, name, mime):
        return data.startswith(b"LOUD:")

    def convert(self, data, name, mime):
        text = data[len(b"LOUD:"):].decode("utf-8")
        return tm.Document(title=f"by {self.name}", body=f"{self.name} read: {text}")


class Lines:
    name = "lines"

    def read(self, context):
        for line in context.options["text"].splitlines():
            yield tm.Learning(text=line, evidence=f"said: {line}")


class Replace:
    def __init__(self, name, priority, old, new):
        self.name = name
        self.priority = priority
        self.old = old
        self.new = new

    def scrub(self, item):
        return map_texts(item, lambda text: text.replace(self.old, self.new))


@hookimpl
def tinymemory_engines():
    return [EngineFactory(descriptor=DESCRIPTOR, build=build)]


class Shared(EngineWrapper):
    """STORED as every build gets it: closing a build leaves STORED open."""

    def close(self):
        return


def build(settings, credential):
    return Shared(STORED)


@hookimpl
def tinymemory_document_converters():
    # By name "a-quiet" would be asked first; its priority puts it after "upper".
    return [Convert("a-quiet", 20), Convert("upper", 10)]


@hookimpl
def tinymemory_source_readers():
    return [Lines()]


@hookimpl
def tinymemory_scrubbers():
    # "unmask" must run before "mask" (by name it would run after): it turns
    # the spelled-out secret into the plain one, which "mask" then hides.
    return [Replace("mask", 0, "hunter2", "[MASKED]"), Replace("unmask", -5, "h*nter2", "hunter2")]
'''


def install_ingesting_plugin(site: Path) -> str:
    """Install :data:`INGESTING_PLUGIN` into ``site``; its plugin name."""
    make_distribution(
        site,
        "ingesting",
        "0.1",
        {"ingesting": "ingesting_mod"},
        {"ingesting_mod": INGESTING_PLUGIN},
    )
    return "ingesting"
