"""Choosing an embedder by name (``embedder_named``), the identity a memory records of it
(``embedder_identity``), listing embedders without running their attributes, the default
embedder (``default_embedder``) and the one a memory filled by another keeps
(``memory_embedder``)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import pytest

import tinymemory as tm
from tinymemory.plugin import (
    default_embedder,
    embedder_identity,
    embedder_named,
    embedders,
    hookimpl,
    memory_embedder,
)
from tinymemory.testing import registered


class Lazy:
    """An embedder whose size is known only once its model loads (here: never)."""

    name = "lazy"
    loads = 0

    @property
    def dimensions(self) -> int:
        Lazy.loads += 1
        raise tm.ConfigError("the lazy model is not configured")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("never embedded here")


class Named:
    name = "named"
    dimensions = 8
    identity = "named:model-a:8"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0] * 8 for _ in texts]


class Plugin:
    @hookimpl
    def tinymemory_embedders(self) -> list[object]:
        return [Lazy(), Named()]


def test_listing_and_choosing_run_no_attribute() -> None:
    Lazy.loads = 0
    with registered(Plugin(), name="lazy-plugin"):
        assert {"hashing", "lazy", "named"} <= set(embedders())
        assert embedder_named("lazy").name == "lazy"
        assert Lazy.loads == 0
        with pytest.raises(tm.ConfigError, match="not configured"):
            embedder_identity(embedder_named("lazy"))


def test_identity_is_the_embedders_own_else_its_name_and_size() -> None:
    assert embedder_identity(Named()) == "named:model-a:8"
    assert embedder_identity(embedder_named("hashing")) == "hashing:256"

    class Blank(Named):
        identity = ""

    with pytest.raises(tm.ConfigError, match="invalid identity"):
        embedder_identity(Blank())


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("nope", "no embedder named `nope`"),
        ("", "an embedder's name"),
        (None, "an embedder's name"),
        (3, "an embedder's name"),
    ],
)
def test_an_unknown_name_is_a_config_error_listing_the_installed(name: object, said: str) -> None:
    with pytest.raises(tm.ConfigError, match=rf"{said}.* \(installed: .*hashing"):
        embedder_named(name)


def test_something_that_is_no_embedder_is_refused() -> None:
    class NoEmbed:
        name = "broken"
        dimensions = 4

    class Offers:
        @hookimpl
        def tinymemory_embedders(self) -> list[object]:
            return [NoEmbed()]

    with registered(Offers(), name="broken-plugin"), pytest.raises(tm.ConfigError, match="NoEmbed"):
        embedders()


class NamesDefault:
    """A plugin naming ``named`` (which it offers) the default embedder."""

    @hookimpl
    def tinymemory_embedders(self) -> list[object]:
        return [Named()]

    @hookimpl
    def tinymemory_default_embedder(self) -> str:
        return "named"


class NamesOther:
    @hookimpl
    def tinymemory_default_embedder(self) -> str:
        return "hashing"


@pytest.mark.usefixtures("builtin_plugins")
def test_the_default_embedder_is_hashing_unless_a_plugin_names_one() -> None:
    assert default_embedder().name == "hashing"
    with registered(NamesDefault(), name="names-default"):
        assert default_embedder().name == "named"
        with (
            registered(NamesOther(), name="names-other"),
            pytest.raises(tm.ConfigError, match=r"two plugins offer the default embedder \(.*"),
        ):
            default_embedder()


@pytest.mark.usefixtures("builtin_plugins")
def test_a_memory_filled_by_another_installed_embedder_keeps_it_and_says_so_once() -> None:
    with registered(NamesDefault(), name="names-default"):
        with pytest.warns(tm.KeptEmbedderWarning, match=r"memory `a` .* `hashing` \(hashing:256\)"):
            kept = memory_embedder("hashing", "hashing:256", "memory `a`")
        assert kept.name == "hashing"
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert memory_embedder("hashing", "hashing:256", "memory `a`").name == "hashing"
            # Filled by the default itself: nothing to say.
            assert memory_embedder("named", "named:model-a:8", "memory `b`").name == "named"
            # Filled by an embedder not installed, or of another identity: the default,
            # which refuses to mix vectors as for any other.
            assert memory_embedder("gone", "gone:8", "memory `c`").name == "named"
            assert memory_embedder("hashing", "hashing:64", "memory `d`").name == "named"
        with pytest.warns(tm.KeptEmbedderWarning, match="memory `e`"):
            memory_embedder("hashing", "hashing:256", "memory `e`")
