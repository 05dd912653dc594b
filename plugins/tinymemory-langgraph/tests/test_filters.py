"""LangGraph's search filter, applied exactly: each operator at its bound, then properties."""

from __future__ import annotations

import operator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tinymemory_langgraph.filters import check_filter, matches

VALUE = {"n": 3, "f": 2.5, "s": "m", "flag": True, "tags": ["a", "b"], "doc": {"x": {"y": 1}}}


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ({"n": 3}, True),
        ({"n": 3.0}, True),
        ({"n": {"$eq": 3}}, True),
        ({"n": {"$gt": 3}}, False),
        ({"n": {"$gte": 3}}, True),
        ({"n": {"$lt": 3}}, False),
        ({"n": {"$lte": 3}}, True),
        ({"n": {"$gt": 2, "$lt": 4}}, True),
        ({"n": {"$gt": 2, "$lt": 3}}, False),
        ({"n": {"$ne": 3}}, False),
        ({"f": {"$gt": 2.49}}, True),
        ({"s": {"$gt": "l", "$lt": "n"}}, True),
        ({"s": {"$gt": 1}}, False),  # a string and a number have no order
        ({"n": {"$gt": "1"}}, False),
        ({"flag": 1}, False),  # JSON's true is not 1
        ({"flag": True}, True),
        ({"flag": {"$gt": 0}}, False),
        ({"tags": ["a", "b"]}, True),
        ({"tags": ["a"]}, False),
        ({"doc": {"x": {"y": 1}}}, True),  # nested keys, as nested dicts
        ({"doc": {"x": {"y": {"$gte": 1}}}}, True),
        ({"doc": {"x": {"y": 2}}}, False),
        ({"missing": None}, False),
        ({"missing": {"$ne": 1}}, True),
        ({"missing": {"$eq": None}}, False),
        ({"missing": {"$lt": 1}}, False),
        ({"n": 3, "s": "z"}, False),  # every condition must hold
        ({}, True),
    ],
)
def test_each_condition_at_its_bound(condition: dict[str, Any], expected: bool) -> None:
    assert matches(VALUE, condition) is expected


def test_no_filter_admits_everything() -> None:
    assert matches(VALUE, None)


@pytest.mark.parametrize("bad", [{"n": {"$in": [1]}}, {"doc": {"x": {"$regex": "a"}}}, ["n"]])
def test_an_unknown_operator_or_a_filter_not_a_mapping_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match=r"operator|mapping"):
        check_filter(bad)


ORDERS = {"$gt": operator.gt, "$gte": operator.ge, "$lt": operator.lt, "$lte": operator.le}
numbers = st.one_of(st.integers(-5, 5), st.floats(-5, 5, allow_nan=False))


@given(numbers, st.sampled_from(sorted(ORDERS)), numbers)
def test_an_order_operator_on_numbers_is_the_numeric_order(
    found: float, name: str, wanted: float
) -> None:
    assert matches({"v": found}, {"v": {name: wanted}}) is ORDERS[name](found, wanted)


@given(st.text(max_size=3), st.sampled_from(sorted(ORDERS)), st.text(max_size=3))
def test_an_order_operator_on_strings_is_the_string_order(
    found: str, name: str, wanted: str
) -> None:
    assert matches({"v": found}, {"v": {name: wanted}}) is ORDERS[name](found, wanted)


@given(numbers, numbers)
def test_ne_is_the_negation_of_eq(found: float, wanted: float) -> None:
    assert matches({"v": found}, {"v": {"$ne": wanted}}) is not matches({"v": found}, {"v": wanted})
