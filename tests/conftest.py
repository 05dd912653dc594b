"""Shared test set-up: pytester, for running pytest in a subprocess, and a configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture
def reference_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the configuration at the reference engine, with nothing from the environment."""
    file = tmp_path / "memory.toml"
    file.write_text('engine = "reference"\n', encoding="utf-8")
    monkeypatch.setenv("TINYMEMORY_CONFIG", str(file))
    for name in ("TINYMEMORY_ENGINE", "TINYMEMORY_ENDPOINT", "TINYMEMORY_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    return file
