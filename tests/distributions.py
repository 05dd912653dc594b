"""Installing a distribution for a test: a dist-info folder and its modules on ``sys.path``."""

from __future__ import annotations

from pathlib import Path


def make_distribution(
    root: Path,
    name: str,
    version: str,
    entry_points: dict[str, str],
    modules: dict[str, str],
) -> None:
    """An installed distribution: a dist-info folder and its modules, in ``root``."""
    info = root / f"{name}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = "".join(f"{entry} = {target}\n" for entry, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[tinymemory]\n{lines}", encoding="utf-8")
    for module, source in modules.items():
        (root / f"{module}.py").write_text(source, encoding="utf-8")
