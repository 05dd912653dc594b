"""Without Chromium or ChromeDriver the browser tests fail, naming what installs them."""

from __future__ import annotations

from pathlib import Path

import pytest

from . import browser_harness
from .browser_harness import BrowserMissing, chromium


@pytest.mark.parametrize(
    ("name", "package"), [("CHROMIUM", "chromium"), ("CHROMEDRIVER", "chromium-driver")]
)
def test_a_missing_browser_program_is_an_error_naming_ci_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, package: str
) -> None:
    missing = tmp_path / "not-installed"
    monkeypatch.setattr(browser_harness, name, missing)
    with pytest.raises(BrowserMissing) as raised:
        chromium(tmp_path / "profile", tmp_path / "downloads")
    message = str(raised.value)
    assert str(missing) in message
    assert "`.ci/run` installs them" in message
    assert f"`{package}`" in message
