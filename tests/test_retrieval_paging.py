"""The retrieval kit's paging: a read's filter names it in its cursor by the filter's JSON."""

from __future__ import annotations

from hypothesis import given

import tinymemory as tm
from tinymemory.conformance import strategies as tms
from tinymemory.plugin import to_json
from tinymemory.retrieval._paging import filter_json


def test_no_filter_is_named_by_its_wire_json_without_the_converter() -> None:
    assert filter_json(tm.MetaFilter()) == to_json(tm.MetaFilter())


@given(tms.meta_filters())
def test_every_filter_is_named_by_its_wire_json(meta_filter: tm.MetaFilter) -> None:
    assert filter_json(meta_filter) == to_json(meta_filter)
