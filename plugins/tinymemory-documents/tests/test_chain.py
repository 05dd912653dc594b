"""The converters as installed: registered with their priority, asked in order, host first."""

from __future__ import annotations

import pytest
from fixture_files import text_pdf

import tinymemory as tm
from tinymemory.plugin import hookimpl
from tinymemory.testing import registered
from tinymemory_documents import NativeConverter, OfficeConverter
from tinymemory_documents.plugin import tinymemory_document_converters


class Shouting:
    """A host's converter claiming markdown files, as a plugin or passed to ``convert``."""

    name = "shouting"

    def sniff(self, data: bytes, name: str | None, mime: str | None) -> bool:
        return (name or "").endswith(".md")

    def convert(self, data: bytes, name: str | None, mime: str | None) -> tm.Document:
        return tm.Document(body=data.decode().upper(), mime="text/markdown")


def test_the_plugin_offers_both_converters_at_the_default_priority() -> None:
    offered = tinymemory_document_converters()
    assert [type(converter) for converter in offered] == [NativeConverter, OfficeConverter]
    assert [converter.priority for converter in offered] == [100, 100]  # type: ignore[attr-defined]


def test_a_hosts_plugin_converter_of_the_default_priority_is_asked_first() -> None:
    class Plugin:
        @hookimpl
        def tinymemory_document_converters(self) -> list[object]:
            return [Shouting()]

    with registered(Plugin(), "shouting"):
        with pytest.raises(tm.Unsupported) as caught:
            tm.convert(b"\x89PNG\r\n\x1a\n\x00\x00\x00", name="image.png")
        assert caught.value.message.endswith("(installed: shouting, documents, documents-office)")
        assert tm.convert(b"# quiet", name="a.md").body.text == "# QUIET"
        assert tm.convert(b"quiet", name="a.txt").body.text == "quiet"  # not claimed: ours


def test_a_converter_passed_to_convert_comes_before_every_installed_one() -> None:
    assert tm.convert(b"# quiet", name="a.md", converters=[Shouting()]).body.text == "# QUIET"


def test_a_format_nothing_claims_is_unsupported_naming_it_and_what_is_installed() -> None:
    with pytest.raises(tm.Unsupported) as caught:
        tm.convert(b"\x89PNG\r\n\x1a\n\x00\x00\x00", name="image.png")
    assert caught.value.message == (
        "`image.png` is png, which no document converter reads "
        "(installed: documents, documents-office)"
    )


def test_an_office_format_without_its_library_is_unsupported_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *rest: None if name == "pypdf" else real(name)
    )
    with pytest.raises(tm.Unsupported) as caught:
        tm.convert(text_pdf([["x"]]), name="a.pdf")
    assert caught.value.message == (
        "`a.pdf` is pdf, which needs pypdf: pip install 'tinymemory-documents[office]'"
    )


def test_a_converter_that_claims_and_fails_does_not_fall_through() -> None:
    with pytest.raises(tm.InvalidRequest, match="truncated PDF"):
        tm.convert(b"%PDF-1.4 cut short", name="cut.pdf")


def test_the_converted_document_is_ready_to_store() -> None:
    engine = tm.build_engine("reference")
    document = tm.convert(text_pdf([["stored words"]], title="Kept"), name="k.pdf")
    receipt = engine.store(document)
    (hit,) = engine.fetch(tm.FetchRequest(query="stored")).hits
    assert hit.id == receipt.id
    assert hit.text.startswith("# Kept\n\nstored words")
