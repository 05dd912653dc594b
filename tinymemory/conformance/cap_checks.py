"""The caps on a request, each at its bound and one past it (docs/contract.md, "Caps on a request").

At the cap the engine must serve the request, and serve it right where the
answer is known (a filter value at its cap still finds the item holding it);
one past the cap the request is refused with ``InvalidRequest`` naming the
cap's rule id, before the engine sees it. Every text at or past a byte cap is
made of two-byte letters, so a count of characters instead of bytes fails.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tinymemory._errors import InvalidRequest
from tinymemory._items import Learning
from tinymemory._limits import (
    MAX_CURSOR_BYTES,
    MAX_FILTER_TAGS,
    MAX_FILTER_VALUE_BYTES,
    MAX_FORGET_IDS,
    MAX_ID_BYTES,
    MAX_INSTRUCTIONS_BYTES,
    MAX_KINDS,
    MAX_QUERY_BYTES,
    MAX_QUESTION_BYTES,
    MAX_SOURCES,
)
from tinymemory._namespace import MAX_DEPTH, MAX_SEGMENT_ID, Namespace, Reach
from tinymemory._operations import (
    MAX_BUCKETS,
    MAX_GET_IDS,
    MAX_SCAN_LIMIT,
    ExploreRequest,
    Facet,
    FetchMode,
    FetchRequest,
    ForgetTarget,
    GetRequest,
    Hit,
    ListRequest,
    RecallRequest,
)

from .harness import Harness, Subject

#: A letter of two UTF-8 bytes, so a text at a byte cap holds fewer characters than the cap.
_WIDE = "é"


def sized(size: int, head: str = "") -> str:
    """A text of exactly ``size`` UTF-8 bytes: ``head``, a space, then words of two-byte letters."""
    text = f"{head} " if head else ""
    word = _WIDE * 7 + " "  # 15 bytes
    body_bytes = size - len(text.encode("utf-8"))
    words, rest = divmod(body_bytes, len(word.encode("utf-8")))
    text += word * words + "a" * rest
    assert len(text.encode("utf-8")) == size
    return text


def expect_cap(h: Harness, rule: str, at: Callable[[], object], past: Callable[[], object]) -> None:
    """``at`` (a call at the cap) is served; ``past`` (one past it) is refused naming ``rule``."""
    __tracebackhide__ = True  # pytest shows the failure, not the suite's frames
    h.call(f"{rule}: a request at the cap", at)
    refused_naming(h, rule, past)


def refused_naming(h: Harness, rule: str, past: Callable[[], object]) -> None:
    """``past`` is refused with ``InvalidRequest`` whose message names ``rule``."""
    __tracebackhide__ = True  # pytest shows the failure, not the suite's frames
    label = f"{rule}: a request one past the cap"
    wanted = f"InvalidRequest naming {rule}"
    try:
        answer = past()
    except InvalidRequest as error:
        h.expect(rule in error.message, label, wanted, error.message)
        return
    except Exception as error:
        h.fail(label, wanted, f"{type(error).__name__}: {error}")
    h.fail(label, wanted, f"an answer: {answer!r}")


def expect_ids(h: Harness, label: str, read: Callable[[], Sequence[Hit]], wanted: str) -> None:
    """``read`` is served and returns exactly the stored item ``wanted``."""
    __tracebackhide__ = True  # pytest shows the failure, not the suite's frames
    ids = [hit.id for hit in h.call(label, read)]
    h.expect(ids == [wanted], label, h.names([wanted]), h.names(ids))


def check_caps(subject: Subject) -> None:
    """Each cap on a request, at its bound and one past it: question, query, instructions,
    cursor, filter value, tags_any, kinds, sources, get and forget ids, id length, namespace
    depth and segment length, explore limits."""
    with subject.session("caps") as h:
        tag = f"{h.marker}-capped"
        wide_tag = sized(MAX_FILTER_VALUE_BYTES, tag)
        folder = "/" + sized(MAX_FILTER_VALUE_BYTES - 1, h.marker)
        meta = h.meta(tags=(tag, wide_tag), folder=folder)
        stored = h.store(Learning(text=f"{h.marker} holds the caps", meta=meta), "capped").id
        _texts(h)
        _filters(h, stored, tag, wide_tag, folder)
        _ids(h, stored)
        _nodes(h)


def _texts(h: Harness) -> None:
    e, run = h.engine, h.run_filter()
    question = sized(MAX_QUESTION_BYTES, h.marker)
    expect_cap(
        h,
        "cap-question-length",
        lambda: e.recall(RecallRequest(question=question, filter=run)),
        lambda: e.recall(RecallRequest(question=question + "a", filter=run)),
    )
    instructions = sized(MAX_INSTRUCTIONS_BYTES)
    expect_cap(
        h,
        "cap-instructions-length",
        lambda: e.recall(RecallRequest(question=h.marker, instructions=instructions)),
        lambda: e.recall(RecallRequest(question=h.marker, instructions=instructions + "a")),
    )
    query = sized(MAX_QUERY_BYTES, h.marker)
    for mode in e.descriptor.fetch_modes:

        def fetched(text: str, mode: FetchMode = mode) -> Callable[[], object]:
            return lambda: e.fetch(FetchRequest(query=text, mode=mode, filter=run))

        expect_cap(h, "cap-query-length", fetched(query), fetched(query + "a"))
    # A cursor at the cap was never issued: the engine may refuse it, but not for its size.
    cursor = "A" * MAX_CURSOR_BYTES
    label = "cap-cursor-length: a cursor at the cap"
    try:
        e.list(ListRequest(filter=run, cursor=cursor))
    except InvalidRequest as error:
        wanted = "served, or refused as a cursor the engine did not issue"
        h.expect("cap-cursor-length" not in error.message, label, wanted, error.message)
    except Exception as error:
        h.fail(label, "served, or InvalidRequest", f"{type(error).__name__}: {error}")
    refused_naming(h, "cap-cursor-length", lambda: ListRequest(filter=run, cursor=cursor + "A"))


def _filters(h: Harness, stored: str, tag: str, wide_tag: str, folder: str) -> None:
    e = h.engine

    def listed(**fields: Any) -> Callable[[], Sequence[Hit]]:
        return lambda: e.list(ListRequest(filter=h.run_filter(**fields))).items

    value = "cap-filter-value-length"
    expect_ids(h, f"{value}: a folder at the cap", listed(folder=folder), stored)
    expect_ids(h, f"{value}: a tag at the cap", listed(tags_any=[wide_tag]), stored)
    refused_naming(h, value, listed(folder=folder + "a"))
    refused_naming(h, value, listed(tags_any=[wide_tag + "a"]))
    others = [f"{h.marker}-other-{n}" for n in range(MAX_FILTER_TAGS)]
    expect_ids(h, "cap-tags-any: at the cap", listed(tags_any=[*others[1:], tag]), stored)
    refused_naming(h, "cap-tags-any", listed(tags_any=[*others, tag]))
    expect_ids(h, "cap-kinds: at the cap", listed(kinds=["learning"] * MAX_KINDS), stored)
    refused_naming(h, "cap-kinds", listed(kinds=["learning"] * (MAX_KINDS + 1)))
    expect_ids(h, "cap-sources: at the cap", listed(sources=["agent"] * MAX_SOURCES), stored)
    refused_naming(h, "cap-sources", listed(sources=["agent"] * (MAX_SOURCES + 1)))


def _ids(h: Harness, stored: str) -> None:
    e = h.engine
    unknown = [f"{h.marker}{n:032x}" for n in range(MAX_FORGET_IDS)]

    def got(ids: list[str]) -> Callable[[], Sequence[Hit]]:
        return lambda: e.get(GetRequest(ids=ids))

    expect_ids(h, "cap-get-ids: at the cap", got([*unknown[: MAX_GET_IDS - 1], stored]), stored)
    refused_naming(h, "cap-get-ids", got([*unknown[:MAX_GET_IDS], stored]))
    long_id = sized(MAX_ID_BYTES)
    expect_ids(h, "cap-id-length: an id at the cap", got([long_id, stored]), stored)
    refused_naming(h, "cap-id-length", got([long_id + "a", stored]))
    refused_naming(h, "cap-forget-ids", lambda: e.forget(ForgetTarget.by_ids([*unknown, stored])))
    label = "cap-forget-ids: at the cap"
    report = h.call(label, lambda: e.forget(ForgetTarget.by_ids([*unknown[1:], stored])))
    wanted = "1 forgotten (the forget past the cap forgot nothing)"
    h.expect(report.forgotten == 1, label, wanted, report.forgotten)


def _nodes(h: Harness) -> None:
    e, run = h.engine, h.run_filter()
    label = "explore at its limit and scan limit caps"
    request = ExploreRequest(
        facet=Facet.KIND, filter=run, limit=MAX_BUCKETS, scan_limit=MAX_SCAN_LIMIT
    )
    page = h.call(label, lambda: e.explore(request))
    h.expect(page.total == 0, label, "0 items counted (the run's item is forgotten)", page.total)
    h.refuses(
        f"explore with limit {MAX_BUCKETS + 1}",
        lambda: e.explore(ExploreRequest(facet=Facet.KIND, filter=run, limit=MAX_BUCKETS + 1)),
    )
    segments = (f"team:{n}{'x' * (MAX_SEGMENT_ID - 1)}" for n in range(MAX_DEPTH))
    deepest = Namespace.parse("/".join(segments))
    item = Learning(text=f"{h.marker} deep", meta=h.meta(namespace=deepest))
    deep = h.store(item, "deepest").id
    exact = h.run_filter(reach=Reach.exact(deepest))
    label = "cap-namespace-depth, cap-segment-length: list at the deepest node"
    expect_ids(h, label, lambda: e.list(ListRequest(filter=exact)).items, deep)
    h.refuses("cap-namespace-depth: one deeper", lambda: Namespace.parse(f"{deepest}/agent:a"))
    h.refuses(
        "cap-segment-length: an id one past the cap",
        lambda: Namespace.parse(f"team:{'x' * (MAX_SEGMENT_ID + 1)}"),
    )
