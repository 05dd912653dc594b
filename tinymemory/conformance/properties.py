"""Property checks over the public strategies: any item reads back whole, and
any filter admits exactly what the contract's matching rules admit.

Each Hypothesis example gets a fresh engine from the factory; a failure
carries Hypothesis' minimal example in its notes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any

import attrs
from hypothesis import HealthCheck, Phase, given, reporting, settings
from hypothesis import strategies as st

from tinymemory._items import StoreItem
from tinymemory._meta import MetaFilter
from tinymemory._namespace import Reach
from tinymemory._operations import ExploreRequest, Facet, FetchRequest, ForgetTarget
from tinymemory._wire import to_json

from . import strategies as tms
from .harness import Subject
from .item_checks import expect_hit
from .profiles import SHRINK_SECONDS


def example_settings(examples: int) -> settings:
    """Hypothesis settings for engine checks: no deadline (engines do I/O), no example database,
    and no explain phase (it reruns the failure many times over, for little a reader needs)."""
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
        ],
        print_blob=False,
    )


@contextmanager
def bounded_shrinking(seconds: int = SHRINK_SECONDS) -> Iterator[None]:
    """Let Hypothesis shrink a failure for ``seconds`` at most while the block runs.

    Hypothesis has no setting for it: its engine module holds the cap (five
    minutes), which is lowered here and put back afterwards. A release
    without that cap is left as it is.
    """
    from hypothesis.internal.conjecture import engine

    cap = getattr(engine, "MAX_SHRINKING_SECONDS", None)
    if cap is None:
        yield
        return
    engine.MAX_SHRINKING_SECONDS = seconds
    outer = reporting.current_reporter()

    def report(text: object) -> None:
        # Hypothesis' warning on reaching its cap asks for a bug report: not so here.
        if "PLEASE REPORT THIS" not in str(text):
            outer(text)

    try:
        with reporting.with_reporter(report):
            yield
    finally:
        engine.MAX_SHRINKING_SECONDS = cap


def check_stored_items_read_back(subject: Subject) -> None:
    """Any valid item is stored under its fingerprint, read back whole, and replayed."""

    @example_settings(subject.profile.property_examples)
    @given(drawn=tms.store_items(), later=tms.timestamps())
    def read_back(drawn: StoreItem, later: datetime) -> None:
        with subject.session("stored_items_read_back") as h:
            item = h.in_run(drawn)
            receipt = h.store(item, "the drawn item")
            h.expect(not receipt.replayed, "store(the drawn item)", "a first store", "a replay")
            reach = Reach.exact(item.meta.namespace)
            filter = h.run_filter(reach=reach)
            listed = h.listed(filter)
            call = f"list {to_json(filter)}"
            h.expect([hit.id for hit in listed] == [receipt.id], call, "the item", h.hits(listed))
            expect_hit(h, call, listed[0], item)
            got = h.get([receipt.id], reach)
            call = f"get([the drawn item], {reach})"
            h.expect([hit.id for hit in got] == [receipt.id], call, "the item", h.hits(got))
            expect_hit(h, call, got[0], item)
            seen_later = item.with_meta(attrs.evolve(item.meta, observed_at=later))
            again = h.store(seen_later, "the item seen later")
            h.expect(again.replayed, "store(the item seen later)", "a replay", "a first store")
            h.expect(again.id == receipt.id, "store(the item seen later)", receipt.id, again.id)
            exported = h.exported(filter)
            if exported is not None:
                items = [entry.item for entry in exported]
                h.expect(items == [item], f"export {to_json(filter)}", to_json(item), repr(items))

    with bounded_shrinking():
        read_back()


@st.composite
def _filter_admitting(draw: st.DrawFn, item: StoreItem) -> MetaFilter:
    """A filter built from one or two of ``item``'s own values, so it admits the item."""
    meta = item.meta
    choices: dict[str, Any] = {
        "kinds": [item.item_kind],
        "sources": [meta.source.kind],
        "reach": draw(
            st.sampled_from(
                [
                    Reach.of(meta.namespace),
                    Reach.exact(meta.namespace),
                    Reach.subtree(meta.namespace),
                ]
            )
        ),
    }
    for name in ("folder", "file_path", "language", "repo", "commit", "url", "thread_id"):
        if getattr(meta, name) is not None:
            choices[name] = getattr(meta, name)
    if meta.agent_id is not None:
        choices["agent_id"] = meta.agent_id
    if meta.turns is not None:
        choices["turns"] = meta.turns
    if meta.tool_call is not None:
        choices["tool_call"] = meta.tool_call.name
    if meta.source.id is not None:
        choices["source_id"] = meta.source.id
    if meta.tags:
        choices["tags_any"] = [draw(st.sampled_from(meta.tags))]
    if meta.observed_at is not None:
        choices["observed_after"] = meta.observed_at - timedelta(days=1)
        choices["observed_before"] = meta.observed_at + timedelta(seconds=1)
    names = draw(st.lists(st.sampled_from(sorted(choices)), min_size=1, max_size=2, unique=True))
    return MetaFilter(**{name: choices[name] for name in names})


def check_filters_admit_exactly(subject: Subject) -> None:
    """Any filter lists, counts, fetches and forgets exactly the items it matches."""

    @example_settings(subject.profile.property_examples)
    @given(drawn=st.lists(tms.store_items(), min_size=1, max_size=6), data=st.data())
    def admit_exactly(drawn: list[StoreItem], data: st.DataObject) -> None:
        with subject.session("filters_admit_exactly") as h:
            items = {item.fingerprint(): item for item in (h.in_run(each) for each in drawn)}
            for number, item_id in enumerate(items, 1):
                h.name(item_id, f"item {number}")
            h.store_many(list(items.values()))
            some_item = data.draw(st.sampled_from(list(items.values())), label="filtered item")
            drawn_filter = data.draw(
                _filter_admitting(some_item) | tms.meta_filters(), label="filter"
            )
            filter = attrs.evolve(drawn_filter, workspace=h.workspace)
            wanted = sorted(
                i for i, item in items.items() if filter.matches(item.item_kind, item.meta)
            )
            listed = sorted(h.listed_ids(filter))
            h.expect(listed == wanted, f"list {to_json(filter)}", h.names(wanted), h.names(listed))
            query = some_item.render_text()
            for mode in h.engine.descriptor.fetch_modes:
                request = FetchRequest(query=query, mode=mode, filter=filter, limit=50)
                stray = [hit.id for hit in h.fetch(request) if hit.id not in wanted]
                call = f"fetch {to_json(request)}"
                h.expect(not stray, call, f"hits among {h.names(wanted)}", h.names(stray))
            explore = ExploreRequest(facet=Facet.KIND, filter=filter)
            page = h.explore(explore)
            call = f"explore {to_json(explore)}"
            h.expect(page.total == len(wanted), call, f"total {len(wanted)}", page.total)
            forgotten = h.forget(ForgetTarget.by_filter(filter))
            call = f"forget {to_json(filter)}"
            h.expect(forgotten == len(wanted), call, f"{len(wanted)} forgotten", forgotten)
            for item_id, item in items.items():
                still = bool(h.get([item_id], Reach.exact(item.meta.namespace)))
                h.expect(
                    still == (item_id not in wanted),
                    f"get({h.names([item_id])}) after {call}",
                    "forgotten" if item_id in wanted else "still stored",
                    "still stored" if still else "forgotten",
                )

    with bounded_shrinking():
        admit_exactly()
