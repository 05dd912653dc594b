"""The licence: Apache-2.0 in LICENSE, declared by every distribution, named in the README."""

from __future__ import annotations

import configparser
import importlib.metadata
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLASSIFIER = "License :: OSI Approved :: Apache Software License"


def test_the_licence_file_is_apache_2() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text


def test_the_core_declares_it() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    assert config["metadata"]["license"] == "Apache-2.0"
    assert config["metadata"]["license_files"] == "LICENSE"
    assert CLASSIFIER in config["metadata"]["classifiers"].split("\n")
    assert "MIT" not in (ROOT / "setup.cfg").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "project", sorted(path.parent.name for path in ROOT.glob("plugins/*/pyproject.toml"))
)
def test_every_plugin_declares_it(project: str) -> None:
    with (ROOT / "plugins" / project / "pyproject.toml").open("rb") as handle:
        declared = tomllib.load(handle)["project"]
    assert declared["license"] == {"text": "Apache-2.0"}
    assert CLASSIFIER in declared["classifiers"]


def test_the_installed_core_says_it() -> None:
    assert importlib.metadata.metadata("tinymemory")["License"] == "Apache-2.0"


def test_the_readme_names_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "[Apache License 2.0](LICENSE)" in readme
