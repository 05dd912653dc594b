"""EngineSettings: frozen all the way down, and hashable."""

from __future__ import annotations

import attrs
import pytest

from tinymemory._errors import ConfigError
from tinymemory._settings import EngineSettings


def test_options_and_headers_cannot_change_after_construction() -> None:
    table = {"path": "/tmp/x", "nested": {"list": [1, 2]}}
    settings = EngineSettings(options=table, headers={"x-team": "a"})
    table["path"] = "/elsewhere"
    assert settings.options["path"] == "/tmp/x"
    with pytest.raises(TypeError):
        settings.options["path"] = "/elsewhere"  # type: ignore[index]
    with pytest.raises(TypeError):
        settings.headers["x-team"] = "b"  # type: ignore[index]
    with pytest.raises(TypeError):
        settings.options["nested"]["list"] = []
    assert settings.options["nested"]["list"] == (1, 2)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        settings.options = {}  # type: ignore[misc]


def test_settings_hash_and_compare_by_value() -> None:
    first = EngineSettings(endpoint="https://a.example", options={"k": [1, {"x": 2}]})
    second = EngineSettings(endpoint="https://a.example", options={"k": (1, {"x": 2})})
    assert first == second
    assert hash(first) == hash(second)
    assert len({first, second, EngineSettings()}) == 2
    assert first.options == {"k": (1, {"x": 2})}
    assert attrs.evolve(first, endpoint=None).options == first.options


def test_options_must_be_a_table_of_names() -> None:
    with pytest.raises(ConfigError, match="options must be a table of names to values"):
        EngineSettings(options=[("a", 1)])  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="options must be a table"):
        EngineSettings(options={1: "a"})  # type: ignore[dict-item]
