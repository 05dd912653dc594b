"""The caps on a request (docs/contract.md, "Caps on a request"): each at its bound, one past
it, and far past it, refused when the request is built, naming its rule, never echoing the input.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

import tinymemory as tm
from tinymemory import (
    MAX_CURSOR_BYTES,
    MAX_FILTER_TAGS,
    MAX_FILTER_VALUE_BYTES,
    MAX_FORGET_IDS,
    MAX_GET_IDS,
    MAX_ID_BYTES,
    MAX_INSTRUCTIONS_BYTES,
    MAX_KINDS,
    MAX_QUERY_BYTES,
    MAX_QUESTION_BYTES,
    MAX_SOURCES,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    InvalidRequest,
    ListRequest,
    MetaFilter,
    Namespace,
    RecallRequest,
)
from tinymemory.conformance.cap_checks import sized
from tinymemory.plugin import from_json

#: CPU seconds (``process_time``, not wall: a loaded machine's scheduler does not move it),
#: generous for a refusal that reads nothing past the cap.
REFUSAL_SECONDS = 2.0
#: An error message never carries more than this much of what it refuses.
MESSAGE_MOST = 400

# Each text cap: its rule, and the request built with a text of the given size.
TEXT_CAPS: dict[str, tuple[int, Callable[[str], object]]] = {
    "cap-question-length": (MAX_QUESTION_BYTES, lambda text: RecallRequest(question=text)),
    "cap-query-length": (MAX_QUERY_BYTES, lambda text: FetchRequest(query=text)),
    "cap-instructions-length": (
        MAX_INSTRUCTIONS_BYTES,
        lambda text: RecallRequest(question="q", instructions=text),
    ),
    "cap-cursor-length": (MAX_CURSOR_BYTES, lambda text: ListRequest(cursor=text)),
    **{
        f"cap-filter-value-length ({field})": (
            MAX_FILTER_VALUE_BYTES,
            lambda text, field=field: MetaFilter(**{field: text}),  # type: ignore[misc]
        )
        for field in (
            "workspace",
            "folder",
            "file_path",
            "language",
            "repo",
            "commit",
            "url",
            "thread_id",
            "agent_id",
            "tool_call",
            "source_id",
        )
    },
    "cap-filter-value-length (a tag)": (
        MAX_FILTER_VALUE_BYTES,
        lambda text: MetaFilter(tags_any=["a", text]),
    ),
    "cap-id-length (get)": (MAX_ID_BYTES, lambda text: GetRequest(ids=["a", text])),
    "cap-id-length (forget)": (MAX_ID_BYTES, lambda text: ForgetTarget.by_ids(["a", text])),
}

# Each list cap: its rule, and the request built with a list of the given entries.
LIST_CAPS: dict[str, tuple[int, str, Callable[[Iterator[str]], object]]] = {
    "cap-tags-any": (MAX_FILTER_TAGS, "t", lambda tags: MetaFilter(tags_any=tags)),
    "cap-kinds": (MAX_KINDS, "learning", lambda kinds: MetaFilter(kinds=kinds)),
    "cap-kinds (erase)": (
        MAX_KINDS,
        "learning",
        lambda kinds: tm.EraseRequest(reach=tm.Reach.exact(Namespace.ROOT), kinds=kinds),
    ),
    "cap-sources": (MAX_SOURCES, "agent", lambda sources: MetaFilter(sources=sources)),
    "cap-get-ids": (MAX_GET_IDS, "id", lambda ids: GetRequest(ids=ids)),
    "cap-forget-ids": (MAX_FORGET_IDS, "id", lambda ids: ForgetTarget.by_ids(ids)),
}


def rule_of(name: str) -> str:
    return name.split(" ")[0]


def refused(build: Callable[[], object], rule: str) -> str:
    """Build a request that must be refused at once naming ``rule``; the message."""
    started = time.process_time()
    with pytest.raises(InvalidRequest) as caught:
        build()
    elapsed = time.process_time() - started
    message = caught.value.message
    assert f"({rule})" in message
    assert len(message) < MESSAGE_MOST
    assert elapsed < REFUSAL_SECONDS
    return message


@pytest.mark.parametrize("name", list(TEXT_CAPS))
def test_a_text_at_its_cap_is_taken_and_one_byte_more_refused(name: str) -> None:
    cap, build = TEXT_CAPS[name]
    at_cap = sized(cap, "x")
    assert len(at_cap) < cap  # two-byte letters: a count of characters would let it pass
    build(at_cap)
    field = "`" if "tag" in name or "id-length" in name else ""
    message = refused(lambda: build(at_cap + "a"), rule_of(name))
    assert f"must be at most {cap} bytes of utf-8" in message
    assert field in message


@pytest.mark.parametrize("name", list(TEXT_CAPS))
@pytest.mark.parametrize("megabytes", [1, 50])
def test_a_huge_text_is_refused_at_once_and_not_echoed(name: str, megabytes: int) -> None:
    _, build = TEXT_CAPS[name]
    huge = "q" * (megabytes * 1024 * 1024)
    message = refused(lambda: build(huge), rule_of(name))
    assert "qqqqqqqqqq" not in message


@pytest.mark.parametrize("name", list(LIST_CAPS))
def test_a_list_at_its_cap_is_taken_and_one_entry_more_refused(name: str) -> None:
    cap, entry, build = LIST_CAPS[name]
    build(iter([entry] * cap))
    message = refused(lambda: build(iter([entry] * (cap + 1))), rule_of(name))
    assert message.endswith(f"holds at most {cap} entries ({rule_of(name)})")


@pytest.mark.parametrize("name", list(LIST_CAPS))
def test_a_list_is_read_no_further_than_one_past_its_cap(name: str) -> None:
    cap, entry, build = LIST_CAPS[name]
    read = []

    def endless() -> Iterator[str]:
        while True:
            read.append(entry)
            yield entry

    refused(lambda: build(endless()), rule_of(name))
    assert len(read) == cap + 1


def test_a_million_tags_are_refused_at_once() -> None:
    tags = [f"tag{n}" for n in range(1_000_000)]
    refused(lambda: MetaFilter(tags_any=tags), "cap-tags-any")


def test_a_cap_holds_through_the_json_form() -> None:
    question = "q" * (MAX_QUESTION_BYTES + 1)
    with pytest.raises(InvalidRequest, match=r"\(cap-question-length\)") as caught:
        from_json(f'{{"question": "{question}", "limit": 1}}', RecallRequest)
    assert question not in caught.value.message


def test_the_engine_is_never_called_past_a_cap() -> None:
    engine = tm.ReferenceEngine()
    with pytest.raises(InvalidRequest, match="cap-question-length"):
        engine.recall(RecallRequest(question="q" * (MAX_QUESTION_BYTES + 1)))


def test_forget_within_reads_no_more_ids_than_its_cap() -> None:
    ids = (f"id{n}" for n in range(10**12))
    with pytest.raises(InvalidRequest, match="cap-forget-ids"):
        tm.ReferenceEngine().forget_within(ids, None)


# --- namespaces: depth and segment length, and what a refusal shows --------------------


TOO_DEEP = {
    "a path nesting millions deep": "team:a/" * 5_000_000 + "team:a",
    "ten million slashes": "/" * (10 * 1024 * 1024),
}
NOT_ECHOED = {
    "a huge id": "team:" + "x" * (10 * 1024 * 1024),
    "a huge kind": "x" * (10 * 1024 * 1024) + ":a",
    "a huge part without a colon": "x" * (10 * 1024 * 1024),
    "a huge second part": "team:a/" + "é" * (10 * 1024 * 1024),
}


@pytest.mark.parametrize("name", list(TOO_DEEP))
def test_a_path_deeper_than_the_cap_is_refused_before_it_is_split(name: str) -> None:
    text = TOO_DEEP[name]
    started = time.process_time()
    with pytest.raises(
        InvalidRequest, match=r"^invalid request: a namespace nests at most 8 deep$"
    ):
        Namespace.parse(text)
    assert time.process_time() - started < REFUSAL_SECONDS


@pytest.mark.parametrize("name", list(NOT_ECHOED))
def test_a_refused_namespace_is_not_echoed(name: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        Namespace.parse(NOT_ECHOED[name])
    assert len(caught.value.message) < MESSAGE_MOST


def test_a_refused_choice_is_not_echoed() -> None:
    with pytest.raises(InvalidRequest) as caught:
        MetaFilter(kinds=["k" * (10 * 1024 * 1024)])
    assert len(caught.value.message) < MESSAGE_MOST
    assert "is not an item kind" in caught.value.message
